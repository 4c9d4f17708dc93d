#pragma once
// Hardware counters (cycles, instructions) of one run through perf_event_open: opened on the
// child while it waits before its exec, enabled by the exec (enable_on_exec), inherited by every
// thread and process it creates (inherit), user space only (exclude_kernel, so that
// perf_event_paranoid 2 allows it), and read after the child has been reaped, when the kernel has
// folded the exited threads' counts in.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ompscale::regions {

struct PerfEvent {
  std::string name;  // the run file's field, e.g. "cycles"
  std::uint32_t type = 0;
  std::uint64_t config = 0;
};

/// cycles and instructions (PERF_TYPE_HARDWARE).
std::vector<PerfEvent> hardware_events();

/// /proc/sys/kernel/perf_event_paranoid, or nullopt when the kernel has none.
std::optional<int> perf_event_paranoid();

/// Why `event` could not be opened, from perf_event_open's errno: the paranoid level for
/// EACCES/EPERM, missing hardware counters (virtual machines) for ENOENT/EOPNOTSUPP/ENODEV.
std::string perf_unavailable_reason(const std::string& event, int error,
                                    std::optional<int> paranoid);

class PerfCounters {
 public:
  /// Opens `events` on `pid`, a child stopped before its exec. Never throws: when one of them
  /// cannot be opened none is kept, available() is false and reason() says why.
  PerfCounters(pid_t pid, const std::vector<PerfEvent>& events);
  ~PerfCounters();
  PerfCounters(const PerfCounters&) = delete;
  PerfCounters& operator=(const PerfCounters&) = delete;

  bool available() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }

  struct Counts {
    std::map<std::string, std::uint64_t> values;  // by event name
    /// The kernel multiplexed a counter (ran it part of the time); its value is extrapolated.
    bool scaled = false;
  };
  /// The counts so far; call after the child has been reaped for the whole run. Empty when not
  /// available or a read failed (reason() then says why).
  Counts read();

 private:
  std::vector<std::pair<std::string, int>> fds_;  // event name, descriptor
  std::string reason_;
};

}  // namespace ompscale::regions
