#include "common/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace ompscale {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Walks valid JSON text value by value, keeping the path of the value it is at, until it reaches
// `target`. Iterative (an explicit stack), so deeply nested input cannot exhaust the call stack.
class PathScanner {
 public:
  PathScanner(std::string_view text, std::string_view target) : text_(text), target_(target) {}

  std::size_t find() {
    while (true) {
      skip_space();
      if (path_ == target_) return line_;
      if (at_end()) return 0;
      const char c = text_[i_];
      if (c == '{' || c == '[') {
        stack_.push_back({c == '{', 0, path_.size()});
        ++i_;
        skip_space();
        if (!at_end() && (text_[i_] == '}' || text_[i_] == ']')) {
          ++i_;
          stack_.pop_back();
          if (!close_values()) return 0;
          continue;
        }
        if (!enter_member()) return 0;
        continue;
      }
      if (c == '"') {
        skip_string();
      } else {
        while (!at_end() && !is_space(text_[i_]) && text_[i_] != ',' && text_[i_] != ']' &&
               text_[i_] != '}')
          ++i_;
      }
      if (!close_values()) return 0;
    }
  }

 private:
  struct Level {
    bool object;
    std::size_t index;
    std::size_t path_size;
  };

  bool at_end() const { return i_ >= text_.size(); }
  void skip_space() {
    for (; !at_end() && is_space(text_[i_]); ++i_) {
      if (text_[i_] == '\n') ++line_;
    }
  }
  // From the opening quote to after the closing one; JSON strings hold no raw newlines.
  std::string_view skip_string() {
    const std::size_t start = i_;
    for (++i_; !at_end() && text_[i_] != '"'; ++i_) {
      if (text_[i_] == '\\') ++i_;
    }
    ++i_;
    return text_.substr(start, std::min(i_, text_.size()) - start);
  }
  // After a value: past ',' into the next member, or past closing brackets.
  bool close_values() {
    while (true) {
      skip_space();
      if (stack_.empty() || at_end()) return false;
      path_.resize(stack_.back().path_size);
      if (text_[i_] == ',') {
        ++i_;
        ++stack_.back().index;
        return enter_member();
      }
      ++i_;
      stack_.pop_back();
    }
  }
  // Extends the path by the member at the top level of the stack (past "key": for objects).
  bool enter_member() {
    const Level& level = stack_.back();
    if (!level.object) {
      path_ += fmt::format("[{}]", level.index);
      return true;
    }
    skip_space();
    if (at_end() || text_[i_] != '"') return false;
    const std::string_view token = skip_string();
    std::string key(token.substr(1, token.size() >= 2 ? token.size() - 2 : 0));
    if (key.find('\\') != std::string::npos) {
      key = nlohmann::json::parse(token, nullptr, false).template get<std::string>();
    }
    if (!path_.empty()) path_ += '.';
    path_ += key;
    skip_space();
    if (at_end() || text_[i_] != ':') return false;
    ++i_;
    return true;
  }

  std::string_view text_;
  std::string_view target_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
  std::string path_;
  std::vector<Level> stack_;
};

// The line of the literal nlohmann names in "number overflow parsing '7e377'": its first
// occurrence in the text; 0 when it cannot be found.
std::size_t line_of_quoted_token(std::string_view text, std::string_view message) {
  const std::size_t open = message.find('\'');
  const std::size_t close = message.rfind('\'');
  if (open == std::string_view::npos || close <= open + 1) return 0;
  const std::size_t at = text.find(message.substr(open + 1, close - open - 1));
  if (at == std::string_view::npos) return 0;
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

template <class Json>
[[noreturn]] void fail_range(const BasicJsonNode<Json>& node, long long min, long long max) {
  const auto bound = [](long long v) {
    if (v == std::numeric_limits<long long>::min()) return std::string("-2^63");
    if (v == std::numeric_limits<long long>::max()) return std::string("2^63-1");
    return std::to_string(v);
  };
  node.fail(fmt::format("expected an integer in {}..{}, found {}", bound(min), bound(max),
                        node.json().dump()));
}

}  // namespace

std::size_t line_of_byte(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(text.size(), byte == 0 ? 0 : byte - 1);
  return 1 + static_cast<std::size_t>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

std::string json_error_cause(const nlohmann::json::exception& error) {
  std::string_view message = error.what();
  if (const auto end = message.find("] "); message.starts_with("[") && end != message.npos) {
    message.remove_prefix(end + 2);
  }
  // Parse errors then say "parse error at line L, column C: CAUSE"; the line is ours to give.
  if (message.starts_with("parse error")) {
    if (const auto colon = message.find(": "); colon != message.npos) {
      message.remove_prefix(colon + 2);
    }
  }
  return std::string(message);
}

std::size_t line_of_json_path(std::string_view text, std::string_view path) {
  return PathScanner(text, path).find();
}

template <class Json>
Json parse_json(std::string_view text, const std::string& file, std::size_t first_line) {
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw InputError(file, first_line - 1 + line_of_byte(text, error.byte),
                     fmt::format("invalid JSON: {}", json_error_cause(error)));
  } catch (const nlohmann::json::exception& error) {
    // A number literal beyond a double's range (out_of_range 406).
    const std::size_t line = line_of_quoted_token(text, error.what());
    throw InputError(file, line == 0 ? 0 : first_line - 1 + line,
                     fmt::format("invalid JSON: {}", json_error_cause(error)));
  }
}

template <class Json>
BasicJsonDocument<Json>::BasicJsonDocument(std::string_view text, std::string file,
                                           std::size_t first_line)
    : text_(text),
      file_(std::move(file)),
      first_line_(first_line),
      json_(parse_json<Json>(text, file_, first_line)) {}

template <class Json>
std::size_t BasicJsonDocument<Json>::line_of(std::string_view path) const {
  const std::size_t line = line_of_json_path(text_, path);
  return line == 0 ? 0 : first_line_ - 1 + line;
}

template <class Json>
bool BasicJsonNode<Json>::has(std::string_view name) const {
  return value_->is_object() && value_->find(name) != value_->end();
}

template <class Json>
BasicJsonNode<Json> BasicJsonNode<Json>::field(std::string_view name) const {
  expect_object();
  const auto it = value_->find(name);
  if (it == value_->end()) fail(fmt::format("missing field '{}'", name));
  return BasicJsonNode(*it, child_path(name), *document_);
}

template <class Json>
std::optional<BasicJsonNode<Json>> BasicJsonNode<Json>::optional_field(
    std::string_view name) const {
  auto node = present_field(name);
  if (node && node->is_null()) return std::nullopt;
  return node;
}

template <class Json>
std::optional<BasicJsonNode<Json>> BasicJsonNode<Json>::present_field(std::string_view name) const {
  expect_object();
  const auto it = value_->find(name);
  if (it == value_->end()) return std::nullopt;
  return BasicJsonNode(*it, child_path(name), *document_);
}

template <class Json>
std::vector<BasicJsonNode<Json>> BasicJsonNode<Json>::elements() const {
  if (!value_->is_array()) fail_type("an array");
  std::vector<BasicJsonNode> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) {
    out.emplace_back((*value_)[i], fmt::format("{}[{}]", path_, i), *document_);
  }
  return out;
}

template <class Json>
std::vector<std::pair<std::string, BasicJsonNode<Json>>> BasicJsonNode<Json>::members() const {
  expect_object();
  std::vector<std::pair<std::string, BasicJsonNode>> out;
  out.reserve(value_->size());
  for (const auto& [name, value] : value_->items())
    out.emplace_back(name, BasicJsonNode(value, child_path(name), *document_));
  return out;
}

template <class Json>
const std::string& BasicJsonNode<Json>::file() const {
  return document_->file();
}

template <class Json>
std::size_t BasicJsonNode<Json>::line() const {
  return document_->line_of(path_);
}

template <class Json>
double BasicJsonNode<Json>::number() const {
  if (value_->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!value_->is_number()) fail_type("a number");
  return value_->template get<double>();
}

template <class Json>
std::optional<double> BasicJsonNode<Json>::optional_number() const {
  if (value_->is_null()) return std::nullopt;
  return number();
}

template <class Json>
std::optional<long long> json_integer(const Json& value, long long min, long long max) {
  if (!value.is_number_integer()) return std::nullopt;
  // Non-negative literals are stored unsigned, negative ones signed: compare each its own way.
  if (value.is_number_unsigned()) {
    const auto v = value.template get<std::uint64_t>();
    if (max < 0 || v > static_cast<std::uint64_t>(max)) return std::nullopt;
    const auto n = static_cast<long long>(v);
    return n < min ? std::nullopt : std::optional<long long>(n);
  }
  const auto n = value.template get<std::int64_t>();
  return n < min || n > max ? std::nullopt : std::optional<long long>(n);
}

template <class Json>
long long BasicJsonNode<Json>::integer(long long min, long long max) const {
  if (!value_->is_number_integer()) fail_type("an integer");
  const auto n = json_integer(*value_, min, max);
  if (!n) fail_range(*this, min, max);
  return *n;
}

template <class Json>
long long BasicJsonNode<Json>::whole_number(long long min, long long max) const {
  if (value_->is_number_integer()) return integer(min, max);
  if (!value_->is_number()) fail_type("an integer");
  const double v = value_->template get<double>();
  if (v != std::floor(v)) fail(fmt::format("expected an integer, found {}", value_->dump()));
  // 2^63 is the first double beyond long long; the range check needs the value converted.
  if (!(v >= -0x1p63 && v < 0x1p63)) fail_range(*this, min, max);
  const auto n = static_cast<long long>(v);
  if (n < min || n > max) fail_range(*this, min, max);
  return n;
}

template <class Json>
std::size_t BasicJsonNode<Json>::count() const {
  if (value_->is_number_integer() && !value_->is_number_unsigned()) {
    const auto n = value_->template get<std::int64_t>();
    if (n < 0) fail(fmt::format("expected a count >= 0, found {}", n));
  }
  return static_cast<std::size_t>(integer(0));
}

template <class Json>
bool BasicJsonNode<Json>::boolean() const {
  if (!value_->is_boolean()) fail_type("true or false");
  return value_->template get<bool>();
}

template <class Json>
std::string BasicJsonNode<Json>::string() const {
  if (!value_->is_string()) fail_type("a string");
  return value_->template get<std::string>();
}

template <class Json>
std::vector<std::string> BasicJsonNode<Json>::strings() const {
  std::vector<std::string> out;
  for (const BasicJsonNode& element : elements()) out.push_back(element.string());
  return out;
}

template <class Json>
double BasicJsonNode<Json>::number_or(std::string_view name, double fallback) const {
  const auto f = optional_field(name);
  return f ? f->number() : fallback;
}

template <class Json>
std::string BasicJsonNode<Json>::string_or(std::string_view name, std::string fallback) const {
  const auto f = optional_field(name);
  return f ? f->string() : fallback;
}

template <class Json>
void BasicJsonNode<Json>::fail(const std::string& cause) const {
  fail_unprefixed(path_.empty() ? cause : fmt::format("{}: {}", path_, cause));
}

template <class Json>
void BasicJsonNode<Json>::fail_unprefixed(const std::string& cause) const {
  throw InputError(file(), line(), cause);
}

template <class Json>
void BasicJsonNode<Json>::fail_type(std::string_view expected) const {
  fail(fmt::format("expected {}, found {}", expected, value_->type_name()));
}

template <class Json>
void BasicJsonNode<Json>::expect_object() const {
  if (!value_->is_object()) fail_type("an object");
}

template <class Json>
std::string BasicJsonNode<Json>::child_path(std::string_view name) const {
  return path_.empty() ? std::string(name) : fmt::format("{}.{}", path_, name);
}

template nlohmann::json parse_json<nlohmann::json>(std::string_view, const std::string&,
                                                   std::size_t);
template nlohmann::ordered_json parse_json<nlohmann::ordered_json>(std::string_view,
                                                                   const std::string&, std::size_t);
template std::optional<long long> json_integer(const nlohmann::json&, long long, long long);
template std::optional<long long> json_integer(const nlohmann::ordered_json&, long long, long long);
template class BasicJsonDocument<nlohmann::json>;
template class BasicJsonDocument<nlohmann::ordered_json>;
template class BasicJsonNode<nlohmann::json>;
template class BasicJsonNode<nlohmann::ordered_json>;

}  // namespace ompscale
