#include "microbench/driver/canary_policy.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/interrupt.h"
#include "sync/canary.h"

namespace ompscale::microbench {

std::vector<double> driver_canaries(int exchanges, int probes) {
  std::vector<double> values;
  if (exchanges <= 0 || std::thread::hardware_concurrency() < 2) return values;
  const auto pin = [](int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  };
  for (int p = 0; p < probes; ++p) {
    sync::RoundTripCanary canary;
    double value = 0;
    std::thread first([&] {
      pin(0);
      value = canary.measure(0, exchanges);
    });
    std::thread second([&] {
      pin(1);
      canary.measure(1, exchanges);
    });
    first.join();
    second.join();
    if (value > 0) values.push_back(value);
  }
  return values;
}

void CanaryReference::add(double canary) {
  values_.insert(std::upper_bound(values_.begin(), values_.end(), canary), canary);
}

CanaryPolicy::Verdict CanaryPolicy::judge(double canary, double compute) {
  if (canary > 0) reference_.add(canary);
  if (compute > 0) compute_reference_.add(compute);
  Verdict v;
  v.phase = use_typical_ && canary > 0 && off_state(canary);
  v.slow = v.phase || (canary > 0 && canary > options_.slow_factor * round_trip_reference()) ||
           (compute > 0 && compute > options_.compute_slow_factor * compute_reference_.value());
  return v;
}

void CanaryPolicy::stop_using_typical(int phase_stops) {
  use_typical_ = false;
  record_.warnings.push_back(fmt::format(
      "the round trip left this machine's typical state {} times during the sweep; later "
      "batches are judged against this run's own canaries",
      phase_stops));
}

// Another state than the typical one, in either direction: both change what a construct costs.
bool CanaryPolicy::off_state(double round_trip) const {
  return round_trip > options_.slow_factor * typical_round_trip_ ||
         round_trip * options_.slow_factor < typical_round_trip_;
}

double CanaryPolicy::median_probe() {
  const MachineLock::Held held = machine_lock_.acquire();
  std::vector<double> probes = driver_canaries(options_.canary_exchanges, 3);
  std::sort(probes.begin(), probes.end());
  return probes.empty() ? 0.0 : probes[probes.size() / 2];
}

bool CanaryPolicy::faster_state(double round_trip) const {
  return round_trip * options_.slow_factor < typical_round_trip_;
}

void CanaryPolicy::wait_for_typical_state() {
  if (!use_typical_) return;
  double now = median_probe();
  // Faster than the stored typical state is not a disturbance to wait out: the typical state has
  // changed (a new machine, a quieter host, a new kernel). Measure now, in this state.
  while (off_state(now) && !faster_state(now) && waited_seconds_ < options_.max_wait &&
         !interrupted()) {
    if (waited_seconds_ == 0) {
      progress_.clear();
      std::fprintf(stderr,
                   "ompbench: the machine is in an unusual phase (round trip %.0f ns, typically "
                   "%.0f ns); waiting up to %.0f s for its typical state\n",
                   now, typical_round_trip_, options_.max_wait);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    waited_seconds_ += 0.5;
    now = median_probe();
  }
  if (off_state(now) && !interrupted()) {
    use_typical_ = false;
    const std::string note =
        faster_state(now)
            ? fmt::format(
                  "measured in a faster state than this machine's typical one: round trip {:.0f} "
                  "ns against {:.0f} ns; its typical state has changed (a new machine, a quieter "
                  "host, a new kernel?), so the run measured at once and judges its values "
                  "against its own canaries",
                  now, typical_round_trip_)
            : fmt::format(
                  "measured in an unusual phase: round trip {:.0f} ns against this machine's "
                  "typical {:.0f} ns after waiting {:.1f} s; values are judged against this "
                  "run's own canaries",
                  now, typical_round_trip_, waited_seconds_);
    record_.warnings.push_back(note);
    progress_.clear();
    std::fprintf(stderr, "ompbench: warning: %s\n", note.c_str());
  }
}

}  // namespace ompscale::microbench
