#include "sync/offsets.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "sync/spin.h"

namespace ompscale::sync {

namespace {

// A sequence number alone on its line: the master's ping to one thread, or a turn announcement.
struct alignas(kCacheLine) SequenceLine {
  std::atomic<std::uint64_t> sequence{0};
};

// A stamp and the sequence number that publishes it, on one line so the reader gets both with one
// transfer. The stamp is stored first (relaxed), the sequence last (release).
struct alignas(kCacheLine) StampLine {
  std::atomic<std::uint64_t> sequence{0};
  std::atomic<std::uint64_t> stamp{0};
};

struct Exchange {
  std::uint64_t t1 = 0;  // master, before the ping
  std::uint64_t t2 = 0;  // thread, after it saw the ping
  std::uint64_t t3 = 0;  // master, after it saw the pong
};

// One exchange as signed tick differences (the two clocks may differ by any amount).
struct Sample {
  double forward = 0;     // t2 - t1: the offset's upper bound
  double round_trip = 0;  // t3 - t1
  double offset() const { return forward - round_trip / 2; }
  double lower() const { return forward - round_trip; }  // t2 - t3
};

Sample to_sample(const Exchange& x) {
  Sample s;
  s.forward = static_cast<double>(static_cast<std::int64_t>(x.t2 - x.t1));
  s.round_trip = static_cast<double>(x.t3 - x.t1);
  return s;
}

// Mean offset of the `fraction` of samples with the smallest round trips (at least one). Reorders
// `samples`.
double best_offset(std::vector<Sample>& samples, double fraction) {
  const auto count = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::lround(fraction * static_cast<double>(samples.size()))));
  const auto best_end = samples.begin() + static_cast<std::ptrdiff_t>(count);
  std::nth_element(samples.begin(), best_end - 1, samples.end(),
                   [](const Sample& a, const Sample& b) { return a.round_trip < b.round_trip; });
  double sum = 0;
  for (auto it = samples.begin(); it != best_end; ++it) sum += it->offset();
  return sum / static_cast<double>(count);
}

// Least-squares slope of y over x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mean_x = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double mean_y = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
  }
  return sxx > 0 ? sxy / sxx : 0.0;
}

CalibrationOptions sanitized(CalibrationOptions options) {
  options.exchanges_per_batch = std::max(1, options.exchanges_per_batch);
  options.batches = std::max(1, options.batches);
  options.batch_gap_us = std::max(0.0, options.batch_gap_us);
  options.best_fraction = std::clamp(options.best_fraction, 0.0, 1.0);
  return options;
}

}  // namespace

OffsetTable::OffsetTable(const std::vector<OffsetEstimate>& estimates) {
  offset_ticks_.reserve(estimates.size());
  for (const OffsetEstimate& estimate : estimates) {
    offset_ticks_.push_back(ns_to_ticks(estimate.offset_ns));
    max_uncertainty_ns_ = std::max(max_uncertainty_ns_, estimate.uncertainty_ns);
    if (estimate.min_round_trip_ns > 0 &&
        (min_round_trip_ns_ == 0 || estimate.min_round_trip_ns < min_round_trip_ns_)) {
      min_round_trip_ns_ = estimate.min_round_trip_ns;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// OffsetCalibrator

struct OffsetCalibrator::Shared {
  // The master's ping to thread i and thread i's pong, on two lines so each has one writer.
  struct Channel {
    SequenceLine ping;
    StampLine pong;
  };

  Shared(int threads, const CalibrationOptions& options)
      : channels(new Channel[static_cast<std::size_t>(threads)]),
        exchanges(static_cast<std::size_t>(threads) *
                  static_cast<std::size_t>(options.batches * options.exchanges_per_batch)) {}

  std::unique_ptr<Channel[]> channels;
  SequenceLine done;
  // Master only, allocated up front so nothing allocates between stamps. Thread i's exchanges of
  // batch b start at ((i * batches) + b) * exchanges_per_batch.
  std::vector<Exchange> exchanges;
};

OffsetCalibrator::OffsetCalibrator(int threads, CalibrationOptions options)
    : threads_(std::max(1, threads)),
      options_(sanitized(options)),
      shared_(new Shared(threads_, options_)),
      estimates_(static_cast<std::size_t>(threads_)) {}

OffsetCalibrator::~OffsetCalibrator() {
  delete shared_;
}

void OffsetCalibrator::participate(int tid, const LocalClock& clock) {
  const int per_batch = options_.exchanges_per_batch;
  const int per_thread = options_.batches * per_batch;
  if (tid != 0) {
    Shared::Channel& channel = shared_->channels[tid];
    AdaptiveBackoff backoff;
    for (int e = 1; e <= per_thread; ++e) {
      const auto sequence = static_cast<std::uint64_t>(e);
      backoff.until_equal(channel.ping.sequence, sequence);
      const std::uint64_t t2 = clock.now();
      channel.pong.stamp.store(t2, std::memory_order_relaxed);
      channel.pong.sequence.store(sequence, std::memory_order_release);
    }
    spin_until_equal(shared_->done.sequence, std::uint64_t{1});
    return;
  }

  // Batches go round all threads, so each thread's batches are spread over the whole calibration,
  // plus the gaps.
  const double gap_ticks = ns_to_ticks(options_.batch_gap_us * 1e3);
  for (int b = 0; b < options_.batches; ++b) {
    if (b > 0) {
      const std::uint64_t gap_start = ticks();
      Backoff backoff;
      while (static_cast<double>(ticks() - gap_start) < gap_ticks) backoff.spin();
    }
    for (int i = 1; i < threads_; ++i) {
      Shared::Channel& channel = shared_->channels[i];
      AdaptiveBackoff backoff;
      Exchange* batch =
          &shared_->exchanges[static_cast<std::size_t>((i * options_.batches + b) * per_batch)];
      for (int e = 0; e < per_batch; ++e) {
        const auto sequence = static_cast<std::uint64_t>(b * per_batch + e + 1);
        Exchange& x = batch[e];
        x.t1 = clock.now();
        channel.ping.sequence.store(sequence, std::memory_order_release);
        backoff.until_equal(channel.pong.sequence, sequence);
        x.t3 = clock.now();
        x.t2 = channel.pong.stamp.load(std::memory_order_relaxed);
      }
    }
  }

  // Quantisation: a stamp may read up to one step early, so each bound widens by one step.
  const double step_ticks = ns_to_ticks(clock_info().step_ns);
  std::vector<Sample> all(static_cast<std::size_t>(per_thread));
  std::vector<Sample> batch_samples(static_cast<std::size_t>(per_batch));
  std::vector<double> batch_times(static_cast<std::size_t>(options_.batches));
  std::vector<double> batch_offsets(static_cast<std::size_t>(options_.batches));
  std::vector<double> round_trips(static_cast<std::size_t>(per_thread));
  for (int i = 1; i < threads_; ++i) {
    const Exchange* first =
        &shared_->exchanges[static_cast<std::size_t>(i * options_.batches * per_batch)];
    double lower = -std::numeric_limits<double>::infinity();
    double upper = std::numeric_limits<double>::infinity();
    for (int e = 0; e < per_thread; ++e) {
      const Sample s = to_sample(first[e]);
      lower = std::max(lower, s.lower());
      upper = std::min(upper, s.forward);
      all[static_cast<std::size_t>(e)] = s;
      round_trips[static_cast<std::size_t>(e)] = s.round_trip;
    }
    for (int b = 0; b < options_.batches; ++b) {
      const Exchange* batch = first + b * per_batch;
      for (int e = 0; e < per_batch; ++e) {
        batch_samples[static_cast<std::size_t>(e)] = to_sample(batch[e]);
      }
      batch_offsets[static_cast<std::size_t>(b)] =
          best_offset(batch_samples, options_.best_fraction);
      // Batch midpoint on the master's clock, relative to the first exchange.
      batch_times[static_cast<std::size_t>(b)] =
          static_cast<double>(batch[0].t1 - first->t1) +
          static_cast<double>(batch[per_batch - 1].t3 - batch[0].t1) / 2;
    }
    lower -= step_ticks;
    upper += step_ticks;
    // Crossed bounds mean the offset moved during the calibration (clocks that drift apart by far
    // more than an invariant TSC may): report the span between them rather than an empty interval.
    if (lower > upper) std::swap(lower, upper);
    const double offset = std::clamp(best_offset(all, options_.best_fraction), lower, upper);
    std::sort(round_trips.begin(), round_trips.end());

    OffsetEstimate& estimate = estimates_[static_cast<std::size_t>(i)];
    estimate.offset_ns = ticks_to_ns(offset);
    estimate.lower_ns = ticks_to_ns(lower);
    estimate.upper_ns = ticks_to_ns(upper);
    estimate.uncertainty_ns = (estimate.upper_ns - estimate.lower_ns) / 2;
    estimate.min_round_trip_ns = ticks_to_ns(round_trips.front());
    estimate.median_round_trip_ns = ticks_to_ns(round_trips[round_trips.size() / 2]);
    estimate.drift_ppm = options_.batches >= 2 ? slope(batch_times, batch_offsets) * 1e6 : 0.0;
    estimate.exchanges = per_thread;
  }
  shared_->done.sequence.store(1, std::memory_order_release);
}

// ---------------------------------------------------------------------------------------------
// CausalityCheck

namespace {

// A turn packs its sequence number and the pair in one word, so a reader never sees the sequence of
// one turn with the pair of another. first == kDone ends the check.
constexpr std::uint64_t kDone = 0xffff;

std::uint64_t pack_turn(std::uint64_t sequence, int first, int second) {
  return (sequence << 32) | (static_cast<std::uint64_t>(first) << 16) |
         static_cast<std::uint64_t>(second);
}
std::uint64_t turn_sequence(std::uint64_t turn) {
  return turn >> 32;
}
int turn_first(std::uint64_t turn) {
  return static_cast<int>((turn >> 16) & 0xffff);
}
int turn_second(std::uint64_t turn) {
  return static_cast<int>(turn & 0xffff);
}

}  // namespace

struct CausalityCheck::Shared {
  explicit Shared(int threads) : stamps(new StampLine[static_cast<std::size_t>(threads)]) {}

  SequenceLine turn;                    // written by the master: which pair acts now
  SequenceLine signal;                  // written by the first thread of the pair after it stamped
  std::unique_ptr<StampLine[]> stamps;  // each thread's stamp of the turn it acted in

  // The first thread stamps, then publishes; the second sees the publication, then stamps.
  // `backoff` is the calling thread's own.
  void act(int tid, const LocalClock& clock, std::uint64_t turn_word, AdaptiveBackoff& backoff) {
    const std::uint64_t sequence = turn_sequence(turn_word);
    std::uint64_t stamp = 0;
    if (tid == turn_first(turn_word)) {
      stamp = clock.now();
      signal.sequence.store(sequence, std::memory_order_release);
    } else if (tid == turn_second(turn_word)) {
      backoff.until_equal(signal.sequence, sequence);
      stamp = clock.now();
    } else {
      return;
    }
    stamps[tid].stamp.store(stamp, std::memory_order_relaxed);
    stamps[tid].sequence.store(sequence, std::memory_order_release);
  }
};

CausalityCheck::CausalityCheck(int threads, const std::vector<OffsetEstimate>& estimates,
                               int rounds)
    : threads_(std::clamp(threads, 1, static_cast<int>(kDone) - 1)),
      rounds_(std::max(0, rounds)),
      estimates_(estimates),
      shared_(new Shared(threads_)) {
  // Threads without an estimate are taken as exact (offset 0, uncertainty 0).
  estimates_.resize(static_cast<std::size_t>(threads_));
  table_ = OffsetTable(estimates_);
}

CausalityCheck::~CausalityCheck() {
  delete shared_;
}

void CausalityCheck::participate(int tid, const LocalClock& clock) {
  AdaptiveBackoff turn_backoff, signal_backoff;
  if (tid != 0) {
    std::uint64_t turn = 0;
    for (;;) {
      turn = turn_backoff.until_changed(shared_->turn.sequence, turn);
      if (static_cast<std::uint64_t>(turn_first(turn)) == kDone) return;
      shared_->act(tid, clock, turn, signal_backoff);
    }
  }

  result_ = CausalityResult{};
  std::uint64_t sequence = 0;
  // Rounds outermost, so the checks of one pair are spread over the whole check.
  for (int round = 0; round < rounds_; ++round) {
    for (int a = 0; a < threads_; ++a) {
      for (int b = 0; b < threads_; ++b) {
        if (a == b) continue;
        const std::uint64_t turn = pack_turn(++sequence, a, b);
        shared_->turn.sequence.store(turn, std::memory_order_release);
        shared_->act(0, clock, turn, signal_backoff);
        for (const int other : {a, b}) {
          if (other != 0) turn_backoff.until_equal(shared_->stamps[other].sequence, sequence);
        }
        const double stamp_a =
            table_.to_master(a, shared_->stamps[a].stamp.load(std::memory_order_relaxed));
        const double stamp_b =
            table_.to_master(b, shared_->stamps[b].stamp.load(std::memory_order_relaxed));
        const double lead_ns = ticks_to_ns(stamp_a - stamp_b);  // > 0: b's stamp precedes a's
        const double tolerance_ns = estimates_[static_cast<std::size_t>(a)].uncertainty_ns +
                                    estimates_[static_cast<std::size_t>(b)].uncertainty_ns;
        ++result_.checks;
        if (lead_ns > tolerance_ns) ++result_.violations;
        result_.worst_ns = std::max(result_.worst_ns, lead_ns);
      }
    }
  }
  shared_->turn.sequence.store(pack_turn(++sequence, static_cast<int>(kDone), 0),
                               std::memory_order_release);
}

}  // namespace ompscale::sync
