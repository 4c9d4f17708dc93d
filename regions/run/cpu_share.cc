#include "regions/run/cpu_share.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "common/text.h"

namespace ompscale::regions {

namespace {

// The share of a thread's CPU a run may lack before it counts as time-shared: jiffies are 10 ms
// and other processes wake now and then.
constexpr double kEnough = 0.9;

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// OMPSCAN_PROC_STAT replaces /proc/stat (tests point it at a file that does not change: no
// other load).
bool read_times(const std::vector<int>& allowed, CpuTimes& out) {
  const char* path = std::getenv("OMPSCAN_PROC_STAT");
  std::ifstream in(path != nullptr && *path != '\0' ? path : "/proc/stat");
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  out = parse_proc_stat(text.str(), allowed);
  return true;
}

}  // namespace

bool is_time_shared(int threads, int cpus_allowed, double cpus_free) {
  return cpus_allowed < threads || cpus_free < kEnough * threads;
}

CpuTimes parse_proc_stat(const std::string& text, const std::vector<int>& allowed) {
  CpuTimes times;
  for (const std::string& line : split(text, '\n')) {
    // "cpuN user nice system idle iowait irq softirq steal ...": the "cpu" line sums them all.
    const std::vector<std::string> fields = split(line, ' ');
    if (!fields[0].starts_with("cpu")) continue;
    const std::optional<long long> cpu =
        parse_integer(std::string_view(fields[0]).substr(3), 0, INT_MAX);
    if (!cpu || std::find(allowed.begin(), allowed.end(), *cpu) == allowed.end()) continue;
    std::uint64_t value[8] = {};  // a field absent or unreadable counts 0
    for (std::size_t i = 0; i < 8 && i + 1 < fields.size(); ++i)
      value[i] = parse_unsigned(fields[i + 1]).value_or(0);
    times.busy += value[0] + value[1] + value[2] + value[5] + value[6];
    times.steal += value[7];
  }
  return times;
}

CpuShare::CpuShare() : allowed_(allowed_cpus()) {}

void CpuShare::start() {
  started_ = read_times(allowed_, before_);
}

TimeSharing CpuShare::stop(int threads, double wall_s, double run_cpu_s,
                           std::int64_t involuntary_switches) const {
  TimeSharing out;
  out.cpus_allowed = static_cast<int>(allowed_.size());
  out.involuntary_switches = involuntary_switches;
  CpuTimes after;
  if (!started_ || !read_times(allowed_, after) || !(wall_s > 0.0)) return out;
  out.known = true;
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double busy = static_cast<double>(after.busy - before_.busy) / hz;
  out.steal_s = static_cast<double>(after.steal - before_.steal) / hz;
  out.others_cpu_s = std::max(0.0, busy - run_cpu_s);
  out.cpus_free = std::max(0.0, out.cpus_allowed - (out.others_cpu_s + out.steal_s) / wall_s);
  out.time_shared = is_time_shared(threads, out.cpus_allowed, out.cpus_free);
  if (out.time_shared) {
    out.reason =
        out.cpus_allowed < threads
            ? fmt::format("{} CPU(s) allowed for {} threads", out.cpus_allowed, threads)
            : fmt::format(
                  "{:.2f} of {} CPUs free on average for {} threads (others used {:.2f} "
                  "CPU s, steal {:.2f} s, in {:.3g} s)",
                  out.cpus_free, out.cpus_allowed, threads, out.others_cpu_s, out.steal_s, wall_s);
  }
  return out;
}

}  // namespace ompscale::regions
