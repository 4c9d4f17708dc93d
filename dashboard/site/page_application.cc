// An application's page: its ompscan reports over time, the whole program's time and efficiency
// per thread count at the reference input, the regions of the latest report with their hints, and
// the time history of its top regions.

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "dashboard/site/charts.h"
#include "dashboard/site/pages.h"

namespace ompscale::dashboard::site {

namespace {

constexpr std::size_t kTopRegions = 5;

std::vector<AppReportInfo> reports_of(const SiteData& d, const std::string& application) {
  std::vector<AppReportInfo> out;
  for (const AppReportInfo& r : d.apps) {
    if (r.application == application) out.push_back(r);
  }
  return out;
}

// A chart of one region's value over reports, one line per thread count.
std::string region_chart(const std::vector<AppReportInfo>& reports,
                         const std::vector<AppPointInfo>& points, const std::string& region,
                         const std::string& input, const std::string& id, const std::string& title,
                         bool efficiency) {
  HistoryChart chart;
  chart.id = id;
  chart.title = title;
  chart.y_label = efficiency ? "parallel efficiency" : "time [s] (log scale)";
  chart.log_y = !efficiency;
  std::map<std::int64_t, std::size_t> x_of;
  for (const AppReportInfo& r : reports) {
    x_of[r.id] = chart.dates.size();
    chart.dates.push_back(r.date);
  }
  std::map<int, ChartSeries> by_threads;
  for (const AppPointInfo& p : points) {
    if (p.region != region || p.input != input) continue;
    ChartSeries& s = by_threads[p.threads];
    s.name = fmt::format("{} thread{}", p.threads, p.threads == 1 ? "" : "s");
    const double v = efficiency ? p.efficiency : p.time_s;
    s.points.push_back({x_of.at(p.report), v, efficiency ? v : p.time_min_s,
                        efficiency ? v : p.time_max_s, false, false});
  }
  for (auto& [threads, s] : by_threads) chart.series.push_back(std::move(s));
  return "<div class=\"figure\">" + history_svg(chart) + "</div>\n";
}

std::string first_hint(const std::string& hints_json) {
  const auto hints = nlohmann::json::parse(hints_json, nullptr, false);
  if (!hints.is_array() || hints.empty() || !hints[0].is_object()) return "";
  return fmt::format("{} &#8594; {}", escape(hints[0].value("problem", "")),
                     escape(hints[0].value("advice", "")));
}

std::string regions_table(const std::vector<AppRegionInfo>& regions) {
  std::vector<std::vector<std::string>> rows;
  for (const AppRegionInfo& r : regions) {
    if (r.rank == 0) continue;
    rows.push_back({std::to_string(r.rank), escape(r.label), escape(r.kind),
                    number(r.potential_gain_s), "<code>" + escape(r.model) + "</code>",
                    escape(r.growth), first_hint(r.hints_json)});
  }
  return table(
      {"rank", "region", "kind", "potential gain [s]", "thread model", "growth", "first hint"},
      rows);
}

std::string reports_table(const std::vector<AppReportInfo>& reports) {
  std::vector<std::vector<std::string>> rows;
  for (const AppReportInfo& r : reports) {
    rows.push_back({escape(r.date), escape(r.label), std::to_string(r.runs_analysed),
                    std::to_string(r.runs_failed), escape(r.thread_counts), escape(r.source)});
  }
  return table({"date", "label", "runs", "failed", "threads", "report"}, rows);
}

}  // namespace

std::string application_page_html(const SiteData& d, Database& db, const std::string& application,
                                  const Frame& frame) {
  const std::vector<AppReportInfo> reports = reports_of(d, application);
  const std::vector<AppPointInfo> points = load_app_points(db, application);
  const AppReportInfo& latest = reports.back();
  const std::vector<AppRegionInfo> regions = load_app_regions(db, latest.id);
  const std::string input = latest.reference_input;
  std::string body =
      fmt::format("<p>{} ompscan report(s); reference input {}.</p>\n", reports.size(),
                  input.empty() ? "(none)" : "<code>" + escape(input) + "</code>");
  body += "<h2>Reports</h2>\n" + reports_table(reports);
  body += "<h2>Whole program</h2>\n";
  body += region_chart(reports, points, "(program)", input, "program-time",
                       "Program time per report", false);
  body += region_chart(reports, points, "(program)", input, "program-efficiency",
                       "Parallel efficiency per report", true);
  body += fmt::format("<h2>Regions of the latest report ({})</h2>\n", escape(latest.date));
  body += regions_table(regions);
  std::size_t shown = 0;
  for (const AppRegionInfo& r : regions) {
    if (r.rank == 0 || shown++ >= kTopRegions) continue;
    body += fmt::format("<h3>#{} {}</h3>\n", r.rank, escape(r.label));
    body += region_chart(reports, points, r.key, input, fmt::format("region-{}", r.rank),
                         "Region time per report", false);
  }
  return page("Application " + application, frame.nav, body, frame.footer);
}

}  // namespace ompscale::dashboard::site
