#pragma once
// Small text helpers shared by the command-line tools.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale {

/// The pieces of `text` between `separator`s, empty pieces included ("a,,b" -> a, "", b; "" -> "").
std::vector<std::string> split(std::string_view text, char separator);

/// `text` without leading and trailing white space (space, \t, \r, \n, \v, \f).
std::string_view trim(std::string_view text);

// Numbers in text (command-line values, CSV cells, worker records, EPCC output) are read by the
// two parsers below, with one syntax: an optional sign ('+' or '-'), then digits; a double may
// also have a fraction and an exponent ("1.5e-3") or be "inf"/"nan". Nothing else: no spaces
// (trim first where a format allows them), no hexadecimal, no trailing characters.

/// `text` as a whole decimal integer in [min, max]; nullopt otherwise, overflow included.
std::optional<long long> parse_integer(std::string_view text, long long min, long long max);

/// Why parse_integer(text, min, max) refuses `text`: not an integer at all, or one below `min`
/// or above `max` (overflow counts as beyond the bound on its side), so that a caller can say
/// "too large" rather than "not an integer".
enum class IntegerFault { kNotAnInteger, kTooSmall, kTooLarge };

/// The fault parse_integer(text, min, max) meets; nullopt when it reads `text`.
std::optional<IntegerFault> integer_fault(std::string_view text, long long min, long long max);

/// `text` as a whole unsigned integer of up to 64 bits, in `base` 10 or 16 (digits 0-9 and a-f
/// or A-F, no "0x"); no sign, no spaces. nullopt otherwise, overflow included.
std::optional<std::uint64_t> parse_unsigned(std::string_view text, int base = 10);

/// `text` as a double; nullopt when it is not a number. A value beyond a double's range reads as
/// +-inf (underflow as 0 or a denormal), so callers that need finite values check isfinite and
/// can say "too large" rather than "not a number".
std::optional<double> parse_double(std::string_view text);

/// `text` as a finite number or a quotient of two ("3/2", "-0.25"; parse_double's syntax on each
/// side); nullopt when a side is not a finite number or the denominator is 0.
std::optional<double> parse_fraction(std::string_view text);

/// A number at the front of a token and the rest of it: "2.5ms" is 2.5 and "ms".
struct LeadingNumber {
  double value = 0.0;
  std::string_view rest;
};

/// The longest number (parse_double's syntax) at the front of `text`, and what follows it; nullopt
/// when `text` does not start with one. For tokens that join a number and a unit or an operator.
std::optional<LeadingNumber> parse_leading_double(std::string_view text);

/// Characters a terminal shows for UTF-8 `text` (code points; no wide-character handling).
std::size_t display_width(std::string_view text);

/// `text` broken at spaces into lines of at most `width` characters (UTF-8 code points), each
/// ending in '\n': the first line starts with `first_indent`, the others with `indent`. A word
/// longer than a line stays whole. `width` 0 means no limit: one line.
std::string wrap(std::string_view text, std::size_t width, std::string_view first_indent = "",
                 std::string_view indent = "");

/// The candidate closest to `word` by edit distance when it is close enough to be a likely typo
/// (at most a third of the word's letters, at least 1, differ); empty otherwise.
std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ompscale
