#include "dashboard/site/site_data.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "dashboard/site/html.h"

namespace ompscale::dashboard::site {

bool SiteData::judged(const SeriesInfo& s) const {
  return metrics.empty() || s.metric.empty() ||
         std::find(metrics.begin(), metrics.end(), s.metric) != metrics.end();
}

std::vector<const SeriesHistory*> SiteData::histories_of(const std::string& construct) const {
  std::vector<const SeriesHistory*> out;
  for (const SeriesHistory& h : histories) {
    const SeriesInfo& s = series.at(h.series);
    if (s.construct == construct && judged(s)) out.push_back(&h);
  }
  return out;
}

std::vector<std::string> SiteData::constructs() const {
  std::set<std::string> names;
  for (const SeriesHistory& h : histories) {
    const SeriesInfo& s = series.at(h.series);
    if (judged(s)) names.insert(s.construct);
  }
  return {names.begin(), names.end()};
}

double SiteData::floor(std::int64_t s, int threads) const {
  for (const KernelNoise& n : all.noise) {
    if (n.series == s && n.threads == threads) return n.floor;
  }
  return std::nan("");
}

SiteData load_site_data(Database& db, const RegressionOptions& options) {
  SiteData d;
  d.runs = list_runs(db);
  for (SeriesInfo& s : list_series(db)) d.series.emplace(s.id, std::move(s));
  d.states = run_states(d.runs);
  d.histories = load_histories(db);
  for (SeriesHistory& h : d.histories) {
    for (HistoryPoint& p : h.points)
      p.unusual_phase = p.unusual_phase || d.states.at(p.run).unusual;
  }
  d.models = load_model_histories(db);
  d.apps = list_app_reports(db);
  d.metrics = options.metrics;
  RegressionOptions whole = options;
  whole.since = d.runs.empty() ? std::string() : d.runs.front().date;
  if (!d.runs.empty()) d.all = find_regressions(db, whole);
  RegressionOptions last = options;
  last.since.clear();
  if (!d.runs.empty()) d.latest = find_regressions(db, last);
  return d;
}

std::string construct_page(const std::string& construct) {
  return "construct-" + slug(construct) + ".html";
}

std::string application_page(const std::string& application) {
  return "app-" + slug(application) + ".html";
}

}  // namespace ompscale::dashboard::site
