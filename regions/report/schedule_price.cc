#include "regions/report/schedule_price.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>

#include "common/statistics.h"
#include "common/text.h"
#include "common/text_table.h"
#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

namespace {

// Chunks per execution beyond which a candidate is not replayed: 100,000 dispatches cost
// milliseconds per execution, more than any imbalance they remove on loops of that many
// iterations, and the replays stay fast.
constexpr double kMaxChunks = 1e5;

// One execution's cost over the iteration space: thread t's static block costs its measured
// time, spread over its iterations evenly (slope 0) or as a ramp rising (slope 1) or falling
// (slope -1) across the block from 0 to twice the mean: how the cost lies inside a block is not
// measured, and a schedule whose chunks are large against a block (guided) depends on it.
class CostDensity {
 public:
  CostDensity(double iterations, const std::vector<double>& block_costs, double slope)
      : n_(iterations), slope_(slope) {
    const double blocks = static_cast<double>(block_costs.size());
    block_ = n_ / blocks;
    double before = 0.0;
    for (std::size_t t = 0; t < block_costs.size(); ++t) {
      start_.push_back(n_ * static_cast<double>(t) / blocks);
      per_iteration_.push_back(block_costs[t] / block_);
      prefix_.push_back(before);
      before += block_costs[t];
    }
    total_ = before;
  }

  double iterations() const { return n_; }
  double total() const { return total_; }

  /// The cost of iterations [a, b).
  double cost(double a, double b) const { return at(b) - at(a); }

 private:
  // The cost of iterations [0, x): the blocks before x's, and x's block up to x, where the
  // density base * (1 + slope * (2u - 1)) (u the position in the block) integrates to
  // base * (d + slope * (u^2 * block - d)) over the first d iterations.
  double at(double x) const {
    if (x >= n_) return total_;
    const auto block = static_cast<std::size_t>(std::upper_bound(start_.begin(), start_.end(), x) -
                                                start_.begin() - 1);
    const double d = x - start_[block];
    const double u = d / block_;
    return prefix_[block] + per_iteration_[block] * (d + slope_ * (u * u * block_ - d));
  }

  double n_ = 0.0;
  double slope_ = 0.0;
  double block_ = 0.0;
  double total_ = 0.0;
  std::vector<double> start_, per_iteration_, prefix_;
};

struct ReplayResult {
  double makespan = 0.0;
  double moved = 0.0;  ///< share of the iterations dealt to a thread other than their block's
};

// The iterations of [a, b) outside thread t's static block (of `threads` equal blocks of n).
double outside_block(double a, double b, int t, int threads, double n) {
  const double first = n * t / threads;
  const double last = n * (t + 1) / threads;
  return (b - a) - std::max(0.0, std::min(b, last) - std::max(a, first));
}

// Dealing `chunk_size(k)` iterations at a time, in order, to whichever of `threads` threads is
// free first (the lowest numbered among equals), each chunk costing its iterations plus
// `overhead`: the makespan, and the iterations that left their static block's thread.
ReplayResult replay(const CostDensity& density, int threads,
                    const std::function<double(double remaining)>& chunk_size, double overhead) {
  using FreeAt = std::pair<double, int>;  // when, which thread
  std::priority_queue<FreeAt, std::vector<FreeAt>, std::greater<>> free_at;
  for (int t = 0; t < threads; ++t) free_at.push({0.0, t});
  const double n = density.iterations();
  double next = 0.0;
  ReplayResult out;
  while (next < n) {
    const double size = std::min(chunk_size(n - next), n - next);
    const auto [start, thread] = free_at.top();
    free_at.pop();
    const double end = start + density.cost(next, next + size) + overhead;
    free_at.push({end, thread});
    out.makespan = std::max(out.makespan, end);
    out.moved += outside_block(next, next + size, thread, threads, n);
    next += size;
  }
  out.moved /= n;
  return out;
}

// The runtime's guided chunk for `remaining` iterations.
double guided_chunk(double remaining, int threads, double min_chunk, const std::string& runtime) {
  const double share = runtime == "libgomp" ? remaining / threads : remaining / (2.0 * threads);
  return std::max(min_chunk, std::ceil(share));
}

// "static", "runtime" (OMP_SCHEDULE unset: libomp's default, static), "runtime
// (OMP_SCHEDULE=static)", "runtime (ran as static)": the loop ran with a static schedule.
bool ran_static(const std::string& schedule) {
  if (schedule.starts_with("static")) return true;
  if (!schedule.starts_with("runtime")) return false;
  const std::string ran = runtime_schedule_of(schedule);
  return ran.empty() || ran.starts_with("static");
}

// The chunk of a dynamic loop: "dynamic,64", "runtime (OMP_SCHEDULE=dynamic,64)"; 0: not dynamic
// or no chunk known.
double dynamic_chunk(const std::string& schedule) {
  std::size_t at = schedule.find("dynamic,");
  if (at == std::string::npos) return 0.0;
  at += 8;
  std::size_t end = at;
  while (end < schedule.size() && std::isdigit(static_cast<unsigned char>(schedule[end]))) ++end;
  return parse_double(schedule.substr(at, end - at)).value_or(0.0);
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Static loops: every candidate replayed over the measured blocks, with the cost inside each
// block even, rising or falling; the imbalance removed is the least of the three (a prediction
// that holds however the cost lies inside the blocks). The chunks' dispatch and boundaries add
// the same to every thread's share.
void price_static(const LoopShape& loop, const MachineCosts& costs, LoopPrice& out) {
  const double e = loop.executions;
  const bool median_known = loop.work_median_s.size() == loop.work_s.size() &&
                            std::all_of(loop.work_median_s.begin(), loop.work_median_s.end(),
                                        [](double w) { return w > 0.0; });
  std::vector<double> blocks;
  for (double w : median_known ? loop.work_median_s : loop.work_s) blocks.push_back(w / e);
  const std::vector<CostDensity> densities = {CostDensity(loop.iterations, blocks, 0.0),
                                              CostDensity(loop.iterations, blocks, 1.0),
                                              CostDensity(loop.iterations, blocks, -1.0)};
  const double now = *std::max_element(blocks.begin(), blocks.end());
  const int p = loop.threads;
  // What the threads' time fell short of the reference's, per thread: the static blocks' cache
  // benefit. The two come from different runs: a shortfall within the least gain those runs can
  // show (LoopPrice::least_net) may be their noise, and is not counted.
  const double total = std::accumulate(loop.work_s.begin(), loop.work_s.end(), 0.0);
  const double shortfall =
      loop.reference_work_s > 0.0 ? std::max(0.0, loop.reference_work_s - total) / p : 0.0;
  const double benefit = shortfall > out.least_net ? shortfall : 0.0;
  // A chunk boundary between two threads shares the cache line it falls in.
  const double boundary = costs.line_s * (p - 1) / p;
  const auto price = [&](std::string name, double chunks,
                         const std::function<double(double)>& size) {
    if (chunks > kMaxChunks) return;
    ScheduleOption o;
    o.schedule = std::move(name);
    o.chunks = chunks;
    double slowest = 0.0;
    for (const CostDensity& density : densities) {
      const ReplayResult r = replay(density, p, size, 0.0);
      slowest = std::max(slowest, r.makespan);
      o.moved = std::max(o.moved, r.moved);
    }
    o.removed = e * (now - slowest);
    o.dispatch = e * (chunks / p * costs.chunk_s + costs.dynamic_fixed_s);
    o.locality = e * chunks / p * boundary;
    o.affinity = o.moved * benefit;
    out.options.push_back(o);
  };
  const double share = loop.iterations / p;
  for (double c = 1; c <= share; c *= 2) {
    price(fmt::format("dynamic,{:.0f}", c), std::ceil(loop.iterations / c),
          [c](double) { return c; });
  }
  price("guided", static_cast<double>(guided_chunks(loop.iterations, p, 1, costs.runtime).size()),
        [&](double remaining) { return guided_chunk(remaining, p, 1, costs.runtime); });
}

// Dynamic loops with a known chunk: what is left of the imbalance shrinks with the chunk.
void price_dynamic(const LoopShape& loop, double chunk_now, const MachineCosts& costs,
                   LoopPrice& out) {
  const double e = loop.executions;
  const int p = loop.threads;
  const double boundary = costs.line_s * (p - 1) / p;
  const double chunks_now = std::ceil(loop.iterations / chunk_now);
  const auto price = [&](std::string name, double chunks, double granularity) {
    ScheduleOption o;
    o.schedule = std::move(name);
    o.chunks = chunks;
    o.removed = out.imbalance * std::max(0.0, 1.0 - granularity / chunk_now);
    const double more = std::max(0.0, chunks - chunks_now) / p;  // per thread and execution
    o.dispatch = e * more * costs.chunk_s;
    o.locality = e * more * boundary;
    out.options.push_back(o);
  };
  for (double c = std::floor(chunk_now / 2); c >= 1; c = std::floor(c / 2)) {
    price(fmt::format("dynamic,{:.0f}", c), std::ceil(loop.iterations / c), c);
  }
  const std::vector<double> guided = guided_chunks(loop.iterations, p, 1, costs.runtime);
  price("guided", static_cast<double>(guided.size()), 1.0);
}

}  // namespace

std::vector<double> guided_chunks(double iterations, int threads, double min_chunk,
                                  const std::string& runtime) {
  std::vector<double> out;
  for (double next = 0; next < iterations && out.size() < kMaxChunks;) {
    const double size =
        std::min(guided_chunk(iterations - next, threads, min_chunk, runtime), iterations - next);
    out.push_back(size);
    next += size;
  }
  return out;
}

std::string schedule_request(const std::string& option, const std::string& now) {
  const std::size_t comma = option.find(',');
  const std::string kind = option.substr(0, comma);
  const std::string chunk = comma == std::string::npos ? "" : option.substr(comma + 1);
  if (!now.starts_with("runtime"))
    return chunk.empty() ? fmt::format("schedule({})", kind)
                         : fmt::format("schedule({}, {})", kind, chunk);
  // The program's omp_set_schedule overrides OMP_SCHEDULE: the request goes where it is set.
  const std::string in_program =
      fmt::format("omp_set_schedule(omp_sched_{}, {})", kind, chunk.empty() ? "0" : chunk);
  switch (schedule_source_of(now)) {
    case ScheduleSource::kProgram:
      return in_program;
    case ScheduleSource::kEnvironment:
      return "OMP_SCHEDULE=" + option;
    case ScheduleSource::kProgramOrDefault:
      break;
  }
  return fmt::format("OMP_SCHEDULE={} (or {} where the program sets its schedule)", option,
                     in_program);
}

namespace {

// "1.1 ms in 430 chunk dispatches per execution and 0.2 ms in cache lines at chunk boundaries",
// with the static blocks' cache benefit when the option loses some.
std::string cost_words(const ScheduleOption& o) {
  std::string words = fmt::format(
      "{} in {:.0f} chunk dispatches per execution{} {} in cache lines at chunk "
      "boundaries",
      format_seconds(o.dispatch), o.chunks, o.affinity > 0.0 ? "," : " and",
      format_seconds(o.locality));
  if (o.affinity > 0.0) {
    words += fmt::format(
        " and {} of the static blocks' cache benefit ({:.0f}% of the iterations change threads, "
        "and the threads took less time in all than at fewer threads)",
        format_seconds(o.affinity), 100.0 * o.moved);
  }
  return words;
}

}  // namespace

std::string price_words(const LoopPrice& price, const std::string& now) {
  if (!price.priced) return "not priced: " + price.why;
  const ScheduleOption& top = price.options.front();
  if (price.best() == nullptr && top.net() > 0.0) {
    return fmt::format(
        "no schedule change pays measurably: the best, {}, would save {} net (removes {} of "
        "waiting, costs {}), not more than the least gain a user's runs would show ({}: beyond the "
        "program's run-to-run noise, and at least the hints' share of its time)",
        schedule_request(top.schedule, now), format_seconds(top.net()), format_seconds(top.removed),
        cost_words(top), format_seconds(price.least_net));
  }
  if (price.best() == nullptr) {
    return fmt::format(
        "no schedule change pays: the best, {}, would remove {} of waiting but cost {}",
        schedule_request(top.schedule, now), format_seconds(top.removed), cost_words(top));
  }
  return fmt::format("{}: removes {} of waiting, costs {}, {} net",
                     schedule_request(top.schedule, now), format_seconds(top.removed),
                     cost_words(top), format_seconds(top.net()));
}

const ScheduleOption* LoopPrice::best() const {
  if (options.empty() || options.front().net() <= std::max(0.0, least_net)) return nullptr;
  return &options.front();
}

double least_measurable_gain(double noise, int repetitions) {
  if (repetitions < 2 || !(noise > 0.0)) return 0.0;
  // Two standard errors of the difference of two medians of `repetitions` runs each.
  const double median_error =
      stats::median_standard_error(noise, static_cast<std::size_t>(repetitions));
  return 2.0 * std::sqrt(2.0) * median_error;
}

double least_visible_gain(double noise, int repetitions, double time, double least_fraction) {
  if (repetitions < 2) return 0.0;
  return std::max(least_measurable_gain(noise, repetitions), least_fraction * time);
}

LoopPrice price_loop(const LoopShape& loop, const MachineCosts& costs, double least_net) {
  LoopPrice out;
  out.least_net = least_net;
  out.imbalance = mean(loop.waits_s);
  const bool seen =
      loop.iterations >= 1.0 && loop.executions > 0.0 && loop.threads > 1 &&
      static_cast<int>(loop.work_s.size()) == loop.threads &&
      std::all_of(loop.work_s.begin(), loop.work_s.end(), [](double w) { return w > 0.0; });
  const double chunk_now = dynamic_chunk(loop.schedule);
  if (!seen) {
    out.why = loop.schedule.empty()
                  ? "neither its iterations nor its threads' time are seen (a GCC build's static "
                    "loops call no runtime function)"
                  : "its iterations or its threads' time are not seen";
    return out;
  }
  if (ran_static(loop.schedule)) {
    price_static(loop, costs, out);
  } else if (chunk_now > 0.0) {
    price_dynamic(loop, chunk_now, costs, out);
  } else {
    out.why = fmt::format("its schedule ({}) does not say how it deals its iterations",
                          loop.schedule.empty() ? "unknown" : loop.schedule);
    return out;
  }
  out.priced = !out.options.empty();
  if (!out.priced) out.why = "every candidate deals more chunks than could pay";
  std::stable_sort(
      out.options.begin(), out.options.end(),
      [](const ScheduleOption& a, const ScheduleOption& b) { return a.net() > b.net(); });
  return out;
}

}  // namespace ompscale::regions::report
