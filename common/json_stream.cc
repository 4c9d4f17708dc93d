#include "common/json_stream.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ompscale {

namespace {

// Text is handed to the stream in pieces of about this size.
constexpr std::size_t kFlushBytes = 1 << 16;

bool plain(std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

JsonStream::JsonStream(std::ostream& out, unsigned depth)
    : out_(&out), buffer_(own_buffer_), base_depth_(depth) {
  buffer_.reserve(kFlushBytes + 4096);
}

JsonStream::JsonStream(std::string& text, unsigned depth) : buffer_(text), base_depth_(depth) {}

JsonStream::~JsonStream() {
  // A stream that fails while unwinding has nowhere to report it; flush() reports otherwise.
  try {
    flush();
  } catch (...) {
  }
}

void JsonStream::newline_indent(std::size_t depth) {
  buffer_ += '\n';
  buffer_.append(2 * depth, ' ');
}

void JsonStream::before_value() {
  maybe_flush();
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (has_members_.empty()) return;
  buffer_ += has_members_.back() ? "," : "";
  has_members_.back() = true;
  newline_indent(base_depth_ + has_members_.size());
}

void JsonStream::open(char bracket) {
  before_value();
  buffer_ += bracket;
  has_members_.push_back(false);
}

void JsonStream::close(char bracket) {
  const bool members = has_members_.back();
  has_members_.pop_back();
  if (members) newline_indent(base_depth_ + has_members_.size());
  buffer_ += bracket;
}

void JsonStream::begin_object() {
  open('{');
}
void JsonStream::end_object() {
  close('}');
}
void JsonStream::begin_array() {
  open('[');
}
void JsonStream::end_array() {
  close(']');
}

void JsonStream::key(std::string_view name) {
  before_value();
  escaped(name);
  buffer_ += ": ";
  after_key_ = true;
}

void JsonStream::value(double number) {
  before_value();
  if (!std::isfinite(number)) {
    buffer_ += "null";
    return;
  }
  // nlohmann's own shortest round-trip formatting, so the text is the one its dump() writes.
  char text[64];
  const char* end = nlohmann::detail::to_chars(text, text + sizeof text, number);
  buffer_.append(text, static_cast<std::size_t>(end - text));
}

void JsonStream::value(std::int64_t number) {
  before_value();
  char text[24];
  buffer_.append(
      text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, number).ptr - text));
}

void JsonStream::value(std::uint64_t number) {
  before_value();
  char text[24];
  buffer_.append(
      text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, number).ptr - text));
}

void JsonStream::value(bool flag) {
  before_value();
  buffer_ += flag ? "true" : "false";
}

void JsonStream::value(std::string_view text) {
  before_value();
  escaped(text);
}

void JsonStream::null() {
  before_value();
  buffer_ += "null";
}

void JsonStream::raw_value(std::string_view formatted) {
  before_value();
  buffer_ += formatted;
}

void JsonStream::escaped(std::string_view text) {
  if (plain(text)) {
    buffer_ += '"';
    buffer_ += text;
    buffer_ += '"';
    return;
  }
  // Escapes and invalid UTF-8 (replaced): rare, so nlohmann does it exactly as its dump() would.
  buffer_ += nlohmann::json(std::string(text))
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void JsonStream::maybe_flush() {
  if (out_ != nullptr && buffer_.size() >= kFlushBytes) flush();
}

void JsonStream::flush() {
  if (out_ == nullptr) return;
  out_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

}  // namespace ompscale
