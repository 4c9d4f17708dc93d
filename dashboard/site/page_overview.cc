// The overview page: history at a glance, last night's findings, the matrix of constructs x
// (runtime, platform), applications, recent runs.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "dashboard/site/charts.h"
#include "dashboard/site/pages.h"

namespace ompscale::dashboard::site {

namespace {

using Column = std::pair<std::string, std::string>;  // runtime, platform

std::string summary(const SiteData& d) {
  std::set<std::string> platforms, runtimes;
  for (const auto& [id, s] : d.series) {
    platforms.insert(s.platform);
    runtimes.insert(s.runtime);
  }
  const auto joined = [](const std::set<std::string>& items) {
    std::string out;
    for (const std::string& i : items) out += (out.empty() ? "" : ", ") + escape(i);
    return out;
  };
  if (d.runs.empty()) return "<p>The history holds no ompbench runs yet.</p>\n";
  return fmt::format(
      "<p>{} runs from {} to {}; platforms: {}; runtimes: {}. Judged metrics: {}. Regressions "
      "are judged against each kernel's own night-to-night noise (docs/ompdash.md).</p>\n",
      d.runs.size(), escape(d.runs.front().date), escape(d.runs.back().date), joined(platforms),
      joined(runtimes),
      d.metrics.empty() ? "all" : escape(fmt::format("{}", fmt::join(d.metrics, ", "))));
}

// One finding as a row: the construct links to its page, the whole kernel is its tooltip.
std::vector<std::string> finding_row(const Finding& f) {
  const std::string kernel =
      f.construct.empty()
          ? escape(f.kernel)
          : fmt::format("<a href=\"{}\" title=\"{}\">{}</a>", escape(construct_page(f.construct)),
                        escape(f.kernel), escape(f.construct));
  return {finding_cell(f),
          kernel,
          escape(f.runtime),
          escape(f.platform),
          f.threads > 0 ? std::to_string(f.threads) : escape(f.thread_class),
          escape(f.run_id),
          percent(f.kind == FindingKind::kGrowthChange ? std::nan("") : f.change),
          std::isnan(f.noise_floor) ? "n/a" : fmt::format("{:.1f}%", 100 * f.noise_floor),
          escape(f.detail),
          confirmation_cell(f)};
}

std::string findings_section(const SiteData& d) {
  std::string out =
      fmt::format("<h2 id=\"last-night\">Last night ({})</h2>\n", escape(d.latest.since));
  if (d.latest.tests == 0) {
    out +=
        "<p class=\"unusual\">Nothing could be judged: no run of the night had an earlier run "
        "in its machine state to be compared with (a first night, or every earlier run in "
        "another state).</p>\n";
    if (d.latest.findings.empty()) return out;
  } else if (d.latest.findings.empty()) {
    return out + fmt::format(
                     "<p class=\"good\">No finding: {} comparisons, nothing beyond its "
                     "noise floor.</p>\n",
                     d.latest.tests);
  }
  std::vector<std::vector<std::string>> rows;
  for (const Finding& f : d.latest.findings) rows.push_back(finding_row(f));
  out += fmt::format("<p>{} regression(s) among {} comparisons.</p>\n", d.latest.regressions(),
                     d.latest.tests);
  return out + table({"finding", "construct", "runtime", "platform", "threads", "run", "change",
                      "noise floor", "detail", "A/B"},
                     rows, "findings");
}

// The growth of the headline kernel's latest model ("" when none).
std::string latest_growth(const SiteData& d, std::int64_t series) {
  std::string growth, date;
  for (const ModelHistory& m : d.models) {
    // Models from fewer than three thread counts are the modeler's placeholders.
    if (m.series != series || m.models.empty() || m.models.back().points < 3) continue;
    if (m.models.back().date >= date) date = m.models.back().date, growth = m.models.back().growth;
  }
  return growth;
}

std::string matrix_cell(const SiteData& d, const std::vector<const SeriesHistory*>& kernels) {
  if (kernels.empty()) return "<span class=\"note\">not measured</span>";
  std::vector<const SeriesHistory*> largest;  // each kernel at its largest thread count
  int top = 0;
  for (const SeriesHistory* h : kernels) top = std::max(top, h->threads);
  for (const SeriesHistory* h : kernels) {
    if (h->threads == top) largest.push_back(h);
  }
  const SeriesHistory* h = headline(largest.empty() ? kernels : largest, d);
  const SeriesInfo& s = d.series.at(h->series);
  std::vector<double> medians;
  const std::size_t first = h->points.size() > 30 ? h->points.size() - 30 : 0;
  for (std::size_t i = first; i < h->points.size(); ++i) {
    if (!h->points[i].unusual_phase) medians.push_back(h->points[i].median);
  }
  bool alarm = false;
  int shifts = 0;
  for (const SeriesHistory* k : kernels) {
    for (const Finding* f : d.findings_of(k->series, true)) alarm |= f->worse;
    for (const Finding* f : d.findings_of(k->series)) {
      shifts += (f->kind == FindingKind::kStep || f->kind == FindingKind::kDrift) &&
                f->threads == k->threads;
    }
  }
  const std::string growth = latest_growth(d, s.id);
  return fmt::format("{} {} at {} threads<br>{}{}<br>{}{}", number(h->points.back().median),
                     escape(s.unit), h->threads,
                     growth.empty() ? "" : "growth " + escape(growth) + " ",
                     sparkline_svg(medians, alarm),
                     alarm ? "<span class=\"bad\">&#9650; regression last night</span> " : "",
                     shifts > 0 ? fmt::format("<span class=\"note\">{} step(s) or drift(s) in the "
                                              "history</span>",
                                              shifts)
                                : "");
}

std::string matrix(const SiteData& d) {
  std::set<Column> columns;
  for (const SeriesHistory& h : d.histories) {
    const SeriesInfo& s = d.series.at(h.series);
    if (d.judged(s)) columns.insert({s.runtime, s.platform});
  }
  std::vector<std::string> header = {"construct"};
  for (const auto& [runtime, platform] : columns) {
    header.push_back(escape(runtime) + " on " + escape(platform));
  }
  std::vector<std::vector<std::string>> rows;
  for (const std::string& construct : d.constructs()) {
    std::vector<std::string> row = {link(construct_page(construct), construct)};
    for (const Column& c : columns) {
      std::vector<const SeriesHistory*> kernels;
      for (const SeriesHistory* h : d.histories_of(construct)) {
        const SeriesInfo& s = d.series.at(h->series);
        if (s.runtime == c.first && s.platform == c.second) kernels.push_back(h);
      }
      row.push_back(matrix_cell(d, kernels));
    }
    rows.push_back(std::move(row));
  }
  return "<h2 id=\"constructs\">Constructs</h2>\n<p>Cost (median of the latest run) at the largest "
         "thread count measured, growth class of the latest model, the last 30 runs.</p>\n" +
         table(header, rows, "matrix");
}

std::string applications(const SiteData& d) {
  std::string out = "<h2 id=\"applications\">Applications</h2>\n";
  if (d.apps.empty()) return out + "<p class=\"note\">No ompscan report ingested.</p>\n";
  std::vector<std::vector<std::string>> rows;
  std::set<std::string> seen;
  for (auto it = d.apps.rbegin(); it != d.apps.rend(); ++it) {
    if (!seen.insert(it->application).second) continue;
    const auto count = std::count_if(d.apps.begin(), d.apps.end(), [&](const AppReportInfo& a) {
      return a.application == it->application;
    });
    rows.push_back({link(application_page(it->application), it->application), escape(it->date),
                    std::to_string(count), escape(it->thread_counts)});
  }
  return out + table({"application", "latest report", "reports", "threads"}, rows);
}

std::string phase_cell(const RunState& state) {
  if (state.unusual) return "<span class=\"unusual\">unusual: " + escape(state.note) + "</span>";
  if (state.faster) return "<span class=\"note\">faster: " + escape(state.note) + "</span>";
  return "typical";
}

std::string recent_runs(const SiteData& d) {
  std::vector<std::vector<std::string>> rows;
  const std::size_t first = d.runs.size() > 15 ? d.runs.size() - 15 : 0;
  for (std::size_t i = d.runs.size(); i-- > first;) {
    const RunInfo& r = d.runs[i];
    rows.push_back({escape(r.date), escape(r.run_id), escape(r.host), escape(r.platform),
                    escape(r.runtimes), escape(r.label), std::to_string(r.configurations),
                    phase_cell(d.states.at(r.id))});
  }
  return "<h2 id=\"runs\">Recent runs</h2>\n" +
         table({"date", "run", "host", "platform", "runtimes", "label", "configurations",
                "canary phase"},
               rows);
}

}  // namespace

std::string confirmation_cell(const Finding& f) {
  if (!f.confirmation) {
    return f.worse ? "<span class=\"note\">not measured again (no earlier build kept)</span>" : "";
  }
  const std::string text = escape(f.confirmation->describe(f.worse));
  if (f.confirmed()) return "<span class=\"bad\">" + text + "</span>";
  if (f.confirmation->verdict == "inconclusive")
    return "<span class=\"unusual\">" + text + "</span>";
  return "<span class=\"good\">" + text + "</span>";
}

std::string finding_cell(const Finding& f) {
  const std::string kind = escape(std::string(to_string(f.kind)));
  if (f.worse) return "<span class=\"bad\">&#9650; " + kind + "</span>";
  if (f.kind == FindingKind::kUnusualPhase) return "<span class=\"unusual\">" + kind + "</span>";
  if (f.kind == FindingKind::kFasterState) return "<span class=\"note\">" + kind + "</span>";
  return "<span class=\"good\">" + kind + "</span>";
}

const SeriesHistory* headline(const std::vector<const SeriesHistory*>& candidates,
                              const SiteData& data) {
  const auto rank = [&](const SeriesHistory* h) {
    const SeriesInfo& s = data.series.at(h->series);
    return std::make_tuple(s.method != "direct", s.bind != "spread", s.key, -h->threads);
  };
  return *std::min_element(candidates.begin(), candidates.end(),
                           [&](const auto* a, const auto* b) { return rank(a) < rank(b); });
}

std::string overview_page(const SiteData& d, const Frame& frame) {
  const std::string body =
      summary(d) + findings_section(d) + matrix(d) + applications(d) + recent_runs(d);
  return page("Runtime scalability", frame.nav, body, frame.footer);
}

}  // namespace ompscale::dashboard::site
