#include <fmt/format.h>
#include <unistd.h>

#include <ctime>

#include "common/error.h"
#include "common/output_file.h"
#include "common/terminal.h"
#include "dashboard/cli/commands.h"
#include "dashboard/cli/since.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

void check_regression_options(const RegressionOptions& o) {
  if (!(o.threshold >= 0) || !(o.significance > 0 && o.significance < 1)) {
    throw UsageError("--threshold must be >= 0 and --significance in (0, 1)");
  }
  if (o.baseline_runs < 1 || o.min_segment < 2) {
    throw UsageError("--baseline-runs must be >= 1 and --min-segment >= 2");
  }
}

int run_regressions(const RegressionsArguments& a) {
  if (a.format != "text" && a.format != "json") {
    throw UsageError(fmt::format("bad --format '{}': use text or json", a.format));
  }
  check_regression_options(a.options);
  RegressionOptions options = a.options;
  options.since = resolve_since(a.options.since, std::time(nullptr));
  Database db = open_history(a.db, true);
  const RegressionReport report = find_regressions(db, options);
  // On a terminal the text fits its width; a file (-o) keeps one line per finding.
  const bool to_stdout = a.output.empty() || a.output == "-";
  const std::size_t width = to_stdout ? output_width(STDOUT_FILENO) : 0;
  std::string text =
      a.format == "json" ? format_findings_json(report) : format_findings_text(report, width);
  if (a.format == "text" && a.noise) {
    text += '\n';
    text += format_noise_text(report, width);
  }
  write_output(a.output, text);
  return a.fail_on_regression && report.failing() > 0 ? 1 : 0;
}

}  // namespace ompscale::dashboard
