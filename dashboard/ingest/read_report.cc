#include "dashboard/ingest/read_report.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include "common/json_input.h"
#include "common/output_file.h"
#include "common/utc_time.h"

namespace ompscale::dashboard {

using Json = nlohmann::json;

namespace fs = std::filesystem;

namespace {

double split_value(const JsonNode& point, std::string_view group, std::string_view name) {
  const auto g = point.optional_field(group);
  return g ? g->number_or(name, 0.0) : 0.0;
}

AppPoint read_point(const JsonNode& p, const std::string& input) {
  AppPoint out;
  out.input = input;
  out.threads = static_cast<int>(p.field("threads").number());
  out.repetitions = static_cast<int>(p.number_or("repetitions", 0));
  out.time_s = p.field("time_s").number();
  out.time_min_s = p.number_or("time_min_s", out.time_s);
  out.time_max_s = p.number_or("time_max_s", out.time_s);
  out.speedup = p.number_or("speedup", std::nan(""));
  out.efficiency = p.number_or("efficiency", std::nan(""));
  out.lost_s = p.number_or("lost_s", std::nan(""));
  out.imbalance_s = split_value(p, "loss", "imbalance_s");
  out.walkthrough_s = split_value(p, "loss", "walkthrough_s");
  out.startup_s = split_value(p, "loss", "startup_s");
  out.lock_contention_s = split_value(p, "loss", "lock_contention_s");
  out.lock_algorithm_s = split_value(p, "loss", "lock_algorithm_s");
  out.other_s = split_value(p, "loss", "other_s");
  return out;
}

// The series' points; the hints of the reference input's series go into `hints`.
void read_series(const JsonNode& series, const std::string& reference_input, AppRegion& region,
                 Json& hints) {
  for (const JsonNode& s : series.elements()) {
    const std::string input = s.field("input").string();
    for (const JsonNode& p : s.field("points").elements()) {
      region.points.push_back(read_point(p, input));
    }
    if (input != reference_input) continue;
    if (const auto h = s.optional_field("hints")) {
      for (const JsonNode& hint : h->elements()) hints.push_back(hint.json());
    }
  }
}

AppRegion read_region(const JsonNode& r, const std::string& reference_input) {
  AppRegion region;
  region.rank = static_cast<int>(r.field("rank").integer());
  region.key = r.field("key").string();
  region.label = r.string_or("label", region.key);
  region.kind = r.string_or("kind", "");
  region.potential_gain_s = r.number_or("potential_gain_s", 0.0);
  const std::string input = r.string_or("reference_input", reference_input);
  Json hints = Json::array();
  read_series(r.field("series"), input, region, hints);
  region.hints_json = hints.dump();
  if (const auto models = r.optional_field("thread_models")) {
    for (const JsonNode& m : models->elements()) {
      if (m.string_or("input", "") != input && !region.model.empty()) continue;
      region.model = m.string_or("model", "");
      region.growth = m.string_or("growth", "");
    }
  }
  return region;
}

// The executable most parallel regions live in, else the run directory's name.
std::string application_name(const JsonNode& root, const std::vector<JsonNode>& regions) {
  std::map<std::string, int> modules;
  for (const JsonNode& r : regions) {
    const auto location = r.optional_field("location");
    if (!location) continue;
    const std::string module = location->string_or("module", "");
    if (!module.empty()) ++modules[fs::path(module).filename().string()];
  }
  std::string best;
  int count = 0;
  for (const auto& [name, n] : modules) {
    if (n > count) best = name, count = n;
  }
  if (!best.empty()) return best;
  const std::string directory = root.string_or("directory", "");
  const std::string name = fs::path(directory).lexically_normal().filename().string();
  return name.empty() ? "application" : name;
}

std::string file_date(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return utc_timestamp();
  return utc_timestamp(info.st_mtime);
}

// The latest "started" among the run files of `directory`; "" when none can be read.
std::string runs_date(const std::string& directory) {
  std::error_code error;
  if (directory.empty() || !fs::is_directory(directory, error)) return {};
  std::string latest;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.path().extension() != ".json") continue;
    try {
      const Json run = Json::parse(read_input(entry.path().string()));
      const std::string started = run.value("started", "");
      if (started > latest) latest = started;
    } catch (const std::exception&) {
      // Not a run file: the report decides what a run file is, this only looks for a date.
    }
  }
  return latest;
}

}  // namespace

bool is_report_format(std::string_view format) {
  return format == "ompscan-report-1";
}

AppReport parse_report(std::string_view text, const std::string& file,
                       const ReportReadOptions& options) {
  const JsonDocument parsed(text, file);
  const Json& document = parsed.json();
  const JsonNode root = parsed.root();
  if (!document.is_object() || !is_report_format(root.string_or("format", ""))) {
    root.fail("not an ompscan report (no \"format\": \"ompscan-report-1\")");
  }
  AppReport report;
  report.source = file;
  report.fingerprint = fingerprint(text);
  report.ompscale_version = root.string_or("ompscale_version", "");
  report.thread_counts_json = root.field("thread_counts").json().dump();
  report.reference_input = root.string_or("reference_input", "");
  if (const auto runs = root.optional_field("runs")) {
    report.runs_analysed = static_cast<int>(runs->number_or("analysed", 0));
    if (const auto failed = runs->optional_field("failed")) {
      report.runs_failed = static_cast<int>(failed->elements().size());
    }
  }
  if (const auto pop = root.optional_field("pop")) report.pop_json = pop->json().dump();
  if (const auto notes = root.optional_field("notes")) report.notes_json = notes->json().dump();
  AppRegion program;
  program.key = "(program)";
  program.label = "whole program";
  program.kind = "program";
  Json no_hints = Json::array();
  if (const auto series = root.optional_field("program")) {
    read_series(*series, report.reference_input, program, no_hints);
  }
  report.regions.push_back(std::move(program));
  const std::vector<JsonNode> regions = root.field("regions").elements();
  for (const JsonNode& r : regions)
    report.regions.push_back(read_region(r, report.reference_input));
  report.application =
      options.application.empty() ? application_name(root, regions) : options.application;
  report.date = options.date;
  if (report.date.empty()) report.date = runs_date(root.string_or("directory", ""));
  if (report.date.empty()) report.date = file_date(file);
  return report;
}

AppReport read_report(const std::string& path, const ReportReadOptions& options) {
  return parse_report(read_input(path), path, options);
}

}  // namespace ompscale::dashboard
