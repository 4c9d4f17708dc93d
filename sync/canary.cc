#include "sync/canary.h"

#include <algorithm>
#include <atomic>

#include "sync/clock.h"
#include "sync/spin.h"

namespace ompscale::sync {

struct RoundTripCanary::Shared {
  PaddedAtomic<std::uint64_t> ping;    // written by thread 0
  PaddedAtomic<std::uint64_t> pong;    // written by thread 1
  PaddedAtomic<std::uint64_t> echoed;  // thread 1 only: the last ping it answered
  std::vector<double> round_trips;     // thread 0 only
};

RoundTripCanary::RoundTripCanary() : shared_(new Shared) {}
RoundTripCanary::~RoundTripCanary() {
  delete shared_;
}

double RoundTripCanary::measure(int tid, int exchanges) {
  if (tid > 1 || exchanges <= 0) return 0;
  // One extra exchange first, unmeasured: it waits until the other thread is there.
  if (tid == 1) {
    std::atomic<std::uint64_t>& echoed = shared_->echoed.value;
    AdaptiveBackoff backoff;
    for (int e = 0; e <= exchanges; ++e) {
      const std::uint64_t ping =
          backoff.until_changed(shared_->ping.value, echoed.load(std::memory_order_relaxed));
      shared_->pong.value.store(ping, std::memory_order_release);
      echoed.store(ping, std::memory_order_relaxed);
    }
    return 0;
  }

  std::vector<double>& round_trips = shared_->round_trips;
  round_trips.assign(static_cast<std::size_t>(exchanges), 0.0);
  AdaptiveBackoff backoff;
  shared_->ping.value.store(++sequence_, std::memory_order_release);
  backoff.until_equal(shared_->pong.value, sequence_);
  for (double& round_trip : round_trips) {
    const std::uint64_t sequence = ++sequence_;
    const std::uint64_t t1 = ticks();
    shared_->ping.value.store(sequence, std::memory_order_release);
    backoff.until_equal(shared_->pong.value, sequence);
    round_trip = ticks_to_ns(static_cast<double>(ticks() - t1));
  }
  const auto middle = round_trips.begin() + static_cast<std::ptrdiff_t>(round_trips.size() / 2);
  std::nth_element(round_trips.begin(), middle, round_trips.end());
  return *middle;
}

double compute_canary_ns(int iterations, int repeats) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(repeats));
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int r = 0; r < repeats; ++r) {
    const std::uint64_t start = ticks();
    for (int i = 0; i < iterations; ++i) {
      // A multiply-xorshift chain: every step needs the previous one, so it cannot be vectorised
      // or overlapped, and the compiler cannot fold it.
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      x ^= x >> 29;
    }
    times.push_back(ticks_to_ns(static_cast<double>(ticks() - start)));
  }
  // Keeps the chain alive.
  static std::atomic<std::uint64_t> sink;
  sink.store(x, std::memory_order_relaxed);
  const auto middle = times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2);
  std::nth_element(times.begin(), middle, times.end());
  return *middle;
}

}  // namespace ompscale::sync
