#include "regions/report/constructs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <tuple>

#include "common/statistics.h"
#include "common/text_table.h"
#include "regions/report/analysis.h"
#include "regions/report/read_runs.h"

namespace ompscale::regions::report {

namespace {

// "several_loops.cc:30" (the function is the region's), or the unresolved location.
std::string where(const Location& l) {
  if (!l.resolved()) return l.label();
  const std::string base = std::filesystem::path(l.file).filename().string();
  return l.line > 0 ? fmt::format("{}:{}", base, l.line) : base;
}

// The OpenMP runtime's own library: libomp, libgomp, Intel's libiomp5.
bool runtime_module(const std::string& module) {
  const std::string base = std::filesystem::path(module).filename().string();
  return base.starts_with("libomp.") || base.starts_with("libgomp.") ||
         base.starts_with("libiomp5.");
}

// A construct the runtime reported with a code address inside itself, or none: GCC calls a
// construct that ends the outlined region body as a tail call (jmp GOMP_barrier), so the return
// address the runtime reports is the code that called the region body. It is the application's
// construct at the end of the region: placed there, and said so.
ConstructRecord placed_in_application(const ConstructRecord& c, const RegionRecord& region) {
  ConstructRecord out = c;
  out.reported_in = c.location.module.empty()
                        ? "the runtime (no code address)"
                        : std::filesystem::path(c.location.module).filename().string();
  out.location = region.location;
  return out;
}

ConstructCosts costs_of(const ConstructRecord& c, double scale, double team) {
  ConstructCosts out;
  out.kind = c.kind;
  out.location = c.location;
  out.schedule = c.schedule;
  out.runtime_reported = !c.reported_in.empty();
  if (c.kind == "end") {
    out.label = "end of the region";
  } else if (!c.reported_in.empty()) {
    out.label = fmt::format("{} ending the region at {} (the runtime reported its own address)",
                            c.kind, where(c.location));
  } else {
    out.label = fmt::format("{} at {}", c.kind, where(c.location));
  }
  const double per_thread = team > 0.0 ? scale * kSecondsPerNs / team : 0.0;
  double busiest = 0.0;  // the executions of the thread with the most, unscaled
  for (const ConstructRecord::Thread& t : c.threads) {
    // A thread passes the construct as it runs it or at its barrier (a GCC single reports its
    // executor only).
    out.executions = std::max(out.executions, std::max(t.executions, t.barriers) * scale);
    out.time += t.time_ns * per_thread;
    out.imbalance += t.imbalance_ns * per_thread;
    out.walkthrough += t.walkthrough_ns * per_thread;
    out.startup += t.startup_ns * per_thread;
    out.task_wait += t.task_wait_ns * per_thread;
    if (t.executions > busiest) {
      busiest = t.executions;
      out.iterations = t.iterations / t.executions;  // libomp reports the trip count to each
    }
    if (t.thread >= 0 && t.thread < 4096) {
      const auto i = static_cast<std::size_t>(t.thread);
      if (out.thread_time.size() <= i) {
        out.thread_time.resize(i + 1, 0.0);
        out.thread_imbalance.resize(i + 1, 0.0);
      }
      out.thread_time[i] += t.time_ns * scale * kSecondsPerNs;
      out.thread_imbalance[i] += t.imbalance_ns * scale * kSecondsPerNs;
    }
  }
  return out;
}

// `into` += `from`, element by element (the longer length).
void add_per_thread(std::vector<double>& into, const std::vector<double>& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0.0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] += from[i];
}

void add(ConstructCosts& into, const ConstructCosts& c) {
  into.executions += c.executions;
  into.time += c.time;
  into.imbalance += c.imbalance;
  into.walkthrough += c.walkthrough;
  into.startup += c.startup;
  into.task_wait += c.task_wait;
  into.iterations = std::max(into.iterations, c.iterations);
  add_per_thread(into.thread_time, c.thread_time);
  add_per_thread(into.thread_imbalance, c.thread_imbalance);
  add_per_thread(into.thread_time_median, c.thread_time_median);
  if (into.schedule.empty()) into.schedule = c.schedule;
}

}  // namespace

// Adds `from`'s per-thread sums into `into`'s, thread by thread.
void merge_threads(ConstructRecord& into, const ConstructRecord& from) {
  for (const ConstructRecord::Thread& t : from.threads) {
    auto same =
        std::find_if(into.threads.begin(), into.threads.end(),
                     [&](const ConstructRecord::Thread& u) { return u.thread == t.thread; });
    if (same == into.threads.end()) {
      into.threads.push_back(t);
      continue;
    }
    same->executions += t.executions;
    same->iterations += t.iterations;
    same->time_ns += t.time_ns;
    same->barriers += t.barriers;
    same->imbalance_ns += t.imbalance_ns;
    same->walkthrough_ns += t.walkthrough_ns;
    same->startup_ns += t.startup_ns;
    same->task_wait_ns += t.task_wait_ns;
  }
}

std::vector<ConstructCosts> construct_costs(const RegionRecord& region, double scale, double team) {
  // Sites of one construct merged first (per thread), then reduced to per-thread means.
  std::vector<ConstructRecord> merged;
  for (const ConstructRecord& reported : region.constructs) {
    const bool in_runtime = reported.kind != "end" && (runtime_module(reported.location.module) ||
                                                       reported.location.module.empty());
    const ConstructRecord c = in_runtime ? placed_in_application(reported, region) : reported;
    const auto same_line = [&](const ConstructRecord& o) {
      return o.reported_in.empty() && o.location.resolved() && c.location.resolved() &&
             where(o.location) == where(c.location) && o.kind != "end" && c.kind != "end" &&
             (o.kind == "barrier") != (c.kind == "barrier");
    };
    auto same = std::find_if(merged.begin(), merged.end(), [&](const ConstructRecord& o) {
      return o.kind == c.kind && where(o.location) == where(c.location) &&
             o.reported_in.empty() == c.reported_in.empty();
    });
    if (same == merged.end() && c.reported_in.empty()) {
      same = std::find_if(merged.begin(), merged.end(), same_line);
    }
    if (same == merged.end()) {
      merged.push_back(c);
      continue;
    }
    if (same->kind == "barrier" && c.kind != "barrier") {  // the construct takes its barrier
      same->kind = c.kind;
      same->schedule = c.schedule;
      same->location = c.location;
    }
    merge_threads(*same, c);
  }
  std::vector<ConstructCosts> out;
  for (const ConstructRecord& c : merged) out.push_back(costs_of(c, scale, team));
  return out;
}

void add_constructs(std::vector<ConstructCosts>& into, const std::vector<ConstructCosts>& c) {
  for (const ConstructCosts& construct : c) {
    auto same = std::find_if(into.begin(), into.end(),
                             [&](const ConstructCosts& o) { return o.label == construct.label; });
    if (same == into.end()) {
      into.push_back(construct);
    } else {
      add(*same, construct);
    }
  }
}

void divide_constructs(std::vector<ConstructCosts>& constructs, double n) {
  for (ConstructCosts& c : constructs) {
    for (double* v :
         {&c.executions, &c.time, &c.imbalance, &c.walkthrough, &c.startup, &c.task_wait}) {
      *v /= n;
    }
    for (std::vector<double>* per_thread : {&c.thread_time, &c.thread_imbalance}) {
      for (double& v : *per_thread) v /= n;
    }
  }
}

void set_median_times(std::vector<ConstructCosts>& combined,
                      const std::vector<const std::vector<ConstructCosts>*>& repetitions) {
  for (ConstructCosts& c : combined) {
    std::vector<std::vector<double>> per_thread;  // [thread][repetition]
    for (const std::vector<ConstructCosts>* run : repetitions) {
      const auto same = std::find_if(run->begin(), run->end(),
                                     [&](const ConstructCosts& o) { return o.label == c.label; });
      if (same == run->end()) continue;
      if (per_thread.size() < same->thread_time.size()) per_thread.resize(same->thread_time.size());
      for (std::size_t i = 0; i < same->thread_time.size(); ++i)
        per_thread[i].push_back(same->thread_time[i]);
    }
    c.thread_time_median.clear();
    for (const std::vector<double>& times : per_thread)
      c.thread_time_median.push_back(stats::median(times));
  }
}

}  // namespace ompscale::regions::report

// ------------------------------------------------------------------------------------------------
// Analysis (declared in analysis.h): one hint per construct, from its largest cost.

namespace ompscale::regions::report {

namespace {

std::string seconds_words(double s) {
  return format_seconds(s);
}

// What to do about threads arriving unevenly at this construct's barrier.
std::string imbalance_advice(const ConstructAnalysis& c) {
  if (c.kind == "loop") {
    return balance_advice(
        c.schedule.empty() ? std::vector<std::string>{} : std::vector<std::string>{c.schedule},
        false);
  }
  if (c.kind == "single") {
    return "the others wait while one thread runs the single: nowait if they need not wait for "
           "it, or share its work (a loop or tasks)";
  }
  if (c.kind == "end") return "balance the work before the region's end";
  return "balance the work before this barrier, or drop it (nowait) if nothing after it needs it";
}

Hint construct_hint(const ConstructAnalysis& c, const ConstructCosts& at, double region_time) {
  const double sync = at.walkthrough + at.startup;
  Hint h;
  if (at.imbalance >= sync && at.imbalance >= at.task_wait) {
    h.kind = HintKind::kImbalance;
    h.gain = at.imbalance;
    h.problem = fmt::format("threads wait {} on average for the last one at its barrier",
                            seconds_words(at.imbalance));
    h.advice = imbalance_advice(c);
    if (c.price && c.price->priced) {  // a loop: what a schedule change would save, net
      const ScheduleOption* best = c.price->best();
      h.gain = best != nullptr ? best->net() : 0.0;
      h.nothing_pays = best == nullptr;
      h.advice = price_words(*c.price, c.schedule);
    } else if (c.price) {
      h.priced = false;
      h.advice += "; " + price_words(*c.price, c.schedule);
    }
  } else if (sync >= at.task_wait) {
    h.kind = HintKind::kWalkthrough;
    h.gain = sync;
    h.problem = fmt::format("its barrier costs {} per thread to pass", seconds_words(sync));
    h.advice = "nowait if nothing after it needs the barrier, or fewer barriers";
  } else {
    h.kind = HintKind::kTaskWait;
    h.gain = at.task_wait;
    h.problem =
        fmt::format("threads wait {} on average for tasks to end", seconds_words(at.task_wait));
    h.advice = "shorten the tail of the tasks it waits for (split the largest ones)";
  }
  h.gain = std::min(h.gain, region_time);
  h.time_after = std::max(0.0, at.total() - h.gain);
  return h;
}

// A loop construct at one thread count, as its price needs it; `reference`: the same loop at the
// series' first thread count (null: not measured there).
LoopShape shape_of(const ConstructCosts& c, const RegionPoint& at,
                   const ConstructCosts* reference) {
  LoopShape loop;
  loop.threads = at.threads;
  loop.executions = c.executions;
  loop.iterations = c.iterations;
  loop.work_s = c.thread_time;
  loop.work_median_s = c.thread_time_median;
  loop.waits_s = c.thread_imbalance;
  loop.waits_s.resize(static_cast<std::size_t>(std::max(at.threads, 0)), 0.0);
  loop.schedule = c.schedule;
  // Per execution: sampled executions are estimated counts, not the same at every thread count.
  if (reference != nullptr && reference->executions > 0.0) {
    loop.reference_work_s =
        std::accumulate(reference->thread_time.begin(), reference->thread_time.end(), 0.0) /
        reference->executions * c.executions;
  }
  return loop;
}

}  // namespace

const ConstructCosts* ConstructAnalysis::at(int threads) const {
  for (const auto& [t, costs] : points) {
    if (t == threads) return &costs;
  }
  return nullptr;
}

std::vector<ConstructAnalysis> analyse_constructs(const std::vector<const RegionPoint*>& points,
                                                  const AnalysisOptions& options) {
  std::vector<ConstructAnalysis> out;
  for (const RegionPoint* p : points) {
    for (const ConstructCosts& c : p->constructs) {
      // A construct's barrier may come alone at one thread count (a GCC single with one thread
      // reports no single): the lone barrier at a worksharing construct's line is its.
      const auto same_line = [&](const ConstructAnalysis& a) {
        return !c.runtime_reported && !a.runtime_reported && c.location.resolved() &&
               a.location.resolved() && where(a.location) == where(c.location) &&
               (a.kind == "barrier") != (c.kind == "barrier") && a.kind != "end" && c.kind != "end";
      };
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const ConstructAnalysis& a) { return a.label == c.label; });
      if (it == out.end()) it = std::find_if(out.begin(), out.end(), same_line);
      if (it == out.end()) {
        ConstructAnalysis fresh;
        fresh.label = c.label;
        fresh.kind = c.kind;
        fresh.location = c.location;
        fresh.schedule = c.schedule;
        fresh.runtime_reported = c.runtime_reported;
        out.push_back(std::move(fresh));
        it = out.end() - 1;
      } else if (it->kind == "barrier" && c.kind != "barrier") {
        it->label = c.label;  // the construct itself, seen now
        it->kind = c.kind;
        it->schedule = c.schedule;
      }
      auto point = std::find_if(it->points.begin(), it->points.end(),
                                [&](const auto& q) { return q.first == p->threads; });
      if (point == it->points.end()) {
        it->points.emplace_back(p->threads, c);
      } else {
        add(point->second, c);
      }
    }
  }
  // In source order (a tree of the region's code), the region's end last.
  std::stable_sort(out.begin(), out.end(),
                   [](const ConstructAnalysis& a, const ConstructAnalysis& b) {
                     const auto key = [](const ConstructAnalysis& c) {
                       return std::make_tuple(c.kind == "end", c.location.file, c.location.line);
                     };
                     return key(a) < key(b);
                   });
  if (points.empty()) return out;
  const RegionPoint& ref = *points.back();
  const int base_threads = points.front()->threads;
  const MachineCosts costs = costs_for(options.machine_costs, options.runtime, ref.threads);
  const double threshold = options.min_hint_fraction * ref.costs.time;
  const auto visible = options.least_net_s.find(ref.threads);
  const double least_net = visible == options.least_net_s.end() ? 0.0 : visible->second;
  for (ConstructAnalysis& c : out) {
    const ConstructCosts* at = c.at(ref.threads);
    if (at == nullptr) continue;
    if (c.kind == "loop" && at->imbalance >= threshold)
      c.price =
          price_loop(shape_of(*at, ref, base_threads < ref.threads ? c.at(base_threads) : nullptr),
                     costs, least_net);
    const Hint h = construct_hint(c, *at, ref.costs.time);
    // A loop whose imbalance no schedule change pays for says so.
    if ((h.gain > 0.0 && h.gain >= threshold) || (h.nothing_pays && at->imbalance >= threshold)) {
      c.hints.push_back(h);
    }
  }
  return out;
}

}  // namespace ompscale::regions::report
