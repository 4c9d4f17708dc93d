#pragma once
// Small text helpers shared by the command-line tools.

#include <string>
#include <string_view>
#include <vector>

namespace ompscale {

/// The pieces of `text` between `separator`s, empty pieces included ("a,,b" -> a, "", b; "" -> "").
std::vector<std::string> split(std::string_view text, char separator);

}  // namespace ompscale
