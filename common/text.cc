#include "common/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ompscale {

namespace {

// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: a swap is the
// commonest typo ("fti" for "fit").
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::size_t display_width(std::string_view text) {
  // Continuation bytes (10xxxxxx) do not start a character.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    pieces.emplace_back(
        text.substr(start, end == std::string_view::npos ? text.npos : end - start));
    if (end == std::string_view::npos) return pieces;
    start = end + 1;
  }
}

std::string_view trim(std::string_view text) {
  // By hand: find_first_not_of searches the set of blanks once per character.
  const auto is_blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
  };
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

namespace {

// from_chars takes a leading '-' but not '+'; "+-1" stays invalid.
std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-') text.remove_prefix(1);
  return text;
}

}  // namespace

namespace {

// `text` whole as a long long: errc() and the value, result_out_of_range, or invalid_argument
// (trailing characters included).
std::errc read_integer(std::string_view text, long long& value) {
  text = without_plus(text);
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || stop != end) return std::errc::invalid_argument;
  return error;
}

}  // namespace

std::optional<long long> parse_integer(std::string_view text, long long min, long long max) {
  long long value = 0;
  if (read_integer(text, value) != std::errc() || value < min || value > max) return std::nullopt;
  return value;
}

std::optional<IntegerFault> integer_fault(std::string_view text, long long min, long long max) {
  long long value = 0;
  const std::errc error = read_integer(text, value);
  if (error == std::errc::invalid_argument) return IntegerFault::kNotAnInteger;
  if (error == std::errc::result_out_of_range)
    return text.starts_with('-') ? IntegerFault::kTooSmall : IntegerFault::kTooLarge;
  if (value < min) return IntegerFault::kTooSmall;
  if (value > max) return IntegerFault::kTooLarge;
  return std::nullopt;
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text, int base) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  // from_chars takes no sign for an unsigned type, so "-1" and "+1" stop at once.
  const auto [stop, error] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

std::optional<LeadingNumber> parse_leading_double(std::string_view text) {
  const std::string_view number = without_plus(text);
  double value = 0.0;
  const char* end = number.data() + number.size();
  const auto [stop, error] = std::from_chars(number.data(), end, value);
  if (error == std::errc::invalid_argument) return std::nullopt;
  const std::string_view read = number.substr(0, static_cast<std::size_t>(stop - number.data()));
  // Out of range: strtod says which way (+-inf for overflow, 0 or a denormal for underflow).
  if (error == std::errc::result_out_of_range)
    value = std::strtod(std::string(read).c_str(), nullptr);
  return LeadingNumber{value, number.substr(read.size())};
}

std::optional<double> parse_fraction(std::string_view text) {
  const auto finite = [](std::string_view part) -> std::optional<double> {
    const std::optional<double> value = parse_double(part);
    if (value && std::isfinite(*value)) return value;
    return std::nullopt;
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return finite(text);
  const std::optional<double> numerator = finite(text.substr(0, slash));
  const std::optional<double> denominator = finite(text.substr(slash + 1));
  if (!numerator || !denominator || *denominator == 0.0) return std::nullopt;
  return *numerator / *denominator;
}

std::optional<double> parse_double(std::string_view text) {
  const std::optional<LeadingNumber> number = parse_leading_double(text);
  if (!number || !number->rest.empty()) return std::nullopt;
  return number->value;
}

std::string wrap(std::string_view text, std::size_t width, std::string_view first_indent,
                 std::string_view indent) {
  std::string out(first_indent);
  std::size_t line_width = display_width(first_indent);
  bool line_empty = true;
  for (const std::string& word : split(text, ' ')) {
    if (word.empty()) continue;
    const std::size_t w = display_width(word);
    if (!line_empty && width > 0 && line_width + 1 + w > width) {
      out += '\n';
      out += indent;
      line_width = display_width(indent);
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++line_width;
    }
    out += word;
    line_width += w;
    line_empty = false;
  }
  out += '\n';
  return out;
}

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace ompscale
