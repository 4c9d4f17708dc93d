#pragma once
// How long the calling thread has waited for a CPU: the run delay the kernel's scheduler
// statistics keep per thread (/proc/thread-self/schedstat, second field, nanoseconds spent
// runnable but not running). Read only in executions that start threads: a new thread often
// begins on its creator's CPU and shares it until the kernel moves it, and that wait is team
// start-up, not work.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ompscale::regions::ompt {

/// The run delay in schedstat text ("<on-cpu ns> <run-delay ns> <timeslices>"); nullopt when
/// the text is not of that form. Inline: the tests check it without the tool library.
inline std::optional<std::uint64_t> parse_run_delay(std::string_view schedstat) {
  const std::size_t first_end = schedstat.find(' ');
  if (first_end == 0 || first_end == std::string_view::npos) return std::nullopt;
  schedstat.remove_prefix(first_end + 1);
  std::uint64_t delay = 0;
  const char* end = schedstat.data() + schedstat.size();
  const auto [stop, error] = std::from_chars(schedstat.data(), end, delay);
  if (error != std::errc{} || (stop != end && *stop != ' ' && *stop != '\n')) return std::nullopt;
  return delay;
}

/// The calling thread's run delay in nanoseconds; nullopt when the kernel keeps none (no
/// schedstat file). Opens, reads and closes the file with plain system calls: no allocation,
/// and no descriptor outlives the call.
std::optional<std::uint64_t> thread_run_delay_ns();

}  // namespace ompscale::regions::ompt
