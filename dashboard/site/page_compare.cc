// The runtime comparison: per platform, each kernel's latest median under every runtime side by
// side (libgomp against libomp), and per runtime the latest build against the build before it
// (another runtime version or label: two builds of one runtime).

#include <fmt/format.h>

#include <map>
#include <set>

#include "dashboard/site/pages.h"

namespace ompscale::dashboard::site {

namespace {

// The series key without its runtime column, for matching one kernel across runtimes.
std::string key_without_runtime(const SeriesInfo& s) {
  std::string out;
  for (const auto& [column, value] : s.columns) {
    if (column == "runtime" || column == "platform" || value.empty()) continue;
    out += (out.empty() ? "" : " ") + column + "=" + value;
  }
  return out;
}

std::string runtimes_section(const SiteData& d, const std::string& platform) {
  std::set<std::string> runtimes;
  // (kernel without runtime, threads) -> runtime -> latest median
  std::map<std::pair<std::string, int>, std::map<std::string, std::pair<double, std::string>>>
      cells;
  for (const SeriesHistory& h : d.histories) {
    const SeriesInfo& s = d.series.at(h.series);
    if (s.platform != platform || !d.judged(s)) continue;
    runtimes.insert(s.runtime);
    cells[{key_without_runtime(s), h.threads}][s.runtime] = {h.points.back().median, s.construct};
  }
  std::vector<std::string> header = {"kernel", "threads"};
  for (const std::string& r : runtimes) header.push_back(escape(r));
  const bool pair = runtimes.size() == 2;
  if (pair) header.push_back(escape(*runtimes.rbegin()) + " / " + escape(*runtimes.begin()));
  std::vector<std::vector<std::string>> rows;
  for (const auto& [key, by_runtime] : cells) {
    const std::string construct = by_runtime.begin()->second.second;
    std::vector<std::string> row = {link(construct_page(construct), key.first),
                                    std::to_string(key.second)};
    for (const std::string& r : runtimes) {
      const auto it = by_runtime.find(r);
      row.push_back(it == by_runtime.end() ? "&#8212;" : number(it->second.first));
    }
    if (pair) {
      const auto a = by_runtime.find(*runtimes.begin()), b = by_runtime.find(*runtimes.rbegin());
      row.push_back(a == by_runtime.end() || b == by_runtime.end()
                        ? "&#8212;"
                        : fmt::format("{:.2f}", b->second.first / a->second.first));
    }
    rows.push_back(std::move(row));
  }
  return fmt::format("<h2>Runtimes on {}</h2>\n", escape(platform)) + table(header, rows);
}

std::string build_of(const HistoryPoint& p) {
  return p.label.empty() ? p.runtime_version : p.runtime_version + " (" + p.label + ")";
}

// A median of the Builds table, marked when its run was left out of the judgement (measured in
// an unusual machine state): the change next to it then compares two machine states, not builds.
std::string build_median(const HistoryPoint& p) {
  if (!p.unusual_phase) return number(p.median);
  return number(p.median) +
         " <span class=\"unusual\">(unusual phase: excluded from the judgement)</span>";
}

std::string builds_section(const SiteData& d) {
  std::vector<std::vector<std::string>> rows;
  for (const SeriesHistory& h : d.histories) {
    const SeriesInfo& s = d.series.at(h.series);
    if (!d.judged(s) || h.points.size() < 2) continue;
    const HistoryPoint& now = h.points.back();
    // The previous build's latest run that was judged, else its latest run (marked).
    const HistoryPoint* before = nullptr;
    for (std::size_t i = h.points.size() - 1; i-- > 0;) {
      const HistoryPoint& p = h.points[i];
      if (build_of(p) == build_of(now)) continue;
      if (before != nullptr && build_of(*before) != build_of(p)) break;
      if (before == nullptr || before->unusual_phase) before = &p;
      if (!p.unusual_phase) break;
    }
    if (before == nullptr) continue;
    rows.push_back({link(construct_page(s.construct), s.description), std::to_string(h.threads),
                    escape(build_of(*before)), build_median(*before), escape(build_of(now)),
                    build_median(now), percent(now.median / before->median - 1.0)});
  }
  const std::string intro =
      "<h2>Builds</h2>\n<p>Each kernel's latest run against the latest judged run of a different "
      "build of its runtime (another runtime version or label). Changes here are single-run "
      "differences; the overview says which exceed the noise, and a run measured in an unusual "
      "machine state is marked: it is not judged.</p>\n";
  if (rows.empty()) return intro + "<p class=\"note\">Every run measured the same build.</p>\n";
  return intro + table({"kernel", "threads", "previous build", "median", "latest build", "median",
                        "change"},
                       rows);
}

}  // namespace

std::string comparison_page(const SiteData& d, const Frame& frame) {
  std::set<std::string> platforms;
  for (const auto& [id, s] : d.series) platforms.insert(s.platform);
  std::string body = "<p>Latest medians of the judged metrics, side by side.</p>\n";
  for (const std::string& p : platforms) body += runtimes_section(d, p);
  body += builds_section(d);
  return page("Runtime comparison", frame.nav, body, frame.footer);
}

}  // namespace ompscale::dashboard::site
