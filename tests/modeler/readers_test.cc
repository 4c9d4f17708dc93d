#include "modeler/io/readers.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace ompscale::modeler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kData = std::string(OMPSCALE_TEST_DATA) + "/readers/";
const std::string kExtrapReference = std::string(OMPSCALE_TEST_DATA) + "/extrap/";

std::vector<std::string> keys(const Kernel& kernel) {
  std::vector<std::string> out;
  for (const auto value : kernel.key_values()) out.emplace_back(value);
  return out;
}

std::vector<double> params(const Kernel& kernel) {
  return {kernel.params().begin(), kernel.params().end()};
}

std::vector<double> repetitions(const Kernel& kernel, std::size_t point) {
  const auto values = kernel.repetitions(point);
  return {values.begin(), values.end()};
}

Dataset read(const std::string& fixture, ReadOptions options = {}) {
  return read_dataset(kData + fixture, options);
}

Dataset parse(std::string_view content, ReadOptions options = {}) {
  return parse_dataset(content, "in.txt", options);
}

// The message of the InputError `action` throws; fails the test when it throws none.
template <typename Action>
std::string input_error(Action action) {
  try {
    action();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

template <typename Action>
std::string usage_error(Action action) {
  try {
    action();
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

std::string parse_error(std::string_view content, ReadOptions options = {}) {
  return input_error([&] { parse(content, options); });
}

ReadOptions format(InputFormat input_format) {
  ReadOptions options;
  options.format = input_format;
  return options;
}

// ---------------------------------------------------------------------------------------------
// Format names

TEST(InputFormatNames, ParseEveryCliSpelling) {
  EXPECT_EQ(parse_input_format("auto"), InputFormat::kAuto);
  EXPECT_EQ(parse_input_format("ompbench"), InputFormat::kOmpbenchCsv);
  EXPECT_EQ(parse_input_format("csv"), InputFormat::kGenericCsv);
  EXPECT_EQ(parse_input_format("extrap"), InputFormat::kExtrapText);
  EXPECT_EQ(parse_input_format("extrap-json"), InputFormat::kExtrapJson);
  EXPECT_EQ(parse_input_format("jsonl"), InputFormat::kExtrapJsonLines);
  for (const auto name : {"auto", "ompbench", "csv", "extrap", "extrap-json", "jsonl"}) {
    EXPECT_EQ(input_format_name(parse_input_format(name)), name);
  }
}

TEST(InputFormatNames, UnknownNameListsTheKnownOnes) {
  const std::string message = usage_error([] { parse_input_format("xml"); });
  EXPECT_THAT(message, HasSubstr("\"xml\""));
  EXPECT_THAT(message, HasSubstr("auto, ompbench, csv, extrap, extrap-json, jsonl"));
}

// ---------------------------------------------------------------------------------------------
// ompbench CSV

TEST(OmpbenchCsv, KeysAreTheColumnsThatAreNotPerMeasurement) {
  const Dataset data = read("ompbench.csv");
  EXPECT_EQ(data.parameter, "threads");
  EXPECT_THAT(data.key_columns,
              ElementsAre("construct", "method", "metric", "bind", "places", "runtime",
                          "runtime_version", "compiler", "platform", "param", "param_value", "unit",
                          "governor"));  // governor: an extra column, kept in file order
  EXPECT_THAT(data.sources, ElementsAre(kData + "ompbench.csv"));
}

TEST(OmpbenchCsv, GroupsRepetitionsPerThreadCountAndSkipsInvalidRows) {
  const Dataset data = read("ompbench.csv");
  ASSERT_EQ(data.kernels.size(), 2u);
  EXPECT_EQ(data.skipped_invalid, 1u);

  const Kernel& barrier = data.kernels[0];  // first seen first, though it continues after `for`
  EXPECT_THAT(keys(barrier), ElementsAre("barrier", "epcc", "overhead", "close", "cores", "libgomp",
                                         "12.2", "gcc-12", "laptop", "", "", "us", "performance"));
  EXPECT_THAT(params(barrier), ElementsAre(1, 2, 4, 8));
  EXPECT_THAT(repetitions(barrier, 0), ElementsAre(0.10, 0.12));
  EXPECT_THAT(repetitions(barrier, 1), ElementsAre(0.30));  // 0.32 has valid=0
  EXPECT_THAT(repetitions(barrier, 2), ElementsAre(0.70, 0.74));
  EXPECT_EQ(barrier.sample_count(), 6u);

  const Kernel& loop = data.kernels[1];
  EXPECT_EQ(loop.key_value(0), "for");
  EXPECT_EQ(loop.key_value(4), "{0,1},{2,3}");  // quoted in the file
  EXPECT_EQ(loop.key_value(10), "static,4");
  EXPECT_THAT(params(loop), ElementsAre(1, 2, 4));
  EXPECT_THAT(data.describe(loop),
              HasSubstr("construct=for method=epcc metric=overhead bind=spread"));
}

TEST(OmpbenchCsv, IncludeInvalidKeepsTheMarkedRows) {
  ReadOptions options;
  options.include_invalid = true;
  const Dataset data = read("ompbench.csv", options);
  EXPECT_EQ(data.skipped_invalid, 0u);
  EXPECT_THAT(repetitions(data.kernels[0], 1), ElementsAre(0.30, 0.32));
}

TEST(OmpbenchCsv, InvalidRowsAreSkippedBeforeTheirNumbersAreRead) {
  const Dataset data = parse("construct,threads,value,valid\nfor,2,nan,0\nfor,,,0\nfor,2,1.5,1\n");
  EXPECT_EQ(data.skipped_invalid, 2u);
  ASSERT_EQ(data.kernels.size(), 1u);
  EXPECT_THAT(repetitions(data.kernels[0], 0), ElementsAre(1.5));
}

TEST(OmpbenchCsv, ReadsCrlfAndByteOrderMark) {
  const Dataset data = parse(
      "\xEF\xBB\xBF"
      "construct,threads,value\r\nfor,1,2\r\nfor,2,3\r\n");
  EXPECT_THAT(data.key_columns, ElementsAre("construct"));
  EXPECT_THAT(params(data.kernels[0]), ElementsAre(1, 2));
}

TEST(OmpbenchCsv, RowWithWrongFieldCountNamesTheLine) {
  const std::string message = parse_error("construct,threads,value\nfor,1,2\nfor,2\n");
  EXPECT_THAT(message, HasSubstr("in.txt:3: row has 2 fields, the header has 3"));
}

TEST(OmpbenchCsv, NonPositiveThreadCountNamesTheLine) {
  const std::string message = parse_error("construct,threads,value\nfor,1,2\nfor,0,3\n");
  EXPECT_THAT(message, HasSubstr("in.txt:3: threads = 0"));
  EXPECT_THAT(message, HasSubstr("must be > 0"));
  EXPECT_THAT(parse_error("construct,threads,value\nfor,-2,3\n"), HasSubstr("in.txt:2:"));
}

TEST(OmpbenchCsv, NonNumericAndNonFiniteValuesNameTheLine) {
  EXPECT_THAT(parse_error("construct,threads,value\nfor,1,fast\n"),
              HasSubstr("in.txt:2: value \"fast\" is not a number"));
  EXPECT_THAT(parse_error("construct,threads,value\nfor,1,1\nfor,2,inf\n"),
              HasSubstr("in.txt:3: value inf is not a finite number"));
  EXPECT_THAT(parse_error("construct,threads,value\nfor,two,1\n"),
              HasSubstr("in.txt:2: threads \"two\" is not a number"));
}

TEST(OmpbenchCsv, ValidMustBeZeroOrOne) {
  EXPECT_THAT(parse_error("construct,threads,value,valid\nfor,1,1,yes\n"),
              HasSubstr("in.txt:2: valid is \"yes\"; expected 0 or 1"));
}

TEST(OmpbenchCsv, MalformedQuotingNamesFileAndLine) {
  const std::string message = input_error([] { read("bad_quote.csv"); });
  EXPECT_THAT(message, HasSubstr(kData + "bad_quote.csv:3: unterminated quoted field"));
}

TEST(OmpbenchCsv, HeaderWithoutRowsAndAllInvalidRowsAreErrors) {
  EXPECT_THAT(parse_error("construct,threads,value\n"), HasSubstr("in.txt: no data rows"));
  EXPECT_THAT(parse_error("construct,threads,value,valid\nfor,1,1,0\n"),
              HasSubstr("all 1 rows are marked valid=0; use --include-invalid"));
}

TEST(OmpbenchCsv, ExplicitFormatNeedsThreadsAndValueColumns) {
  const std::string message =
      parse_error("construct,nthreads,value\nfor,1,1\n", format(InputFormat::kOmpbenchCsv));
  EXPECT_THAT(message, HasSubstr("in.txt:1: no column \"threads\""));
  EXPECT_THAT(message, HasSubstr("the header has: construct, nthreads, value"));
}

TEST(OmpbenchCsv, DuplicateHeaderColumnIsAnError) {
  EXPECT_THAT(parse_error("construct,threads,value,threads\nfor,1,1,1\n"),
              HasSubstr("in.txt:1: column \"threads\" appears twice"));
}

// 60,000 rows (10 constructs x 2 binds x 30 thread counts x 100 repetitions) must read in a few
// milliseconds in a Release build; the bound here is loose so that Debug and sanitizer builds
// pass too.
TEST(OmpbenchCsv, ReadsSixtyThousandRowsQuickly) {
  std::string content =
      "construct,method,metric,threads,thread_class,bind,places,runtime,runtime_version,compiler,"
      "platform,param,param_value,rep,value,unit,valid,canary_ns,run_id,timestamp\n";
  for (int construct = 0; construct < 10; ++construct) {
    for (const char* bind : {"close", "spread"}) {
      for (int threads = 1; threads <= 30; ++threads) {
        for (int rep = 0; rep < 100; ++rep) {
          content += fmt::format(
              "construct{},epcc,overhead,{},LINEAR,{},cores,libgomp,12.2.0,gcc-12.2.0,"
              "x86_64-2core-vm,,,{},{},us,{},120,run-2024-05-01-abcdef,2024-05-01T10:00:00.{:06}"
              "Z\n",
              construct, threads, bind, rep, 0.5 + threads * 0.01 + rep * 1e-4, rep == 99 ? 0 : 1,
              rep);
        }
      }
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const Dataset data = parse_dataset(content, "big.csv", {});
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("read_ms", std::to_string(ms));
  std::cout << "60000 ompbench rows read in " << ms << " ms\n";
  ASSERT_EQ(data.kernels.size(), 20u);
  EXPECT_EQ(data.skipped_invalid, 600u);
  EXPECT_EQ(data.kernels[0].size(), 30u);
  EXPECT_EQ(data.kernels[0].repetitions(0).size(), 99u);
  EXPECT_LT(ms, 500.0);
}

// ---------------------------------------------------------------------------------------------
// Generic CSV

ReadOptions generic_options(std::vector<std::string> key_columns) {
  ReadOptions options;
  options.param_column = "nthreads";
  options.value_column = "time_s";
  options.key_columns = std::move(key_columns);
  return options;
}

TEST(OmpbenchCsv, LargeFilesAreReadInBlocksLikeInMemory) {
  // Over 2 MiB: the file reader parses it block by block. A quoted key with a line break sits
  // across the first block boundary; the records must come out as from the whole text.
  std::string text = "construct,threads,rep,value\n";
  std::size_t row = 0;
  while (text.size() < (2u << 20) + 1000) {
    const bool odd_key = text.size() > (1u << 20) - 64 && text.size() < (1u << 20) + 64;
    text += fmt::format("{},{},{},{}\n", odd_key ? "\"two\nlines\"" : "barrier", 1 + row % 8, row,
                        1.0 + 0.001 * static_cast<double>(row % 97));
    ++row;
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("ompscale-large-{}.csv", ::getpid()))
          .string();
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  const Dataset from_file = read_dataset(path, {});
  const Dataset in_memory = parse_dataset(text, path, {});
  ASSERT_EQ(from_file.kernels.size(), in_memory.kernels.size());
  ASSERT_EQ(from_file.kernels.size(), 2u);
  for (std::size_t k = 0; k < from_file.kernels.size(); ++k) {
    EXPECT_EQ(from_file.kernels[k].joined_key(), in_memory.kernels[k].joined_key());
    ASSERT_EQ(from_file.kernels[k].size(), in_memory.kernels[k].size());
    for (std::size_t i = 0; i < from_file.kernels[k].size(); ++i) {
      EXPECT_THAT(repetitions(from_file.kernels[k], i),
                  ::testing::ElementsAreArray(repetitions(in_memory.kernels[k], i)));
    }
  }
  // An error in the last block names the file's line, not the block's.
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << "barrier,2,0,abc\n";
  }
  EXPECT_THAT(input_error([&] { read_dataset(path, {}); }),
              HasSubstr(fmt::format("{}:{}: value \"abc\" is not a number", path, lines + 1)));
  std::filesystem::remove(path);
}

TEST(GenericCsv, UsesTheNamedColumns) {
  const Dataset data = read("generic.csv", generic_options({"app", "bind"}));
  EXPECT_EQ(data.parameter, "nthreads");
  EXPECT_THAT(data.key_columns, ElementsAre("app", "bind"));
  ASSERT_EQ(data.kernels.size(), 2u);
  EXPECT_THAT(keys(data.kernels[0]), ElementsAre("stream", "close"));
  EXPECT_THAT(params(data.kernels[0]), ElementsAre(1, 2, 4));
  EXPECT_THAT(repetitions(data.kernels[0], 1), ElementsAre(1.1, 1.2));
  EXPECT_THAT(keys(data.kernels[1]), ElementsAre("stream", "spread"));
  EXPECT_THAT(params(data.kernels[1]), ElementsAre(2, 4));
}

TEST(GenericCsv, WithoutKeyColumnsTheTableIsOneKernel) {
  const Dataset data = read("generic.csv", generic_options({}));
  EXPECT_TRUE(data.key_columns.empty());
  ASSERT_EQ(data.kernels.size(), 1u);
  EXPECT_EQ(data.kernels[0].sample_count(), 6u);
  EXPECT_THAT(repetitions(data.kernels[0], 1), ElementsAre(1.1, 1.0, 1.2));
}

TEST(GenericCsv, ExplicitFormatReadsEvenAnOmpbenchFile) {
  ReadOptions options = format(InputFormat::kGenericCsv);
  options.param_column = "threads";
  options.value_column = "value";
  options.key_columns = {"construct"};
  const Dataset data = read("ompbench.csv", options);
  EXPECT_THAT(data.key_columns, ElementsAre("construct"));
  EXPECT_EQ(data.kernels.size(), 2u);
  EXPECT_EQ(data.skipped_invalid, 1u);  // a `valid` column keeps its meaning
}

TEST(GenericCsv, MissingColumnListsTheHeader) {
  const std::string message = input_error([] {
    read("generic.csv", generic_options({"app", "compiler"}));
  });
  EXPECT_THAT(message, HasSubstr(kData + "generic.csv:1: no column \"compiler\" (--key)"));
  EXPECT_THAT(message, HasSubstr("the header has: app, bind, nthreads, time_s, host"));
}

TEST(GenericCsv, BadValueNamesTheLine) {
  ReadOptions options;
  options.param_column = "n";
  options.value_column = std::string("t");  // GCC 12 warns falsely on the literal (-Wrestrict)
  EXPECT_THAT(parse_error("n,t\n1,2\n2,\n", options),
              HasSubstr("in.txt:3: t \"\" is not a number"));
  EXPECT_THAT(parse_error("n,t\n0.5,2\n0,3\n", options), HasSubstr("in.txt:3: n = 0"));
}

TEST(GenericCsv, OptionsThatDoNotFitAreUsageErrors) {
  ReadOptions param_only;
  param_only.param_column = "threads";
  EXPECT_THAT(usage_error([&] { parse("a,b\n1,2\n", param_only); }),
              HasSubstr("needs both --param COLUMN"));

  ReadOptions key_only;
  key_only.key_columns = {"construct"};
  EXPECT_THAT(usage_error([&] { parse("a,b\n1,2\n", key_only); }),
              HasSubstr("needs both --param COLUMN"));

  ReadOptions generic_without_columns = format(InputFormat::kGenericCsv);
  EXPECT_THAT(usage_error([&] { parse("a,b\n1,2\n", generic_without_columns); }),
              HasSubstr("--value COLUMN"));

  ReadOptions extrap_with_columns = format(InputFormat::kExtrapText);
  extrap_with_columns.param_column = "x";
  extrap_with_columns.value_column = "y";
  EXPECT_THAT(usage_error([&] { parse("PARAMETER x\n", extrap_with_columns); }),
              HasSubstr("do not apply to --input-format extrap"));
}

// ---------------------------------------------------------------------------------------------
// Extra-P text

TEST(ExtrapText, ReadsEveryVariantOfTheFormat) {
  const Dataset data = read("extrap_text.txt");
  EXPECT_EQ(data.parameter, "t");
  EXPECT_THAT(data.key_columns, ElementsAre("callpath", "metric"));
  ASSERT_EQ(data.kernels.size(), 4u);
  EXPECT_THAT(keys(data.kernels[0]), ElementsAre("main", ""));  // REGION before any METRIC
  EXPECT_THAT(params(data.kernels[0]), ElementsAre(2, 4, 8));   // POINTS over two lines
  EXPECT_THAT(repetitions(data.kernels[0], 1), ElementsAre(2.0, 2.1, 2.2));
  EXPECT_THAT(repetitions(data.kernels[0], 2), ElementsAre(4.0));
  EXPECT_THAT(keys(data.kernels[1]), ElementsAre("main", "time"));  // METRIC keeps the REGION
  EXPECT_THAT(repetitions(data.kernels[1], 2), ElementsAre(40, 41));
  EXPECT_THAT(keys(data.kernels[2]), ElementsAre("main->solve step", "time"));  // METRIC persists
  EXPECT_THAT(keys(data.kernels[3]), ElementsAre("main", "flops"));
  EXPECT_THAT(repetitions(data.kernels[3], 2), ElementsAre(4000));
}

TEST(ExtrapText, RepeatedRegionAndMetricAddsRepetitions) {
  const Dataset data = parse(
      "PARAMETER p\nPOINTS 1 2\nREGION r\nMETRIC m\nDATA 1\nDATA 2\n"
      "REGION s\nDATA 7\nDATA 8\nREGION r\nDATA 1.5\nDATA 2.5\n");
  ASSERT_EQ(data.kernels.size(), 2u);
  EXPECT_THAT(repetitions(data.kernels[0], 0), ElementsAre(1, 1.5));
  EXPECT_THAT(repetitions(data.kernels[0], 1), ElementsAre(2, 2.5));
}

TEST(ExtrapText, ReadsCrlfByteOrderMarkAndAutoDetectsAfterComments) {
  const Dataset data = parse(
      "\xEF\xBB\xBF# comment\r\n\r\nPARAMETER p\r\nPOINTS (1)(2)\r\nREGION r\r\n"
      "DATA 1 2\r\nDATA 3\r\n");
  EXPECT_EQ(data.parameter, "p");
  EXPECT_THAT(keys(data.kernels[0]), ElementsAre("r", ""));
  EXPECT_THAT(repetitions(data.kernels[0], 0), ElementsAre(1, 2));
}

TEST(ExtrapText, TooFewDataLinesNamesTheLastDataLine) {
  const std::string message = input_error([] { read("short_data.txt"); });
  EXPECT_THAT(message, HasSubstr(kData + "short_data.txt:7: 2 DATA lines for the 3 POINTS"));
  EXPECT_THAT(message, HasSubstr("region \"compute\", metric \"time\""));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\n"),
              HasSubstr("in.txt:4: 1 DATA lines for the 2 POINTS"));
}

TEST(ExtrapText, TooManyDataLinesNamesTheExtraLine) {
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nDATA 3\n"),
              HasSubstr("in.txt:6: more DATA lines than the 2 POINTS"));
}

TEST(ExtrapText, NonNumericValueNamesTheToken) {
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2 x7 3\n"),
              HasSubstr("in.txt:5: DATA value \"x7\" is not a number"));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1 abc\n"),
              HasSubstr("in.txt:2: p \"abc\" is not a number"));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA nan\n"),
              HasSubstr("in.txt:4: DATA value nan is not a finite number"));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA -1e999\n"),
              HasSubstr("in.txt:5: DATA value -inf is not a finite number"));
  EXPECT_DOUBLE_EQ(
      parse("PARAMETER p\nPOINTS 1\nREGION r\nDATA 1e-999\n").kernels[0].repetitions(0)[0], 0.0);
}

TEST(ExtrapText, NonPositivePointNamesTheLine) {
  EXPECT_THAT(parse_error("PARAMETER p\n\nPOINTS (1) (0)\n"), HasSubstr("in.txt:3: p = 0"));
}

TEST(ExtrapText, ReadsSeveralParameters) {
  // PARAMETER lines or one line with several names; points as parenthesized groups.
  for (const std::string_view header : {"PARAMETER x\nPARAMETER y\n", "PARAMETER x y\n"}) {
    const Dataset data =
        parse(std::string(header) +
              "POINTS (1 10) (2 10) (1 20)\nREGION r\nDATA 1 1.2\nDATA 2\nDATA 3\n");
    EXPECT_EQ(data.dimensions(), 2u);
    EXPECT_THAT(data.parameter_names(), ElementsAre("x", "y"));
    ASSERT_EQ(data.kernels.size(), 1u);
    const Kernel& k = data.kernels[0];
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k.dimensions(), 2u);
    // Points in lexicographic order: (1 10), (1 20), (2 10).
    EXPECT_EQ(k.coordinate(1, 0), 1.0);
    EXPECT_EQ(k.coordinate(1, 1), 20.0);
    EXPECT_THAT(repetitions(k, 0), ElementsAre(1.0, 1.2));
    EXPECT_THAT(repetitions(k, 1), ElementsAre(3.0));
    EXPECT_THAT(repetitions(k, 2), ElementsAre(2.0));
  }
  EXPECT_THAT(parse_error("PARAMETER x\nPOINTS (1 2) (3 4)\n"),
              HasSubstr("in.txt:2: POINTS has the point (1 2) with 2 value(s); the parameters x "
                        "need 1"));
  EXPECT_THAT(parse_error("PARAMETER x y\nPOINTS (1) (3)\n"),
              HasSubstr("the parameters x, y need 2"));
  EXPECT_THAT(parse_error("PARAMETER x\nPARAMETER x\n"), HasSubstr("in.txt:2: parameter \"x\" "
                                                                   "declared twice"));
  EXPECT_THAT(parse_error("PARAMETER x\nPOINTS 1\nPARAMETER y\n"),
              HasSubstr("in.txt:3: PARAMETER after POINTS"));
}

TEST(ExtrapText, StructuralErrorsNameTheLine) {
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1\nREGION r\nDATUM 1\n"),
              HasSubstr("in.txt:4: unknown keyword \"DATUM\""));
  EXPECT_THAT(parse_error("PARAMETER p\nREGION r\nDATA 1\n"),
              HasSubstr("in.txt:3: DATA before POINTS"));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1\nREGION r\nDATA 1\nPOINTS 2\n"),
              HasSubstr("in.txt:5: POINTS after DATA"));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1\nREGION\n"),
              HasSubstr("in.txt:3: REGION needs a name"));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS 1\nREGION r\n"), HasSubstr("in.txt: no DATA lines"));
  EXPECT_THAT(parse_error("PARAMETER p\nPOINTS (1\n"), HasSubstr("in.txt:2: POINTS has a '('"));
  EXPECT_THAT(parse_error("POINTS 1\n", format(InputFormat::kExtrapText)),
              HasSubstr("in.txt:1: POINTS before PARAMETER"));
}

// ---------------------------------------------------------------------------------------------
// Extra-P JSON and JSON Lines

TEST(ExtrapJson, ReadsTheNestedVariant) {
  const Dataset data = read("extrap_nested.json");
  EXPECT_EQ(data.parameter, "p");
  EXPECT_THAT(data.key_columns, ElementsAre("callpath", "metric"));
  ASSERT_EQ(data.kernels.size(), 3u);
  EXPECT_THAT(keys(data.kernels[0]), ElementsAre("main", "time"));  // file order, not sorted
  EXPECT_THAT(repetitions(data.kernels[0], 1), ElementsAre(2.0, 2.2));
  EXPECT_THAT(keys(data.kernels[1]), ElementsAre("main", "flops"));
  EXPECT_THAT(keys(data.kernels[2]), ElementsAre("main->io", "time"));
  EXPECT_THAT(params(data.kernels[2]), ElementsAre(2, 4));
}

constexpr std::string_view kIdBasedJson = R"({
  "parameters": [{"id": 1, "name": "x"}],
  "callpaths": [{"id": 1, "name": "main"}, {"id": 2, "name": "io"}],
  "metrics": [{"id": 7, "name": "time"}],
  "coordinates": [
    {"id": 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 2}]},
    {"id": 2, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 4}]}
  ],
  "measurements": [
    {"callpath_id": 2, "coordinate_id": 2, "id": 1, "metric_id": 7, "value": 9},
    {"callpath_id": 1, "coordinate_id": 1, "id": 2, "metric_id": 7, "value": 1},
    {"callpath_id": 1, "coordinate_id": 1, "id": 3, "metric_id": 7, "value": 1.5},
    {"callpath_id": 1, "coordinate_id": 2, "id": 4, "metric_id": 7, "value": 3}
  ]
})";

TEST(ExtrapJson, ReadsTheIdBasedVariant) {
  const Dataset data = parse(kIdBasedJson);
  EXPECT_EQ(data.parameter, "x");
  ASSERT_EQ(data.kernels.size(), 2u);
  EXPECT_THAT(keys(data.kernels[0]), ElementsAre("io", "time"));  // first measurement first
  EXPECT_THAT(keys(data.kernels[1]), ElementsAre("main", "time"));
  EXPECT_THAT(params(data.kernels[1]), ElementsAre(2, 4));
  EXPECT_THAT(repetitions(data.kernels[1], 0), ElementsAre(1, 1.5));
}

std::string replaced(std::string_view text, std::string_view from, std::string_view to) {
  std::string out(text);
  out.replace(out.find(from), from.size(), to);
  return out;
}

TEST(ExtrapJson, SyntaxErrorNamesTheLine) {
  const std::string message = input_error([] { read("broken.json"); });
  EXPECT_THAT(message, HasSubstr(kData + "broken.json:4: invalid JSON"));
}

TEST(ExtrapJson, NumberTooLargeForADoubleIsAnInputError) {
  EXPECT_THAT(parse_error(replaced(kIdBasedJson, "\"value\": 9", "\"value\": 1e999")),
              HasSubstr("in.txt:10: invalid JSON: number overflow parsing '1e999'"));
  EXPECT_THAT(parse_error("{\"params\": {\"x\": 1}, \"value\": 1}\n{\"params\": {\"x\": 1e999}}\n"),
              HasSubstr("in.txt:2: invalid JSON: number overflow"));
}

TEST(ExtrapJson, BrokenReferencesAndTypesAreNamed) {
  EXPECT_THAT(parse_error(replaced(kIdBasedJson, "\"callpath_id\": 2", "\"callpath_id\": 3")),
              HasSubstr("in.txt:10: measurements[0].callpath_id: unknown id 3"));
  EXPECT_THAT(parse_error(replaced(kIdBasedJson, "\"value\": 9", "\"value\": \"9\"")),
              HasSubstr("in.txt:10: measurements[0].value: expected a number, found string"));
  EXPECT_THAT(
      parse_error(replaced(kIdBasedJson, "\"parameter_value\": 4", "\"parameter_value\": 0")),
      HasSubstr("in.txt:7: coordinates[1].parameter_value_pairs[0].parameter_value: x = 0"));
  EXPECT_THAT(parse_error(replaced(kIdBasedJson, "\"metrics\"", "\"metric\"")),
              HasSubstr("in.txt:1: missing field 'metrics'"));
}

// Every error of the Extra-P JSON readers is FILE:LINE: PATH: CAUSE (common/json_input.h), the
// line that of the value at PATH, however deep it lies.
TEST(ExtrapJson, ErrorsDeepInTheDocumentNameTheFileLineAndPath) {
  EXPECT_EQ(parse_error(replaced(kIdBasedJson, "{\"parameter_id\": 1, \"parameter_value\": 4}",
                                 "{\"parameter_value\": 4}")),
            "in.txt:7: coordinates[1].parameter_value_pairs[0]: missing field 'parameter_id'");
  EXPECT_EQ(parse_error(replaced(kIdBasedJson, "{\"id\": 2, \"name\": \"io\"}",
                                 "{\"id\": 2, \"name\": [\"io\"]}")),
            "in.txt:3: callpaths[1].name: expected a string, found array");
  EXPECT_EQ(parse_error(replaced(kIdBasedJson, "\"id\": 3, \"metric_id\": 7",
                                 "\"id\": 3, \"metric_id\": 7.5")),
            "in.txt:12: measurements[2].metric_id: expected an integer, found number");
  const std::string nested = R"({"parameters": ["x"],
  "measurements": {
    "main": {"time": [{"point": [1], "values": [1.0]}]},
    "io": {
      "time": [{"point": [1], "values": [1.0]},
               {"point": [2], "values": [2.0, "fast"]}],
      "bytes": [{"values": [3]}]
    }
  }
})";
  EXPECT_EQ(parse_error(nested),
            "in.txt:6: measurements.io.time[1].values[1]: expected a number, found string");
  EXPECT_EQ(parse_error(replaced(nested, "\"fast\"", "3.0")),
            "in.txt:7: measurements.io.bytes[0]: missing field 'point'");
  EXPECT_EQ(
      parse_error(replaced(nested, "{\"time\": [{\"point\": [1], \"values\": [1.0]}]}", "[]")),
      "in.txt:3: measurements.main: expected an object, found array");
  EXPECT_EQ(parse_error(replaced(nested, "[\"x\"]", "[]")),
            "in.txt:1: parameters: expected at least one parameter");
}

TEST(ExtrapJson, ReadsSeveralParameters) {
  const Dataset data = parse(R"({"parameters": ["x", "y"], "measurements": {"main": {"time": [
      {"point": [1, 10], "values": [1.0, 1.1]}, {"point": [2, 10], "values": [2.0]}]}}})");
  EXPECT_THAT(data.parameter_names(), ElementsAre("x", "y"));
  ASSERT_EQ(data.kernels.size(), 1u);
  EXPECT_EQ(data.kernels[0].coordinate(1, 0), 2.0);
  EXPECT_EQ(data.kernels[0].coordinate(1, 1), 10.0);
  EXPECT_THAT(
      parse_error(R"({"parameters": ["x", "y"], "measurements": {"main": {"time": [
      {"point": [1], "values": [1.0]}]}}})"),
      HasSubstr("in.txt:2: measurements.main.time[0].point: has 1 coordinates; the parameters x, "
                "y need 2"));
  const std::string two_parameters =
      replaced(kIdBasedJson, R"([{"id": 1, "name": "x"}])",
               R"([{"id": 1, "name": "x"}, {"id": 2, "name": "y"}])");
  EXPECT_THAT(parse_error(two_parameters),
              HasSubstr("parameter values; the parameters x, y need 2"));
}

TEST(ExtrapJsonLines, ReadsValuesListsAndExtrapDefaults) {
  const Dataset data = read("extrap.jsonl");
  EXPECT_EQ(data.parameter, "threads");
  EXPECT_THAT(data.key_columns, ElementsAre("callpath", "metric"));
  ASSERT_EQ(data.kernels.size(), 3u);
  EXPECT_THAT(keys(data.kernels[0]), ElementsAre("main", "time"));
  EXPECT_THAT(params(data.kernels[0]), ElementsAre(2, 4));
  EXPECT_THAT(repetitions(data.kernels[0], 0), ElementsAre(3.5, 3.7));
  EXPECT_THAT(repetitions(data.kernels[0], 1), ElementsAre(5.5, 5.6, 5.4));
  EXPECT_THAT(keys(data.kernels[1]), ElementsAre("<root>", "<default>"));
  EXPECT_THAT(keys(data.kernels[2]), ElementsAre("<root>", "energy"));
}

TEST(ExtrapJsonLines, BrokenLineIsNamed) {
  EXPECT_THAT(input_error([] { read("bad_line.jsonl"); }),
              HasSubstr(kData + "bad_line.jsonl:3: invalid JSON"));
}

TEST(ExtrapJsonLines, MissingOrWrongMembersNameTheLine) {
  const auto jsonl = format(InputFormat::kExtrapJsonLines);
  EXPECT_THAT(parse_error("{\"params\": {\"x\": 1}, \"value\": 1}\n{\"value\": 2}\n", jsonl),
              HasSubstr("in.txt:2: missing field 'params'"));
  EXPECT_THAT(parse_error("{\"params\": {\"x\": 1}}\n", jsonl),
              HasSubstr("in.txt:1: missing field 'value'"));
  EXPECT_THAT(parse_error("{\"params\": {\"x\": 1}, \"value\": 1}\n{\"params\": {\"y\": 2}, "
                          "\"value\": 2}\n",
                          jsonl),
              HasSubstr("in.txt:2: params: has \"y\" where earlier lines have \"x\""));
  const Dataset two = parse(
      "{\"params\": {\"x\": 1, \"y\": 2}, \"value\": 1}\n"
      "{\"params\": {\"y\": 3, \"x\": 1}, \"value\": 2}\n",
      jsonl);
  EXPECT_THAT(two.parameter_names(), ElementsAre("x", "y"));
  ASSERT_EQ(two.kernels[0].size(), 2u);
  EXPECT_EQ(two.kernels[0].coordinate(1, 1), 3.0);
  EXPECT_THAT(parse_error("\n{\"params\": {\"x\": 0}, \"value\": 1}\n", jsonl),
              HasSubstr("in.txt:2: params.x: x = 0"));
  EXPECT_THAT(parse_error("{\"params\": {\"x\": 1}, \"value\": [1, \"a\"]}\n", jsonl),
              HasSubstr("in.txt:1: value[1]: expected a number, found string"));
  EXPECT_THAT(parse_error("{\"params\": {\"x\": 1, \"y\": 2}, \"value\": 1}\n"
                          "{\"params\": {\"x\": 1}, \"value\": 1}\n",
                          jsonl),
              HasSubstr("in.txt:2: params: has \"x\" where earlier lines have \"x\", \"y\""));
  EXPECT_THAT(parse_error("[1, 2]\n", jsonl), HasSubstr("in.txt:1: the line is a array"));
}

// ---------------------------------------------------------------------------------------------
// Auto-detection and inputs of no format

TEST(AutoDetection, PicksTheReaderFromTheContent) {
  EXPECT_EQ(read("ompbench.csv").parameter, "threads");
  EXPECT_EQ(read("extrap_text.txt").parameter, "t");
  EXPECT_EQ(read("extrap_nested.json").parameter, "p");
  EXPECT_EQ(parse(kIdBasedJson).parameter, "x");
  EXPECT_EQ(read("extrap.jsonl").parameter, "threads");
  // One JSON Lines record on one line is still JSON Lines.
  EXPECT_EQ(parse("{\"params\": {\"n\": 2}, \"value\": 1}").parameter, "n");
  // Column options select the generic reader whatever the header looks like.
  ReadOptions columns;
  columns.param_column = "canary_ns";
  columns.value_column = "value";
  EXPECT_EQ(read("ompbench.csv", columns).parameter, "canary_ns");
}

TEST(AutoDetection, UnknownContentSaysWhatWasTriedAndHowToReadCsv) {
  const std::string message = input_error([] { read("generic.csv"); });
  EXPECT_THAT(message, HasSubstr(kData + "generic.csv: cannot tell the input format"));
  EXPECT_THAT(message, HasSubstr("ompbench CSV"));
  EXPECT_THAT(message, HasSubstr("Extra-P text"));
  EXPECT_THAT(message, HasSubstr("Extra-P JSON"));
  EXPECT_THAT(message, HasSubstr("JSON Lines"));
  EXPECT_THAT(message, HasSubstr("--param COLUMN --value COLUMN"));
  EXPECT_THAT(parse_error("{\"a\": 1}"), HasSubstr("cannot tell the input format"));
}

TEST(AutoDetection, EmptyInputIsAnErrorInEveryFormat) {
  for (const auto input_format :
       {InputFormat::kAuto, InputFormat::kOmpbenchCsv, InputFormat::kExtrapText,
        InputFormat::kExtrapJson, InputFormat::kExtrapJsonLines}) {
    EXPECT_THAT(parse_error("", format(input_format)), HasSubstr("in.txt: empty input"));
    EXPECT_THAT(parse_error(" \n\r\n", format(input_format)), HasSubstr("empty input"));
  }
}

TEST(ReadDataset, MissingFileNamesThePath) {
  EXPECT_THAT(input_error([] { read("no-such-file.csv"); }),
              HasSubstr(kData + "no-such-file.csv: cannot open"));
}

// ---------------------------------------------------------------------------------------------
// The Extra-P reference inputs (tests/data/extrap): every one reads, with the kernels
// Extra-P reports for it (expected_default_models.tsv lists file, callpath, metric per model; its
// order is not the files' order for input_4.JSON, so kernels are compared as sets).

class ExtrapReference : public ::testing::Test {
 protected:
  // file -> (callpath, metric) in the order Extra-P lists them.
  static std::map<std::string, std::vector<std::vector<std::string>>> expected_kernels() {
    std::map<std::string, std::vector<std::vector<std::string>>> kernels;
    std::ifstream tsv(kExtrapReference + "expected_default_models.tsv");
    std::string line;
    std::getline(tsv, line);  // header
    while (std::getline(tsv, line)) {
      std::vector<std::string> columns;
      std::stringstream fields(line);
      for (std::string column; std::getline(fields, column, '\t');) columns.push_back(column);
      if (columns.size() >= 3) kernels[columns[0]].push_back({columns[1], columns[2]});
    }
    return kernels;
  }
};

TEST_F(ExtrapReference, EveryInputReadsWithExtrapsKernels) {
  const auto expected = expected_kernels();
  ASSERT_GE(expected.size(), 11u);
  for (const auto& [file, kernels] : expected) {
    SCOPED_TRACE(file);
    const Dataset data = read_dataset(kExtrapReference + file, {});
    EXPECT_THAT(data.key_columns, ElementsAre("callpath", "metric"));
    std::vector<std::vector<std::string>> read_kernels;
    for (const Kernel& kernel : data.kernels) read_kernels.push_back(keys(kernel));
    auto expected_kernels = kernels;
    std::sort(read_kernels.begin(), read_kernels.end());
    std::sort(expected_kernels.begin(), expected_kernels.end());
    EXPECT_EQ(read_kernels, expected_kernels);
  }
}

TEST_F(ExtrapReference, TextInputsHaveTheirPointsAndRepetitions) {
  const Dataset first = read_dataset(kExtrapReference + "one_parameter_1.txt", {});
  EXPECT_EQ(first.parameter, "x");
  EXPECT_THAT(params(first.kernels[0]), ElementsAre(20, 30, 40, 50, 60));
  EXPECT_EQ(first.kernels[0].repetitions(0).size(), 6u);
  EXPECT_DOUBLE_EQ(first.kernels[0].repetitions(4)[5], 721.0616186790007);

  const Dataset sixth = read_dataset(kExtrapReference + "one_parameter_6.txt", {});
  EXPECT_EQ(sixth.parameter, "p");
  EXPECT_THAT(params(sixth.kernels[1]), ElementsAre(1000, 2000, 4000, 8000, 16000));
  EXPECT_EQ(sixth.kernels[1].repetitions(4).size(), 4u);  // "DATA 256.01 255.99 256 256 "
  EXPECT_EQ(sixth.kernels[3].repetitions(0).size(), 3u);

  const Dataset seventh = read_dataset(kExtrapReference + "one_parameter_7.txt", {});
  EXPECT_THAT(params(seventh.kernels[0]), ElementsAre(1000, 2000, 4000, 8000, 16000));
}

TEST_F(ExtrapReference, JsonInputsHaveTheirPointsAndRepetitions) {
  for (const char* file : {"input_1.JSON", "input_2.JSON", "input_3.JSON", "input_4.JSON"}) {
    SCOPED_TRACE(file);
    const Dataset data = read_dataset(kExtrapReference + file, {});
    EXPECT_EQ(data.parameter, "x");
    for (const Kernel& kernel : data.kernels) {
      EXPECT_THAT(params(kernel), ElementsAre(4, 8, 16, 32, 64));
      EXPECT_EQ(kernel.sample_count(), 25u);
    }
  }
}

TEST_F(ExtrapReference, SyntheticSetReadsAllKernels) {
  const Dataset data = read_dataset(kExtrapReference + "synthetic_300.txt", {});
  EXPECT_EQ(data.parameter, "t");
  ASSERT_EQ(data.kernels.size(), 300u);
  for (const Kernel& kernel : data.kernels) {
    EXPECT_THAT(params(kernel), ElementsAre(2, 4, 8, 16, 32, 64));
    EXPECT_EQ(kernel.sample_count(), 30u);
  }
}

}  // namespace
}  // namespace ompscale::modeler
