// The JSON report, format "ompscan-report-1" (docs/ompscan-report.md, "JSON"). Times are seconds
// ("_s"); numbers that do not exist (an efficiency from a non-positive prediction) are null.

#include <nlohmann/json.hpp>

#include "modeler/core/model.h"
#include "regions/report/writers.h"

namespace ompscale::regions::report {

namespace {

using nlohmann::json;

json categories_json(const CategoryCosts& c) {
  return {{"imbalance_s", c.imbalance},
          {"walkthrough_s", c.walkthrough},
          {"startup_s", c.startup},
          {"lock_contention_s", c.lock_contention},
          {"lock_algorithm_s", c.lock_algorithm},
          {"task_wait_s", c.task_wait},
          {"team_start_s", c.team_start}};
}

json point_json(const PointAnalysis& p, bool with_split) {
  json j = {{"threads", p.threads},     {"repetitions", p.repetitions},
            {"time_s", p.time},         {"time_min_s", p.time_min},
            {"time_max_s", p.time_max}, {"spread", p.spread},
            {"speedup", p.speedup},     {"efficiency", p.efficiency},
            {"lost_s", p.lost},         {"potential_gain_s", p.potential_gain}};
  j["time_shared"] = p.time_shared;
  if (p.time_exact && p.sampling_ratio < 1.0) j["idle_se_s"] = p.idle_se;
  if (p.time_se > 0.0) {  // sampled: the 95% confidence interval of the scaled total
    j["time_se_s"] = p.time_se;
    j["time_ci95_s"] = {p.time - 1.96 * p.time_se, p.time + 1.96 * p.time_se};
  }
  if (with_split) {
    j["executions"] = p.executions;
    j["sampling_ratio"] = p.sampling_ratio;
    j["cost"] = categories_json(p.cost);
    j["loss"] = categories_json(p.loss);
    j["loss"]["other_s"] = p.other;
  }
  if (p.has_tasks()) {
    j["tasks"] = {{"created", p.tasks_created},
                  {"executed", p.tasks_executed},
                  {"task_s", p.task},
                  {"barrier_task_s", p.barrier_task},
                  {"top_creator_created", p.top_creator_tasks}};
  }
  return j;
}

json hint_json(const Hint& h) {
  json j = {{"kind", to_string(h.kind)},     {"gain_s", h.gain},   {"time_after_s", h.time_after},
            {"problem", h.problem},          {"advice", h.advice}, {"priced", h.priced},
            {"nothing_pays", h.nothing_pays}};
  if (!h.costs.empty()) j["costs"] = h.costs;
  if (!h.loops.empty()) {
    j["loops"] = json::array();
    for (const LoopRemedy& l : h.loops) {
      const ScheduleOption& o = l.change;
      json loop = {
          {"schedule_now", l.now},    {"schedule", o.schedule},   {"runtime_schedule", l.runtime},
          {"chunks", o.chunks},       {"removed_s", o.removed},   {"dispatch_s", o.dispatch},
          {"locality_s", o.locality}, {"affinity_s", o.affinity}, {"net_s", o.net()}};
      loop["location"] = {{"module", l.location.module}, {"offset", l.location.offset}};
      if (l.location.resolved()) {
        loop["location"]["file"] = l.location.file;
        loop["location"]["line"] = l.location.line;
      }
      j["loops"].push_back(std::move(loop));
    }
  }
  return j;
}

json construct_json(const ConstructAnalysis& c) {
  json j = {
      {"kind", c.kind}, {"label", c.label}, {"schedule", c.schedule}, {"points", json::array()}};
  j["runtime_reported"] = c.runtime_reported;
  j["location"] = {{"module", c.location.module}, {"offset", c.location.offset}};
  if (c.location.resolved()) {
    j["location"]["file"] = c.location.file;
    j["location"]["line"] = c.location.line;
  }
  for (const auto& [threads, p] : c.points) {
    j["points"].push_back({{"threads", threads},
                           {"executions", p.executions},
                           {"time_s", p.time},
                           {"imbalance_s", p.imbalance},
                           {"walkthrough_s", p.walkthrough},
                           {"startup_s", p.startup},
                           {"task_wait_s", p.task_wait}});
  }
  j["hints"] = json::array();
  for (const Hint& h : c.hints) j["hints"].push_back(hint_json(h));
  return j;
}

json series_json(const SeriesAnalysis& s, bool with_split) {
  json j = {{"input", s.input},
            {"base_threads", s.base_threads},
            {"reference_threads", s.reference_threads},
            {"points", json::array()}};
  for (const PointAnalysis& p : s.points) j["points"].push_back(point_json(p, with_split));
  if (with_split) {
    j["constructs"] = json::array();
    for (const ConstructAnalysis& c : s.constructs) j["constructs"].push_back(construct_json(c));
    j["lock_class"] = to_string(s.lock_class);
  }
  // Every region's hints, a serial region's too (the program's series has none).
  j["withheld_hints"] = json::array();
  for (const Hint& h : s.withheld) j["withheld_hints"].push_back(hint_json(h));
  j["hints"] = json::array();
  for (const Hint& h : s.hints) j["hints"].push_back(hint_json(h));
  return j;
}

json location_json(const Location& l) {
  json j = {{"module", l.module}, {"build_id", l.build_id}, {"offset", l.offset}};
  if (l.resolved()) {
    j["file"] = l.file;
    j["line"] = l.line;
    j["function"] = l.function;
  }
  return j;
}

json model_json(const modeler::Model& m) {
  json terms = json::array();
  for (const modeler::Term& t : m.terms) {
    terms.push_back({{"coefficient", t.coefficient},
                     {"exponent", modeler::format_exponent(t.shape.exponent)},
                     {"log_exponent", t.shape.log_exponent}});
  }
  return {{"model", m.to_string("t")}, {"constant", m.constant}, {"terms", terms}};
}

json thread_model_json(const Report& r, const ThreadModel& tm) {
  const modeler::ClassModel& cm = r.models.results[tm.result].models.front();
  json j = model_json(cm.model);
  j["input"] = tm.input;
  j["growth"] = modeler::to_string(cm.growth);
  j["adjusted_r2"] = cm.stats.adjusted_r2;
  j["smape"] = cm.stats.smape;
  j["cv_error"] = cm.stats.cv_error;
  j["valid"] = cm.valid;
  j["warnings"] = cm.warnings;
  j["predictions"] = json::array();
  for (const PredictedPoint& p : tm.predicted) {
    j["predictions"].push_back({{"threads", p.threads},
                                {"time_s", p.time},
                                {"low_s", p.low},
                                {"high_s", p.high},
                                {"efficiency", p.efficiency}});
  }
  return j;
}

json shape_json(const modeler::TermShape& s) {
  return {{"exponent", modeler::format_exponent(s.exponent)}, {"log_exponent", s.log_exponent}};
}

json input_model_json(const InputModel& im) {
  const modeler::TwoParameterModel& m = im.result.model;
  json j = {{"model", m.to_string("t", "n")},
            {"parameters", {"t (threads)", "n (input size)"}},
            {"combination", modeler::to_string(m.combination)},
            {"constant", m.constant},
            {"first_coefficient", m.first_coefficient},
            {"second_coefficient", m.second_coefficient},
            {"product_coefficient", m.product_coefficient},
            {"adjusted_r2", im.result.stats.adjusted_r2},
            {"smape", im.result.stats.smape},
            {"cv_error", im.result.stats.cv_error},
            {"points", im.result.stats.points},
            {"warnings", im.result.warnings}};
  j["candidates"] = json::array();
  for (const modeler::TwoParameterCandidate& c : im.result.candidates) {
    j["candidates"].push_back({{"model", c.model.to_string("t", "n")},
                               {"combination", modeler::to_string(c.model.combination)},
                               {"cv_error", c.cv_smape},
                               {"negligible_term", c.negligible_term}});
  }
  if (m.uses_first()) j["first_term"] = shape_json(m.first);
  if (m.uses_second()) j["second_term"] = shape_json(m.second);
  j["predictions"] = json::array();
  for (const InputPrediction& p : im.predicted) {
    j["predictions"].push_back({{"threads", p.threads},
                                {"input", p.input},
                                {"size", p.size},
                                {"time_s", p.time},
                                {"efficiency", p.efficiency}});
  }
  return j;
}

json run_json(const RunFile& run) {
  json j = {
      {"file", run.path},   {"run_id", run.run_id},         {"threads", run.threads},
      {"input", run.input}, {"repetition", run.repetition}, {"profile_error", run.profile_error}};
  j["exit_status"] = run.exit_status ? json(*run.exit_status) : json(nullptr);
  j["signal"] = run.signal ? json(*run.signal) : json(nullptr);
  return j;
}

json pop_json(const PopEfficiencies& e) {
  return {{"load_balance", e.load_balance},    {"communication_efficiency", e.communication},
          {"parallel_efficiency", e.parallel}, {"useful_mean_s", e.useful_mean},
          {"useful_max_s", e.useful_max},      {"wall_s", e.wall}};
}

json runtime_json(const RuntimeReport& runtime) {
  json j = {{"library", runtime.library},
            {"version", runtime.version},
            {"gomp_abi", runtime.gomp_abi},
            {"native_library", runtime.native_library},
            {"native", json::array()},
            {"summary", runtime.summary},
            {"advice", runtime.advice},
            {"knob", runtime.knob},
            {"knob_gain_s", runtime.knob_gain_s},
            {"knob_advice", runtime.knob_advice}};
  for (const NativeComparison& c : runtime.native) {
    j["native"].push_back({{"input", c.input},
                           {"threads", c.threads},
                           {"variant", c.variant},
                           {"environment", c.environment},
                           {"repetitions", c.repetitions},
                           {"time_shared", c.time_shared},
                           {"time_shared_left_out", c.time_shared_left_out},
                           {"native_s", c.native_s},
                           {"min_s", c.min_s},
                           {"max_s", c.max_s},
                           {"spread", c.spread()},
                           {"native_cpu_s", c.native_cpu_s},
                           {"measured_s", c.measured_s},
                           {"ratio", c.ratio()}});
  }
  return j;
}

}  // namespace

std::string format_json(const Report& r) {
  const Measurements& m = r.measurements;
  json j;
  j["format"] = "ompscan-report-1";
  j["ompscale_version"] = r.version;
  j["directory"] = r.directory;
  j["runs"] = {
      {"analysed", r.usable_runs}, {"failed", json::array()}, {"without_profile", json::array()}};
  for (const RunFile& run : r.failed) j["runs"]["failed"].push_back(run_json(run));
  for (const RunFile& run : r.without_profile) {
    j["runs"]["without_profile"].push_back(run_json(run));
  }
  j["runs"]["exited_unexpectedly"] = json::array();
  for (const RunFile& run : r.exited_unexpectedly) {
    j["runs"]["exited_unexpectedly"].push_back(run_json(run));
  }
  j["runs"]["time_shared"] = r.time_shared_runs;
  j["runs"]["team_mismatches"] = json::array();
  for (const TeamMismatch& t : r.team_mismatches) {
    j["runs"]["team_mismatches"].push_back(
        {{"run_id", t.run_id}, {"requested", t.requested}, {"observed", t.observed}});
  }
  j["runtime"] = runtime_json(r.runtime);
  j["thread_counts"] = m.thread_counts;
  j["inputs"] = json::array();
  for (std::size_t i = 0; i < m.inputs.size(); ++i) {
    json in = {{"name", m.inputs[i].name}, {"index", m.inputs[i].index}};
    in["size"] = r.input_sizes.empty() ? json(nullptr) : json(r.input_sizes[i]);
    j["inputs"].push_back(in);
  }
  j["reference_input"] = r.reference_input;
  j["predict_at"] = r.predict_at;
  j["program"] = json::array();
  for (const SeriesAnalysis& s : r.program) j["program"].push_back(series_json(s, false));
  j["pop"] = json::array();
  for (const RunPop& p : r.pop) {
    j["pop"].push_back({{"run_id", p.run_id},
                        {"threads", p.threads},
                        {"input", p.input},
                        {"repetition", p.repetition},
                        {"parallel_regions", pop_json(p.parallel_regions)},
                        {"whole_run", pop_json(p.whole_run)}});
  }
  j["regions"] = json::array();
  std::size_t rank = 0;
  for (const RegionReport& rr : r.regions) {
    const Region& region = rr.region;
    json jr = {{"rank", ++rank},
               {"key", region.key},
               {"kind", to_string(region.kind)},
               {"label", region.label},
               {"name", region.name},
               {"location", location_json(region.location)},
               {"nesting_level", region.nesting_level},
               {"parent_key", region.parent_key},
               {"reference_input", rr.reference_series().input},
               {"potential_gain_s", rr.potential_gain},
               {"series", json::array()},
               {"locks", json::array()},
               {"thread_models", json::array()}};
    for (const SeriesAnalysis& s : rr.series) {
      jr["series"].push_back(series_json(s, region.kind != RegionKind::kSerial));
    }
    for (const RegionPoint& p : region.points) {
      for (const LockSite& l : p.locks) {
        jr["locks"].push_back({{"input", p.input},
                               {"threads", p.threads},
                               {"kind", l.kind},
                               {"location", l.label},
                               {"acquisitions", l.acquisitions},
                               {"algorithm_s", l.algorithm},
                               {"contention_s", l.contention},
                               {"fastest_ns", l.fastest_ns},
                               {"mean_ns", l.mean_ns}});
      }
    }
    for (std::size_t i : rr.thread_models) {
      jr["thread_models"].push_back(thread_model_json(r, r.models.thread_models[i]));
    }
    jr["input_model"] =
        rr.input_model ? input_model_json(r.models.input_models[*rr.input_model]) : json(nullptr);
    j["regions"].push_back(std::move(jr));
  }
  j["notes"] = r.notes;
  return j.dump(1) + "\n";
}

}  // namespace ompscale::regions::report
