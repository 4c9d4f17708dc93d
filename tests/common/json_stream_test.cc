#include "common/json_stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace ompscale {
namespace {

using Json = nlohmann::ordered_json;

std::string dumped(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace);
}

// Writes `value` member by member, as a streaming writer of that document would.
void stream(JsonStream& out, const Json& value) {
  if (value.is_object()) {
    out.begin_object();
    for (const auto& [name, member] : value.items()) {
      out.key(name);
      stream(out, member);
    }
    out.end_object();
  } else if (value.is_array()) {
    out.begin_array();
    for (const Json& element : value) stream(out, element);
    out.end_array();
  } else if (value.is_null()) {
    out.null();
  } else if (value.is_boolean()) {
    out.value(value.get<bool>());
  } else if (value.is_number_unsigned()) {
    out.value(value.get<std::uint64_t>());
  } else if (value.is_number_integer()) {
    out.value(value.get<std::int64_t>());
  } else if (value.is_number_float()) {
    out.value(value.get<double>());
  } else {
    out.value(value.get<std::string>());
  }
}

Json sample() {
  Json doc = Json::object();
  doc["numbers"] = {1.0,
                    -0.0,
                    0.1,
                    1e100,
                    1e-5,
                    123456789012345678.0,
                    5e-324,
                    1.5e15,
                    1e16,
                    -2.5e-7,
                    3,
                    -4,
                    std::uint64_t{18446744073709551615u}};
  doc["strings"] = {"plain",
                    "with \"quotes\" and \\",
                    "tab\tnew\nline\x01",
                    "caf\xc3\xa9",
                    "broken \xff utf-8",
                    "del\x7f",
                    ""};
  doc["empty_object"] = Json::object();
  doc["empty_array"] = Json::array();
  doc["nested"] = {{"a", {{"b", Json::array({Json::object(), Json::array({1, 2})})}}},
                   {"flags", {true, false, nullptr}}};
  return doc;
}

TEST(JsonStream, WritesWhatNlohmannDumps) {
  const Json doc = sample();
  std::ostringstream out;
  {
    JsonStream json(out);
    stream(json, doc);
    json.flush();
  }
  EXPECT_EQ(out.str(), dumped(doc));
}

TEST(JsonStream, NonFiniteNumbersAreNull) {
  std::string text;
  JsonStream json(text);
  json.begin_array();
  json.value(std::numeric_limits<double>::quiet_NaN());
  json.value(std::numeric_limits<double>::infinity());
  json.value(-std::numeric_limits<double>::infinity());
  json.end_array();
  EXPECT_EQ(text, "[\n  null,\n  null,\n  null\n]");
}

TEST(JsonStream, PiecesFormattedApartJoinIntoTheSameDocument) {
  const Json doc = sample();
  // Each member of "items" formatted by its own stream at depth 2, then joined.
  const Json whole = {{"items", doc["nested"]["a"]["b"]}, {"tail", 1}};
  std::ostringstream out;
  JsonStream json(out);
  json.begin_object();
  json.key("items");
  json.begin_array();
  for (const Json& element : whole["items"]) {
    std::string piece;
    JsonStream part(piece, 2);
    stream(part, element);
    json.raw_value(piece);
  }
  json.end_array();
  json.key("tail");
  json.value(1);
  json.end_object();
  json.flush();
  EXPECT_EQ(out.str(), dumped(whole));
}

TEST(JsonStream, LargeDocumentsAreHandedOnInPieces) {
  std::ostringstream out;
  JsonStream json(out);
  json.begin_array();
  for (int i = 0; i < 20000; ++i) json.value(i * 0.25);
  EXPECT_FALSE(out.str().empty());  // flushed before the end
  json.end_array();
  json.flush();
  EXPECT_EQ(Json::parse(out.str()).size(), 20000u);
}

}  // namespace
}  // namespace ompscale
