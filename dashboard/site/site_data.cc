#include "dashboard/site/site_data.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "dashboard/analysis/derivation.h"
#include "dashboard/confirm/ab_store.h"
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
  const auto it = floors.find({s, threads});
  return it == floors.end() ? std::nan("") : it->second;
}

std::vector<const Finding*> SiteData::findings_of(std::int64_t s, bool latest_night) const {
  const auto& index = latest_night ? latest_by_series : all_by_series;
  const auto& findings = latest_night ? latest.findings : all.findings;
  std::vector<const Finding*> out;
  if (const auto it = index.find(s); it != index.end()) {
    for (const std::size_t i : it->second) out.push_back(&findings[i]);
  }
  return out;
}

void SiteData::index_findings() {
  all_by_series.clear();
  latest_by_series.clear();
  floors.clear();
  for (std::size_t i = 0; i < all.findings.size(); ++i)
    all_by_series[all.findings[i].series].push_back(i);
  for (std::size_t i = 0; i < latest.findings.size(); ++i)
    latest_by_series[latest.findings[i].series].push_back(i);
  for (const KernelNoise& n : all.noise)
    floors.emplace(std::make_pair(n.series, n.threads), n.floor);
}

namespace {

// The documents of the latest model set of each series: the construct pages draw those.
void load_latest_documents(Database& db, std::vector<ModelHistory>& models) {
  std::map<std::int64_t, std::string> latest;
  for (const ModelHistory& m : models) {
    if (!m.models.empty()) latest[m.series] = std::max(latest[m.series], m.models.back().date);
  }
  for (ModelHistory& m : models) {
    for (ModelPoint& p : m.models) {
      if (p.date == latest[m.series]) p.document = load_model_document(db, p);
    }
  }
}

}  // namespace

SiteData load_site_data(Database& db, const RegressionOptions& options) {
  SiteData d;
  d.runs = list_runs(db);
  for (SeriesInfo& s : list_series(db)) d.series.emplace(s.id, std::move(s));
  d.states = run_states(d.runs);
  d.histories = load_histories(db, options.metrics);
  for (SeriesHistory& h : d.histories) {
    for (HistoryPoint& p : h.points)
      p.unusual_phase = p.unusual_phase || d.states.at(p.run).unusual;
  }
  d.models = load_model_histories(db, false);
  load_latest_documents(db, d.models);
  d.apps = list_app_reports(db);
  d.metrics = options.metrics;
  if (d.runs.empty()) return d;
  // One derivation for both reports: the stored one when it was made with these options.
  const Derived derived =
      derivation_current(db, options) ? read_derived(db) : derive(db, options).derived;
  const std::vector<StoredConfirmation> confirmations = load_confirmations(db);
  RegressionOptions whole = options;
  whole.since = d.runs.front().date;
  ReportContext all(d.runs, d.series, d.states, whole);
  all.confirmations = &confirmations;
  d.all = assemble_report(derived, all);
  RegressionOptions last = options;
  last.since.clear();
  ReportContext latest(d.runs, d.series, d.states, last);
  latest.confirmations = &confirmations;
  d.latest = assemble_report(derived, latest);
  d.index_findings();
  return d;
}

std::string construct_page(const std::string& construct) {
  return "construct-" + slug(construct) + ".html";
}

std::string application_page(const std::string& application) {
  return "app-" + slug(application) + ".html";
}

}  // namespace ompscale::dashboard::site
