#include "regions/report/report_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "common/cli_help.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/terminal.h"
#include "regions/report/read_runs.h"
#include "regions/report/report.h"
#include "regions/report/writers.h"

namespace ompscale::regions {

namespace {

std::string render(const report::Report& r, const std::string& format, std::size_t width) {
  if (format == "text") return report::format_text(r, width);
  if (format == "json") return report::format_json(r);
  if (format == "csv") return report::format_csv(r);
  return report::format_extrap(r);  // CLI11 admits only these four
}

}  // namespace

int report_command(int argc, char** argv) {
  std::string directory, format = "text", output, svg_dir;
  bool wide = false;
  report::ReportOptions options;
  double min_gain_percent = 100.0 * options.analysis.min_hint_fraction;

  CLI::App app{
      "ompscan report: regions of the runs in DIR by potential time gain, with speedup, "
      "efficiency, time lost and its causes, hints with predicted gains, POP efficiencies and "
      "scaling models (docs/ompscan-report.md).",
      "ompscan report"};
  wrap_help(app);
  app.add_option("dir", directory, "Directory of run files written by ompscan run")->required();
  app.add_option("--format", format, "text, json, csv, or extrap (region times as Extra-P text)")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json", "csv", "extrap"}));
  app.add_option("-o,--output", output, "Output file (default: stdout)");
  app.add_flag("--wide", wide,
               "Whole names and lines on a terminal too (default: fit the terminal's width)");
  app.add_option("--svg", svg_dir,
                 "Also write charts to this directory: speedup per top region, efficiency heat "
                 "maps (threads x inputs), time models");
  app.add_option("--top", options.top, "Regions detailed in text and charted")
      ->capture_default_str();
  app.add_option("--predict", options.predict_at,
                 "Thread counts to predict at, e.g. 16,32 (default: 2x and 4x the largest)")
      ->delimiter(',');
  app.add_option("--input", options.input,
                 "Input whose analysis sorts and details the regions (default: the last)");
  app.add_option("--input-sizes", options.input_sizes,
                 "Size of each input in run order, e.g. 1,2,4 (default: the input names when "
                 "they are numbers)")
      ->delimiter(',');
  app.add_option("--min-gain", min_gain_percent,
                 "Hints predicting less than this percentage of the region's time are left out")
      ->capture_default_str();

  if (const auto status =
          parse_command_line(app, argc, argv, "ompscan: report", "ompscan report --help"))
    return *status;
  return run_reporting_errors(
      "ompscan",
      [&] {
        for (double t : options.predict_at) {
          if (!(t > 0.0)) throw UsageError("--predict: thread counts are positive");
        }
        if (!(min_gain_percent >= 0.0)) throw UsageError("--min-gain: use a percentage >= 0");
        options.analysis.min_hint_fraction = min_gain_percent / 100.0;
        const report::RunSet runs = report::read_run_directory(directory);
        const report::Report r = report::build_report(runs, options);
        // On a terminal the text fits its width, unless --wide; files get whole lines.
        const std::size_t width =
            wide || (!output.empty() && output != "-") ? 0 : output_width(STDOUT_FILENO);
        const std::string content = render(r, format, width);
        if (!svg_dir.empty()) {
          std::filesystem::create_directories(svg_dir);
          for (const auto& [name, svg] : report::format_svgs(r)) {
            write_output((std::filesystem::path(svg_dir) / name).string(), svg);
          }
        }
        write_output(output, content);
        return 0;
      },
      2);
}

}  // namespace ompscale::regions
