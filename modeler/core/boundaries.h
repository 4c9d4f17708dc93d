#pragma once
// Public header. Topology boundaries: thread counts past which a machine's costs may follow
// another law (threads begin to share cores, a second socket or NUMA node, more threads than
// hardware threads). A prediction past a boundary that no measured thread count crosses cannot
// learn the new law from the data; it gets a flag and an interval that allows for the change
// (docs/methods.md, "Topology boundaries").

#include <string>
#include <vector>

#include "platforms/platform.h"

namespace ompscale::modeler {

/// More than `threads` threads cross the boundary.
struct TopologyBoundary {
  double threads = 0.0;
  std::string what;  ///< "more threads than cores (16): hyperthreads share cores"
};

/// The boundaries of `platform`, ascending: the end of the first NUMA node and of the first
/// socket (close binding fills them first), of the cores (when cores run several hardware
/// threads) and of the hardware threads. A boundary that two of them share is named once.
std::vector<TopologyBoundary> topology_boundaries(const platforms::Platform& platform);

/// The boundaries in (largest_measured, t): crossed by a prediction at `t` and by none of the
/// measurements, which end at `largest_measured`.
std::vector<TopologyBoundary> uncrossed_boundaries(const std::vector<TopologyBoundary>& boundaries,
                                                   double largest_measured, double t);

}  // namespace ompscale::modeler
