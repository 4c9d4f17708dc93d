#include "common/csv.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <fmt/format.h>

#include "common/error.h"

namespace ompscale {

namespace {

constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

// Characters that end or disturb an unquoted field.
constexpr std::array<bool, 256> kSpecial = [] {
  std::array<bool, 256> special{};
  for (const unsigned char c : {',', '\n', '\r', '"'}) special[c] = true;
  return special;
}();

const char* find_char(const char* begin, const char* end, char c) {
  return static_cast<const char*>(std::memchr(begin, c, static_cast<std::size_t>(end - begin)));
}

// Appends the fields of the line [begin, end) split at its commas; false when the line holds a
// quote or a carriage return and needs the full parser. This is the hot loop of every CSV input,
// so with SSE2 it tests 16 bytes per step.
bool split_at_commas(const char* begin, const char* end, std::vector<std::string_view>& fields) {
  const char* field = begin;
  const char* p = begin;
  const auto add_field = [&](const char* field_end) {
    fields.emplace_back(field, static_cast<std::size_t>(field_end - field));
    field = field_end + 1;
  };
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i carriage_return = _mm_set1_epi8('\r');
  for (; end - p >= 16; p += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i disturbing =
        _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, carriage_return));
    if (_mm_movemask_epi8(disturbing) != 0) return false;
    for (auto commas = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, comma)));
         commas != 0; commas &= commas - 1) {
      add_field(p + std::countr_zero(commas));
    }
  }
#endif
  for (; p != end; ++p) {
    if (*p == ',') {
      add_field(p);
    } else if (*p == '"' || *p == '\r') {
      return false;
    }
  }
  fields.emplace_back(field, static_cast<std::size_t>(end - field));
  return true;
}

template <typename Fields>
std::string join_fields(const Fields& fields) {
  std::string line;
  bool first = true;
  for (const auto& field : fields) {
    if (!first) line += ',';
    first = false;
    line += csv_field(field);
  }
  line += '\n';
  return line;
}

}  // namespace

CsvReader::CsvReader(std::string_view text, std::string file, std::size_t first_line)
    : text_(text), file_(std::move(file)), line_(first_line) {
  if (text_.starts_with(kUtf8ByteOrderMark)) pos_ = kUtf8ByteOrderMark.size();
}

void CsvReader::fail(std::size_t line, const std::string& cause) const {
  throw InputError(file_, line, cause);
}

bool CsvReader::next(std::vector<std::string_view>& fields) {
  fields.clear();
  // Blank lines carry no record (RFC 4180 does not define them; spreadsheets write them).
  while (pos_ < text_.size()) {
    if (text_[pos_] == '\n') {
      ++pos_;
    } else if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
      pos_ += 2;
    } else {
      break;
    }
    ++line_;
  }
  if (pos_ >= text_.size()) return false;
  record_line_ = line_;
  if (split_simple_line(fields)) return true;

  unescaped_.clear();
  unescaped_fields_.clear();
  while (read_field(fields)) {
  }
  // Only now, with unescaped_ complete, can views into it be taken.
  for (const Unescaped& u : unescaped_fields_) {
    fields[u.field] = std::string_view(unescaped_).substr(u.offset, u.length);
  }
  return true;
}

// Most lines have neither quotes nor stray carriage returns; those split at their commas.
// Returns false, having consumed nothing, for any other line.
bool CsvReader::split_simple_line(std::vector<std::string_view>& fields) {
  const char* const begin = text_.data() + pos_;
  const char* const text_end = text_.data() + text_.size();
  const char* const newline = find_char(begin, text_end, '\n');
  const char* line_end = newline != nullptr ? newline : text_end;
  if (newline != nullptr && line_end != begin && line_end[-1] == '\r') --line_end;
  if (!split_at_commas(begin, line_end, fields)) {
    fields.clear();
    return false;
  }
  if (newline != nullptr) {
    pos_ = static_cast<std::size_t>(newline + 1 - text_.data());
    ++line_;
  } else {
    pos_ = text_.size();
  }
  return true;
}

bool CsvReader::read_field(std::vector<std::string_view>& fields) {
  if (pos_ < text_.size() && text_[pos_] == '"') return read_quoted_field(fields);
  const char* const begin = text_.data() + pos_;
  const char* const end = text_.data() + text_.size();
  const char* p = begin;
  while (p != end && !kSpecial[static_cast<unsigned char>(*p)]) ++p;
  fields.emplace_back(begin, static_cast<std::size_t>(p - begin));
  pos_ = static_cast<std::size_t>(p - text_.data());
  if (p == end) return false;
  switch (*p) {
    case ',':
      ++pos_;
      return true;
    case '\n':
      ++pos_;
      ++line_;
      return false;
    case '\r':
      if (p + 1 != end && p[1] == '\n') {
        pos_ += 2;
        ++line_;
        return false;
      }
      fail(line_,
           "carriage return without a line feed in an unquoted field; end lines with LF or CRLF, "
           "or quote the field");
    default:  // '"'
      fail(line_,
           "quote inside an unquoted field; enclose the whole field in quotes and double the "
           "inner quote (\"\")");
  }
}

bool CsvReader::read_quoted_field(std::vector<std::string_view>& fields) {
  const std::size_t opening_line = line_;
  const std::size_t start = ++pos_;  // after the opening quote
  bool has_doubled_quote = false;
  std::size_t offset = unescaped_.size();
  std::size_t closing = 0;
  while (true) {
    const std::size_t quote = text_.find('"', pos_);
    if (quote == std::string_view::npos) {
      fail(opening_line, "unterminated quoted field: the quote opened here is never closed");
    }
    const std::string_view chunk = text_.substr(pos_, quote - pos_);
    line_ += static_cast<std::size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
    pos_ = quote + 1;
    if (pos_ < text_.size() && text_[pos_] == '"') {  // "" is one literal quote
      has_doubled_quote = true;
      unescaped_.append(chunk);
      unescaped_ += '"';
      ++pos_;
      continue;
    }
    if (has_doubled_quote) unescaped_.append(chunk);
    closing = quote;
    break;
  }
  if (has_doubled_quote) {
    unescaped_fields_.push_back({fields.size(), offset, unescaped_.size() - offset});
    fields.emplace_back();
  } else {
    fields.push_back(text_.substr(start, closing - start));
  }

  if (pos_ >= text_.size()) return false;
  const char after = text_[pos_];
  if (after == ',') {
    ++pos_;
    return true;
  }
  if (after == '\n') {
    ++pos_;
    ++line_;
    return false;
  }
  if (after == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
    pos_ += 2;
    ++line_;
    return false;
  }
  fail(line_, fmt::format("unexpected {:?} after a closing quote; a quoted field ends at a comma "
                          "or the line end",
                          std::string(1, after)));
}

std::vector<CsvRecord> read_csv(std::string_view text, const std::string& file) {
  std::vector<CsvRecord> records;
  CsvReader reader(text, file);
  std::vector<std::string_view> fields;
  while (reader.next(fields)) {
    records.push_back({reader.line(), std::vector<std::string>(fields.begin(), fields.end())});
  }
  return records;
}

std::string csv_field(std::string_view value) {
  if (value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string quoted;
  quoted.reserve(value.size() + 2);
  quoted += '"';
  for (const char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::string csv_line(const std::vector<std::string>& fields) {
  return join_fields(fields);
}

std::string csv_line(std::initializer_list<std::string_view> fields) {
  return join_fields(fields);
}

}  // namespace ompscale
