#include "dashboard/nightly/nightly.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/error.h"
#include "common/host_name.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "dashboard/analysis/findings.h"
#include "dashboard/confirm/ab_store.h"
#include "dashboard/confirm/ab_test.h"
#include "dashboard/ingest/ingest.h"
#include "dashboard/ingest/read_sidecar.h"
#include "dashboard/nightly/run_tool.h"
#include "dashboard/site/render.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

namespace fs = std::filesystem;

namespace {

// A fresh directory for tonight, named by the time (and a counter if two nights share a second).
std::string night_directory(const std::string& work) {
  std::string stamp = utc_timestamp();
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  fs::create_directories(work);
  for (int i = 0;; ++i) {
    const fs::path dir = fs::path(work) / (i == 0 ? stamp : fmt::format("{}-{}", stamp, i));
    if (fs::create_directory(dir)) return dir.string();
  }
}

class Night {
 public:
  Night(const NightlyConfig& c, std::ostream& out)
      : c_(c),
        out_(out),
        dir_(night_directory(c.work)),
        log_((fs::path(dir_) / "log.txt").string()) {}

  const std::string& dir() const { return dir_; }
  std::string file(const std::string& name) const { return (fs::path(dir_) / name).string(); }

  // Runs one tool; a failure ends the night (UsageError names the log).
  void step(const std::string& what, const std::vector<std::string>& argv,
            const std::map<std::string, std::string>& environment = {}) {
    out_ << fmt::format("ompdash nightly: {}\n", what) << std::flush;
    const int status = run_tool(argv, environment, log_);
    if (status != 0) {
      throw UsageError(
          fmt::format("{} failed (exit status {}); its output is in {}", argv[0], status, log_));
    }
  }

  void sweep() {
    std::vector<std::string> argv = {find_tool("ompbench", "microbench", c_.tools)};
    argv.insert(argv.end(), c_.ompbench_args.begin(), c_.ompbench_args.end());
    for (const std::string& lib : c_.runtime_libs) argv.insert(argv.end(), {"--runtime-lib", lib});
    argv.insert(argv.end(), {"-o", file("results.csv"), "--progress", "never"});
    step("sweep (ompbench)", argv, c_.environment);
  }

  void fit() {
    std::vector<std::string> argv = {find_tool("modeler", "modeler", c_.tools), "fit",
                                     file("results.csv")};
    argv.insert(argv.end(), c_.fit_args.begin(), c_.fit_args.end());
    argv.insert(argv.end(), {"--format", "json", "-o", file("models.json")});
    step("models (modeler fit)", argv);
  }

  std::vector<std::string> applications() {
    std::vector<std::string> reports;
    for (const ApplicationStep& a : c_.applications) {
      const std::string ompscan = find_tool("ompscan", "regions", c_.tools);
      const std::string runs = file(a.name + "-runs");
      std::vector<std::string> argv = {ompscan, "run", "-o", runs};
      argv.insert(argv.end(), a.args.begin(), a.args.end());
      step(fmt::format("application {} (ompscan run)", a.name), argv, c_.environment);
      reports.push_back(file(a.name + "-report.json"));
      step(fmt::format("application {} (ompscan report)", a.name),
           {ompscan, "report", runs, "--format", "json", "-o", reports.back()});
      application_of_[reports.back()] = a.name;
    }
    return reports;
  }

  // Tonight's runtime build, kept for tomorrow's A/B: a copy of every library the workers loaded
  // (the sidecar names them; an installed runtime may be upgraded overnight, a built one is
  // rebuilt in place) and the environment, in NIGHT/build/ and NIGHT/build.json.
  RuntimeBuild keep_build() {
    RuntimeBuild build;
    build.name = fmt::format("night {}{}", fs::path(dir_).filename().string(),
                             c_.label.empty() ? "" : " (" + c_.label + ")");
    build.environment = c_.environment;
    for (const auto& [id, run] : read_sidecar(file("results.csv.meta.json"))) {
      const nlohmann::json workers = nlohmann::json::parse(run.workers_json, nullptr, false);
      if (!workers.is_object()) continue;
      for (const auto& [runtime, facts] : workers.items()) {
        const std::string library = facts.value("library", "");
        if (library.empty() || (runtime != "gnu" && runtime != "llvm")) continue;
        const fs::path copy = fs::path(file("build")) / runtime / fs::path(library).filename();
        std::error_code error;
        fs::create_directories(copy.parent_path(), error);
        if (!fs::copy_file(library, copy, fs::copy_options::overwrite_existing, error)) continue;
        const std::string spec = runtime + "=" + copy.string();
        if (std::find(build.runtime_libs.begin(), build.runtime_libs.end(), spec) ==
            build.runtime_libs.end())
          build.runtime_libs.push_back(spec);
      }
    }
    write_output(file("build.json"), build.to_json());
    return build;
  }

  // The build the latest earlier night kept, if any.
  std::optional<RuntimeBuild> previous_build() const {
    std::vector<fs::path> nights;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(c_.work, error)) {
      if (entry.path() != fs::path(dir_) && fs::exists(entry.path() / "build.json"))
        nights.push_back(entry.path());
    }
    std::sort(nights.begin(), nights.end());
    for (auto it = nights.rbegin(); it != nights.rend(); ++it) {
      if (it->filename().string() < fs::path(dir_).filename().string()) {
        const std::string path = (*it / "build.json").string();
        return RuntimeBuild::from_json(read_input(path), path);
      }
    }
    return std::nullopt;
  }

  void ingest(const std::vector<std::string>& reports) {
    out_ << "ompdash nightly: ingest\n";
    IngestOptions options;
    options.label = c_.label;
    std::vector<std::string> files = {file("results.csv"), file("models.json")};
    IngestBatch batch = read_inputs(files, options);
    for (const std::string& report : reports) {
      options.reports.application = application_of_.at(report);
      batch.reports.push_back(read_report(report, options.reports));
    }
    Database db = open_history(c_.db);
    // The nightly's regression options become the history's: its report and site read the
    // analysis this ingest derives.
    RegressionOptions analysis = c_.regressions;
    analysis.since.clear();
    ingest_batch(db, batch, c_.label, utc_timestamp(), analysis);
  }

 private:
  const NightlyConfig& c_;
  std::ostream& out_;
  std::string dir_;
  std::string log_;
  std::map<std::string, std::string> application_of_;
};

// The kernels and thread counts of tonight's regressions, to measure again; a finding about a
// whole model (a growth change) at the largest thread count its run measured.
std::vector<AbTarget> ab_targets(Database& db, const RegressionReport& report) {
  std::map<std::string, std::int64_t> run_ids;
  for (const RunInfo& r : list_runs(db)) run_ids[r.run_id] = r.id;
  std::map<std::int64_t, SeriesInfo> series;
  for (SeriesInfo& s : list_series(db)) series.emplace(s.id, std::move(s));
  std::vector<AbTarget> targets;
  for (const Finding& f : report.findings) {
    if (!f.worse || f.series == 0 || !series.contains(f.series) || !run_ids.contains(f.run_id))
      continue;
    const SeriesInfo& s = series.at(f.series);
    const int threads = f.threads > 0 ? f.threads : (s.threads.empty() ? 0 : s.threads.back());
    if (threads == 0) continue;
    const bool known = std::any_of(targets.begin(), targets.end(), [&](const AbTarget& t) {
      return t.series.id == s.id && t.threads == threads;
    });
    if (!known) targets.push_back({s, threads, run_ids.at(f.run_id)});
  }
  return targets;
}

// Tonight's regressions measured again, old build against new, and stored with the history.
void confirm(const NightlyConfig& c, Night& night, const RuntimeBuild& tonight,
             const RegressionReport& report, std::ostream& out) {
  Database db = open_history(c.db);
  const std::vector<AbTarget> targets = ab_targets(db, report);
  if (targets.empty()) return;
  const std::optional<RuntimeBuild> previous =
      c.confirm.previous ? c.confirm.previous : night.previous_build();
  if (!previous) {
    out << "ompdash nightly: no earlier night kept its runtime build: the regressions cannot be "
           "confirmed by an A/B tonight\n";
    return;
  }
  out << fmt::format("ompdash nightly: A/B of {} kernel(s): {} against {}\n", targets.size(),
                     previous->name, tonight.name);
  AbOptions options;
  options.rounds = c.confirm.rounds;
  options.max_rounds = 2 * c.confirm.rounds;
  options.reps = c.confirm.reps;
  options.significance = c.regressions.significance;
  options.threshold = c.regressions.threshold;
  options.ompbench_args = nightly_ab_arguments(c.ompbench_args);
  options.ompbench = find_tool("ompbench", "microbench", c.tools);
  try {
    const AbRun run = run_ab(*previous, tonight, targets, options, night.file("ab"), out);
    write_ab(db, run, c.label, host_name(), utc_timestamp());
    out << format_ab_text(run);
  } catch (const std::exception& e) {
    out << "ompdash nightly: the A/B failed, the regressions stay unconfirmed: " << e.what()
        << "\n";
  }
}

}  // namespace

int run_nightly(const NightlyConfig& c, std::ostream& out) {
  Night night(c, out);
  night.sweep();
  const RuntimeBuild tonight = night.keep_build();
  night.fit();
  night.ingest(night.applications());
  RegressionOptions options = c.regressions;
  options.since.clear();  // tonight
  RegressionReport report;
  {
    Database db = open_history(c.db, true);
    report = find_regressions(db, options);
  }
  if (c.confirm.enabled && report.regressions() > 0) {
    confirm(c, night, tonight, report, out);
    Database db = open_history(c.db, true);
    report = find_regressions(db, options);
  }
  Database db = open_history(c.db, true);
  if (!c.site.empty()) {
    out << "ompdash nightly: site\n";
    render_site(db, c.site, c.regressions);
  }
  write_output(night.file("regressions.json"), format_findings_json(report));
  out << format_findings_text(report);
  out << fmt::format("ompdash nightly: {} (files in {})\n",
                     report.regressions() == 0
                         ? std::string("no regression")
                         : fmt::format("{} regression(s), {} failing the "
                                       "night (confirmed, or not measured again)",
                                       report.regressions(), report.failing()),
                     night.dir());
  return c.fail_on_regression && report.failing() > 0 ? 1 : 0;
}

}  // namespace ompscale::dashboard
