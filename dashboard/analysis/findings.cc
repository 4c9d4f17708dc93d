#include "dashboard/analysis/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/statistics.h"
#include "common/text_table.h"
#include "dashboard/store/history.h"

namespace ompscale::dashboard {

namespace {

using Align = TextTable::Align;

std::string percent(double v) {
  return std::isnan(v) ? std::string("n/a") : fmt::format("{:+.1f}%", 100 * v);
}

std::string floor_text(double v) {
  return std::isnan(v) ? std::string("n/a") : fmt::format("{:.1f}%", 100 * v);
}

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

std::string noise_summary(const std::vector<KernelNoise>& noise) {
  std::vector<double> floors;
  for (const KernelNoise& n : noise) {
    if (!std::isnan(n.floor)) floors.push_back(n.floor);
  }
  if (floors.empty()) return "Noise floors: not known yet (fewer than two runs per kernel).\n";
  return fmt::format(
      "Noise floors (the smallest change detectable, learned per kernel): median {}, {} to {}\n"
      "over {} kernel x thread counts (--noise lists them).\n",
      floor_text(stats::median(floors)), floor_text(stats::min(floors)),
      floor_text(stats::max(floors)), floors.size());
}

}  // namespace

std::string_view to_string(FindingKind kind) {
  switch (kind) {
    case FindingKind::kRegression:
      return "regression";
    case FindingKind::kImprovement:
      return "improvement";
    case FindingKind::kStep:
      return "step";
    case FindingKind::kDrift:
      return "drift";
    case FindingKind::kGrowthChange:
      return "growth change";
    case FindingKind::kOutsideInterval:
      return "outside interval";
    case FindingKind::kBudgetMoved:
      return "budget moved";
    case FindingKind::kUnusualPhase:
      return "unusual phase";
  }
  return "?";
}

FindingKind finding_kind(std::string_view name) {
  for (const FindingKind kind :
       {FindingKind::kRegression, FindingKind::kImprovement, FindingKind::kStep,
        FindingKind::kDrift, FindingKind::kGrowthChange, FindingKind::kOutsideInterval,
        FindingKind::kBudgetMoved, FindingKind::kUnusualPhase}) {
    if (to_string(kind) == name) return kind;
  }
  throw std::invalid_argument(fmt::format("'{}' is not a kind of finding", name));
}

Finding finding_about(const SeriesInfo& s, FindingKind kind) {
  Finding f;
  f.kind = kind;
  f.series = s.id;
  f.kernel = s.description;
  f.construct = s.construct;
  f.runtime = s.runtime;
  f.platform = s.platform;
  f.metric = s.metric;
  f.unit = s.unit;
  return f;
}

std::size_t RegressionReport::regressions() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return f.worse; }));
}

std::string format_findings_text(const RegressionReport& report) {
  std::string out = fmt::format(
      "Findings since {}: {} regression(s), {} other finding(s)\n"
      "({} comparisons of a run with its history, {} kernel histories searched for change "
      "points)\n",
      report.since, report.regressions(), report.findings.size() - report.regressions(),
      report.tests, report.histories);
  if (!report.findings.empty()) {
    TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft,
                     Align::kLeft, Align::kRight, Align::kRight, Align::kLeft});
    table.add_row({"", "finding", "kernel", "threads", "run", "date", "change", "floor", "detail"});
    for (const Finding& f : report.findings) {
      table.add_row({f.worse ? "!" : " ", std::string(to_string(f.kind)), f.kernel,
                     f.threads > 0 ? std::to_string(f.threads) : f.thread_class, f.run_id, f.date,
                     percent(f.kind == FindingKind::kGrowthChange ? std::nan("") : f.change),
                     floor_text(f.noise_floor), f.detail});
    }
    out += '\n';
    out += table.render();
  }
  out += '\n';
  out += noise_summary(report.noise);
  return out;
}

std::string format_noise_text(const RegressionReport& report) {
  TextTable table({Align::kLeft, Align::kRight, Align::kRight, Align::kRight});
  table.add_row({"kernel", "threads", "runs", "floor"});
  for (const KernelNoise& n : report.noise) {
    table.add_row(
        {n.kernel, std::to_string(n.threads), std::to_string(n.runs), floor_text(n.floor)});
  }
  return table.render();
}

std::string format_findings_json(const RegressionReport& report) {
  nlohmann::ordered_json out;
  out["since"] = report.since;
  out["tests"] = report.tests;
  out["histories"] = report.histories;
  out["regressions"] = report.regressions();
  out["findings"] = nlohmann::ordered_json::array();
  for (const Finding& f : report.findings) {
    out["findings"].push_back({{"kind", to_string(f.kind)},
                               {"worse", f.worse},
                               {"severity", number(f.severity)},
                               {"kernel", f.kernel},
                               {"construct", f.construct},
                               {"runtime", f.runtime},
                               {"platform", f.platform},
                               {"metric", f.metric},
                               {"unit", f.unit},
                               {"threads", f.threads},
                               {"class", f.thread_class},
                               {"run_id", f.run_id},
                               {"date", f.date},
                               {"label", f.label},
                               {"until", f.until},
                               {"before", number(f.before)},
                               {"after", number(f.after)},
                               {"change", number(f.change)},
                               {"noise_floor", number(f.noise_floor)},
                               {"threshold", number(f.threshold)},
                               {"p_value", number(f.p_value)},
                               {"detail", f.detail}});
  }
  out["noise"] = nlohmann::ordered_json::array();
  for (const KernelNoise& n : report.noise) {
    out["noise"].push_back({{"kernel", n.kernel},
                            {"construct", n.construct},
                            {"runtime", n.runtime},
                            {"platform", n.platform},
                            {"threads", n.threads},
                            {"runs", n.runs},
                            {"sigma", number(n.sigma)},
                            {"floor", number(n.floor)}});
  }
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ompscale::dashboard
