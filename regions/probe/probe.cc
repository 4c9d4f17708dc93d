// ompscan-probe THREADS: what the OpenMP runtime it runs on costs on this machine, for the prices
// of ompscan report's hints (docs/ompscan-report.md, "Machine costs"). `ompscan run` runs it once
// per runtime its runs use (libomp, through the GOMP shim for a GCC build; a GCC build's own
// libgomp too), at the sweep's largest thread count, with the runs' binding. One JSON object on
// stdout (format ompscan-probe-1):
//
//   start      init_ns: the runtime's initialisation on its first call (libomp: the machine's
//              topology, the initial thread placed on every CPU in turn; libgomp does it before
//              main); team_ns: the first team's threads started, over a second empty region.
//   loop       a loop of 1024 x THREADS iterations of about 100 ns each, per execution (medians):
//              static_ns, dynamic1_ns (chunk 1), dynamic16_ns (chunk 16), guided1_ns.
//   task_ns    a binary tree of explicit tasks (8,190, a taskwait in each inner one, as recursive
//              task codes are) against the same recursion without tasks: thread time per task.
//   line_ns    one atomic increment of a counter every thread increments: a cache line moving
//              between cores.
//
// Schedules other than static are set with omp_set_schedule and a schedule(runtime) loop, as
// OMP_SCHEDULE sets them. Nothing here is the application's: it runs before the sweep.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// Busy work of `trips` loop trips the compiler cannot remove.
void spin(std::uint64_t trips) {
  for (std::uint64_t i = 0; i < trips; ++i) asm volatile("" ::: "memory");
}

// Trips of spin() lasting about `ns` (best of several timings, so a preemption does not count).
std::uint64_t trips_for_ns(double ns) {
  constexpr std::uint64_t kTrips = 1 << 20;
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    const Clock::time_point start = Clock::now();
    spin(kTrips);
    const double took = ns_since(start);
    if (run == 0 || took < best) best = took;
  }
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(ns * kTrips / std::max(best, 1.0)));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

constexpr int kSamples = 7;
constexpr int kIterationsPerThread = 1024;

// The loop's schedule: schedule(static), or schedule(runtime) set to `kind` and `chunk`.
struct Schedule {
  bool runtime = false;
  omp_sched_t kind = omp_sched_static;
  int chunk = 0;
};

// Nanoseconds per execution of the loop, the median of kSamples samples of `repeats` executions
// inside one parallel region.
double loop_ns(int threads, Schedule schedule, std::uint64_t trips, int repeats) {
  if (schedule.runtime) omp_set_schedule(schedule.kind, schedule.chunk);
  const int n = kIterationsPerThread * threads;
  std::vector<double> samples;
  for (int s = 0; s < kSamples; ++s) {
    double took = 0;
#pragma omp parallel num_threads(threads)
    {
#pragma omp barrier
      const Clock::time_point start = Clock::now();
      for (int r = 0; r < repeats; ++r) {
        if (!schedule.runtime) {
#pragma omp for schedule(static)
          for (int i = 0; i < n; ++i) spin(trips);
        } else {
#pragma omp for schedule(runtime)
          for (int i = 0; i < n; ++i) spin(trips);
        }
      }
#pragma omp master
      took = ns_since(start);
    }
    samples.push_back(took / repeats);
  }
  return median(samples);
}

std::uint64_t tree(int depth, std::uint64_t trips, bool tasks) {
  if (depth == 0) {
    spin(trips);
    return 1;
  }
  std::uint64_t left = 0, right = 0;
  if (tasks) {
#pragma omp task shared(left)
    left = tree(depth - 1, trips, true);
#pragma omp task shared(right)
    right = tree(depth - 1, trips, true);
#pragma omp taskwait
  } else {
    left = tree(depth - 1, trips, false);
    right = tree(depth - 1, trips, false);
  }
  return left + right;
}

// Thread time per explicit task of a binary task tree, beyond the same recursion's own time.
double task_ns(int threads, std::uint64_t trips) {
  constexpr int kDepth = 12;  // 8,190 tasks
  const double tasks = (2 << kDepth) - 2;
  std::vector<double> with, without;
  for (int s = 0; s < kSamples; ++s) {
    Clock::time_point start = Clock::now();
    std::uint64_t leaves = tree(kDepth, trips, false);
    without.push_back(ns_since(start));
    start = Clock::now();
#pragma omp parallel num_threads(threads)
#pragma omp single
    leaves += tree(kDepth, trips, true);
    with.push_back(ns_since(start));
    if (leaves != 2u << kDepth) std::abort();
  }
  return std::max(0.0, (median(with) * threads - median(without)) / tasks);
}

// One increment of a counter all threads increment at once.
double line_ns(int threads) {
  constexpr int kIncrements = 200000;
  std::vector<double> samples;
  for (int s = 0; s < kSamples; ++s) {
    std::atomic<std::uint64_t> counter{0};
    double took = 0;
#pragma omp parallel num_threads(threads)
    {
#pragma omp barrier
      const Clock::time_point start = Clock::now();
      for (int i = 0; i < kIncrements; ++i) counter.fetch_add(1, std::memory_order_relaxed);
#pragma omp master
      took = ns_since(start);
    }
    samples.push_back(took / kIncrements);
  }
  return median(samples);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 0;
  if (argc != 2 || threads < 1) {
    std::fprintf(stderr, "usage: ompscan-probe THREADS\n");
    return 2;
  }
  // First: nothing of OpenMP ran yet in this process.
  const Clock::time_point begin = Clock::now();
  const int procs = omp_get_num_procs();  // libomp initialises itself here
  const double init = ns_since(begin);
  Clock::time_point start = Clock::now();
#pragma omp parallel num_threads(threads)
  spin(1);
  const double first = ns_since(start);
  start = Clock::now();
#pragma omp parallel num_threads(threads)
  spin(1);
  const double second = ns_since(start);

  const std::uint64_t trips = trips_for_ns(100);
  const std::uint64_t task_trips = trips_for_ns(200);
  constexpr int kRepeats = 20;
  const double static_ns = loop_ns(threads, {}, trips, kRepeats);
  const double dynamic1 = loop_ns(threads, {true, omp_sched_dynamic, 1}, trips, kRepeats);
  const double dynamic16 = loop_ns(threads, {true, omp_sched_dynamic, 16}, trips, kRepeats);
  const double guided1 = loop_ns(threads, {true, omp_sched_guided, 1}, trips, kRepeats);
  const double per_task = task_ns(threads, task_trips);
  const double line = line_ns(threads);
  std::printf(
      "{\"format\": \"ompscan-probe-1\", \"threads\": %d, \"procs\": %d,\n"
      " \"start\": {\"init_ns\": %.0f, \"team_ns\": %.0f},\n"
      " \"loop\": {\"iterations_per_thread\": %d, \"static_ns\": %.1f, \"dynamic1_ns\": %.1f,"
      " \"dynamic16_ns\": %.1f, \"guided1_ns\": %.1f},\n"
      " \"task_ns\": %.1f, \"line_ns\": %.2f}\n",
      threads, procs, init, std::max(0.0, first - second), kIterationsPerThread, static_ns,
      dynamic1, dynamic16, guided1, per_task, line);
  return 0;
}
