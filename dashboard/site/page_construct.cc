// A construct's page: per platform and runtime, the scaling models of its kernels (the modeler's
// plot: points with spread and the model per class), then per kernel the history of its cost at
// the reference thread counts with steps and drifts marked, its latest values with their noise
// floors, its findings and its model history.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "dashboard/ingest/read_models.h"
#include "dashboard/site/charts.h"
#include "dashboard/site/pages.h"
#include "modeler/io/plot_svg.h"

namespace ompscale::dashboard::site {

namespace {

constexpr std::size_t kReferenceThreadCounts = 6;

// The latest model set's class models of a series, or none.
std::vector<const ModelPoint*> latest_models(const SiteData& d, std::int64_t series) {
  std::string date;
  for (const ModelHistory& m : d.models) {
    if (m.series == series && !m.models.empty()) date = std::max(date, m.models.back().date);
  }
  std::vector<const ModelPoint*> out;
  for (const ModelHistory& m : d.models) {
    if (m.series != series) continue;
    for (const ModelPoint& p : m.models) {
      if (p.date == date) out.push_back(&p);
    }
  }
  return out;
}

std::string models_figure(const SiteData& d, const std::vector<std::int64_t>& kernels,
                          const std::string& id, const std::string& title) {
  modeler::Dataset dataset;
  dataset.parameter = "threads";
  std::vector<modeler::KernelResult> results;
  for (const std::int64_t series : kernels) {
    const std::vector<const ModelPoint*> models = latest_models(d, series);
    if (models.empty()) continue;
    const SeriesInfo& s = d.series.at(series);
    if (dataset.key_columns.empty()) {
      for (const auto& [column, value] : s.columns) dataset.key_columns.push_back(column);
    }
    std::vector<std::string> values;
    for (const std::string& column : dataset.key_columns)
      values.push_back(SeriesKey{s.columns}.value(column));
    modeler::KernelResult result;
    result.kernel = dataset.kernels.size();
    for (const ModelPoint* m : models)
      result.models.push_back(class_model_from_document(m->document));
    dataset.kernels.push_back(modeler::Kernel::from_samples(values, {}));
    results.push_back(std::move(result));
  }
  if (results.empty()) return "<p class=\"note\">No models ingested for these kernels.</p>\n";
  dataset.sources = {"the latest model set of each kernel"};
  modeler::PlotOptions options;
  options.id_prefix = id + "-";
  options.xml_declaration = false;
  options.title = title;
  options.panel_width = 400;
  return "<div class=\"figure\">" + modeler::plot_svg(dataset, results, options) + "</div>\n";
}

std::vector<const SeriesHistory*> reference_counts(std::vector<const SeriesHistory*> h) {
  std::sort(h.begin(), h.end(),
            [](const auto* a, const auto* b) { return a->threads < b->threads; });
  if (h.size() <= kReferenceThreadCounts) return h;
  std::vector<const SeriesHistory*> out;
  for (std::size_t i = 0; i < kReferenceThreadCounts; ++i) {
    out.push_back(h[i * (h.size() - 1) / (kReferenceThreadCounts - 1)]);
  }
  return out;
}

std::string history_chart(const SiteData& d, const SeriesInfo& s,
                          const std::vector<const SeriesHistory*>& counts) {
  std::map<std::pair<std::string, std::string>, std::size_t> x_of;  // (date, run id)
  for (const SeriesHistory* h : counts) {
    for (const HistoryPoint& p : h->points) x_of[{p.date, p.run_id}] = 0;
  }
  HistoryChart chart;
  for (auto& [key, x] : x_of) {
    x = chart.dates.size();
    chart.dates.push_back(key.first);
  }
  chart.id = fmt::format("history-{}", s.id);
  chart.title = "Cost per run";
  chart.y_label = fmt::format("{} [{}] (log scale)", s.metric.empty() ? "value" : s.metric, s.unit);
  const auto x_at = [&](const std::string& date, const std::string& run) {
    const auto it = x_of.lower_bound({date, run});
    return it == x_of.end() ? chart.dates.size() - 1 : it->second;
  };
  const std::vector<const Finding*> findings = d.findings_of(s.id);
  for (const SeriesHistory* h : counts) {
    ChartSeries series{fmt::format("{} thread{}", h->threads, h->threads == 1 ? "" : "s"), {}};
    std::set<std::string> flagged;  // runs with a regression finding at this thread count
    for (const Finding* f : findings) {
      if (f->worse && f->kind == FindingKind::kRegression && f->threads == h->threads)
        flagged.insert(f->run_id);
    }
    for (const HistoryPoint& p : h->points) {
      series.points.push_back({x_at(p.date, p.run_id), p.median, p.q1, p.q3, p.unusual_phase,
                               flagged.contains(p.run_id)});
    }
    chart.series.push_back(std::move(series));
    for (const Finding* finding : findings) {
      const Finding& f = *finding;
      if (f.threads != h->threads ||
          (f.kind != FindingKind::kStep && f.kind != FindingKind::kDrift)) {
        continue;
      }
      const std::size_t x = x_at(f.date, f.run_id);
      chart.marks.push_back(
          {x, f.until.empty() ? x : x_at(f.until, ""),
           fmt::format("{} t={} {}", to_string(f.kind), h->threads, percent(f.change)), f.worse});
    }
  }
  return "<div class=\"figure\">" + history_svg(chart) + "</div>\n";
}

std::string latest_table(const SiteData& d, const SeriesInfo& s,
                         const std::vector<const SeriesHistory*>& counts) {
  std::vector<std::vector<std::string>> rows;
  for (const SeriesHistory* h : counts) {
    const HistoryPoint& p = h->points.back();
    const double floor = d.floor(s.id, h->threads);
    rows.push_back({std::to_string(h->threads), std::to_string(h->points.size()), number(p.median),
                    number(p.q1) + " &#8211; " + number(p.q3),
                    fmt::format("{:.0f}%", 100 * p.valid_share), escape(p.canary_state),
                    std::isnan(floor) ? "n/a" : fmt::format("{:.1f}%", 100 * floor),
                    escape(p.runtime_version), escape(p.run_id)});
  }
  return table({"threads", "runs", "median [" + escape(s.unit) + "]", "quartiles", "valid",
                "canary", "noise floor", "runtime version", "latest run"},
               rows);
}

std::string findings_list(const SiteData& d, const SeriesInfo& s) {
  std::vector<std::vector<std::string>> rows;
  for (const Finding* finding : d.findings_of(s.id)) {
    const Finding& f = *finding;
    rows.push_back({finding_cell(f),
                    f.threads > 0 ? std::to_string(f.threads) : escape(f.thread_class),
                    escape(f.date), escape(f.run_id), escape(f.detail), confirmation_cell(f)});
  }
  if (rows.empty()) return "<p class=\"note\">No finding in its history.</p>\n";
  return table({"finding", "threads", "date", "run", "detail", "A/B"}, rows);
}

// Why a class model has none (the modeler's reason, e.g. "2 thread counts (1, 2): a model needs 3
// or more"); "" when it has one. Histories made before the reason was kept show "nan".
std::string no_model_reason(const ModelPoint& p) {
  const nlohmann::json document = nlohmann::json::parse(p.document, nullptr, false);
  if (document.is_object() && document.contains("no_model") && document["no_model"].is_string())
    return document["no_model"].get<std::string>();
  if (p.model == "nan" || p.model.empty())
    return fmt::format("{} thread count{}", p.points, p.points == 1 ? "" : "s");
  return "";
}

std::string model_history(const SiteData& d, const SeriesInfo& s) {
  std::vector<std::vector<std::string>> rows;
  for (const ModelHistory& m : d.models) {
    if (m.series != s.id) continue;
    for (const ModelPoint& p : m.models) {
      if (const std::string reason = no_model_reason(p); !reason.empty()) {
        rows.push_back({escape(p.date), escape(p.thread_class),
                        "<span class=\"note\">no model: " + escape(reason) + "</span>", "&#8212;",
                        "&#8212;", ""});
        continue;
      }
      const std::string budget =
          std::isnan(p.budget)
              ? ""
              : fmt::format(
                    "{} {}: {}", number(p.budget), escape(s.unit),
                    std::isnan(p.budget_threads) ? std::string("never") : number(p.budget_threads));
      rows.push_back({escape(p.date), escape(p.thread_class),
                      "<code>" + escape(p.model) + "</code>", escape(p.growth),
                      number(p.adjusted_r2), budget});
    }
  }
  if (rows.empty()) return "";
  return "<h4>Model history</h4>\n" +
         table({"date", "class", "model", "growth", "adj. R&#178;", "budget: exceeded at"}, rows);
}

std::string kernel_section(const SiteData& d, const SeriesInfo& s,
                           const std::vector<const SeriesHistory*>& histories) {
  const std::vector<const SeriesHistory*> counts = reference_counts(histories);
  return fmt::format("<h3 id=\"kernel-{}\">{}</h3>\n", s.id, escape(s.description)) +
         history_chart(d, s, counts) + latest_table(d, s, counts) + findings_list(d, s) +
         model_history(d, s);
}

}  // namespace

std::string construct_page_html(const SiteData& d, const std::string& construct,
                                const Frame& frame) {
  // (platform, runtime) -> series -> its histories (one per thread count)
  std::map<std::pair<std::string, std::string>,
           std::map<std::int64_t, std::vector<const SeriesHistory*>>>
      groups;
  for (const SeriesHistory* h : d.histories_of(construct)) {
    const SeriesInfo& s = d.series.at(h->series);
    groups[{s.platform, s.runtime}][s.id].push_back(h);
  }
  std::string body = fmt::format(
      "<p>Every kernel of <code>{}</code> on the judged metrics. Steps and drifts are marked on "
      "the histories (red: worse); the noise floor is the smallest change the dashboard can tell "
      "from the machine's night-to-night noise for that kernel.</p>\n",
      escape(construct));
  int figure = 0;
  for (const auto& [group, kernels] : groups) {
    body += fmt::format("<h2>{} on {}</h2>\n", escape(group.second), escape(group.first));
    std::vector<std::int64_t> ids;
    for (const auto& [id, histories] : kernels) ids.push_back(id);
    body += models_figure(
        d, ids, fmt::format("models-{}", figure++),
        fmt::format("Scaling models: {} ({} on {})", construct, group.second, group.first));
    for (const auto& [id, histories] : kernels)
      body += kernel_section(d, d.series.at(id), histories);
  }
  return page("Construct " + construct, frame.nav, body, frame.footer);
}

}  // namespace ompscale::dashboard::site
