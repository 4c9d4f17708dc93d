#pragma once
// Reading JSON inputs (sidecars, ompscan reports, nightly configurations) with errors that name
// the file and the place inside it: "report.json: regions[3].series[0].points[2].time_s: expected
// a number, found string", or "report.json:12: syntax error ...". The dashboard's only JSON
// reading helper; meant to move to common/ when the other modules' readers share one.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale::dashboard {

using Json = nlohmann::json;

/// Parses `text`; a syntax error is an InputError(file, line of the error, cause).
Json parse_json_text(std::string_view text, const std::string& file);

/// A JSON value with its path in the document, so every error names where to look.
class JsonNode {
 public:
  JsonNode(const Json& value, std::string path, const std::string& file)
      : value_(&value), path_(std::move(path)), file_(&file) {}

  const Json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }
  bool has(std::string_view name) const;

  /// A field that must be present (InputError "PATH: missing field 'NAME'" otherwise).
  JsonNode field(std::string_view name) const;
  /// A field that may be absent or null.
  std::optional<JsonNode> optional_field(std::string_view name) const;
  /// The elements of an array.
  std::vector<JsonNode> elements() const;

  /// A number; null reads as NaN (how writers spell non-finite values).
  double number() const;
  long long integer() const;
  bool boolean() const;
  std::string string() const;

  /// Shorthands for optional fields: the value, or `fallback` when absent or null.
  double number_or(std::string_view name, double fallback) const;
  std::string string_or(std::string_view name, std::string fallback) const;

  [[noreturn]] void fail(const std::string& cause) const;

 private:
  [[noreturn]] void fail_type(std::string_view expected) const;
  void expect_object() const;
  std::string child_path(std::string_view name) const;

  const Json* value_;
  std::string path_;
  const std::string* file_;
};

}  // namespace ompscale::dashboard
