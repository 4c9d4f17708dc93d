#include "dashboard/analysis/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "common/statistics.h"
#include "common/text.h"
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

nlohmann::ordered_json confirmation_json(const Finding& f) {
  if (!f.confirmation) return nullptr;
  const Confirmation& c = *f.confirmation;
  return {{"ab_test", c.ab_test},       {"date", c.date},
          {"verdict", c.verdict},       {"confirmed", f.confirmed()},
          {"change", number(c.change)}, {"low", number(c.low)},
          {"high", number(c.high)},     {"detectable", number(c.detectable)},
          {"pairs", c.pairs},           {"dropped", c.dropped},
          {"old_build", c.old_build},   {"new_build", c.new_build}};
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
    case FindingKind::kFasterState:
      return "faster state";
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

std::string Confirmation::describe(bool worse) const {
  const std::string measured =
      pairs == 0 ? std::string("no round pair in one machine state")
                 : fmt::format("{} [{}, {}] over {} round pair{}", percent(change), percent(low),
                               percent(high), pairs, pairs == 1 ? "" : "s");
  std::string verdict_text = "not confirmed";
  if (verdict == "inconclusive") verdict_text = "inconclusive";
  if (verdict == (worse ? "slower" : "faster")) verdict_text = "confirmed";
  return fmt::format(
      "{} by A/B: {}{}", verdict_text, measured,
      dropped > 0 ? fmt::format(" ({} in different machine states left out)", dropped) : "");
}

bool Finding::confirmed() const {
  return confirmation && confirmation->verdict == (worse ? "slower" : "faster");
}

bool Finding::failing() const {
  return worse && (!confirmation || confirmed());
}

std::size_t RegressionReport::regressions() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return f.worse; }));
}

std::size_t RegressionReport::failing() const {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                [](const Finding& f) { return f.failing(); }));
}

namespace {

std::string threads_text(const Finding& f) {
  return f.threads > 0 ? std::to_string(f.threads) : f.thread_class;
}

std::string change_text(const Finding& f) {
  return percent(f.kind == FindingKind::kGrowthChange ? std::nan("") : f.change);
}

std::string ab_text(const Finding& f) {
  return f.confirmation ? f.confirmation->describe(f.worse) : std::string();
}

// One line per finding, however wide.
std::string findings_table(const RegressionReport& report) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight, Align::kLeft,
                   Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft});
  table.add_row(
      {"", "finding", "kernel", "threads", "run", "date", "change", "floor", "detail", "A/B"});
  for (const Finding& f : report.findings) {
    table.add_row({f.worse ? "!" : " ", std::string(to_string(f.kind)), f.kernel, threads_text(f),
                   f.run_id, f.date, change_text(f), floor_text(f.noise_floor), f.detail,
                   ab_text(f)});
  }
  return table.render();
}

// For a terminal `width` columns wide: the short columns of each finding on one line, then its
// run, kernel, detail and A/B wrapped under it.
std::string findings_blocks(const RegressionReport& report, std::size_t width) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight,
                   Align::kRight, Align::kRight});
  table.add_row({"", "finding", "construct", "runtime", "threads", "change", "floor"});
  for (const Finding& f : report.findings) {
    table.add_row({f.worse ? "!" : " ", std::string(to_string(f.kind)), f.construct, f.runtime,
                   threads_text(f), change_text(f), floor_text(f.noise_floor)});
  }
  const std::vector<std::string> lines = split(table.render(), '\n');
  std::string out = lines[0] + '\n';
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const Finding& f = report.findings[i];
    out += lines[i + 1] + '\n';
    // A finding about a whole run names it in its kernel already.
    const std::string about = f.series == 0
                                  ? fmt::format("{} ({})", f.kernel, f.date)
                                  : fmt::format("run {} ({}): {}", f.run_id, f.date, f.kernel);
    out += wrap(about, width, "    ", "      ");
    out += wrap(f.detail, width, "    ", "      ");
    if (f.confirmation) out += wrap(ab_text(f), width, "    ", "      ");
  }
  return out;
}

}  // namespace

std::string format_findings_text(const RegressionReport& report, std::size_t width) {
  const std::size_t confirmed = static_cast<std::size_t>(
      std::count_if(report.findings.begin(), report.findings.end(),
                    [](const Finding& f) { return f.worse && f.confirmed(); }));
  std::string out = fmt::format(
      "Findings since {}: {} regression(s) ({} confirmed by A/B), {} other finding(s)\n"
      "({} comparisons of a run with its history, {} kernel histories searched for change "
      "points)\n",
      report.since, report.regressions(), confirmed, report.findings.size() - report.regressions(),
      report.tests, report.histories);
  if (report.tests == 0) {
    out += wrap(
        "Nothing could be judged: no run had an earlier run in its machine state to be compared "
        "with (a first night, or every earlier run in another state).",
        width);
  }
  if (!report.findings.empty()) {
    out += '\n';
    const std::string table = findings_table(report);
    bool fits = width == 0;
    if (!fits) {
      fits = true;
      for (const std::string& line : split(table, '\n'))
        fits = fits && display_width(line) <= width;
    }
    out += fits ? table : findings_blocks(report, width);
  }
  out += '\n';
  out += noise_summary(report.noise);
  return out;
}

std::string format_noise_text(const RegressionReport& report, std::size_t width) {
  TextTable table({Align::kLeft, Align::kRight, Align::kRight, Align::kRight});
  table.add_row({"kernel", "threads", "runs", "floor"});
  for (const KernelNoise& n : report.noise) {
    table.add_row(
        {n.kernel, std::to_string(n.threads), std::to_string(n.runs), floor_text(n.floor)});
  }
  std::ostringstream out;
  table.render_to(out, "", width, 0);
  return out.str();
}

std::string format_findings_json(const RegressionReport& report) {
  nlohmann::ordered_json out;
  out["since"] = report.since;
  out["tests"] = report.tests;
  out["histories"] = report.histories;
  out["regressions"] = report.regressions();
  out["failing"] = report.failing();
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
                               {"detail", f.detail},
                               {"confirmation", confirmation_json(f)},
                               {"failing", f.failing()}});
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
