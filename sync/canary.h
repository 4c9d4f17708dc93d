#pragma once
// Noise canaries: quick measurements of how fast the machine is right now, taken with every
// batch of measurements so a batch measured in a slow phase can be recognised and measured again.
// Two kinds, because this VM has two kinds of slow phases: cross-core communication slows down
// (the round trip), or a vCPU computes slower (e.g. its hyperthread sibling on the host is busy).

#include <cstdint>
#include <vector>

namespace ompscale::sync {

/// The noise canary: median cross-core round trip between thread 0 and thread 1 over `exchanges`
/// ping-pongs on two cache lines. Both threads call it concurrently; returns the median (ns) on
/// thread 0 and 0 on thread 1. Threads other than 0 and 1 return at once. Needs a team of at least
/// two, both calling with the same `exchanges`; reusable.
class RoundTripCanary {
 public:
  RoundTripCanary();
  ~RoundTripCanary();
  RoundTripCanary(const RoundTripCanary&) = delete;
  RoundTripCanary& operator=(const RoundTripCanary&) = delete;
  double measure(int tid, int exchanges = 200);

 private:
  struct Shared;
  Shared* shared_;
  std::uint64_t sequence_ = 0;  // owned by thread 0
};

/// The compute canary: the median time (ns) of `repeats` runs of a fixed chain of `iterations`
/// dependent integer operations on the calling thread. Independent of memory and other threads:
/// it moves only when this CPU computes slower.
double compute_canary_ns(int iterations = 2048, int repeats = 7);

}  // namespace ompscale::sync
