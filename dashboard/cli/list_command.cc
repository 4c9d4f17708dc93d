#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/output_file.h"
#include "common/terminal.h"
#include "common/text.h"
#include "common/text_table.h"
#include "dashboard/cli/commands.h"
#include "dashboard/confirm/ab_store.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

namespace {

using Align = TextTable::Align;

// A table as text for `width` columns (0: no limit): when its lines are wider, the cells of column
// `heading` go on a line of their own whenever they change (common/text_table.h).
std::string fitted(const TextTable& table, std::size_t width, std::size_t heading) {
  std::ostringstream out;
  table.render_to(out, "  ", width, heading);
  return out.str();
}

std::string phase_of(const RunInfo& r) {
  if (r.unusual_phase) return "unusual";
  return r.phase_note.empty() ? "typical" : "faster";
}

// The platform is in every kernel's key; the JSON form has it per run too. The runtimes head
// groups of runs on a narrow terminal, and the notes of unusual or faster runs follow the table.
std::string runs_text(const std::vector<RunInfo>& runs, std::size_t width) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft,
                   Align::kRight, Align::kLeft, Align::kLeft});
  table.add_row({"date", "run", "host", "runtimes", "label", "configs", "status", "phase"});
  std::string notes;
  for (const RunInfo& r : runs) {
    table.add_row({r.date, r.run_id, r.host, r.runtimes, r.label, std::to_string(r.configurations),
                   r.status, phase_of(r)});
    if (!r.phase_note.empty()) {
      notes += wrap(fmt::format("{} ({}): {}", r.run_id, phase_of(r), r.phase_note), width, "  ",
                    "    ");
    }
  }
  return fmt::format("Runs ({})\n{}", runs.size(), fitted(table, width, 3)) + notes;
}

std::string thread_list(const std::vector<int>& threads) {
  return fmt::format("{}", fmt::join(threads, ","));
}

std::string series_text(const std::vector<SeriesInfo>& series, std::size_t width) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kRight});
  table.add_row({"kernel", "threads", "runs"});
  for (const SeriesInfo& s : series) {
    table.add_row({s.description, thread_list(s.threads), std::to_string(s.runs)});
  }
  return fmt::format("Kernels ({})\n{}", series.size(), fitted(table, width, 0));
}

std::string models_text(const std::vector<ModelSetInfo>& sets, std::size_t width) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft});
  table.add_row({"date", "label", "models", "source"});
  for (const ModelSetInfo& m : sets) {
    table.add_row({m.date, m.label, std::to_string(m.models), m.source});
  }
  return fmt::format("Model sets ({})\n{}", sets.size(), fitted(table, width, 3));
}

std::string apps_text(const std::vector<AppReportInfo>& reports, std::size_t width) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight,
                   Align::kRight, Align::kLeft});
  table.add_row({"application", "date", "label", "threads", "regions", "runs", "source"});
  for (const AppReportInfo& r : reports) {
    table.add_row({r.application, r.date, r.label, r.thread_counts, std::to_string(r.regions),
                   std::to_string(r.runs_analysed), r.source});
  }
  return fmt::format("Application reports ({})\n{}", reports.size(), fitted(table, width, 6));
}

std::string ab_text(const std::vector<StoredConfirmation>& confirmations,
                    const std::vector<SeriesInfo>& series, std::size_t width) {
  const auto percent = [](double v) {
    return std::isnan(v) ? std::string("n/a") : fmt::format("{:+.1f}%", 100 * v);
  };
  TextTable table({Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft, Align::kLeft,
                   Align::kRight, Align::kLeft, Align::kRight, Align::kLeft});
  table.add_row(
      {"kernel", "date", "threads", "old", "new", "change", "interval", "pairs", "verdict"});
  for (const StoredConfirmation& c : confirmations) {
    const auto s = std::find_if(series.begin(), series.end(),
                                [&](const SeriesInfo& i) { return i.id == c.series; });
    const Confirmation& x = c.confirmation;
    table.add_row({s == series.end() ? "?" : s->description, x.date, std::to_string(c.threads),
                   x.old_build, x.new_build, percent(x.change),
                   fmt::format("[{}, {}]", percent(x.low), percent(x.high)),
                   std::to_string(x.pairs), x.verdict});
  }
  return fmt::format("A/B comparisons ({})\n{}", confirmations.size(), fitted(table, width, 0));
}

nlohmann::json ab_json(Database& db) {
  const auto number = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
  std::map<std::int64_t, SeriesInfo> series;
  for (SeriesInfo& s : list_series(db)) series.emplace(s.id, std::move(s));
  nlohmann::json out = nlohmann::json::array();
  for (const StoredConfirmation& c : load_confirmations(db)) {
    const SeriesInfo& s = series.at(c.series);
    const Confirmation& x = c.confirmation;
    out.push_back({{"ab_test", x.ab_test},
                   {"date", x.date},
                   {"label", c.label},
                   {"kernel", s.description},
                   {"construct", s.construct},
                   {"runtime", s.runtime},
                   {"metric", s.metric},
                   {"unit", s.unit},
                   {"threads", c.threads},
                   {"checks_run", c.run_id},
                   {"old_build", x.old_build},
                   {"new_build", x.new_build},
                   {"old_median", number(c.old_median)},
                   {"new_median", number(c.new_median)},
                   {"verdict", x.verdict},
                   {"change", number(x.change)},
                   {"low", number(x.low)},
                   {"high", number(x.high)},
                   {"detectable", number(x.detectable)},
                   {"pairs", x.pairs},
                   {"dropped", x.dropped}});
  }
  return out;
}

nlohmann::json list_json(Database& db, bool runs, bool kernels, bool models, bool apps, bool ab) {
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
  if (ab) out["ab"] = ab_json(db);
  return out;
}

}  // namespace

int run_list(const ListArguments& a) {
  const bool all = a.what == "all";
  const bool runs = all || a.what == "runs", kernels = all || a.what == "kernels",
             models = all || a.what == "models", apps = all || a.what == "apps",
             ab = all || a.what == "ab";
  if (!runs && !kernels && !models && !apps && !ab) {
    throw UsageError(
        fmt::format("bad --what '{}': use runs, kernels, models, apps, ab or all", a.what));
  }
  Database db = open_history(a.db, true);
  if (a.format == "json") {
    std::cout << list_json(db, runs, kernels, models, apps, ab).dump(2) << "\n";
    return 0;
  }
  if (a.format != "text")
    throw UsageError(fmt::format("bad --format '{}': use text or json", a.format));
  std::string out;
  const auto section = [&](const std::string& text) { out += (out.empty() ? "" : "\n") + text; };
  const std::size_t width = output_width(STDOUT_FILENO);
  if (runs) section(runs_text(list_runs(db), width));
  if (kernels) section(series_text(list_series(db), width));
  if (models) section(models_text(list_model_sets(db), width));
  if (apps) section(apps_text(list_app_reports(db), width));
  if (ab && (!all || !load_confirmations(db).empty()))
    section(ab_text(load_confirmations(db), list_series(db), width));
  std::cout << out;
  return 0;
}

}  // namespace ompscale::dashboard
