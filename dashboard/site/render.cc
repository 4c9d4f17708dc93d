#include "dashboard/site/render.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "dashboard/analysis/derivation.h"
#include "dashboard/site/pages.h"
#include "dashboard/store/records.h"

namespace ompscale::dashboard {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kManifest = ".ompdash-render.json";
constexpr std::string_view kManifestFormat = "ompdash-render-1";

// The fingerprints of the pages of the last render, by file name (none when there is no manifest
// or it cannot be read: every page is then made again).
std::map<std::string, std::string> read_manifest(const fs::path& out) {
  std::map<std::string, std::string> pages;
  std::error_code error;
  if (!fs::exists(out / kManifest, error)) return pages;
  try {
    const nlohmann::json m = nlohmann::json::parse(read_input((out / kManifest).string()));
    if (m.value("format", "") != kManifestFormat) return {};
    for (const auto& [name, fingerprint] : m.at("pages").items()) {
      pages[name] = fingerprint.get<std::string>();
    }
  } catch (const std::exception&) {
    return {};  // a damaged manifest costs a full render, nothing else
  }
  return pages;
}

// What every page depends on: this ompdash, the options, which runs are in an unusual phase.
std::string common_inputs(const site::SiteData& d, const RegressionOptions& options) {
  Fingerprint f;
  f.add(version_string());
  f.add(options_key(options));
  for (const RunInfo& r : d.runs) {
    if (d.states.at(r.id).unusual) f.add(fmt::format("unusual {}", r.id));
  }
  return f.hex();
}

void add_finding(Fingerprint& f, const Finding& x) {
  f.add(fmt::format("{}|{}|{}|{}|{}|{}|{}|{:.17g}|{:.17g}|{}", to_string(x.kind), x.worse,
                    x.threads, x.thread_class, x.run_id, x.date, x.until, x.change, x.noise_floor,
                    x.detail));
  // The page shows the finding's A/B, which a confirmation after the ingest adds.
  if (x.confirmation) f.add(fmt::format("ab {} {}", x.confirmation->ab_test, x.worse));
}

// A construct page shows its kernels' histories, findings, noise floors and models.
std::string construct_inputs(const site::SiteData& d, const std::string& construct,
                             const std::string& common) {
  Fingerprint f;
  f.add(common);
  f.add(construct);
  std::set<std::int64_t> series;
  for (const SeriesHistory* h : d.histories_of(construct)) {
    series.insert(h->series);
    const HistoryPoint& last = h->points.back();
    f.add(fmt::format("history {} {} {} {} {:.17g}", h->series, h->threads, h->points.size(),
                      last.run, last.median));
    f.add(fmt::format("floor {:.17g}", d.floor(h->series, h->threads)));
  }
  for (const std::int64_t s : series) {
    for (const Finding* x : d.findings_of(s)) add_finding(f, *x);
  }
  for (const ModelHistory& m : d.models) {
    if (!series.contains(m.series) || m.models.empty()) continue;
    f.add(fmt::format("models {} {} {} {}", m.series, m.thread_class, m.models.size(),
                      m.models.back().model_set));
  }
  return f.hex();
}

std::string application_inputs(const site::SiteData& d, const std::string& application,
                               const std::string& common) {
  Fingerprint f;
  f.add(common);
  f.add(application);
  for (const AppReportInfo& a : d.apps) {
    if (a.application == application) f.add(fmt::format("report {}", a.id));
  }
  return f.hex();
}

}  // namespace

RenderResult render_site(Database& db, const std::string& out, const RegressionOptions& options,
                         bool full) {
  std::error_code error;
  fs::create_directories(out, error);
  if (!fs::is_directory(out)) throw UsageError(fmt::format("{}: cannot create the directory", out));
  const site::SiteData data = site::load_site_data(db, options);
  site::Frame frame;
  frame.nav = {{"index.html", "Overview"},
               {"index.html#last-night", "Last night"},
               {"compare.html", "Runtime comparison"},
               {"index.html#applications", "Applications"}};
  frame.footer = fmt::format("Generated {} by ompdash, ompscale {}, from {}.", utc_timestamp(),
                             version_string(), db.path());
  const std::map<std::string, std::string> before =
      full ? std::map<std::string, std::string>{} : read_manifest(out);
  nlohmann::json pages = nlohmann::json::object();
  RenderResult result;
  // Makes the page `name` unless its inputs are those of the last render and it is still there.
  const auto render = [&](const std::string& name, const std::string& inputs, const auto& make) {
    const std::string path = (fs::path(out) / name).string();
    pages[name] = inputs;
    const auto it = before.find(name);
    std::error_code missing;
    if (!inputs.empty() && it != before.end() && it->second == inputs &&
        fs::exists(path, missing)) {
      result.unchanged.push_back(path);
      return;
    }
    write_output(path, make());
    result.written.push_back(path);
  };
  // The overview and the comparison show the latest night: always made.
  render("index.html", "", [&] { return site::overview_page(data, frame); });
  render("compare.html", "", [&] { return site::comparison_page(data, frame); });
  const std::string common = common_inputs(data, options);
  for (const std::string& construct : data.constructs()) {
    render(site::construct_page(construct), construct_inputs(data, construct, common),
           [&] { return site::construct_page_html(data, construct, frame); });
  }
  std::set<std::string> applications;
  for (const AppReportInfo& a : data.apps) applications.insert(a.application);
  for (const std::string& a : applications) {
    render(site::application_page(a), application_inputs(data, a, common),
           [&] { return site::application_page_html(data, db, a, frame); });
  }
  write_output((fs::path(out) / kManifest).string(),
               nlohmann::json{{"format", kManifestFormat}, {"pages", pages}}.dump(1) + "\n");
  return result;
}

}  // namespace ompscale::dashboard
