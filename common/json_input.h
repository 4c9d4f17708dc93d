#pragma once
// Reading JSON inputs (models.json, platform descriptions, ompscan run files, Extra-P JSON,
// dashboard sidecars and reports) with errors that name the file, the line and the place inside
// the document: "report.json:12: regions[3].series[0].points[2].time_s: expected a number, found
// string". Every input problem is an InputError, so the tools exit 2 on it:
//   - a syntax error gives the line of the offending character and nlohmann's cause;
//   - a number literal too large for a double ("7e377": nlohmann's out_of_range 406) gives the
//     line of that literal;
//   - an integer outside the range the reader asks for (including floats such as 1.92e19 where
//     an integer is expected) is an error, never an overflowing conversion.
// nlohmann keeps no source positions, so the line of a value is found on demand, when an error
// is raised, by scanning the text for the value's path.
//
// Usage:
//   const JsonDocument document(text, "runs/3.json");
//   const JsonNode root = document.root();
//   const int threads = static_cast<int>(root.field("threads").integer(1, INT_MAX));

#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ompscale {

/// 1-based line of nlohmann's 1-based byte position `byte` (the character it stopped at).
std::size_t line_of_byte(std::string_view text, std::size_t byte);

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
/// column 2: " prefix: the cause, to follow our own FILE:LINE.
std::string json_error_cause(const nlohmann::json::exception& error);

/// 1-based line where the value at `path` ("kernels[3].models[0]", "" for the whole document)
/// starts in the valid JSON `text`; 0 when the path is not in the text.
std::size_t line_of_json_path(std::string_view text, std::string_view path);

/// Parses `text` (the contents of `file`, whose first line is `first_line`); every failure is an
/// InputError naming the file and line.
template <class Json>
Json parse_json(std::string_view text, const std::string& file, std::size_t first_line = 1);

/// `value` as an integer in [min, max] when it is an integer literal in that range (the one
/// checked conversion: nlohmann stores non-negative literals unsigned, and a cast of a large one
/// would wrap); nullopt otherwise.
template <class Json>
std::optional<long long> json_integer(const Json& value, long long min, long long max);

template <class Json>
class BasicJsonDocument;

/// A JSON value with its path in the document, so every error names where to look.
template <class Json>
class BasicJsonNode {
 public:
  BasicJsonNode(const Json& value, std::string path, const BasicJsonDocument<Json>& document)
      : value_(&value), path_(std::move(path)), document_(&document) {}

  const Json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }
  /// The file this value comes from, and the line where it starts (0 when unknown): for errors
  /// raised by code that takes a file and a line.
  const std::string& file() const;
  std::size_t line() const;
  /// Whether this is an object with member `name` (null or not).
  bool has(std::string_view name) const;

  /// A member that must be present (InputError "PATH: missing field 'NAME'" otherwise).
  BasicJsonNode field(std::string_view name) const;
  /// A member that may be absent or null: nullopt then.
  std::optional<BasicJsonNode> optional_field(std::string_view name) const;
  /// A member that may be absent: nullopt then; a null member is returned (reads as NaN, say).
  std::optional<BasicJsonNode> present_field(std::string_view name) const;
  /// The elements of an array.
  std::vector<BasicJsonNode> elements() const;
  /// The members of an object, as name and value, in the document's order (for an ordered
  /// Json; by name otherwise).
  std::vector<std::pair<std::string, BasicJsonNode>> members() const;

  /// A number; null reads as NaN (how our writers spell non-finite values).
  double number() const;
  /// A number, or nullopt for null.
  std::optional<double> optional_number() const;
  /// An integer literal in [min, max].
  long long integer(long long min = std::numeric_limits<long long>::min(),
                    long long max = std::numeric_limits<long long>::max()) const;
  /// An integer literal or a number with no fraction (3.0) in [min, max].
  long long whole_number(long long min = std::numeric_limits<long long>::min(),
                         long long max = std::numeric_limits<long long>::max()) const;
  /// An integer literal >= 0.
  std::size_t count() const;
  bool boolean() const;
  std::string string() const;
  /// An array of strings.
  std::vector<std::string> strings() const;

  /// Shorthands for optional fields: the value, or `fallback` when absent or null.
  double number_or(std::string_view name, double fallback) const;
  std::string string_or(std::string_view name, std::string fallback) const;

  /// InputError "FILE:LINE: PATH: CAUSE" (LINE of this value, PATH omitted for the root).
  [[noreturn]] void fail(const std::string& cause) const;
  /// InputError "FILE:LINE: CAUSE", the cause naming the place itself.
  [[noreturn]] void fail_unprefixed(const std::string& cause) const;

 private:
  [[noreturn]] void fail_type(std::string_view expected) const;
  void expect_object() const;
  std::string child_path(std::string_view name) const;

  const Json* value_;
  std::string path_;
  const BasicJsonDocument<Json>* document_;
};

/// A parsed document and the text it came from (which must outlive it); not copyable, since
/// its nodes point at it.
template <class Json>
class BasicJsonDocument {
 public:
  /// Parses `text`, the contents of `file` starting at line `first_line` (a JSON Lines object
  /// passes its own line).
  BasicJsonDocument(std::string_view text, std::string file, std::size_t first_line = 1);
  BasicJsonDocument(const BasicJsonDocument&) = delete;
  BasicJsonDocument& operator=(const BasicJsonDocument&) = delete;

  const Json& json() const { return json_; }
  BasicJsonNode<Json> root() const { return BasicJsonNode<Json>(json_, "", *this); }
  const std::string& file() const { return file_; }
  /// The line of the value at `path` in the file; 0 when unknown.
  std::size_t line_of(std::string_view path) const;

 private:
  std::string_view text_;
  std::string file_;
  std::size_t first_line_;
  Json json_;
};

using JsonDocument = BasicJsonDocument<nlohmann::json>;
using JsonNode = BasicJsonNode<nlohmann::json>;
/// Keeps member order (for files whose order is meaningful: kernels, options).
using OrderedJsonDocument = BasicJsonDocument<nlohmann::ordered_json>;
using OrderedJsonNode = BasicJsonNode<nlohmann::ordered_json>;

}  // namespace ompscale
