// The text report (docs/ompscan-report.md, "Text").

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/text.h"
#include "common/text_table.h"
#include "regions/report/writers.h"

namespace ompscale::regions::report {

namespace {

using Align = TextTable::Align;

std::string secs(double v) {
  return format_significant(v, 4);
}

std::string percent(double fraction) {
  return format_fixed(100.0 * fraction, 1);
}

// Text for a terminal `width` columns wide (0: no limit): `text` wrapped, continuation lines
// indented two more than the first.
std::string para(std::string_view text, std::size_t width, std::string_view indent = "") {
  return wrap(text, width, indent, std::string(indent) + "  ");
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

void runs_section(const Report& r, std::size_t width, std::string& out) {
  const Measurements& m = r.measurements;
  out += fmt::format("Runs: {} analysed (threads {}{}), {} failed, {} without profile\n",
                     r.usable_runs, fmt::join(m.thread_counts, ", "),
                     input_words("; input(s) ", inputs_list(m)), r.failed.size(),
                     r.without_profile.size());
  for (const RunFile& run : r.exited_unexpectedly) {
    out += fmt::format(
        "  analysed though it {}: {} (its profile is complete; --expect-exit N names "
        "the status a run ends with)\n",
        run.signal ? fmt::format("ended by signal {}", *run.signal)
                   : fmt::format("exited with status {}", run.exit_status.value_or(-1)),
        run.run_id);
  }
  for (const RunFile& run : r.failed) {
    out += fmt::format("  failed (excluded): {} ({}){}\n", run.run_id, describe_end(run),
                       run.profile_error.empty() ? "" : ": " + run.profile_error);
  }
  for (const RunFile& run : r.without_profile) {
    out += fmt::format("  without profile (excluded): {}{}\n", run.run_id,
                       run.profile_error.empty() ? "" : ": " + run.profile_error);
  }
  for (const std::string& line : r.time_shared_runs) out += wrap(line, width, "  ", "    ");
}

// The runtime measured, and the application on its own runtime (regions/report/runtime.h).
void runtime_section(const RuntimeReport& runtime, std::size_t width, std::string& out) {
  out += wrap(runtime.summary + ".", width, "", "  ");
  if (!runtime.advice.empty()) out += wrap("Try: " + runtime.advice + ".", width, "  ", "       ");
  if (runtime.knob.empty() && !runtime.knob_advice.empty()) {
    out += wrap("Runtime settings: " + runtime.knob_advice + ".", width, "  ", "    ");
  }
  if (runtime.native.empty()) return;
  TextTable t({Align::kLeft, Align::kRight, Align::kLeft, Align::kRight, Align::kRight,
               Align::kRight, Align::kRight, Align::kRight, Align::kRight});
  t.add_row({"input", "threads", "without the tool", "reps", "time", "spread%", "its CPU",
             "measured", "/measured"});
  for (const NativeComparison& c : runtime.native) {
    const std::string setting = c.variant == "libgomp"
                                    ? "own runtime"
                                    : (c.environment.empty() ? c.variant : c.environment);
    t.add_row({c.input.empty() ? "-" : c.input, std::to_string(c.threads),
               setting + (c.time_shared ? " (time-shared)" : ""), std::to_string(c.repetitions),
               secs(c.native_s), percent(c.spread()), secs(c.native_cpu_s), secs(c.measured_s),
               format_fixed(c.ratio(), 2)});
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

// "mandelbrot.cc:36 ((anonymous namespace)::co..." : at most `limit` characters.
std::string shortened(const std::string& text, std::size_t limit) {
  if (limit < 8 || display_width(text) <= limit) return text;
  // Cut before the (limit - 3)th character, never inside a UTF-8 sequence.
  std::size_t cut = 0;
  std::size_t characters = 0;
  while (cut < text.size() && characters < limit - 3) {
    ++cut;
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) ++cut;
    ++characters;
  }
  return text.substr(0, cut) + "...";
}

void summary_section(const Report& r, std::size_t width, std::string& out) {
  out += fmt::format(
      "\nRegions by potential gain ({}at the largest thread count)\n",
      input_words("input ", r.reference_input) + (r.reference_input.empty() ? "" : ", "));
  const std::vector<std::string> header{"#",          "region", "kind", "threads", "time",
                                        "efficiency", "lost",   "gain", "gain%",   "first hint"};
  std::vector<std::vector<std::string>> rows;
  std::size_t rank = 0;
  for (const RegionReport& rr : r.regions) {
    const SeriesAnalysis& s = rr.reference_series();
    const PointAnalysis& p = s.reference();
    std::string input_note =
        s.input == r.reference_input ? "" : fmt::format(" (input {})", s.input);
    rows.push_back({std::to_string(++rank), rr.region.label + input_note,
                    std::string(to_string(rr.region.kind)), std::to_string(p.threads), secs(p.time),
                    format_fixed(p.efficiency, 2), secs(p.lost), secs(p.potential_gain),
                    percent(p.time > 0.0 ? p.potential_gain / p.time : 0.0),
                    s.hints.empty() ? "-" : std::string(to_string(s.hints.front().kind))});
  }
  const auto table = [&](std::size_t label_limit) {
    TextTable t({Align::kRight, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight,
                 Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft});
    t.add_row(header);
    for (std::vector<std::string> row : rows) {
      row[1] = shortened(row[1], label_limit);
      t.add_row(row);
    }
    return t;
  };
  TextTable t = table(std::string::npos);
  // On a terminal too narrow for whole names, the names give way: the details name them in full.
  if (width > 0 && t.width() + 2 > width) {
    std::size_t longest = 0;
    for (const auto& row : rows) longest = std::max(longest, display_width(row[1]));
    const std::size_t excess = t.width() + 2 - width;
    t = table(longest > excess ? std::max<std::size_t>(longest - excess, 20) : 20);
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
  if (p.time_exact) {
    return fmt::format(
        " (each weighted by its sampling period; time of every execution, its part not working "
        "+- {} s at 95%)",
        secs(1.96 * p.idle_se));
  }
  if (p.time_se > 0.0) {
    return fmt::format(" (each weighted by its sampling period; time {} s +- {} s at 95%)",
                       secs(p.time), secs(1.96 * p.time_se));
  }
  // A profile of an earlier tool: scaled by executions / measured.
  return fmt::format(" (times scaled by {:.3g})", 1.0 / p.sampling_ratio);
}

// Which optional causes a region's loss table shows: those some point has.
struct OptionalCauses {
  bool task_wait = false;   ///< some point waited for tasks
  bool team_start = false;  ///< some point waited for the runtime to start threads
};

// The causes a region's loss splits into.
std::vector<std::string> cause_names(OptionalCauses optional) {
  std::vector<std::string> causes{"imbalance", "walkthrough", "startup", "lock-cont", "lock-alg"};
  if (optional.task_wait) causes.push_back("task-wait");
  if (optional.team_start) causes.push_back("team-start");
  causes.push_back("other");
  return causes;
}

std::vector<std::string> cause_row(const PointAnalysis& p, OptionalCauses optional) {
  std::vector<std::string> row{secs(p.loss.imbalance), secs(p.loss.walkthrough),
                               secs(p.loss.startup), secs(p.loss.lock_contention),
                               secs(p.loss.lock_algorithm)};
  if (optional.task_wait) row.push_back(secs(p.loss.task_wait));
  if (optional.team_start) row.push_back(secs(p.loss.team_start));
  row.push_back(secs(p.other));
  return row;
}

std::vector<std::string> base_row(const PointAnalysis& p) {
  return {
      std::to_string(p.threads),  std::to_string(p.repetitions), secs(p.time), percent(p.spread),
      format_fixed(p.speedup, 2), format_fixed(p.efficiency, 2), secs(p.lost)};
}

// The region's points: times, speedup, efficiency, loss, gain, and the loss split by cause (a table
// of its own when the terminal is too narrow for one).
void points_tables(const SeriesAnalysis& s, bool split, std::size_t width, std::string& out) {
  const auto any = [&](double CategoryCosts::*cost) {
    return split && std::any_of(s.points.begin(), s.points.end(),
                                [&](const PointAnalysis& p) { return p.cost.*cost != 0.0; });
  };
  const OptionalCauses optional{any(&CategoryCosts::task_wait), any(&CategoryCosts::team_start)};
  const std::vector<std::string> causes = cause_names(optional);
  std::vector<std::string> header{"threads", "reps",       "time", "spread%",
                                  "speedup", "efficiency", "lost"};
  TextTable all(std::vector<Align>(header.size() + 1 + (split ? causes.size() : 0), Align::kRight));
  std::vector<std::string> h = header;
  if (split) h.insert(h.end(), causes.begin(), causes.end());
  h.push_back("gain");
  all.add_row(h);
  for (const PointAnalysis& p : s.points) {
    std::vector<std::string> row = base_row(p);
    if (split) {
      const auto c = cause_row(p, optional);
      row.insert(row.end(), c.begin(), c.end());
    }
    row.push_back(secs(p.potential_gain));
    all.add_row(row);
  }
  if (!split || width == 0 || all.width() + 2 <= width) {
    out += all.render("  ");
    return;
  }
  TextTable main(std::vector<Align>(header.size() + 1, Align::kRight));
  header.push_back("gain");
  main.add_row(header);
  TextTable lost(std::vector<Align>(causes.size() + 1, Align::kRight));
  std::vector<std::string> lost_header{"threads"};
  lost_header.insert(lost_header.end(), causes.begin(), causes.end());
  lost.add_row(lost_header);
  for (const PointAnalysis& p : s.points) {
    std::vector<std::string> row = base_row(p);
    row.push_back(secs(p.potential_gain));
    main.add_row(row);
    std::vector<std::string> causes_row{std::to_string(p.threads)};
    const auto c = cause_row(p, optional);
    causes_row.insert(causes_row.end(), c.begin(), c.end());
    lost.add_row(causes_row);
  }
  out += main.render("  ");
  out += "  Time lost by cause:\n";
  out += lost.render("  ");
}

// The constructs inside a region, as a tree under it, at the reference thread count.
void construct_tree(const SeriesAnalysis& s, std::size_t width, std::string& out) {
  if (s.constructs.size() < 2) return;  // one construct is the region itself
  out += fmt::format("  Constructs at {} threads (per-thread means):\n", s.reference_threads);
  TextTable t(
      {Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight, Align::kLeft});
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
      out += wrap(fmt::format("{}: {}: {} s. {}; try: {}.", c.label, to_string(h.kind),
                              secs(h.gain), h.problem, h.advice),
                  width, "    ", "      ");
    }
  }
}

void region_section(const Report& r, const RegionReport& rr, std::size_t rank, std::size_t width,
                    std::string& out) {
  const SeriesAnalysis& s = rr.reference_series();
  const PointAnalysis& ref = s.reference();
  out += '\n';
  out += para(fmt::format("Region {}: {} ({}, {})", rank, rr.region.label,
                          to_string(rr.region.kind), rr.region.key),
              width);
  if (rr.region.nesting_level > 0) {
    out +=
        para(fmt::format("nested (level {}) in {}", rr.region.nesting_level, rr.region.parent_key),
             width, "  ");
  }
  out += fmt::format("  {}{:.0f} executions, {}% measured{}\n",
                     input_words("input ", s.input) + (s.input.empty() ? "" : ": "), ref.executions,
                     percent(ref.sampling_ratio), sampling_words(ref));
  const bool split = rr.region.kind != RegionKind::kSerial;
  points_tables(s, split, width, out);
  if (split) {
    out += para(fmt::format("(imbalance..other: each cause's share of 'lost', its growth beyond "
                            "perfect scaling of its cost at {} thread(s); they add up to 'lost')",
                            s.base_threads),
                width, "  ");
  }
  if (!s.withheld.empty()) {
    std::vector<std::string> kinds;
    for (const Hint& h : s.withheld)
      kinds.push_back(fmt::format("{} {} s", to_string(h.kind), secs(h.gain)));
    out += wrap(fmt::format("Hints withheld at {} threads: every run there was time-shared (fewer "
                            "CPUs than threads), and waiting for a CPU looks like imbalance, "
                            "slow barriers and contention: {}.",
                            s.reference_threads, fmt::join(kinds, ", ")),
                width, "  ", "    ");
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
          wrap(fmt::format("{}. {}: {} s ({}% of the region) -> {} s. {}", ++i, to_string(h.kind),
                           secs(h.gain), percent(ref.time > 0.0 ? h.gain / ref.time : 0.0),
                           secs(h.time_after), h.problem),
               width, "    ", "       ");
      out += wrap("Try: " + h.advice, width, "       ", "         ");
    }
  }
  construct_tree(s, width, out);
  if (s.lock_class != LockClass::kNone) {
    out +=
        para(fmt::format(
                 "Locks: {} s per thread in the lock algorithm, {} s in contention: mostly {}",
                 secs(ref.cost.lock_algorithm), secs(ref.cost.lock_contention),
                 s.lock_class == LockClass::kAlgorithm ? "the algorithm (uncontended acquisitions)"
                                                       : "contention (waiting for other threads)"),
             width, "  ");
  }
  if (std::any_of(s.points.begin(), s.points.end(),
                  [](const PointAnalysis& p) { return p.has_tasks(); })) {
    out += para(fmt::format("Tasks at {} threads: {:.0f} created, {:.0f} executed, {} s per thread "
                            "in explicit tasks ({}% of the region's time)",
                            s.reference_threads, ref.tasks_created, ref.tasks_executed,
                            secs(ref.task), percent(ref.time > 0.0 ? ref.task / ref.time : 0.0)),
                width, "  ");
  }
  if (const ThreadModel* tm = rr.thread_model(r.models, s.input)) {
    const modeler::ClassModel& cm = r.models.results[tm->result].models.front();
    const std::string over = input_words(" (input ", s.input) + (s.input.empty() ? "" : ")");
    if (cm.has_model()) {
      out += para(fmt::format("Model over threads{}: time(t) = {} s ({}, adj. R2 {})", over,
                              cm.model.to_string("t", 4), modeler::to_string(cm.growth),
                              format_fixed(cm.stats.adjusted_r2, 3)),
                  width, "  ");
    } else {
      out += para(fmt::format("No model over threads{}: {}", over, cm.no_model), width, "  ");
    }
    for (const PredictedPoint& p : tm->predicted) {
      out += fmt::format("    at {:g} threads: {} s [{}, {}], efficiency {}\n", p.threads,
                         secs(p.time), secs(p.low), secs(p.high), format_fixed(p.efficiency, 2));
    }
    for (const std::string& w : cm.warnings) out += para("(" + w + ")", width, "    ");
  }
  if (rr.input_model) {
    const InputModel& im = r.models.input_models[*rr.input_model];
    out +=
        para(fmt::format(
                 "Model over threads t and input size n: time = {} s ({}, leave-one-out SMAPE {}%)",
                 im.result.model.to_string("t", "n", 4), to_string(im.result.model.combination),
                 format_fixed(im.result.stats.cv_error, 1)),
             width, "  ");
    for (const std::string& w : im.result.warnings) out += para("(" + w + ")", width, "    ");
  }
  if (r.measurements.inputs.size() > 1 && split) {
    out += "  Efficiency (threads x inputs):\n";
    efficiency_grid(r, &rr, out);
  }
}

void pop_section(const Report& r, std::size_t width, std::string& out) {
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
  out += para(
      "(LB = mean/max useful work over threads; comm = max useful work / wall; PE = LB * "
      "comm)",
      width, "  ");
}

}  // namespace

std::string format_text(const Report& r, std::size_t width) {
  std::string out =
      para(fmt::format("ompscan report of {} (ompscale {})", r.directory, r.version), width);
  runs_section(r, width, out);
  runtime_section(r.runtime, width, out);
  out +=
      "Times in seconds; repetitions combined by median; sampled regions scaled to all "
      "executions.\n";
  program_section(r, out);
  if (r.measurements.inputs.size() > 1) {
    out += "  Efficiency of the program (threads x inputs):\n";
    efficiency_grid(r, nullptr, out);
  }
  summary_section(r, width, out);
  const std::size_t detailed = std::min(r.options.top, r.regions.size());
  for (std::size_t i = 0; i < detailed; ++i) region_section(r, r.regions[i], i + 1, width, out);
  if (detailed < r.regions.size()) {
    out += fmt::format("\n({} more region(s) in the table above; --top shows more in detail)\n",
                       r.regions.size() - detailed);
  }
  pop_section(r, width, out);
  if (!r.notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& n : r.notes) out += wrap(n, width, "  - ", "    ");
  }
  return out;
}

}  // namespace ompscale::regions::report
