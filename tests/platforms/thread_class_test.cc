#include "platforms/thread_class.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "common/error.h"

namespace ompscale::platforms {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<int> one_to(int max) {
  std::vector<int> counts;
  for (int t = 1; t <= max; ++t) counts.push_back(t);
  return counts;
}

TEST(ThreadClassMembership, PowerOfTwo) {
  const ThreadClass po2 = ThreadClass::po2();
  for (int t : {1, 2, 4, 8, 16, 32, 64, 128, 1 << 30}) EXPECT_TRUE(po2.contains(t)) << t;
  for (int t : {0, -2, 3, 6, 12, 24, 48, 96, 127, 129, INT_MAX}) EXPECT_FALSE(po2.contains(t)) << t;
}

TEST(ThreadClassMembership, EvenIsMultipleOf16ButNotPowerOfTwo) {
  const ThreadClass even = ThreadClass::even();
  for (int t : {48, 80, 96, 112, 144, 160}) EXPECT_TRUE(even.contains(t)) << t;
  // 16, 32, 64, 128 are multiples of 16 but belong to PO2.
  for (int t : {0, 1, 2, 8, 16, 24, 32, 40, 64, 128, 256, -48}) {
    EXPECT_FALSE(even.contains(t)) << t;
  }
}

TEST(ThreadClassMembership, OddIsSixteenXPlusEightButNotPowerOfTwo) {
  const ThreadClass odd = ThreadClass::odd();
  for (int t : {24, 40, 56, 72, 88, 104, 120, 136}) EXPECT_TRUE(odd.contains(t)) << t;
  // 8 = 16*0 + 8 is a power of two; 48 is EVEN; odd numbers are not ODD.
  for (int t : {0, 1, 3, 8, 16, 25, 32, 48, 128, -8}) EXPECT_FALSE(odd.contains(t)) << t;
}

TEST(ThreadClassMembership, MultipleOf8OverlapsThePaperClasses) {
  const ThreadClass eight_x = ThreadClass::multiple_of_8();
  for (int t : {8, 16, 24, 48, 120, 128}) EXPECT_TRUE(eight_x.contains(t)) << t;
  for (int t : {0, 1, 2, 4, 12, 20, 121, -8}) EXPECT_FALSE(eight_x.contains(t)) << t;
  EXPECT_TRUE(ThreadClass::po2().contains(8));
}

TEST(ThreadClassMembership, LinearHoldsEveryPositiveCount) {
  const ThreadClass linear = ThreadClass::linear();
  for (int t : {1, 2, 3, 61, 127, INT_MAX}) EXPECT_TRUE(linear.contains(t)) << t;
  EXPECT_FALSE(linear.contains(0));
  EXPECT_FALSE(linear.contains(-1));
}

TEST(ThreadClassMembership, PaperEdgeCasesAreInExactlyOnePaperClass) {
  EXPECT_EQ(classify(1, paper_partition()), "po2");
  EXPECT_EQ(classify(2, paper_partition()), "po2");
  EXPECT_EQ(classify(8, paper_partition()), "po2");
  EXPECT_EQ(classify(16, paper_partition()), "po2");
  EXPECT_EQ(classify(24, paper_partition()), "odd");
  EXPECT_EQ(classify(48, paper_partition()), "even");
  EXPECT_EQ(classify(128, paper_partition()), "po2");
  EXPECT_EQ(classify(3, paper_partition()), std::nullopt);
  EXPECT_EQ(classify(0, paper_partition()), std::nullopt);
  for (int t = 1; t <= 1024; ++t) {
    int memberships = 0;
    for (const ThreadClass& thread_class : paper_partition()) {
      memberships += thread_class.contains(t) ? 1 : 0;
    }
    EXPECT_LE(memberships, 1) << t;
  }
}

TEST(ThreadClassMembership, ClassifyHonoursPrecedenceOrder) {
  const std::vector<ThreadClass> eight_first = {ThreadClass::multiple_of_8(), ThreadClass::po2()};
  EXPECT_EQ(classify(8, eight_first), "8x");
  EXPECT_EQ(classify(4, eight_first), "po2");
  EXPECT_EQ(classify(5, eight_first), std::nullopt);
  EXPECT_EQ(classify(5, {}), std::nullopt);
}

TEST(ThreadCounts, PaperClassesUpTo128MatchThePaper) {
  EXPECT_THAT(ThreadClass::po2().thread_counts(128), ElementsAre(1, 2, 4, 8, 16, 32, 64, 128));
  EXPECT_THAT(ThreadClass::even().thread_counts(128), ElementsAre(48, 80, 96, 112));
  EXPECT_THAT(ThreadClass::odd().thread_counts(128), ElementsAre(24, 40, 56, 72, 88, 104, 120));
}

TEST(ThreadCounts, SweepClassesUpTo128) {
  std::vector<int> multiples_of_8;
  for (int t = 8; t <= 128; t += 8) multiples_of_8.push_back(t);
  EXPECT_EQ(ThreadClass::multiple_of_8().thread_counts(128), multiples_of_8);
  EXPECT_EQ(ThreadClass::linear().thread_counts(128), one_to(128));
}

TEST(ThreadCounts, AgreeWithContainsForEveryKind) {
  const std::vector<ThreadClass> classes = {ThreadClass::po2(),
                                            ThreadClass::even(),
                                            ThreadClass::odd(),
                                            ThreadClass::multiple_of_8(),
                                            ThreadClass::linear(),
                                            ThreadClass::list("mine", {7, 3, 300, 5}),
                                            ThreadClass::arithmetic("steps", 12, 24)};
  for (const ThreadClass& thread_class : classes) {
    for (int max : {1, 7, 8, 100, 257}) {
      std::vector<int> expected;
      for (int t = 1; t <= max; ++t) {
        if (thread_class.contains(t)) expected.push_back(t);
      }
      EXPECT_EQ(thread_class.thread_counts(max), expected) << thread_class.spec() << " " << max;
    }
  }
}

TEST(ThreadCounts, EmptyBelowOneAndBelowFirstMember) {
  EXPECT_TRUE(ThreadClass::linear().thread_counts(0).empty());
  EXPECT_TRUE(ThreadClass::po2().thread_counts(-5).empty());
  EXPECT_TRUE(ThreadClass::odd().thread_counts(23).empty());
  EXPECT_THAT(ThreadClass::po2().thread_counts(1), ElementsAre(1));
}

TEST(ThreadCounts, LargeMaximumDoesNotOverflow) {
  const std::vector<int> powers = ThreadClass::po2().thread_counts(INT_MAX);
  ASSERT_EQ(powers.size(), 31u);
  EXPECT_EQ(powers.back(), 1 << 30);
  const std::vector<int> near_limit =
      ThreadClass::arithmetic("top", INT_MAX - 10, 1000).thread_counts(INT_MAX);
  EXPECT_THAT(near_limit, ElementsAre(INT_MAX - 10));
}

TEST(UserClasses, ExplicitListIsSortedAndDeduplicated) {
  const ThreadClass mine = ThreadClass::parse("mine=7,3,5,3");
  EXPECT_EQ(mine.kind(), ThreadClass::Kind::kList);
  EXPECT_EQ(mine.name(), "mine");
  EXPECT_THAT(mine.thread_counts(100), ElementsAre(3, 5, 7));
  EXPECT_THAT(mine.thread_counts(5), ElementsAre(3, 5));
  EXPECT_TRUE(mine.contains(5));
  EXPECT_FALSE(mine.contains(4));
  EXPECT_EQ(mine.spec(), "mine=3,5,7");
}

TEST(UserClasses, ArithmeticRule) {
  const ThreadClass rule = ThreadClass::parse("Sockets=12+24k");
  EXPECT_EQ(rule.kind(), ThreadClass::Kind::kArithmetic);
  EXPECT_EQ(rule.name(), "Sockets");
  EXPECT_THAT(rule.thread_counts(100), ElementsAre(12, 36, 60, 84));
  EXPECT_TRUE(rule.contains(12));
  EXPECT_FALSE(rule.contains(24));
  EXPECT_FALSE(rule.contains(11));
  EXPECT_EQ(rule.spec(), "Sockets=12+24k");
}

TEST(UserClasses, ToleratesSpacesAndUppercaseK) {
  EXPECT_EQ(ThreadClass::parse(" mine = 3, 5 ,7 "), ThreadClass::list("mine", {3, 5, 7}));
  EXPECT_EQ(ThreadClass::parse("r=1 + 2K"), ThreadClass::arithmetic("r", 1, 2));
  EXPECT_THAT(ThreadClass::parse("single=5").thread_counts(10), ElementsAre(5));
}

TEST(Parse, BuiltInNamesAreCaseInsensitive) {
  EXPECT_EQ(ThreadClass::parse("PO2"), ThreadClass::po2());
  EXPECT_EQ(ThreadClass::parse("Even"), ThreadClass::even());
  EXPECT_EQ(ThreadClass::parse("odd"), ThreadClass::odd());
  EXPECT_EQ(ThreadClass::parse("8X"), ThreadClass::multiple_of_8());
  EXPECT_EQ(ThreadClass::parse("LINEAR"), ThreadClass::linear());
  EXPECT_EQ(ThreadClass::parse("po2").kind(), ThreadClass::Kind::kPowerOfTwo);
  EXPECT_EQ(ThreadClass::parse("8x").name(), "8x");
}

TEST(Parse, BadSpecsThrowUsageErrorListingTheAcceptedForms) {
  const std::vector<std::string> bad_specs = {"",           "   ",
                                              "po3",        "eight",
                                              "=3,5",       "mine=",
                                              "mine=0",     "mine=-3",
                                              "mine=3,,5",  "mine=3,x",
                                              "mine=3.5",   "mine=1e3",
                                              "mine=3,5,",  "r=12+24",
                                              "r=12+k",     "r=+24k",
                                              "r=0+24k",    "r=12+0k",
                                              "r=12+-2k",   "r=a+2k",
                                              "r=1+2k+3k",  "my class=3",
                                              "po2=1,2",    "ALL=3",
                                              "other=1+1k", "mine=99999999999"};
  for (const std::string& spec : bad_specs) {
    try {
      ThreadClass::parse(spec);
      ADD_FAILURE() << "no error for '" << spec << "'";
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_THAT(message, HasSubstr("po2, even, odd, 8x, linear")) << spec;
      EXPECT_THAT(message, HasSubstr("NAME=OFFSET+STEPk")) << spec;
      EXPECT_EQ(message.find('\n'), std::string::npos) << spec;
    }
  }
}

TEST(Parse, ErrorsNameTheProblem) {
  EXPECT_THROW(
      {
        try {
          ThreadClass::parse("=3,5");
        } catch (const UsageError& error) {
          EXPECT_THAT(error.what(), HasSubstr("name"));
          EXPECT_THAT(error.what(), HasSubstr("empty"));
          throw;
        }
      },
      UsageError);
  EXPECT_THROW(
      {
        try {
          ThreadClass::parse("mine=3,-4");
        } catch (const UsageError& error) {
          EXPECT_THAT(error.what(), HasSubstr("-4 is not positive"));
          throw;
        }
      },
      UsageError);
}

TEST(Factories, RejectWhatParseRejects) {
  EXPECT_THROW(ThreadClass::list("", {1}), UsageError);
  EXPECT_THROW(ThreadClass::list("mine", {}), UsageError);
  EXPECT_THROW(ThreadClass::list("mine", {3, 0}), UsageError);
  EXPECT_THROW(ThreadClass::arithmetic("r", 0, 4), UsageError);
  EXPECT_THROW(ThreadClass::arithmetic("r", 4, -1), UsageError);
  EXPECT_THROW(ThreadClass::arithmetic("even", 4, 1), UsageError);
}

TEST(Spec, RoundTripsThroughParse) {
  const std::vector<ThreadClass> classes = {ThreadClass::po2(),
                                            ThreadClass::even(),
                                            ThreadClass::odd(),
                                            ThreadClass::multiple_of_8(),
                                            ThreadClass::linear(),
                                            ThreadClass::list("mine", {9, 1, 4}),
                                            ThreadClass::list("one", {61}),
                                            ThreadClass::arithmetic("half-board", 12, 24),
                                            ThreadClass::arithmetic("all_odd.v2", 1, 2)};
  for (const ThreadClass& thread_class : classes) {
    const ThreadClass reparsed = ThreadClass::parse(thread_class.spec());
    EXPECT_EQ(reparsed, thread_class) << thread_class.spec();
    EXPECT_EQ(reparsed.spec(), thread_class.spec());
    EXPECT_EQ(reparsed.thread_counts(200), thread_class.thread_counts(200));
  }
  EXPECT_EQ(ThreadClass::po2().spec(), "po2");
  EXPECT_EQ(ThreadClass::multiple_of_8().spec(), "8x");
}

TEST(PaperPartition, IsPo2EvenOdd) {
  const std::vector<ThreadClass> partition = paper_partition();
  ASSERT_EQ(partition.size(), 3u);
  EXPECT_EQ(partition[0], ThreadClass::po2());
  EXPECT_EQ(partition[1], ThreadClass::even());
  EXPECT_EQ(partition[2], ThreadClass::odd());
}

TEST(ParseThreadCounts, ListsRangesAndClasses) {
  EXPECT_EQ(parse_thread_counts("1,2,4", 8, "--threads"), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_thread_counts("3-5", 8, "--threads"), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(parse_thread_counts("po2", 16, "--threads"), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(parse_thread_counts("8x", 24, "--threads"), (std::vector<int>{8, 16, 24}));
  EXPECT_EQ(parse_thread_counts("all", 3, "--threads"), (std::vector<int>{1, 2, 3}));
  // Unique and sorted.
  EXPECT_EQ(parse_thread_counts("2,po2", 4, "--threads"), (std::vector<int>{1, 2, 4}));
  // Explicit counts above the maximum stay: oversubscription is the caller's decision.
  EXPECT_EQ(parse_thread_counts("1,16", 2, "--threads"), (std::vector<int>{1, 16}));
}

TEST(ParseThreadCounts, RejectsMalformedSpecsWithTheAcceptedForms) {
  for (const char* bad : {"", "1,,2", "0", "5-3", "a-b", "threads", "-1"}) {
    try {
      parse_thread_counts(bad, 8, "--threads");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr("--threads '"));
      EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("\n")));
    }
  }
  try {
    parse_thread_counts("1,x", 8, "--threads");
    ADD_FAILURE() << "accepted 1,x";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown item 'x'"));
    EXPECT_THAT(e.what(), HasSubstr("expected a list like 1,2,4, a range like 1-64"));
  }
}

// A fuzzer found "1-1474836482": expanded one value at a time, it took 18 s and ended in
// std::bad_alloc before any caller could refuse it.
TEST(ParseThreadCounts, RefusesHugeCountsAndRangesBeforeExpandingThem) {
  for (const char* huge : {"1-1474836482", "65537", "2,65537", "65536-65537"}) {
    try {
      parse_thread_counts(huge, 8, "--threads");
      ADD_FAILURE() << "accepted '" << huge << "'";
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr("more than the 65536"));
    }
  }
  EXPECT_EQ(parse_thread_counts("65536", 8, "--threads"), (std::vector<int>{kMaxThreadCount}));
}

TEST(ParseThreadCounts, ZeroAndNegativeCountsSayWhereCountsStart) {
  for (const char* bad : {"0", "1,0", "-2"}) {
    try {
      parse_thread_counts(bad, 8, "--threads");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr("is not a thread count; thread counts start at 1")) << bad;
      EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("unknown item"))) << bad;
    }
  }
}

// The numbers of --threads are read by common/text.h's parser: its syntax (an optional '+'),
// and one precise message for each way a count or a range goes wrong.
TEST(ParseThreadCounts, NumbersFollowTheOneNumberSyntax) {
  EXPECT_EQ(parse_thread_counts("+2,3-+4", 8, "--threads"), (std::vector<int>{2, 3, 4}));
  const auto message = [](const char* spec) {
    try {
      parse_thread_counts(spec, 8, "--threads");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(message("1-x"), ::testing::StartsWith("--threads '1-x': bad range '1-x'; expected"));
  EXPECT_THAT(message("1- 3"), ::testing::StartsWith("--threads '1- 3': bad range '1- 3'"));
  EXPECT_THAT(message("0-3"), ::testing::StartsWith("--threads '0-3': bad range '0-3'"));
  EXPECT_EQ(
      message("99999999999"),
      "--threads '99999999999': 99999999999 threads is more than the 65536 any team can have");
  EXPECT_EQ(message("1-99999999999"),
            "--threads '1-99999999999': 99999999999 threads is more than the 65536 any team can "
            "have");
  EXPECT_THAT(message("1x"), HasSubstr("unknown item '1x'"));
}

TEST(Parse, NumbersOfAClassSayWhatIsWrongWithThem) {
  const auto message = [](const char* spec) {
    try {
      ThreadClass::parse(spec);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(message("mine=3,4x"), HasSubstr("'4x' is not an integer"));
  EXPECT_THAT(message("mine=3,99999999999"), HasSubstr("'99999999999' is too large"));
  EXPECT_THAT(message("mine=3,0"), HasSubstr("0 is not positive"));
  EXPECT_EQ(ThreadClass::parse("mine=3, 5").thread_counts(8), (std::vector<int>{3, 5}));
}

TEST(ParseThreadCounts, MessagesNameTheCallersOption) {
  try {
    parse_thread_counts("5-3", 8, "--counts");
    ADD_FAILURE() << "accepted 5-3";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), ::testing::StartsWith("--counts '5-3': bad range '5-3'"));
  }
  try {
    parse_thread_counts("even", 8, "--counts");
    ADD_FAILURE() << "even names nothing up to 8";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--counts 'even' names no thread count up to 8");
  }
}

}  // namespace
}  // namespace ompscale::platforms
