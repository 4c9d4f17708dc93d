#include "common/csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"

namespace ompscale {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Fields = std::vector<std::string>;

// The message of the InputError that reading `text` throws, or "" when it reads.
std::string read_error(std::string_view text) {
  try {
    read_csv(text, "in.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CsvReader, ReadsPlainRecordsWithTheirLines) {
  const auto records = read_csv("a,b,c\n1,2,3\n", "in.csv");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].line, 1u);
  EXPECT_THAT(records[0].fields, ElementsAre("a", "b", "c"));
  EXPECT_EQ(records[1].line, 2u);
  EXPECT_THAT(records[1].fields, ElementsAre("1", "2", "3"));
}

TEST(CsvReader, AcceptsCrlfAndAMissingFinalLineEnd) {
  const auto records = read_csv("a,b\r\n1,2\r\n3,4", "in.csv");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_THAT(records[1].fields, ElementsAre("1", "2"));
  EXPECT_THAT(records[2].fields, ElementsAre("3", "4"));
  EXPECT_EQ(records[2].line, 3u);
}

TEST(CsvReader, KeepsEmptyFields) {
  const auto records = read_csv(",x,\n,\n", "in.csv");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_THAT(records[0].fields, ElementsAre("", "x", ""));
  EXPECT_THAT(records[1].fields, ElementsAre("", ""));
}

TEST(CsvReader, UnquotesEmbeddedCommasQuotesAndNewlines) {
  const auto records =
      read_csv("name,note\n\"a,b\",\"say \"\"hi\"\"\"\n\"two\nlines\",\"\"\nlast,x\n", "in.csv");
  ASSERT_EQ(records.size(), 4u);
  EXPECT_THAT(records[1].fields, ElementsAre("a,b", "say \"hi\""));
  EXPECT_THAT(records[2].fields, ElementsAre("two\nlines", ""));
  EXPECT_EQ(records[2].line, 3u);
  EXPECT_EQ(records[3].line, 5u);  // the quoted line break counts
}

TEST(CsvReader, MixesQuotedAndPlainLines) {
  CsvReader reader("x,\"q\"\"1\",\"p\"\"2\"\ny,\"plain\"\nz,w\n", "in.csv");
  std::vector<std::string_view> fields;
  ASSERT_TRUE(reader.next(fields));
  EXPECT_THAT(fields, ElementsAre("x", "q\"1", "p\"2"));  // both unescaped into the reader
  ASSERT_TRUE(reader.next(fields));
  EXPECT_THAT(fields, ElementsAre("y", "plain"));
  ASSERT_TRUE(reader.next(fields));
  EXPECT_THAT(fields, ElementsAre("z", "w"));
  EXPECT_EQ(reader.line(), 3u);
}

TEST(CsvReader, KeepsCrlfInsideQuotes) {
  const auto records = read_csv("\"a\r\nb\"\r\nc\r\n", "in.csv");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_THAT(records[0].fields, ElementsAre("a\r\nb"));
  EXPECT_EQ(records[1].line, 3u);
}

TEST(CsvReader, SkipsByteOrderMarkAndBlankLines) {
  const auto records = read_csv("\xEF\xBB\xBFthreads\n\n4\r\n\r\n8\n\n", "in.csv");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_THAT(records[0].fields, ElementsAre("threads"));
  EXPECT_EQ(records[1].line, 3u);
  EXPECT_THAT(records[2].fields, ElementsAre("8"));
  EXPECT_EQ(records[2].line, 5u);
}

TEST(CsvReader, EmptyTextHasNoRecords) {
  EXPECT_TRUE(read_csv("", "in.csv").empty());
  EXPECT_TRUE(read_csv("\n\r\n", "in.csv").empty());
}

TEST(CsvReader, YieldsViewsRecordByRecord) {
  CsvReader reader("a,b,c\nd\n", "in.csv");
  std::vector<std::string_view> fields;
  ASSERT_TRUE(reader.next(fields));
  EXPECT_EQ(fields.size(), 3u);
  ASSERT_TRUE(reader.next(fields));
  EXPECT_THAT(fields, ElementsAre("d"));
  EXPECT_EQ(reader.line(), 2u);
  EXPECT_FALSE(reader.next(fields));
  EXPECT_TRUE(fields.empty());
}

TEST(CsvReader, UnterminatedQuoteNamesTheLineItOpensOn) {
  const std::string message = read_error("a,b\n1,\"open\n2,3\n");
  EXPECT_THAT(message, HasSubstr("in.csv:2:"));
  EXPECT_THAT(message, HasSubstr("unterminated quoted field"));
}

TEST(CsvReader, StrayQuoteInUnquotedFieldIsAnError) {
  const std::string message = read_error("a,b\n1,2\n3,4\"5\n");
  EXPECT_THAT(message, HasSubstr("in.csv:3:"));
  EXPECT_THAT(message, HasSubstr("quote inside an unquoted field"));
}

TEST(CsvReader, TextAfterClosingQuoteIsAnError) {
  const std::string message = read_error("\"a\"b,c\n");
  EXPECT_THAT(message, HasSubstr("in.csv:1:"));
  EXPECT_THAT(message, HasSubstr("after a closing quote"));
}

TEST(CsvReader, LoneCarriageReturnIsAnError) {
  EXPECT_THAT(read_error("a,b\rc,d\n"), HasSubstr("in.csv:1: carriage return"));
  EXPECT_THAT(read_error("a,b\n\"a\",b\rc\n"), HasSubstr("in.csv:2: carriage return"));
  EXPECT_THAT(read_error("a,b\r"), HasSubstr("in.csv:1: carriage return"));
}

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("barrier"), "barrier");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field(" spaced "), " spaced ");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
}

TEST(CsvWriter, JoinsARecordIntoOneLine) {
  EXPECT_EQ(csv_line({"barrier", "a,b", ""}), "barrier,\"a,b\",\n");
  EXPECT_EQ(csv_line(Fields{"x"}), "x\n");
}

TEST(CsvWriter, WrittenRecordsReadBackUnchanged) {
  const std::vector<Fields> original{
      {"construct", "note", "value"}, {"for", "say \"hi\", then\r\nleave", "1.5"}, {"", "\"", ","}};
  std::string text;
  for (const auto& record : original) text += csv_line(record);
  const auto records = read_csv(text, "round-trip.csv");
  ASSERT_EQ(records.size(), original.size());
  for (std::size_t i = 0; i < original.size(); ++i) EXPECT_EQ(records[i].fields, original[i]);
}

}  // namespace
}  // namespace ompscale
