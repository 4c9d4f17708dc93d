#include "dashboard/nightly/nightly.h"

#include <fmt/format.h>

#include <filesystem>

#include "common/error.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "dashboard/analysis/findings.h"
#include "dashboard/ingest/ingest.h"
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

}  // namespace

int run_nightly(const NightlyConfig& c, std::ostream& out) {
  Night night(c, out);
  night.sweep();
  night.fit();
  night.ingest(night.applications());
  Database db = open_history(c.db, true);
  if (!c.site.empty()) {
    out << "ompdash nightly: site\n";
    render_site(db, c.site, c.regressions);
  }
  RegressionOptions options = c.regressions;
  options.since.clear();  // tonight
  const RegressionReport report = find_regressions(db, options);
  write_output(night.file("regressions.json"), format_findings_json(report));
  out << format_findings_text(report);
  out << fmt::format("ompdash nightly: {} (files in {})\n",
                     report.regressions() > 0 ? "regressions found" : "no regression", night.dir());
  return c.fail_on_regression && report.regressions() > 0 ? 1 : 0;
}

}  // namespace ompscale::dashboard
