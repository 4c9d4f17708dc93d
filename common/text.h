#pragma once
// Small text helpers shared by the command-line tools.

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

}  // namespace ompscale
