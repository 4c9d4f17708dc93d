#include "regions/report/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "common/error.h"
#include "regions/report/schedule_price.h"

namespace ompscale::regions::report {

namespace {

std::vector<double> resolve_input_sizes(const Measurements& m, const ReportOptions& options,
                                        std::vector<std::string>& notes) {
  if (!options.input_sizes.empty()) {
    if (options.input_sizes.size() != m.inputs.size()) {
      std::vector<std::string> names;
      for (const InputInfo& in : m.inputs) names.push_back(in.name);
      throw UsageError(fmt::format(
          "--input-sizes gives {} size(s) but the runs have {} input(s) ({}): give one per input, "
          "in that order",
          options.input_sizes.size(), m.inputs.size(), fmt::join(names, ", ")));
    }
    for (double s : options.input_sizes) {
      if (!(s > 0.0)) throw UsageError(fmt::format("--input-sizes: {} is not a positive size", s));
    }
    return options.input_sizes;
  }
  std::vector<double> sizes;
  for (const InputInfo& in : m.inputs) {
    if (!in.size || !(*in.size > 0.0)) {
      if (m.inputs.size() >= 3) {
        notes.push_back(fmt::format(
            "input '{}' is not a positive number: --input-sizes gives the sizes a model over "
            "threads and input size needs",
            in.name));
      }
      return {};
    }
    sizes.push_back(*in.size);
  }
  return sizes;
}

// Per thread count, what a schedule change must save to be seen beyond the program's
// run-to-run noise (least_visible_gain). The largest minus the smallest repetition was used
// before: one repetition slowed by the machine then hid a real gain.
std::map<int, double> least_visible_gains(const SeriesAnalysis& program, double least_fraction) {
  std::map<int, double> out;
  for (const PointAnalysis& p : program.points) {
    if (p.repetitions > 1)
      out[p.threads] = least_visible_gain(p.time_noise, p.repetitions, p.time, least_fraction);
  }
  return out;
}

// The outermost regions and serial gaps tile the process time: sampled estimates that add up to
// something else are off by about that much.
void coverage_notes(Report& report) {
  std::vector<std::string> off;
  double worst = 0.0;
  for (const RunPop& p : report.pop) {
    const double deviation = std::fabs(p.coverage - 1.0);
    if (p.process > 0.0 && deviation > 0.05) {
      off.push_back(fmt::format("{} {:.0f}%", p.run_id, 100.0 * p.coverage));
      worst = std::max(worst, deviation);
    }
  }
  if (off.empty()) return;
  report.notes.push_back(fmt::format(
      "the sampled times of the outermost regions and serial gaps should add up to the process "
      "time (tool start -> finalize), but covered {} of it in {} run(s) ({}): sampled totals "
      "were off by up to {:.0f}% there, and were calibrated to the process time (each sampled "
      "region took a share of the difference in proportion to its estimator's variance)",
      off.size() == 1 ? "a different share" : "other shares", off.size(),
      fmt::join(off.begin(), off.begin() + std::min<std::size_t>(off.size(), 6), ", "),
      100.0 * worst));
}

// Runs whose teams had another size than requested: the application sets its own count.
void team_notes(const RunSet& runs, Report& report) {
  std::vector<std::string> named;
  for (const RunFile& run : runs.usable) {
    if (run.threads == run.requested_threads) continue;
    report.team_mismatches.push_back({run.run_id, run.requested_threads, run.threads});
    if (named.size() < 4) {
      named.push_back(fmt::format("{} asked for {}, had teams of {}", run.run_id,
                                  run.requested_threads, run.threads));
    }
  }
  if (report.team_mismatches.empty()) return;
  report.notes.push_back(fmt::format(
      "WARNING: {} run(s) had other team sizes than the thread count they asked for ({}{}): the "
      "application sets its own thread count (omp_set_num_threads or num_threads), so the "
      "report places each run at the team size the tool saw; to scale it, have the application "
      "take the count from its arguments ({{threads}}) or from OMP_NUM_THREADS",
      report.team_mismatches.size(), fmt::join(named, "; "),
      report.team_mismatches.size() > named.size() ? "; ..." : ""));
}

// Runs that had fewer CPUs than threads: named, and what the report did about them.
void time_sharing_notes(const RunSet& runs, Report& report) {
  std::size_t shared = 0;
  for (const RunFile& run : runs.usable) {
    if (!run.time_shared) continue;
    if (++shared <= 6) {
      report.time_shared_runs.push_back(
          fmt::format("time-shared: {}: {}", run.run_id, run.time_sharing_reason));
    }
  }
  if (shared == 0) return;
  if (shared > 6) {
    report.time_shared_runs.push_back(fmt::format("time-shared: {} more run(s)", shared - 6));
  }
  int left_out = 0;
  for (const Region& region : report.measurements.regions) {
    for (const RegionPoint& p : region.points) left_out += p.time_shared_left_out;
  }
  report.notes.push_back(fmt::format(
      "{} of {} run(s) were time-shared (fewer CPUs free than threads: other load, steal, or "
      "the affinity mask): their waiting is partly the scheduler's. Where other repetitions were "
      "not, they were left out ({} region point(s)); where all were, the hints that waiting for "
      "a CPU inflates (imbalance, barriers, contention, task waits, unexplained) are withheld",
      shared, runs.usable.size(), left_out));
}

void add_notes(const RunSet& runs, Report& report) {
  auto& notes = report.notes;
  if (!runs.skipped.empty()) {
    notes.push_back(fmt::format("{} file(s) in {} are not run files and were skipped: {}",
                                runs.skipped.size(), runs.directory,
                                fmt::join(runs.skipped, ", ")));
  }
  const Measurements& m = report.measurements;
  double lowest = 1.0;
  std::size_t sampled = 0;
  for (const Region& r : m.regions) {
    double region_lowest = 1.0;
    for (const RegionPoint& p : r.points) {
      region_lowest = std::min(region_lowest, p.costs.sampling_ratio());
    }
    if (region_lowest < 1.0) ++sampled;
    lowest = std::min(lowest, region_lowest);
  }
  if (sampled > 0) {
    notes.push_back(fmt::format(
        "{} region(s) were sampled (as few as {:.1f}% of executions measured): their times and "
        "costs are estimates of the totals over all executions, each measured execution weighted "
        "by the inverse of its sampling probability (Horvitz-Thompson; profiles of earlier tools: "
        "scaled by executions / executions_measured)",
        sampled, 100.0 * lowest));
  }
  coverage_notes(report);
  team_notes(runs, report);
  time_sharing_notes(runs, report);
  if (m.unmeasured_records > 0) {
    notes.push_back(fmt::format("{} region record(s) had no measured execution and were left out",
                                m.unmeasured_records));
  }
  std::size_t oversubscribed = 0;
  double dropped = 0.0;
  for (const RunFile& run : runs.usable) {
    oversubscribed += run.oversubscribed ? 1 : 0;
    // buffer_full_events are full buffers aggregated while the application ran: nothing lost.
    dropped += run.profile->dropped_events;
  }
  if (oversubscribed > 0) {
    notes.push_back(fmt::format(
        "{} run(s) had more threads than cores: their times include time-sharing", oversubscribed));
  }
  if (dropped > 0.0) {
    notes.push_back(fmt::format(
        "the tool dropped {:.0f} event(s) (a full buffer it could no longer aggregate, after "
        "finalize began or in a fork() child): some sums are incomplete",
        dropped));
  }
  for (const RegionReport& r : report.regions) {
    // A serial region has no barrier or lock costs: its 'other' is all its (negative) loss.
    if (r.region.kind == RegionKind::kSerial) continue;
    for (const SeriesAnalysis& s : r.series) {
      for (const PointAnalysis& p : s.points) {
        if (p.other < -0.05 * p.time && p.time > 0.0) {
          notes.push_back(fmt::format(
              "{}{}, {} threads: 'other' is negative ({:.3g} s): the region lost less than its "
              "barrier and lock costs grew, e.g. from caches holding smaller per-thread data",
              r.region.label, s.input.empty() ? "" : " at input " + s.input, p.threads, p.other));
          break;
        }
      }
    }
    for (const RegionPoint& p : r.region.points) {
      if (p.costs.lock_untimed) {
        notes.push_back(fmt::format("{}: lock acquisitions without timed ones: lock costs unknown",
                                    r.region.label));
        break;
      }
    }
  }
}

}  // namespace

const ThreadModel* RegionReport::thread_model(const ModelSet& models,
                                              const std::string& input) const {
  for (std::size_t i : thread_models) {
    if (models.thread_models[i].input == input) return &models.thread_models[i];
  }
  return nullptr;
}

const SeriesAnalysis& Report::program_reference() const {
  for (const SeriesAnalysis& s : program) {
    if (s.input == reference_input) return s;
  }
  return program.back();
}

Report build_report(const RunSet& runs, const ReportOptions& options) {
  if (runs.usable.empty()) {
    // Say why, as the run files do: the first failure or missing profile is usually all of them.
    std::string why;
    if (!runs.failed.empty()) {
      const RunFile& run = runs.failed.front();
      why = fmt::format("; {}: {}{}", run.run_id, describe_end(run),
                        run.profile_error.empty() ? "" : ": " + run.profile_error);
    } else if (!runs.without_profile.empty()) {
      why = fmt::format("; {}: {}", runs.without_profile.front().run_id,
                        runs.without_profile.front().profile_error);
    }
    throw UsageError(fmt::format("{}: no usable runs ({} failed, {} without profile{}){}",
                                 runs.directory, runs.failed.size(), runs.without_profile.size(),
                                 runs.skipped.empty()
                                     ? std::string()
                                     : fmt::format(", {} not run files", runs.skipped.size()),
                                 why));
  }
  Report report;
  report.directory = runs.directory;
  report.version = version_string();
  report.usable_runs = runs.usable.size();
  report.failed = runs.failed;
  report.without_profile = runs.without_profile;
  for (RunFile& r : report.failed) r.profile.reset();  // never analysed: no need to keep
  for (const RunFile& run : runs.usable) {
    if (!run.failed) continue;
    report.exited_unexpectedly.push_back(run);
    report.exited_unexpectedly.back().profile.reset();
  }
  report.options = options;
  report.measurements = aggregate(runs.usable);
  const Measurements& m = report.measurements;

  report.reference_input = m.inputs.back().name;
  if (!options.input.empty()) {
    const bool known = std::any_of(m.inputs.begin(), m.inputs.end(),
                                   [&](const InputInfo& in) { return in.name == options.input; });
    if (!known) {
      std::vector<std::string> names;
      for (const InputInfo& in : m.inputs) names.push_back(in.name);
      throw UsageError(fmt::format("--input '{}': the runs have input(s) {}", options.input,
                                   fmt::join(names, ", ")));
    }
    report.reference_input = options.input;
  }
  report.input_sizes = resolve_input_sizes(m, options, report.notes);
  report.predict_at = options.predict_at;
  if (report.predict_at.empty()) {
    const double largest = m.thread_counts.back();
    report.predict_at = {2.0 * largest, 4.0 * largest};
  }

  for (const InputInfo& in : m.inputs) report.program.push_back(analyse_program(m, in.name));
  report.runtime = describe_runtime(runs, m, report.reference_input);
  for (const RunFile& run : runs.usable) report.pop.push_back(pop_efficiencies(run));

  ModelOptions model_options;
  model_options.predict_at = report.predict_at;
  model_options.confidence = options.confidence;
  model_options.input_sizes = report.input_sizes;
  report.models = fit_models(m, model_options, runs.directory);
  report.notes.insert(report.notes.end(), report.models.notes.begin(), report.models.notes.end());

  // Hints are priced with the costs of the runtime the program runs on when followed: a GCC
  // build's own libgomp (it was measured on libomp), else libomp.
  AnalysisOptions analysis = options.analysis;
  analysis.machine_costs = read_machine_costs(runs.probes);
  analysis.runtime = report.runtime.gomp_abi ? "libgomp" : "libomp";
  std::vector<std::map<int, double>> least_nets;  // per input, as m.inputs
  for (const SeriesAnalysis& program : report.program)
    least_nets.push_back(least_visible_gains(program, analysis.min_hint_fraction));
  for (const Region& region : m.regions) {
    RegionReport r;
    r.region = region;
    for (std::size_t i = 0; i < m.inputs.size(); ++i) {
      const InputInfo& in = m.inputs[i];
      analysis.least_net_s = least_nets[i];
      SeriesAnalysis s = analyse_region(region, in.name, analysis);
      if (s.points.empty()) continue;
      if (in.name == report.reference_input || r.series.empty() ||
          r.series[r.reference].input != report.reference_input) {
        r.reference = r.series.size();
      }
      r.series.push_back(std::move(s));
    }
    r.potential_gain = r.reference_series().reference().potential_gain;
    for (std::size_t i = 0; i < report.models.thread_models.size(); ++i) {
      if (report.models.thread_models[i].region_key == region.key) r.thread_models.push_back(i);
    }
    for (std::size_t i = 0; i < report.models.input_models.size(); ++i) {
      if (report.models.input_models[i].region_key == region.key) r.input_model = i;
    }
    report.regions.push_back(std::move(r));
  }
  std::stable_sort(report.regions.begin(), report.regions.end(),
                   [](const RegionReport& a, const RegionReport& b) {
                     const double ta = a.reference_series().reference().time;
                     const double tb = b.reference_series().reference().time;
                     return std::tie(a.potential_gain, ta) > std::tie(b.potential_gain, tb);
                   });
  add_notes(runs, report);
  return report;
}

}  // namespace ompscale::regions::report
