// ompbench-worker: measures batches of constructs for the ompbench driver, in one OpenMP runtime.
//
// The driver starts one worker per (runtime, binding, places) setting and round, because the
// runtime reads OMP_* once per process. The worker reads its job (see protocol.h) from the file
// named by --job (or stdin), measures each batch in order and writes tab-separated records to
// stdout, flushing after each batch so the driver can write whole batches as they finish.
// It ignores SIGINT (the driver decides what an interrupt means) and dies with the driver.

#include <omp.h>
#include <signal.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "microbench/direct.h"
#include "microbench/epcc.h"
#include "microbench/protocol.h"
#include "microbench/runtime_info.h"
#include "sync/canary.h"
#include "sync/clock.h"

namespace ompscale::microbench {
namespace {

struct Canaries {
  double round_trip_ns = 0;  // median cross-core round trip
  double compute_ns = 0;     // the slower thread's compute canary
};

// The team the canaries run in: the batch's own team, so that the process never alternates
// between team sizes. With a bound team (spread) a 2-thread canary team needs other places than
// a measured team of 3, 5 or 6 threads on 16 cores, and libgomp then slowed every barrier of the
// measured team by microseconds. A 1-thread batch runs no team at all, and an oversubscribed one
// would slow the canaries themselves: 2 threads then.
int canary_team(int batch_threads) {
  return batch_threads >= 2 && batch_threads <= omp_get_num_procs() ? batch_threads : 2;
}

// Both canaries, measured by the first two threads of a `team`-thread team (one thread on a
// machine with one hardware thread: no round trip then).
Canaries measure_canaries(int exchanges, int team) {
  Canaries canaries;
  if (exchanges <= 0) return canaries;
  if (omp_get_num_procs() < 2) {
    canaries.compute_ns = sync::compute_canary_ns();
    return canaries;
  }
  sync::RoundTripCanary round_trip;
  double compute[2] = {0, 0};
#pragma omp parallel num_threads(team)
  {
    const int tid = omp_get_thread_num();
    const double value = round_trip.measure(tid, exchanges);
    if (tid == 0) canaries.round_trip_ns = value;
    if (tid < 2) compute[tid] = sync::compute_canary_ns();
  }
  canaries.compute_ns = std::max(compute[0], compute[1]);
  return canaries;
}

void print_clock(const sync::ClockInfo& clock) {
  std::printf("clock\t%s\t%d\t%.3f\t%.3f\t%.3f\n", sync::to_string(clock.source),
              clock.tsc_invariant ? 1 : 0, clock.ticks_per_second, clock.step_ns,
              clock.read_cost_ns);
}

void print_calibrations(const DirectRunner& direct) {
  for (const TeamCalibration& team : direct.calibrations()) {
    for (std::size_t tid = 0; tid < team.offsets.size(); ++tid) {
      const sync::OffsetEstimate& e = team.offsets[tid];
      std::printf("calibration\t%d\t%zu\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.4f\t%d\n",
                  team.threads, tid, e.offset_ns, e.lower_ns, e.upper_ns, e.uncertainty_ns,
                  e.min_round_trip_ns, e.median_round_trip_ns, e.drift_ppm, e.exchanges);
    }
    std::printf("causality\t%d\t%d\t%d\t%.3f\n", team.threads, team.causality.checks,
                team.causality.violations, team.causality.worst_ns);
    std::printf("window\t%d\t%.3f\t%.3f\t%d\t%d\t%d\t%d\n", team.threads, team.window_ns,
                team.pilot_latency_ns, team.rounds, team.late_rounds, team.overrun_rounds,
                team.inconsistent_rounds);
  }
}

int run(int argc, char** argv) {
  std::string job_path = "-";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--job") == 0 && i + 1 < argc) {
      job_path = argv[++i];
    } else {
      std::fprintf(stderr, "ompbench-worker: unknown argument '%s' (usage: --job FILE|-)\n",
                   argv[i]);
      return 2;
    }
  }
  std::string text;
  if (job_path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    text = buffer.str();
  } else {
    std::ifstream in(job_path);
    if (!in) {
      std::fprintf(stderr, "ompbench-worker: cannot read job file %s\n", job_path.c_str());
      return 2;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
  }
  Job job;
  std::string error;
  if (!parse_job(text, job, error)) {
    std::fprintf(stderr, "ompbench-worker: %s: %s\n", job_path.c_str(), error.c_str());
    return 2;
  }

  sync::ClockOptions clock_options;
  clock_options.allow_tsc = job.allow_tsc;
  clock_options.known_ticks_per_second = job.ticks_per_second;
  print_clock(sync::init_clock(clock_options));
  const RuntimeInfo& runtime = runtime_info();
  std::printf("runtime\t%s\t%s\t%s\t%s\t%d\n", runtime.runtime.c_str(),
              runtime.runtime_version.c_str(), runtime.compiler.c_str(),
              runtime.library_path.c_str(), runtime.hardware_threads);
#ifdef OMPSCALE_WORKER_FLAGS
  std::printf("build\t%s\n", OMPSCALE_WORKER_FLAGS);
#endif
  std::fflush(stdout);

  DirectRunner direct(job.direct);
  EpccRunner epcc(job.epcc);
  for (const JobBatch& batch : job.batches) {
    const ConstructInfo* construct = find_construct(batch.construct);
    BatchRequest request;
    request.construct = construct;
    request.param_value = batch.param_value;
    request.threads = batch.threads;
    request.count = batch.count;
    request.first_rep = batch.first_rep;
    // The canary brackets the batch: a slow phase that starts or ends during it shows in one of
    // the two, and the driver judges the batch by the larger.
    const int team = canary_team(batch.threads);
    const Canaries before = measure_canaries(job.canary_exchanges, team);
    const std::uint64_t start = sync::ticks();
    BatchResult result = batch.method == Method::kDirect ? direct.run(request) : epcc.run(request);
    const double elapsed_ms = sync::ticks_to_ns(static_cast<double>(sync::ticks() - start)) / 1e6;
    const Canaries after = measure_canaries(job.canary_exchanges, team);
    if (!result.unavailable.empty()) {
      std::printf("unavailable\t%d\t%s\n", batch.id, result.unavailable.c_str());
    } else {
      for (const Sample& s : result.samples)
        std::printf("sample\t%d\t%s\t%d\t%.3f\t%d\n", batch.id, s.metric.c_str(), s.rep, s.value_ns,
                    s.valid ? 1 : 0);
    }
    std::printf("end\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", batch.id, before.round_trip_ns,
                after.round_trip_ns, before.compute_ns, after.compute_ns, elapsed_ms);
    std::fflush(stdout);
  }
  print_calibrations(direct);
  std::printf("done\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace ompscale::microbench

int main(int argc, char** argv) {
  signal(SIGINT, SIG_IGN);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  try {
    return ompscale::microbench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ompbench-worker: %s\n", e.what());
    return 1;
  }
}
