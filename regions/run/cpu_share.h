#pragma once
// Whether a run had the CPUs its threads needed, or shared them with other work (time sharing):
// on a loaded machine a 2-thread run may get 0.7 CPUs, and its barrier waits, startup and
// "imbalance" are then the scheduler's, not the application's. Measured per run from the
// outside: the CPUs the run may use (sched_getaffinity, inherited by the application), what the
// machine's allowed CPUs did meanwhile (/proc/stat: busy and steal time), minus the run's own CPU
// time (wait4), and its involuntary context switches.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ompscale::regions {

struct TimeSharing {
  bool known = false;    ///< /proc/stat could be read
  int cpus_allowed = 0;  ///< CPUs in the run's affinity mask
  double others_cpu_s = 0.0;  ///< CPU time other processes used on those CPUs during the run
  double steal_s = 0.0;       ///< time the hypervisor gave those CPUs to other guests
  double cpus_free = 0.0;     ///< CPUs left for the run on average: allowed - (others + steal) / wall
  std::int64_t involuntary_switches = 0;  ///< the application's (wait4)
  bool time_shared = false;  ///< fewer CPUs than threads (allowed, or free on average)
  std::string reason;        ///< why, in words; "" when not time-shared
};

/// Whether `threads` threads had their CPUs: `cpus_free` below 90% of the threads, or fewer
/// CPUs allowed than threads.
bool is_time_shared(int threads, int cpus_allowed, double cpus_free);

/// Busy and steal jiffies of CPUs, summed over the CPUs of `allowed`, from /proc/stat text.
struct CpuTimes {
  std::uint64_t busy = 0;   ///< user + nice + system + irq + softirq
  std::uint64_t steal = 0;
};
CpuTimes parse_proc_stat(const std::string& text, const std::vector<int>& allowed);

/// Around one run: start() before the application starts, stop() after it ended.
class CpuShare {
 public:
  CpuShare();
  void start();
  TimeSharing stop(int threads, double wall_s, double run_cpu_s,
                   std::int64_t involuntary_switches) const;

 private:
  std::vector<int> allowed_;
  CpuTimes before_;
  bool started_ = false;
};

}  // namespace ompscale::regions
