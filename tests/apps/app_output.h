#pragma once
// What the test applications print, read back by the tests and benchmarks that run them.

#include <cstdint>
#include <cstdlib>
#include <string>

namespace apps {

/// The number of tasks the tasks application reports ("tasks fib(n) = f, <count> tasks"), or 0
/// when `out` holds no such line.
inline std::uint64_t printed_task_count(const std::string& out) {
  const std::size_t at = out.find("tasks fib(");
  if (at == std::string::npos) return 0;
  const std::size_t comma = out.find(", ", at);
  return comma == std::string::npos ? 0 : std::strtoull(out.c_str() + comma + 2, nullptr, 10);
}

}  // namespace apps
