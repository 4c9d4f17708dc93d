#pragma once
// Outputs are written whole or not at all: a failed or interrupted run never leaves a truncated
// file behind. The content goes to "PATH.tmp.PID" and is renamed over PATH on success.

#include <string>
#include <string_view>

namespace ompscale {

/// Writes `content` to `path` atomically; "" or "-" means standard output.
/// Throws std::runtime_error naming the path when the file cannot be written.
void write_output(const std::string& path, std::string_view content);

/// Reads a whole file; "-" reads standard input. Throws InputError when it cannot be opened.
std::string read_input(const std::string& path);

}  // namespace ompscale
