#include "dashboard/json_input.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace ompscale::dashboard {

namespace {

std::size_t line_of_byte(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(text.size(), byte == 0 ? 0 : byte - 1);
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + end, '\n'));
}

}  // namespace

Json parse_json_text(std::string_view text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann's what() starts with "[json.exception.parse_error.101] parse error at line L,
    // column C: "; the line goes into our prefix, the rest is the cause.
    const std::string what = e.what();
    const auto colon = what.find(": ");
    throw InputError(file, line_of_byte(text, e.byte),
                     colon == std::string::npos ? what : what.substr(colon + 2));
  }
}

bool JsonNode::has(std::string_view name) const {
  return value_->is_object() && value_->find(name) != value_->end();
}

JsonNode JsonNode::field(std::string_view name) const {
  expect_object();
  const auto it = value_->find(name);
  if (it == value_->end()) fail(fmt::format("missing field '{}'", name));
  return JsonNode(*it, child_path(name), *file_);
}

std::optional<JsonNode> JsonNode::optional_field(std::string_view name) const {
  expect_object();
  const auto it = value_->find(name);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return JsonNode(*it, child_path(name), *file_);
}

std::vector<JsonNode> JsonNode::elements() const {
  if (!value_->is_array()) fail_type("an array");
  std::vector<JsonNode> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) {
    out.emplace_back((*value_)[i], fmt::format("{}[{}]", path_, i), *file_);
  }
  return out;
}

double JsonNode::number() const {
  if (value_->is_null()) return std::nan("");
  if (!value_->is_number()) fail_type("a number");
  return value_->get<double>();
}

long long JsonNode::integer() const {
  if (!value_->is_number_integer()) fail_type("an integer");
  return value_->get<long long>();
}

bool JsonNode::boolean() const {
  if (!value_->is_boolean()) fail_type("true or false");
  return value_->get<bool>();
}

std::string JsonNode::string() const {
  if (!value_->is_string()) fail_type("a string");
  return value_->get<std::string>();
}

double JsonNode::number_or(std::string_view name, double fallback) const {
  const auto f = optional_field(name);
  return f ? f->number() : fallback;
}

std::string JsonNode::string_or(std::string_view name, std::string fallback) const {
  const auto f = optional_field(name);
  return f ? f->string() : fallback;
}

void JsonNode::fail(const std::string& cause) const {
  throw InputError(*file_, 0, path_.empty() ? cause : fmt::format("{}: {}", path_, cause));
}

void JsonNode::fail_type(std::string_view expected) const {
  fail(fmt::format("expected {}, found {}", expected, value_->type_name()));
}

void JsonNode::expect_object() const {
  if (!value_->is_object()) fail_type("an object");
}

std::string JsonNode::child_path(std::string_view name) const {
  return path_.empty() ? std::string(name) : fmt::format("{}.{}", path_, name);
}

}  // namespace ompscale::dashboard
