// The one JSON input module: every failure is an InputError naming the file and the line,
// numbers that do not fit are input errors (never an overflowing conversion), and the line of a
// value is found from its path.

#include "common/json_input.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <string>

#include "common/error.h"

namespace ompscale {
namespace {

using ::testing::HasSubstr;

// The InputError `action` raises; fails the test when there is none.
InputError input_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "no InputError";
  return InputError("", 0, "none");
}

TEST(JsonInput, SyntaxErrorNamesFileLineAndCause) {
  const InputError error =
      input_error([] { JsonDocument("{\n  \"a\": 1,\n  \"b\": ,\n}", "f.json"); });
  EXPECT_EQ(error.line(), 3u);
  EXPECT_THAT(error.what(), HasSubstr("f.json:3: invalid JSON: syntax error"));
  EXPECT_THAT(error.what(), ::testing::Not(HasSubstr("json.exception")));
}

// Fuzzer-found: a 5-byte document that nlohmann rejects with out_of_range, not parse_error.
TEST(JsonInput, NumberBeyondADoubleIsAnInputErrorWithItsLine) {
  const InputError bare = input_error([] { JsonDocument("7e377", "f.json"); });
  EXPECT_STREQ(bare.what(), "f.json:1: invalid JSON: number overflow parsing '7e377'");
  const InputError nested = input_error([] { OrderedJsonDocument("{\n\"x\": -7e400}", "g.json"); });
  EXPECT_EQ(nested.line(), 2u);
  // A JSON Lines object names the line of the file it came from.
  EXPECT_EQ(input_error([] { JsonDocument("[1e999]", "h.jsonl", 7); }).line(), 7u);
}

TEST(JsonInput, FieldErrorsNameThePathAndTheLine) {
  const std::string text = "{\n  \"runs\": [\n    {\"n\": 1},\n    {\"n\": \"two\"}\n  ]\n}\n";
  const JsonDocument document(text, "r.json");
  const auto runs = document.root().field("runs").elements();
  EXPECT_EQ(runs[0].field("n").integer(), 1);
  const InputError error = input_error([&] { runs[1].field("n").integer(); });
  EXPECT_STREQ(error.what(), "r.json:4: runs[1].n: expected an integer, found string");
  EXPECT_THAT(input_error([&] { runs[1].field("m"); }).what(),
              HasSubstr("r.json:4: runs[1]: missing field 'm'"));
}

TEST(JsonInput, IntegersOutsideTheirRangeAreErrors) {
  const JsonDocument document(
      R"({"threads": 7285475808, "id": 1.92e19, "big": 18446744073709551615, "three": 3.0,
          "half": 2.5, "negative": -1})",
      "i.json");
  const JsonNode root = document.root();
  EXPECT_THAT(input_error([&] { root.field("threads").integer(1, INT_MAX); }).what(),
              HasSubstr("threads: expected an integer in 1..2147483647, found 7285475808"));
  EXPECT_EQ(root.field("threads").integer(), 7285475808LL);
  EXPECT_THAT(input_error([&] { root.field("id").whole_number(); }).what(),
              HasSubstr("id: expected an integer in -2^63..2^63-1"));
  EXPECT_THAT(input_error([&] { root.field("big").integer(); }).what(),
              HasSubstr("big: expected an integer in"));
  EXPECT_EQ(root.field("three").whole_number(0, 3), 3);
  EXPECT_THAT(input_error([&] { root.field("three").integer(); }).what(),
              HasSubstr("expected an integer, found number"));
  EXPECT_THAT(input_error([&] { root.field("half").whole_number(); }).what(),
              HasSubstr("half: expected an integer, found 2.5"));
  EXPECT_THAT(input_error([&] { root.field("negative").count(); }).what(),
              HasSubstr("expected a count >= 0, found -1"));
  EXPECT_EQ(json_integer(root.field("big").json(), 0, LLONG_MAX), std::nullopt);
}

TEST(JsonInput, OptionalFieldsTellAbsentFromNull) {
  const JsonDocument document(R"({"a": null, "b": 2})", "o.json");
  const JsonNode root = document.root();
  EXPECT_FALSE(root.optional_field("a"));
  ASSERT_TRUE(root.present_field("a"));
  EXPECT_TRUE(std::isnan(root.present_field("a")->number()));
  EXPECT_FALSE(root.present_field("c"));
  EXPECT_EQ(root.number_or("b", 0), 2.0);
  EXPECT_EQ(root.string_or("c", "x"), "x");
}

TEST(JsonInput, LineOfPathWalksNestedValues) {
  const std::string text =
      "{\"a\": {\"b\": [\n 1,\n {\"c\": [], \"d\": {}},\n \"x\\\"y\"\n ]},\n \"e.f\": 2, "
      "\"q\\\"k\": 3}";
  EXPECT_EQ(line_of_json_path(text, ""), 1u);
  EXPECT_EQ(line_of_json_path(text, "a.b[0]"), 2u);
  EXPECT_EQ(line_of_json_path(text, "a.b[1].d"), 3u);
  EXPECT_EQ(line_of_json_path(text, "a.b[2]"), 4u);
  EXPECT_EQ(line_of_json_path(text, "e.f"), 6u);
  EXPECT_EQ(line_of_json_path(text, "q\"k"), 6u);
  EXPECT_EQ(line_of_json_path(text, "a.b[3]"), 0u);
  EXPECT_EQ(line_of_json_path(text, "missing"), 0u);
  // Deep nesting is walked without recursion.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(line_of_json_path(deep, "[0][0][0]"), 1u);
}

}  // namespace
}  // namespace ompscale
