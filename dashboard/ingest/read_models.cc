#include "dashboard/ingest/read_models.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "common/json_input.h"
#include "common/output_file.h"
#include "dashboard/ingest/read_results.h"
#include "modeler/io/models_json.h"
#include "modeler/core/model.h"

namespace ompscale::dashboard {

using Json = nlohmann::json;

namespace fs = std::filesystem;

namespace {

std::string find_source(const std::string& source, const std::string& file) {
  std::error_code error;
  if (fs::is_regular_file(source, error)) return source;
  const fs::path beside = fs::path(file).parent_path() / fs::path(source).filename();
  if (fs::is_regular_file(beside, error)) return beside.string();
  const fs::path relative = fs::path(file).parent_path() / source;
  if (fs::is_regular_file(relative, error)) return relative.string();
  throw InputError(file, 0,
                   fmt::format("its source '{}' is not found (as written or next to the models "
                               "file); the history dates models by the runs they were fitted on",
                               source));
}

std::vector<RunRef> source_runs(const std::vector<std::string>& sources, const std::string& file) {
  if (sources.empty()) throw InputError(file, 0, "no 'sources': the fitted runs are unknown");
  std::vector<RunRef> runs;
  for (const std::string& source : sources) {
    for (const BenchRun& run : read_results(find_source(source, file))) {
      RunRef ref{run.run_id, run.host, run.fingerprint};
      if (std::find(runs.begin(), runs.end(), ref) == runs.end()) runs.push_back(ref);
    }
  }
  return runs;
}

ModelRecord record_of(const modeler::ClassModel& m, SeriesKey key, std::string runtime_version,
                      std::string compiler, const Json& document) {
  ModelRecord r;
  r.key = std::move(key);
  r.runtime_version = std::move(runtime_version);
  r.compiler = std::move(compiler);
  r.thread_class = m.thread_class;
  r.model = m.model.to_string("t");
  r.growth = std::string(modeler::to_string(m.growth));
  r.valid = m.valid;
  r.worse_than_log = m.worse_than_log;
  r.noise_dominates = m.noise_dominates;
  r.adjusted_r2 = m.stats.adjusted_r2;
  r.smape = m.stats.smape;
  r.cv_error = m.stats.cv_error;
  r.points = m.stats.points;
  for (const modeler::PointSummary& p : m.points) {
    r.largest_threads = std::max(r.largest_threads, p.param);
  }
  if (m.budget) {
    r.budget = m.budget->budget;
    r.budget_threads = m.budget->threads.value_or(0.0);
    r.budget_threads_early = m.budget->threads_early.value_or(0.0);
    r.budget_threads_late = m.budget->threads_late.value_or(0.0);
  }
  r.document = document.dump(-1, ' ', false, Json::error_handler_t::replace);
  return r;
}

}  // namespace

ModelSet parse_models(std::string_view text, const std::string& file) {
  const modeler::ModelsFile models = modeler::parse_models_json(text, file);
  const JsonDocument parsed(text, file);  // the class models' own JSON, kept whole
  const Json& document = parsed.json();
  ModelSet set;
  set.source = file;
  set.fingerprint = fingerprint(text);
  set.ompscale_version = models.ompscale_version;
  set.parameter = models.dataset.parameter;
  set.options_json = models.options_json;
  const auto& columns = models.dataset.key_columns;
  for (const modeler::KernelResult& result : models.results) {
    const modeler::Kernel& kernel = models.dataset.kernels[result.kernel];
    SeriesKey key;
    std::string runtime_version, compiler;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string value(kernel.key_value(c));
      if (columns[c] == "runtime_version") runtime_version = value;
      if (columns[c] == "compiler") compiler = value;
      if (!is_build_column(columns[c])) key.columns.emplace_back(columns[c], value);
    }
    const Json& class_models = document["kernels"][result.kernel]["models"];
    for (std::size_t i = 0; i < result.models.size(); ++i) {
      set.models.push_back(
          record_of(result.models[i], key, runtime_version, compiler, class_models[i]));
    }
  }
  set.runs = source_runs(models.dataset.sources, file);
  return set;
}

ModelSet read_models(const std::string& path) {
  return parse_models(read_input(path), path);
}

modeler::ClassModel class_model_from_document(const std::string& document,
                                              const std::string& parameter) {
  const std::string text = fmt::format(
      R"({{"parameter": {}, "key_columns": [], "kernels": [{{"key": {{}}, "models": [{}]}}]}})",
      Json(parameter).dump(), document);
  return modeler::parse_models_json(text, "(history)").results.at(0).models.at(0);
}

}  // namespace ompscale::dashboard
