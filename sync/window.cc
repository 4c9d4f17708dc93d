#include "sync/window.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "sync/spin.h"

namespace ompscale::sync {

namespace {

// The master's announcement of one round. `start` is stored first (relaxed), `round` last
// (release), so a thread that sees the round sees its start.
struct alignas(kCacheLine) PublishLine {
  std::atomic<std::uint64_t> round{0};
  std::atomic<double> start{0};
};

// Spinning on the clock with `pause` between reads delays the release by up to one pause; close to
// the target the loop reads the clock back to back instead.
constexpr double kTightSpinNs = 2000;

// The order statistic just below quantile q (numpy's "lower"): of 64 pilot rounds, the p99 is the
// second largest, so no single outlying round sets the window. Reorders `values`.
double lower_quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                   values.end());
  return values[rank];
}

// Round durations on a log scale, 8 bins per octave from 1 ns: the median is known to about 9%
// at a fixed cost per round, however many rounds ran (the slot is 20x the median, so this is
// plenty).
class DurationHistogram {
 public:
  void add(double ns) {
    const double position = std::floor(std::log2(std::max(ns, 1.0)) * kBinsPerOctave);
    const auto last = static_cast<double>(kBins - 1);
    ++counts_[static_cast<std::size_t>(std::clamp(position, 0.0, last))];
    ++total_;
  }
  /// Upper edge of the bin holding the median, so the estimate errs towards a longer slot.
  double median_ns() const {
    std::uint64_t seen = 0;
    for (std::size_t bin = 0; bin < counts_.size(); ++bin) {
      seen += counts_[bin];
      if (2 * seen >= total_) return std::exp2(static_cast<double>(bin + 1) / kBinsPerOctave);
    }
    return 0;
  }

 private:
  static constexpr int kBinsPerOctave = 8;
  static constexpr std::size_t kBins = kBinsPerOctave * 48;  // up to 2^48 ns, about 3 days
  std::array<std::uint64_t, kBins> counts_{};
  std::uint64_t total_ = 0;
};

}  // namespace

struct WindowRelease::Shared {
  // One per thread. The thread writes its fields, then `finished` (release); the master reads them
  // after acquiring `finished`. The thread writes them again only after the next publication,
  // which the master makes only after reading, so the plain fields never race.
  struct alignas(kCacheLine) Slot {
    std::atomic<std::uint64_t> finished{0};  // last round this thread finished
    std::uint64_t round = 0;                 // the thread's own round counter
    AdaptiveBackoff backoff;                 // the thread's own, for the publication
    double seen = 0;                         // when it saw the publication, master ticks
    double release = 0;                      // its release instant, master ticks
    double end = 0;                          // its end stamp, master ticks
    bool late = false;
  };

  Shared(int threads, int pilot_rounds) : slots(new Slot[static_cast<std::size_t>(threads)]) {
    pilot_latencies_ns.reserve(static_cast<std::size_t>(std::max(0, pilot_rounds)));
  }

  PublishLine publish;
  std::unique_ptr<Slot[]> slots;

  // Master only.
  double published_at = 0;  // master ticks
  AdaptiveBackoff finish_backoff;
  bool in_pilot = false;
  std::vector<double> pilot_latencies_ns;
  DurationHistogram durations;
};

WindowRelease::WindowRelease(int threads, OffsetTable offsets, WindowOptions options)
    : threads_(std::max(1, threads)),
      offsets_(std::move(offsets)),
      options_(options),
      shared_(new Shared(threads_, options.pilot_rounds)),
      window_ns_(options.pilot_window_ns) {
  // Threads the table does not know are taken to run on the master's clock (from_master(tid, 0)
  // is tid's offset in ticks).
  if (offsets_.threads() < threads_) {
    std::vector<OffsetEstimate> padded(static_cast<std::size_t>(threads_));
    for (int tid = 0; tid < offsets_.threads(); ++tid) {
      padded[static_cast<std::size_t>(tid)].offset_ns = ticks_to_ns(offsets_.from_master(tid, 0));
    }
    padded[0].min_round_trip_ns = offsets_.min_round_trip_ns();
    offsets_ = OffsetTable(padded);
  }
}

WindowRelease::~WindowRelease() {
  delete shared_;
}

ReleaseStamp WindowRelease::wait_release(int tid, const LocalClock& clock) {
  Shared::Slot& slot = shared_->slots[tid];
  const std::uint64_t round = ++slot.round;
  double start;
  double seen;
  if (tid == 0) {
    seen = offsets_.to_master(0, clock.now());
    start = seen + ns_to_ticks(window_ns_);
    shared_->published_at = seen;
    shared_->publish.start.store(start, std::memory_order_relaxed);
    shared_->publish.round.store(round, std::memory_order_release);
  } else {
    slot.backoff.until_equal(shared_->publish.round, round);
    const std::uint64_t seen_local = clock.now();
    start = shared_->publish.start.load(std::memory_order_relaxed);
    seen = offsets_.to_master(tid, seen_local);
  }

  const double target = offsets_.from_master(tid, start);
  const double tight_ticks = ns_to_ticks(kTightSpinNs);
  Backoff backoff;
  std::uint64_t now;
  while (static_cast<double>(now = clock.now()) < target) {
    if (target - static_cast<double>(now) > tight_ticks) backoff.spin();
  }

  // Late: saw the publication after the start, or was descheduled while waiting for it (released
  // well after the start).
  const double release = offsets_.to_master(tid, now);
  const ReleaseStamp stamp{
      release, seen > start || release - start > ns_to_ticks(options_.max_release_delay_ns)};
  slot.seen = seen;
  slot.release = stamp.release;
  slot.late = stamp.late;
  return stamp;
}

void WindowRelease::finish(int tid, std::uint64_t end_stamp) {
  Shared::Slot& slot = shared_->slots[tid];
  slot.end = offsets_.to_master(tid, end_stamp);
  slot.finished.store(slot.round, std::memory_order_release);
  if (tid != 0) return;

  const std::uint64_t round = slot.round;
  for (int i = 1; i < threads_; ++i) {
    shared_->finish_backoff.until_equal(shared_->slots[i].finished, round);
  }

  const double start = shared_->publish.start.load(std::memory_order_relaxed);
  double first_release = slot.release, last_release = slot.release, last_end = slot.end;
  double last_seen = shared_->published_at;
  bool late = false;
  for (int i = 0; i < threads_; ++i) {
    const Shared::Slot& s = shared_->slots[i];
    first_release = std::min(first_release, s.release);
    last_release = std::max(last_release, s.release);
    last_end = std::max(last_end, s.end);
    last_seen = std::max(last_seen, s.seen);
    late = late || s.late;
  }

  outcome_.start = start;
  outcome_.release_skew_ns = ticks_to_ns(last_release - first_release);
  outcome_.late = late;
  const double duration_ns = ticks_to_ns(last_end - start);
  if (shared_->in_pilot) {
    // Censored at the pilot window: a thread that saw the publication only after the start was
    // descheduled, and for how long says nothing about publication latency.
    shared_->pilot_latencies_ns.push_back(
        std::min(ticks_to_ns(last_seen - shared_->published_at), window_ns_));
  } else {
    shared_->durations.add(duration_ns);
  }
  // The derived slot counts this round too, so the first round of a long construct is judged by
  // its own duration rather than by the 20 us floor alone.
  const double slot_ns = options_.slot_ns > 0
                             ? options_.slot_ns
                             : std::max(20000.0, 20 * shared_->durations.median_ns());
  outcome_.overrun = duration_ns > slot_ns;
}

void WindowRelease::pilot(int tid, const LocalClock& clock) {
  if (tid == 0) {
    window_ns_ = options_.pilot_window_ns;
    shared_->in_pilot = true;
    shared_->pilot_latencies_ns.clear();
  }
  for (int r = 0; r < options_.pilot_rounds; ++r) {
    wait_release(tid, clock);
    finish(tid, clock.now());
  }
  if (tid != 0) return;
  shared_->in_pilot = false;
  if (shared_->pilot_latencies_ns.empty()) return;
  pilot_latency_ns_ = std::max(0.0, lower_quantile(shared_->pilot_latencies_ns, 0.99));
  window_ns_ = std::min(options_.max_window_ns, pilot_latency_ns_ + offsets_.min_round_trip_ns());
}

void WindowRelease::end_batch(int rounds, int late_rounds) {
  if (rounds <= 0) return;
  const double late_fraction = static_cast<double>(late_rounds) / rounds;
  if (late_fraction > options_.max_late_fraction) {
    window_ns_ *= options_.grow;
  } else if (late_rounds == 0) {
    window_ns_ *= options_.shrink;
  }
  // The cap wins over the floor: a pilot that ran in a pathological phase must not make every
  // later round slow.
  window_ns_ = std::min(options_.max_window_ns, std::max(pilot_latency_ns_, window_ns_));
}

}  // namespace ompscale::sync
