#pragma once
// The machine's noise-canary history, kept across runs (one small JSON file), so that a run
// measured entirely in a slow phase is recognised: within one run every batch would look normal.
//
// On this project's VM the hypervisor moves the two vCPUs between SMT siblings of one core
// (cross-core round trip ~85 ns) and separate cores (~480 ns) for seconds to minutes at a time,
// and every synchronising construct's cost follows (barrier 150 vs 400 ns). Results are only
// comparable within one state. The store remembers the median round trip of recent runs; their
// median is the machine's typical state, which a sweep waits for (bounded) and judges its
// batches against. (Waiting for the fastest state instead was tried: on this VM it is rare, so
// nearly every run waited in vain.)

#include <string>

namespace ompscale::microbench {

class CanaryStore {
 public:
  /// `path`: the store file; "" = $OMPBENCH_CANARY_STORE, else
  /// ${XDG_CACHE_HOME:-~/.cache}/ompscale/canaries.json; "none" = no store (nothing read or
  /// written).
  explicit CanaryStore(const std::string& path);

  /// "host | CPU model | N hardware threads": runs of one machine share a history.
  static std::string machine_key(int hardware_threads);

  /// The median of the median round trips (ns) of the machine's last kHistory runs; 0 when fewer
  /// than kMinimumRuns are known (a new machine's first runs define its typical state).
  double typical_round_trip_ns(const std::string& machine) const;

  /// Adds a run's median round trip. Failures to write are returned as a message ("" = ok): the
  /// store is a convenience and never fails a sweep.
  std::string record(const std::string& machine, double round_trip_ns) const;

  const std::string& path() const { return path_; }
  bool enabled() const { return !path_.empty(); }

  static constexpr int kHistory = 20;
  static constexpr int kMinimumRuns = 3;

 private:
  std::string path_;  // "" when disabled
};

}  // namespace ompscale::microbench
