#pragma once
// Small text helpers shared by the command-line tools.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ompscale {

/// The pieces of `text` between `separator`s, empty pieces included ("a,,b" -> a, "", b; "" -> "").
std::vector<std::string> split(std::string_view text, char separator);

/// `text` as a whole decimal integer in [min, max]: an optional '-', digits, nothing else (no
/// spaces, no '+'); nullopt otherwise, overflow included.
std::optional<long long> parse_integer(std::string_view text, long long min, long long max);
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
