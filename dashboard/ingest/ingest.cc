#include "dashboard/ingest/ingest.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "common/csv.h"
#include "common/error.h"
#include "common/json_input.h"
#include "common/output_file.h"
#include "common/utc_time.h"
#include "dashboard/analysis/derivation.h"
#include "dashboard/ingest/read_models.h"
#include "dashboard/ingest/read_results.h"

namespace ompscale::dashboard {

using Json = nlohmann::json;

namespace {

std::string_view skip_blanks(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' ||
                           text.front() == '\t')) {
    text.remove_prefix(1);
  }
  return text;
}

InputKind json_kind(std::string_view text, const std::string& file) {
  const JsonDocument parsed(text, file);
  const Json& document = parsed.json();
  const JsonNode root = parsed.root();
  if (!document.is_object()) root.fail("expected a JSON object (models.json or ompscan report)");
  const std::string format = root.string_or("format", "");
  if (is_report_format(format)) return InputKind::kReport;
  if (format == "ompbench-sidecar-1") {
    root.fail("an ompbench sidecar: ingest its results file, the sidecar is read with it");
  }
  if (format == "ompscan-run-1") {
    root.fail("an ompscan run file: ingest its report (ompscan report DIR --format json)");
  }
  if (root.has("kernels")) return InputKind::kModels;
  root.fail(
      "not a models.json (no \"kernels\") nor an ompscan report (no \"format\": "
      "\"ompscan-report-1\")");
}

// The date of a results file's runs that carry none (EPCC imports): --date, else the file's
// modification time.
std::string results_date(const std::string& file, const IngestOptions& options) {
  if (!options.reports.date.empty()) return options.reports.date;
  std::error_code error;
  const auto modified = std::filesystem::last_write_time(file, error);
  if (error) return {};
  return utc_timestamp(
      std::chrono::system_clock::to_time_t(std::chrono::file_clock::to_sys(modified)));
}

}  // namespace

InputKind detect_kind(std::string_view text, const std::string& file) {
  const std::string_view body = skip_blanks(text);
  if (body.empty()) throw InputError(file, 1, "empty file");
  if (body.front() == '{') return json_kind(body, file);
  CsvReader reader(text, file);
  std::vector<std::string_view> header;
  if (reader.next(header) && is_results_header(header)) return InputKind::kResults;
  throw InputError(file, 1,
                   "not an ompbench results CSV (construct, threads, value, valid, run_id "
                   "columns), a models.json or an ompscan report");
}

IngestBatch read_inputs(const std::vector<std::string>& files, const IngestOptions& options) {
  IngestBatch batch;
  for (const std::string& file : files) {
    const std::string text = read_input(file);
    switch (detect_kind(text, file)) {
      case InputKind::kResults: {
        std::vector<BenchRun> runs = parse_results(text, file, read_sidecar(file + ".meta.json"),
                                                   results_date(file, options));
        for (BenchRun& run : runs) batch.runs.push_back(std::move(run));
        break;
      }
      case InputKind::kModels:
        batch.model_sets.push_back(parse_models(text, file));
        break;
      case InputKind::kReport:
        batch.reports.push_back(parse_report(text, file, options.reports));
        break;
    }
  }
  return batch;
}

std::vector<IngestedItem> ingest_batch(Database& db, const IngestBatch& batch,
                                       const std::string& label, const std::string& now,
                                       const std::optional<RegressionOptions>& analysis) {
  return write_batch(
      db, batch, label, now, [&](Database& d, const std::vector<IngestedItem>& items) {
        const RegressionOptions options = analysis ? *analysis : stored_options(d);
        const bool added =
            std::any_of(items.begin(), items.end(), [](const auto& i) { return i.added; });
        if (added || !derivation_current(d, options)) {
          store_derivation(d, options, now);
        }
      });
}

std::vector<IngestedItem> ingest_files(Database& db, const std::vector<std::string>& files,
                                       const IngestOptions& options) {
  const IngestBatch batch = read_inputs(files, options);
  return ingest_batch(db, batch, options.label, utc_timestamp());
}

}  // namespace ompscale::dashboard
