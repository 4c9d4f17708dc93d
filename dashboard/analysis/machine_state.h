#pragma once
// Which runs measured the machine in its typical state. ompbench's canaries (docs/ompbench.md,
// "Sweeps, interleaving and noise") measure a cross-core round trip before and after every batch;
// a run's median round trip says in which state the machine was (on a VM: vCPUs on SMT siblings
// or on separate cores, a busy host), and construct costs follow it by several times. The
// history learns each machine's typical state as the median over its runs, as ompbench's canary
// store does over its last 20 runs, and compares runs only within one state. A slower state is a
// disturbance (left out); a faster one is the typical state changing, judged within itself.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dashboard/store/history.h"

namespace ompscale::dashboard {

/// ompbench's default --slow-factor: states further apart than this are different.
constexpr double kStateFactor = 1.5;

struct RunState {
  bool unusual = false;  ///< a slower state than the machine's typical one: not judged, no history
  /// A faster state than the typical one: the typical state changing (a new machine, a quieter
  /// host, a new kernel). Judged against, and history for, runs of its own state only.
  bool faster = false;
  std::string note;      ///< why (unusual or faster)
  double canary_ns = 0;  ///< the run's median round trip (NaN: not measured)
};

/// Per run id: unusual when its sidecar says so, or when its median round trip is above the
/// median of its platform and host's runs by more than `factor`; faster when it is below it by
/// more than `factor`.
std::map<std::int64_t, RunState> run_states(const std::vector<RunInfo>& runs,
                                            double factor = kStateFactor);

/// Whether two round trips belong to one state (true when either is unknown).
bool same_state(double a_ns, double b_ns, double factor = kStateFactor);

}  // namespace ompscale::dashboard
