#include "regions/report/constructs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "regions/report/analysis.h"

namespace ompscale::regions::report {

namespace {

constexpr double kSeconds = 1e-9;

// "several_loops.cc:30" (the function is the region's), or the unresolved location.
std::string where(const Location& l) {
  if (!l.resolved()) return l.label();
  const std::string base = std::filesystem::path(l.file).filename().string();
  return l.line > 0 ? fmt::format("{}:{}", base, l.line) : base;
}

ConstructCosts costs_of(const ConstructRecord& c, double scale, double team) {
  ConstructCosts out;
  out.kind = c.kind;
  out.location = c.location;
  out.schedule = c.schedule;
  out.label = c.kind == "end" ? "end of the region" : fmt::format("{} at {}", c.kind, where(c.location));
  const double per_thread = team > 0.0 ? scale * kSeconds / team : 0.0;
  for (const ConstructRecord::Thread& t : c.threads) {
    // A thread passes the construct as it runs it or at its barrier (a GCC single reports its
    // executor only).
    out.executions = std::max(out.executions, std::max(t.executions, t.barriers) * scale);
    out.time += t.time_ns * per_thread;
    out.imbalance += t.imbalance_ns * per_thread;
    out.walkthrough += t.walkthrough_ns * per_thread;
    out.startup += t.startup_ns * per_thread;
    out.task_wait += t.task_wait_ns * per_thread;
  }
  return out;
}

void add(ConstructCosts& into, const ConstructCosts& c) {
  into.executions += c.executions;
  into.time += c.time;
  into.imbalance += c.imbalance;
  into.walkthrough += c.walkthrough;
  into.startup += c.startup;
  into.task_wait += c.task_wait;
  if (into.schedule.empty()) into.schedule = c.schedule;
}

}  // namespace

// Adds `from`'s per-thread sums into `into`'s, thread by thread.
void merge_threads(ConstructRecord& into, const ConstructRecord& from) {
  for (const ConstructRecord::Thread& t : from.threads) {
    auto same = std::find_if(into.threads.begin(), into.threads.end(),
                             [&](const ConstructRecord::Thread& u) { return u.thread == t.thread; });
    if (same == into.threads.end()) {
      into.threads.push_back(t);
      continue;
    }
    same->executions += t.executions;
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
  for (const ConstructRecord& c : region.constructs) {
    const auto same_line = [&](const ConstructRecord& o) {
      return o.location.resolved() && c.location.resolved() &&
             where(o.location) == where(c.location) && o.kind != "end" && c.kind != "end" &&
             (o.kind == "barrier") != (c.kind == "barrier");
    };
    auto same = std::find_if(merged.begin(), merged.end(), [&](const ConstructRecord& o) {
      return o.kind == c.kind && where(o.location) == where(c.location);
    });
    if (same == merged.end()) same = std::find_if(merged.begin(), merged.end(), same_line);
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
    auto same = std::find_if(into.begin(), into.end(), [&](const ConstructCosts& o) {
      return o.label == construct.label;
    });
    if (same == into.end()) {
      into.push_back(construct);
    } else {
      add(*same, construct);
    }
  }
}

void divide_constructs(std::vector<ConstructCosts>& constructs, double n) {
  for (ConstructCosts& c : constructs) {
    for (double* v : {&c.executions, &c.time, &c.imbalance, &c.walkthrough, &c.startup,
                      &c.task_wait}) {
      *v /= n;
    }
  }
}

}  // namespace ompscale::regions::report

// ------------------------------------------------------------------------------------------------
// Analysis (declared in analysis.h): one hint per construct, from its largest cost.

namespace ompscale::regions::report {

namespace {

std::string seconds_words(double s) {
  if (s >= 1.0) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * 1e6);
}

// What to do about threads arriving unevenly at this construct's barrier.
std::string imbalance_advice(const ConstructAnalysis& c) {
  if (c.kind == "loop") {
    return balance_advice(c.schedule.empty() ? std::vector<std::string>{}
                                             : std::vector<std::string>{c.schedule},
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
  } else if (sync >= at.task_wait) {
    h.kind = HintKind::kWalkthrough;
    h.gain = sync;
    h.problem = fmt::format("its barrier costs {} per thread to pass", seconds_words(sync));
    h.advice = "nowait if nothing after it needs the barrier, or fewer barriers";
  } else {
    h.kind = HintKind::kTaskWait;
    h.gain = at.task_wait;
    h.problem = fmt::format("threads wait {} on average for tasks to end",
                            seconds_words(at.task_wait));
    h.advice = "shorten the tail of the tasks it waits for (split the largest ones)";
  }
  h.gain = std::min(h.gain, region_time);
  h.time_after = std::max(0.0, at.total() - h.gain);
  return h;
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
        return c.location.resolved() && a.location.resolved() &&
               where(a.location) == where(c.location) &&
               (a.kind == "barrier") != (c.kind == "barrier") && a.kind != "end" && c.kind != "end";
      };
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const ConstructAnalysis& a) { return a.label == c.label; });
      if (it == out.end()) it = std::find_if(out.begin(), out.end(), same_line);
      if (it == out.end()) {
        out.push_back({c.label, c.kind, c.location, c.schedule, {}, {}});
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
  std::stable_sort(out.begin(), out.end(), [](const ConstructAnalysis& a, const ConstructAnalysis& b) {
    const auto key = [](const ConstructAnalysis& c) {
      return std::make_tuple(c.kind == "end", c.location.file, c.location.line);
    };
    return key(a) < key(b);
  });
  if (points.empty()) return out;
  const RegionPoint& ref = *points.back();
  for (ConstructAnalysis& c : out) {
    const ConstructCosts* at = c.at(ref.threads);
    if (at == nullptr) continue;
    const Hint h = construct_hint(c, *at, ref.costs.time);
    if (h.gain > 0.0 && h.gain >= options.min_hint_fraction * ref.costs.time) c.hints.push_back(h);
  }
  return out;
}

}  // namespace ompscale::regions::report
