#include "microbench/constructs/epcc_cpu_wait.h"

#include <dirent.h>
#include <sys/resource.h>

#include <cstdio>
#include <string>

namespace ompscale::microbench::epcc {

namespace {

// The sum of run_delay (second field of schedstat, ns) over the process's threads; false when
// unreadable (no /proc, or a kernel without schedstats).
bool run_queue_seconds(double& seconds) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return false;
  unsigned long long total_ns = 0;
  bool read_any = false;
  while (const dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    const std::string path = std::string("/proc/self/task/") + task->d_name + "/schedstat";
    FILE* file = std::fopen(path.c_str(), "r");
    if (file == nullptr) continue;  // the thread just exited
    unsigned long long running_ns = 0;
    unsigned long long waiting_ns = 0;
    if (std::fscanf(file, "%llu %llu", &running_ns, &waiting_ns) == 2) {
      total_ns += waiting_ns;
      read_any = true;
    }
    std::fclose(file);
  }
  closedir(tasks);
  seconds = static_cast<double>(total_ns) * 1e-9;
  return read_any;
}

}  // namespace

double cpu_wait_seconds() {
  // Decided once, so differences never mix the two sources.
  static const bool schedstat = [] {
    double unused = 0;
    return run_queue_seconds(unused);
  }();
  double seconds = 0;
  if (schedstat && run_queue_seconds(seconds)) return seconds;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_nivcsw) * 1e6;
}

}  // namespace ompscale::microbench::epcc
