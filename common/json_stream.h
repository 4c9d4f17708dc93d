#pragma once
// A JSON document written as it is produced, without building a tree: large outputs (a
// models.json of thousands of kernels) cost the time of formatting their text and the memory of
// a small buffer. The layout is exactly that of nlohmann::json's dump(2) with invalid UTF-8
// replaced (two-space indentation, "key": value, empty containers as {} and [], numbers as
// nlohmann writes them, NaN and infinities as null), so a document written here and one dumped
// from a tree are the same bytes.
//
//   JsonStream json(out);
//   json.begin_object();
//   json.key("kernels");
//   json.begin_array();
//   json.value(0.5);
//   json.end_array();
//   json.end_object();
//   json.flush();

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale {

class JsonStream {
 public:
  /// Writes to `out`; `depth` is the nesting level the first value starts at (its closing
  /// bracket is indented by 2 * depth spaces, as a member of an enclosing document would be).
  explicit JsonStream(std::ostream& out, unsigned depth = 0);
  /// Appends to `text` instead (flush() does nothing), e.g. to format pieces of one document in
  /// parallel and join them with raw_value().
  explicit JsonStream(std::string& text, unsigned depth = 0);
  ~JsonStream();
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  /// The next member's name; the member's value follows with value(), begin_object() or
  /// begin_array().
  void key(std::string_view name);

  void value(double number);  ///< null when not finite
  void value(std::int64_t number);
  void value(std::uint64_t number);
  void value(int number) { value(static_cast<std::int64_t>(number)); }
  void value(unsigned number) { value(static_cast<std::uint64_t>(number)); }
  void value(bool flag);
  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(const std::string& text) { value(std::string_view(text)); }
  void null();
  /// One member of the current object: key(name) then value(v).
  template <typename Value>
  void member(std::string_view name, const Value& v) {
    key(name);
    value(v);
  }
  /// A value another JsonStream formatted at the depth of this one's next value.
  void raw_value(std::string_view formatted);

  /// Hands the buffered text to the stream (done automatically as the buffer fills).
  void flush();

 private:
  void before_value();
  void open(char bracket);
  void close(char bracket);
  void newline_indent(std::size_t depth);
  void escaped(std::string_view text);
  void maybe_flush();

  std::ostream* out_ = nullptr;
  std::string own_buffer_;
  std::string& buffer_;
  /// Per open container: whether it has a member yet.
  std::vector<bool> has_members_;
  std::size_t base_depth_;
  bool after_key_ = false;
};

}  // namespace ompscale
