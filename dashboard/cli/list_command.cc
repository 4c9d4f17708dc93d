#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/output_file.h"
#include "common/text_table.h"
#include "dashboard/cli/commands.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

namespace {

using Align = TextTable::Align;

// The platform is in every kernel's key; the JSON form has it per run too.
std::string runs_text(const std::vector<RunInfo>& runs) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft,
                   Align::kRight, Align::kLeft, Align::kLeft});
  table.add_row({"date", "run", "host", "runtimes", "label", "configs", "status", "phase"});
  for (const RunInfo& r : runs) {
    table.add_row({r.date, r.run_id, r.host, r.runtimes, r.label, std::to_string(r.configurations),
                   r.status, r.unusual_phase ? "unusual: " + r.phase_note : "typical"});
  }
  return fmt::format("Runs ({})\n{}", runs.size(), table.render("  "));
}

std::string thread_list(const std::vector<int>& threads) {
  return fmt::format("{}", fmt::join(threads, ","));
}

std::string series_text(const std::vector<SeriesInfo>& series) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kRight});
  table.add_row({"kernel", "threads", "runs"});
  for (const SeriesInfo& s : series) {
    table.add_row({s.description, thread_list(s.threads), std::to_string(s.runs)});
  }
  return fmt::format("Kernels ({})\n{}", series.size(), table.render("  "));
}

std::string models_text(const std::vector<ModelSetInfo>& sets) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft});
  table.add_row({"date", "label", "models", "source"});
  for (const ModelSetInfo& m : sets) {
    table.add_row({m.date, m.label, std::to_string(m.models), m.source});
  }
  return fmt::format("Model sets ({})\n{}", sets.size(), table.render("  "));
}

std::string apps_text(const std::vector<AppReportInfo>& reports) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight,
                   Align::kRight, Align::kLeft});
  table.add_row({"application", "date", "label", "threads", "regions", "runs", "source"});
  for (const AppReportInfo& r : reports) {
    table.add_row({r.application, r.date, r.label, r.thread_counts, std::to_string(r.regions),
                   std::to_string(r.runs_analysed), r.source});
  }
  return fmt::format("Application reports ({})\n{}", reports.size(), table.render("  "));
}

nlohmann::json list_json(Database& db, bool runs, bool kernels, bool models, bool apps) {
  nlohmann::json out = nlohmann::json::object();
  const auto number = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
  if (runs) {
    out["runs"] = nlohmann::json::array();
    for (const RunInfo& r : list_runs(db)) {
      out["runs"].push_back({{"run_id", r.run_id},
                             {"host", r.host},
                             {"date", r.date},
                             {"label", r.label},
                             {"platform", r.platform},
                             {"runtimes", r.runtimes},
                             {"compilers", r.compilers},
                             {"status", r.status},
                             {"source", r.source},
                             {"configurations", r.configurations},
                             {"unusual_phase", r.unusual_phase},
                             {"phase_note", r.phase_note},
                             {"canary_median_ns", number(r.canary_median_ns)}});
    }
  }
  if (kernels) {
    out["kernels"] = nlohmann::json::array();
    for (const SeriesInfo& s : list_series(db)) {
      out["kernels"].push_back({{"kernel", s.description},
                                {"key", nlohmann::json::parse(s.key)},
                                {"threads", s.threads},
                                {"runs", s.runs}});
    }
  }
  if (models) {
    out["model_sets"] = nlohmann::json::array();
    for (const ModelSetInfo& m : list_model_sets(db)) {
      out["model_sets"].push_back(
          {{"date", m.date}, {"label", m.label}, {"source", m.source}, {"models", m.models}});
    }
  }
  if (apps) {
    out["applications"] = nlohmann::json::array();
    for (const AppReportInfo& r : list_app_reports(db)) {
      out["applications"].push_back({{"application", r.application},
                                     {"date", r.date},
                                     {"label", r.label},
                                     {"source", r.source},
                                     {"regions", r.regions},
                                     {"runs", r.runs_analysed}});
    }
  }
  return out;
}

}  // namespace

int run_list(const ListArguments& a) {
  const bool all = a.what == "all";
  const bool runs = all || a.what == "runs", kernels = all || a.what == "kernels",
             models = all || a.what == "models", apps = all || a.what == "apps";
  if (!runs && !kernels && !models && !apps) {
    throw UsageError(
        fmt::format("bad --what '{}': use runs, kernels, models, apps or all", a.what));
  }
  Database db = open_history(a.db, true);
  if (a.format == "json") {
    std::cout << list_json(db, runs, kernels, models, apps).dump(2) << "\n";
    return 0;
  }
  if (a.format != "text")
    throw UsageError(fmt::format("bad --format '{}': use text or json", a.format));
  std::string out;
  const auto section = [&](const std::string& text) { out += (out.empty() ? "" : "\n") + text; };
  if (runs) section(runs_text(list_runs(db)));
  if (kernels) section(series_text(list_series(db)));
  if (models) section(models_text(list_model_sets(db)));
  if (apps) section(apps_text(list_app_reports(db)));
  std::cout << out;
  return 0;
}

}  // namespace ompscale::dashboard
