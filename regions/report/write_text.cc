// The text report (docs/ompscan-report.md, "Text").

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "modeler/io/write_common.h"
#include "regions/report/writers.h"

namespace ompscale::regions::report {

namespace {

using modeler::io_detail::format_fixed;
using modeler::io_detail::format_significant;
using modeler::io_detail::TextTable;
using Align = TextTable::Align;

std::string secs(double v) {
  return format_significant(v, 4);
}

std::string percent(double fraction) {
  return format_fixed(100.0 * fraction, 1);
}

std::string inputs_list(const Measurements& m) {
  std::vector<std::string> names;
  for (const InputInfo& in : m.inputs) names.push_back(in.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// `before` + the input's name, or "" for runs made without --inputs (input "").
std::string input_words(const std::string& before, const std::string& input) {
  return input.empty() ? "" : before + input;
}

// `text` in lines of at most 100 columns, broken between words: the first line starts with
// `first`, the others with `rest`.
std::string wrapped(const std::string& text, const std::string& first, const std::string& rest) {
  constexpr std::size_t kWidth = 100;
  std::string out, line = first;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    const bool empty = line.size() == (out.empty() ? first : rest).size();
    if (!empty && line.size() + 1 + word.size() > kWidth) {
      out += line + "\n";
      line = rest;
    }
    line += (line.size() == (out.empty() ? first : rest).size() ? "" : " ") + word;
    at = end + 1;
  }
  return out + line + "\n";
}

void runs_section(const Report& r, std::string& out) {
  const Measurements& m = r.measurements;
  out += fmt::format("Runs: {} analysed (threads {}{}), {} failed, {} without profile\n",
                     r.usable_runs, fmt::join(m.thread_counts, ", "),
                     input_words("; input(s) ", inputs_list(m)), r.failed.size(),
                     r.without_profile.size());
  for (const RunFile& run : r.exited_unexpectedly) {
    out += fmt::format("  analysed though it {}: {} (its profile is complete; --expect-exit N names "
                       "the status a run ends with)\n",
                       run.signal ? fmt::format("ended by signal {}", *run.signal)
                                  : fmt::format("exited with status {}", run.exit_status.value_or(-1)),
                       run.run_id);
  }
  for (const RunFile& run : r.failed) {
    std::string how = run.signal ? fmt::format("signal {}", *run.signal)
                                 : fmt::format("exit status {}", run.exit_status.value_or(-1));
    out += fmt::format("  failed (excluded): {} ({}){}\n", run.run_id, how,
                       run.profile_error.empty() ? "" : ": " + run.profile_error);
  }
  for (const RunFile& run : r.without_profile) {
    out += fmt::format("  without profile (excluded): {}{}\n", run.run_id,
                       run.profile_error.empty() ? "" : ": " + run.profile_error);
  }
  for (const std::string& line : r.time_shared_runs) out += wrapped(line, "  ", "    ");
}

// The runtime measured, and the application on its own runtime (regions/report/runtime.h).
void runtime_section(const RuntimeReport& runtime, std::string& out) {
  out += wrapped(runtime.summary + ".", "", "  ");
  if (!runtime.advice.empty()) out += wrapped("Try: " + runtime.advice + ".", "  ", "       ");
  if (runtime.native.empty()) return;
  TextTable t({Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
               Align::kRight});
  t.add_row({"input", "threads", "own runtime", "its CPU", "measured", "own/measured"});
  for (const NativeComparison& c : runtime.native) {
    t.add_row({c.input.empty() ? "-" : c.input, std::to_string(c.threads), secs(c.native_s),
               secs(c.native_cpu_s), secs(c.measured_s), format_fixed(c.ratio(), 2)});
  }
  out += t.render("  ");
}

void program_section(const Report& r, std::string& out) {
  const SeriesAnalysis& s = r.program_reference();
  out += fmt::format("\nProgram (run wall time{})\n", input_words(", input ", s.input));
  TextTable t({Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
               Align::kRight, Align::kRight});
  t.add_row({"threads", "reps", "time", "spread%", "speedup", "efficiency", "lost"});
  for (const PointAnalysis& p : s.points) {
    t.add_row({std::to_string(p.threads), std::to_string(p.repetitions), secs(p.time),
               percent(p.spread), format_fixed(p.speedup, 2), format_fixed(p.efficiency, 2),
               secs(p.lost)});
  }
  out += t.render("  ");
}

void summary_section(const Report& r, std::string& out) {
  out += fmt::format(
      "\nRegions by potential gain ({}at the largest thread count)\n",
      input_words("input ", r.reference_input) + (r.reference_input.empty() ? "" : ", "));
  TextTable t({Align::kRight, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight,
               Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft});
  t.add_row({"#", "region", "kind", "threads", "time", "efficiency", "lost", "gain", "gain%",
             "first hint"});
  std::size_t rank = 0;
  for (const RegionReport& rr : r.regions) {
    const SeriesAnalysis& s = rr.reference_series();
    const PointAnalysis& p = s.reference();
    std::string input_note =
        s.input == r.reference_input ? "" : fmt::format(" (input {})", s.input);
    t.add_row({std::to_string(++rank), rr.region.label + input_note,
               std::string(to_string(rr.region.kind)), std::to_string(p.threads), secs(p.time),
               format_fixed(p.efficiency, 2), secs(p.lost), secs(p.potential_gain),
               percent(p.time > 0.0 ? p.potential_gain / p.time : 0.0),
               s.hints.empty() ? "-" : std::string(to_string(s.hints.front().kind))});
  }
  out += t.render("  ");
}

void efficiency_grid(const Report& r, const RegionReport* rr, std::string& out) {
  const Measurements& m = r.measurements;
  std::vector<Align> align(m.inputs.size() + 1, Align::kRight);
  TextTable t(align);
  std::vector<std::string> header{"threads"};
  for (const InputInfo& in : m.inputs) header.push_back(in.name);
  t.add_row(header);
  for (int threads : m.thread_counts) {
    std::vector<std::string> row{std::to_string(threads)};
    for (const InputInfo& in : m.inputs) {
      const std::vector<SeriesAnalysis>& all = rr == nullptr ? r.program : rr->series;
      std::string cell = "-";
      for (const SeriesAnalysis& s : all) {
        if (s.input != in.name) continue;
        for (const PointAnalysis& p : s.points) {
          if (p.threads == threads) cell = format_fixed(p.efficiency, 2);
        }
      }
      row.push_back(cell);
    }
    t.add_row(row);
  }
  out += t.render("    ");
}

// How a sampled point's time was estimated, with its 95% confidence interval when known.
std::string sampling_words(const PointAnalysis& p) {
  if (!(p.sampling_ratio < 1.0)) return "";
  if (p.time_se > 0.0) {
    return fmt::format(" (each weighted by its sampling period; time {} s +- {} s at 95%)",
                       secs(p.time), secs(1.96 * p.time_se));
  }
  // A profile of an earlier tool: scaled by executions / measured.
  return fmt::format(" (times scaled by {:.3g})", 1.0 / p.sampling_ratio);
}

// The constructs inside a region, as a tree under it, at the reference thread count.
void construct_tree(const SeriesAnalysis& s, std::string& out) {
  if (s.constructs.size() < 2) return;  // one construct is the region itself
  out += fmt::format("  Constructs at {} threads (per-thread means):\n", s.reference_threads);
  TextTable t({Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
               Align::kLeft});
  t.add_row({"construct", "time", "imbalance", "barrier", "task-wait", "hint"});
  for (std::size_t i = 0; i < s.constructs.size(); ++i) {
    const ConstructAnalysis& c = s.constructs[i];
    const ConstructCosts* at = c.at(s.reference_threads);
    if (at == nullptr) continue;
    const std::string branch = i + 1 == s.constructs.size() ? "`- " : "|- ";
    const std::string label =
        branch + c.label + (c.schedule.empty() ? "" : fmt::format(" ({})", c.schedule));
    t.add_row({label, secs(at->time), secs(at->imbalance), secs(at->walkthrough + at->startup),
               secs(at->task_wait),
               c.hints.empty() ? "-" : std::string(to_string(c.hints.front().kind))});
  }
  out += t.render("    ");
  for (const ConstructAnalysis& c : s.constructs) {
    for (const Hint& h : c.hints) {
      out += wrapped(fmt::format("{}: {}: {} s. {}; try: {}.", c.label, to_string(h.kind),
                                 secs(h.gain), h.problem, h.advice),
                     "    ", "      ");
    }
  }
}

void region_section(const Report& r, const RegionReport& rr, std::size_t rank, std::string& out) {
  const SeriesAnalysis& s = rr.reference_series();
  const PointAnalysis& ref = s.reference();
  out += fmt::format("\nRegion {}: {} ({}, {})\n", rank, rr.region.label, to_string(rr.region.kind),
                     rr.region.key);
  if (rr.region.nesting_level > 0) {
    out +=
        fmt::format("  nested (level {}) in {}\n", rr.region.nesting_level, rr.region.parent_key);
  }
  out += fmt::format("  {}{:.0f} executions, {}% measured{}\n",
                     input_words("input ", s.input) + (s.input.empty() ? "" : ": "), ref.executions,
                     percent(ref.sampling_ratio), sampling_words(ref));
  const bool split = rr.region.kind != RegionKind::kSerial;
  const bool task_wait = split && std::any_of(s.points.begin(), s.points.end(), [](const auto& p) {
                           return p.cost.task_wait != 0.0;
                         });
  TextTable t(std::vector<Align>(split ? (task_wait ? 15 : 14) : 8, Align::kRight));
  std::vector<std::string> header{"threads", "reps",       "time", "spread%",
                                  "speedup", "efficiency", "lost"};
  if (split) {
    header.insert(header.end(), {"imbalance", "walkthrough", "startup", "lock-cont", "lock-alg"});
    if (task_wait) header.push_back("task-wait");
    header.push_back("other");
  }
  header.push_back("gain");
  t.add_row(header);
  for (const PointAnalysis& p : s.points) {
    std::vector<std::string> row{
        std::to_string(p.threads),  std::to_string(p.repetitions), secs(p.time), percent(p.spread),
        format_fixed(p.speedup, 2), format_fixed(p.efficiency, 2), secs(p.lost)};
    if (split) {
      row.insert(row.end(),
                 {secs(p.loss.imbalance), secs(p.loss.walkthrough), secs(p.loss.startup),
                  secs(p.loss.lock_contention), secs(p.loss.lock_algorithm)});
      if (task_wait) row.push_back(secs(p.loss.task_wait));
      row.push_back(secs(p.other));
    }
    row.push_back(secs(p.potential_gain));
    t.add_row(row);
  }
  out += t.render("  ");
  if (split) {
    out += fmt::format(
        "  (imbalance..other: each cause's share of 'lost', its growth beyond perfect scaling of "
        "its cost at {} thread(s); they add up to 'lost')\n",
        s.base_threads);
  }
  if (!s.withheld.empty()) {
    std::vector<std::string> kinds;
    for (const Hint& h : s.withheld) kinds.push_back(fmt::format("{} {} s", to_string(h.kind), secs(h.gain)));
    out += wrapped(fmt::format("Hints withheld at {} threads: every run there was time-shared (fewer "
                               "CPUs than threads), and waiting for a CPU looks like imbalance, "
                               "slow barriers and contention: {}.",
                               s.reference_threads, fmt::join(kinds, ", ")),
                   "  ", "    ");
  }
  if (s.hints.empty() && s.withheld.empty()) {
    out += fmt::format("  No hint: no cause costs {}% of the region's time at {} threads.\n",
                       percent(r.options.analysis.min_hint_fraction), s.reference_threads);
  } else if (!s.hints.empty()) {
    out +=
        fmt::format("  Hints at {} threads (predicted gain -> time after):\n", s.reference_threads);
    std::size_t i = 0;
    for (const Hint& h : s.hints) {
      out +=
          fmt::format("    {}. {}: {} s ({}% of the region) -> {} s. {}\n", ++i, to_string(h.kind),
                      secs(h.gain), percent(ref.time > 0.0 ? h.gain / ref.time : 0.0),
                      secs(h.time_after), h.problem);
      out += fmt::format("       Try: {}\n", h.advice);
    }
  }
  construct_tree(s, out);
  if (s.lock_class != LockClass::kNone) {
    out += fmt::format(
        "  Locks: {} s per thread in the lock algorithm, {} s in contention: mostly {}\n",
        secs(ref.cost.lock_algorithm), secs(ref.cost.lock_contention),
        s.lock_class == LockClass::kAlgorithm ? "the algorithm (uncontended acquisitions)"
                                              : "contention (waiting for other threads)");
  }
  if (std::any_of(s.points.begin(), s.points.end(),
                  [](const PointAnalysis& p) { return p.has_tasks(); })) {
    out += fmt::format(
        "  Tasks at {} threads: {:.0f} created, {:.0f} executed, {} s per thread in explicit "
        "tasks ({}% of the region's time)\n",
        s.reference_threads, ref.tasks_created, ref.tasks_executed, secs(ref.task),
        percent(ref.time > 0.0 ? ref.task / ref.time : 0.0));
  }
  if (const ThreadModel* tm = rr.thread_model(r.models, s.input)) {
    const modeler::ClassModel& cm = r.models.results[tm->result].models.front();
    out += fmt::format("  Model over threads{}: time(t) = {} s ({}, adj. R2 {})\n",
                       input_words(" (input ", s.input) + (s.input.empty() ? "" : ")"),
                       cm.model.to_string("t", 4), modeler::to_string(cm.growth),
                       format_fixed(cm.stats.adjusted_r2, 3));
    for (const PredictedPoint& p : tm->predicted) {
      out += fmt::format("    at {:g} threads: {} s [{}, {}], efficiency {}\n", p.threads,
                         secs(p.time), secs(p.low), secs(p.high), format_fixed(p.efficiency, 2));
    }
    for (const std::string& w : cm.warnings) out += fmt::format("    ({})\n", w);
  }
  if (rr.input_model) {
    const InputModel& im = r.models.input_models[*rr.input_model];
    out += fmt::format(
        "  Model over threads t and input size n: time = {} s ({}, leave-one-out SMAPE {}%)\n",
        im.result.model.to_string("t", "n", 4), to_string(im.result.model.combination),
        format_fixed(im.result.stats.cv_error, 1));
    for (const std::string& w : im.result.warnings) out += fmt::format("    ({})\n", w);
  }
  if (r.measurements.inputs.size() > 1 && split) {
    out += "  Efficiency (threads x inputs):\n";
    efficiency_grid(r, &rr, out);
  }
}

void pop_section(const Report& r, std::string& out) {
  out += "\nPOP efficiencies per run (parallel regions | whole run incl. serial regions)\n";
  TextTable t({Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kRight,
               Align::kRight, Align::kRight, Align::kLeft, Align::kRight, Align::kRight,
               Align::kRight});
  t.add_row({"run", "threads", "input", "rep", "LB", "comm", "PE", "|", "LB", "comm", "PE"});
  for (const RunPop& p : r.pop) {
    t.add_row({p.run_id, std::to_string(p.threads), p.input, std::to_string(p.repetition),
               format_fixed(p.parallel_regions.load_balance, 3),
               format_fixed(p.parallel_regions.communication, 3),
               format_fixed(p.parallel_regions.parallel, 3), "|",
               format_fixed(p.whole_run.load_balance, 3),
               format_fixed(p.whole_run.communication, 3), format_fixed(p.whole_run.parallel, 3)});
  }
  out += t.render("  ");
  out +=
      "  (LB = mean/max useful work over threads; comm = max useful work / wall; PE = LB * comm)\n";
}

}  // namespace

std::string format_text(const Report& r) {
  std::string out = fmt::format("ompscan report of {} (ompscale {})\n", r.directory, r.version);
  runs_section(r, out);
  runtime_section(r.runtime, out);
  out +=
      "Times in seconds; repetitions combined by median; sampled regions scaled to all "
      "executions.\n";
  program_section(r, out);
  if (r.measurements.inputs.size() > 1) {
    out += "  Efficiency of the program (threads x inputs):\n";
    efficiency_grid(r, nullptr, out);
  }
  summary_section(r, out);
  const std::size_t detailed = std::min(r.options.top, r.regions.size());
  for (std::size_t i = 0; i < detailed; ++i) region_section(r, r.regions[i], i + 1, out);
  if (detailed < r.regions.size()) {
    out += fmt::format("\n({} more region(s) in the table above; --top shows more in detail)\n",
                       r.regions.size() - detailed);
  }
  pop_section(r, out);
  if (!r.notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& n : r.notes) out += fmt::format("  - {}\n", n);
  }
  return out;
}

}  // namespace ompscale::regions::report
