#include "regions/run/perf_counters.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace ompscale::regions {

std::vector<PerfEvent> hardware_events() {
  return {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
          {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS}};
}

std::optional<int> perf_event_paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 0;
  if (!(in >> level)) return std::nullopt;
  return level;
}

std::string perf_unavailable_reason(const std::string& event, int error,
                                    std::optional<int> paranoid) {
  switch (error) {
    case EACCES:
    case EPERM:
      if (paranoid)
        return fmt::format(
            "perf_event_paranoid is {}: this user may not count another process's events (needs "
            "2 or less, CAP_PERFMON or root)",
            *paranoid);
      return fmt::format("perf_event_open for {}: {}", event, std::strerror(error));
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      return fmt::format(
          "no {} counter: the CPU or hypervisor exposes no hardware performance counters "
          "(perf_event_open: {})",
          event, std::strerror(error));
    case ENOSYS:
      return "the kernel has no perf_event_open (built without perf events)";
    default:
      return fmt::format("perf_event_open for {}: {}", event, std::strerror(error));
  }
}

PerfCounters::PerfCounters(pid_t pid, const std::vector<PerfEvent>& events) {
  for (const PerfEvent& event : events) {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = event.type;
    attr.config = event.config;
    attr.disabled = 1;
    attr.enable_on_exec = 1;
    attr.inherit = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    const long fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
      reason_ = perf_unavailable_reason(event.name, errno, perf_event_paranoid());
      for (const auto& [name, open_fd] : fds_) close(open_fd);
      fds_.clear();
      return;
    }
    fds_.emplace_back(event.name, static_cast<int>(fd));
  }
}

PerfCounters::~PerfCounters() {
  for (const auto& [name, fd] : fds_) close(fd);
}

PerfCounters::Counts PerfCounters::read() {
  Counts counts;
  for (const auto& [name, fd] : fds_) {
    std::uint64_t values[3] = {};  // count, time enabled, time running
    const ssize_t n = ::read(fd, values, sizeof values);
    if (n != static_cast<ssize_t>(sizeof values)) {
      reason_ = fmt::format("reading the {} counter failed: {}", name,
                            n < 0 ? std::strerror(errno) : "short read");
      return {};
    }
    std::uint64_t count = values[0];
    if (values[2] > 0 && values[2] < values[1]) {
      count =
          static_cast<std::uint64_t>(static_cast<double>(count) * static_cast<double>(values[1]) /
                                     static_cast<double>(values[2]));
      counts.scaled = true;
    }
    counts.values[name] = count;
  }
  return counts;
}

}  // namespace ompscale::regions
