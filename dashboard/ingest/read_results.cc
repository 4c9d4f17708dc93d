#include "dashboard/ingest/read_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "common/csv.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/statistics.h"
#include "common/text.h"
#include "modeler/io/readers.h"

namespace ompscale::dashboard {

namespace {

constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

std::optional<double> to_number(std::string_view text) {
  return parse_double(trim(text));
}

// Where each column the reader uses sits in the header.
struct Layout {
  std::size_t construct, threads, value, valid, run_id;
  std::size_t thread_class = kAbsent, canary = kAbsent, timestamp = kAbsent,
              oversubscribed = kAbsent, platform = kAbsent, runtime = kAbsent,
              runtime_version = kAbsent, compiler = kAbsent;
  std::vector<std::size_t> key;  // series key columns
  std::vector<std::string> names;
};

std::size_t find_column(const std::vector<std::string>& names, std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? kAbsent : static_cast<std::size_t>(it - names.begin());
}

Layout read_layout(const std::vector<std::string_view>& header, const std::string& file) {
  Layout l;
  l.names.assign(header.begin(), header.end());
  const auto required = [&](std::string_view name) {
    const std::size_t i = find_column(l.names, name);
    if (i == kAbsent) {
      throw InputError(file, 1, fmt::format("no '{}' column: not an ompbench results CSV", name));
    }
    return i;
  };
  l.construct = required("construct");
  l.threads = required("threads");
  l.value = required("value");
  l.valid = required("valid");
  l.run_id = required("run_id");
  l.thread_class = find_column(l.names, "thread_class");
  l.canary = find_column(l.names, "canary_ns");
  l.timestamp = find_column(l.names, "timestamp");
  l.oversubscribed = find_column(l.names, "oversubscribed");
  l.platform = find_column(l.names, "platform");
  l.runtime = find_column(l.names, "runtime");
  l.runtime_version = find_column(l.names, "runtime_version");
  l.compiler = find_column(l.names, "compiler");
  for (std::size_t i = 0; i < l.names.size(); ++i) {
    if (find_column(l.names, l.names[i]) != i) {
      throw InputError(file, 1, fmt::format("column '{}' appears twice", l.names[i]));
    }
    if (!modeler::is_per_measurement_column(l.names[i]) && !is_build_column(l.names[i])) {
      l.key.push_back(i);
    }
  }
  return l;
}

std::string_view field_or_empty(const std::vector<std::string_view>& fields, std::size_t i) {
  return i == kAbsent ? std::string_view() : fields[i];
}

// One run being collected.
struct RunBuilder {
  BenchRun run;
  std::unordered_map<std::string, std::size_t> config_of;
  std::vector<std::vector<double>> canaries;  // per config, valid rows
  std::string earliest_timestamp;
  Fingerprint rows;
};

struct Row {
  int threads;
  bool valid;
  double value;
  double canary;
};

Row parse_row(const std::vector<std::string_view>& f, const Layout& l, const std::string& file,
              std::size_t line) {
  Row row{};
  const auto threads = to_number(f[l.threads]);
  if (!threads || *threads < 1 || *threads != std::floor(*threads) || *threads > 1e9) {
    throw InputError(file, line,
                     fmt::format("threads '{}' is not a positive integer", f[l.threads]));
  }
  row.threads = static_cast<int>(*threads);
  if (f[l.valid] != "0" && f[l.valid] != "1") {
    throw InputError(file, line, fmt::format("valid '{}' is not 0 or 1", f[l.valid]));
  }
  row.valid = f[l.valid] == "1";
  row.value = std::nan("");
  if (row.valid) {
    const auto value = to_number(f[l.value]);
    if (!value || !std::isfinite(*value)) {
      throw InputError(file, line, fmt::format("value '{}' is not a finite number", f[l.value]));
    }
    row.value = *value;
  }
  row.canary = 0.0;
  if (l.canary != kAbsent && !f[l.canary].empty()) {
    const auto canary = to_number(f[l.canary]);
    if (!canary) {
      throw InputError(file, line, fmt::format("canary_ns '{}' is not a number", f[l.canary]));
    }
    row.canary = *canary;
  }
  return row;
}

void note_build(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end()) {
    list.push_back(item);
  }
}

ConfigSummary& config_of(RunBuilder& b, const std::vector<std::string_view>& f, const Layout& l,
                         int threads) {
  std::string id;
  for (std::size_t c : l.key) (id += f[c]) += '\x1f';
  id += fmt::format("{}\x1f{}\x1f{}", threads, field_or_empty(f, l.runtime_version),
                    field_or_empty(f, l.compiler));
  const auto [it, added] = b.config_of.try_emplace(id, b.run.configs.size());
  if (added) {
    ConfigSummary c;
    for (std::size_t col : l.key) c.key.columns.emplace_back(l.names[col], f[col]);
    c.threads = threads;
    c.thread_class = field_or_empty(f, l.thread_class);
    c.runtime_version = field_or_empty(f, l.runtime_version);
    c.compiler = field_or_empty(f, l.compiler);
    b.run.configs.push_back(std::move(c));
    b.canaries.emplace_back();
    const std::string runtime(field_or_empty(f, l.runtime));
    note_build(b.run.runtimes, fmt::format("{} {}", runtime, field_or_empty(f, l.runtime_version)));
    note_build(b.run.compilers, std::string(field_or_empty(f, l.compiler)));
  }
  return b.run.configs[it->second];
}

void add_row(RunBuilder& b, const std::vector<std::string_view>& f, const Layout& l,
             const Row& row) {
  ConfigSummary& c = config_of(b, f, l, row.threads);
  ++c.total;
  if (row.valid) {
    c.values.push_back(row.value);
    if (row.canary > 0) b.canaries[&c - b.run.configs.data()].push_back(row.canary);
  }
  if (l.oversubscribed != kAbsent && f[l.oversubscribed] == "1") c.oversubscribed = true;
  if (b.run.platform.empty()) b.run.platform = field_or_empty(f, l.platform);
  const std::string_view stamp = field_or_empty(f, l.timestamp);
  if (!stamp.empty() && (b.earliest_timestamp.empty() || stamp < b.earliest_timestamp)) {
    b.earliest_timestamp = stamp;
  }
  for (const std::string_view field : f) b.rows.add(field);
}

void finish_run(RunBuilder& b, const std::map<std::string, SidecarRun>& sidecar,
                const std::string& file, const std::string& fallback_date) {
  BenchRun& run = b.run;
  Fingerprint fp = b.rows;
  // Rows without a run id (`ompbench import-epcc` without --run-id): one run named by its content,
  // so that the same file ingested again is the same run.
  if (run.run_id.empty()) run.run_id = "import-" + b.rows.hex().substr(0, 12);
  double slow_factor = 1.5;
  double reference = 0.0;
  if (const auto it = sidecar.find(run.run_id); it != sidecar.end()) {
    const SidecarRun& s = it->second;
    run.host = s.host;
    run.date = s.started;
    run.status = s.status;
    run.ompscale_version = s.ompscale_version;
    run.command_json = s.command_json;
    run.workers_json = s.workers_json;
    run.environment_json = s.environment_json;
    run.canary_reference_ns = s.canary_reference_ns;
    run.canary_typical_ns = s.canary_typical_ns;
    run.canary_median_ns = s.canary_median_ns;
    run.compute_reference_ns = s.compute_reference_ns;
    run.unusual_phase = s.unusual_phase;
    run.phase_note = s.phase_note;
    slow_factor = s.slow_factor;
    reference = s.canary_reference_ns;
    fp.add(s.record_json);
  }
  if (run.date.empty()) run.date = b.earliest_timestamp;
  if (run.date.empty() && !fallback_date.empty()) {
    run.date = fallback_date;
    run.note = fmt::format("dated {}: the file has no sidecar and no timestamps (--date sets it)",
                           fallback_date);
  }
  if (run.date.empty()) {
    throw InputError(
        file, 0,
        fmt::format("run '{}' has no date: no sidecar record and no timestamps", run.run_id));
  }
  run.fingerprint = fp.hex();
  for (std::size_t i = 0; i < run.configs.size(); ++i) {
    ConfigSummary& c = run.configs[i];
    if (!b.canaries[i].empty()) c.canary_ns = stats::median(b.canaries[i]);
    if (run.unusual_phase) {
      c.canary_state = "unusual";
    } else if (c.canary_ns > 0 && reference > 0) {
      c.canary_state = c.canary_ns > slow_factor * reference ? "slow" : "typical";
    } else if (c.canary_ns > 0) {
      c.canary_state = "typical";
    }
  }
}

}  // namespace

bool is_results_header(const std::vector<std::string_view>& header) {
  for (const std::string_view name : {"construct", "threads", "value", "valid", "run_id"}) {
    if (std::find(header.begin(), header.end(), name) == header.end()) return false;
  }
  return true;
}

std::vector<BenchRun> parse_results(std::string_view text, const std::string& file,
                                    const std::map<std::string, SidecarRun>& sidecar,
                                    const std::string& fallback_date) {
  CsvReader reader(text, file);
  std::vector<std::string_view> fields;
  if (!reader.next(fields)) throw InputError(file, 1, "empty file: expected a results CSV");
  const Layout layout = read_layout(fields, file);
  std::vector<RunBuilder> builders;
  std::unordered_map<std::string, std::size_t> builder_of;
  while (reader.next(fields)) {
    if (fields.size() != layout.names.size()) {
      throw InputError(
          file, reader.line(),
          fmt::format("expected {} fields, found {}", layout.names.size(), fields.size()));
    }
    const Row row = parse_row(fields, layout, file, reader.line());
    const std::string run_id(fields[layout.run_id]);
    const auto [it, added] = builder_of.try_emplace(run_id, builders.size());
    if (added) {
      builders.emplace_back();
      builders.back().run.run_id = run_id;
      builders.back().run.source = file;
    }
    add_row(builders[it->second], fields, layout, row);
  }
  if (builders.empty()) throw InputError(file, 2, "no measurements: the file has a header only");
  std::vector<BenchRun> runs;
  for (RunBuilder& b : builders) {
    finish_run(b, sidecar, file, fallback_date);
    runs.push_back(std::move(b.run));
  }
  return runs;
}

std::vector<BenchRun> read_results(const std::string& path, const std::string& fallback_date) {
  const auto sidecar = read_sidecar(path + ".meta.json");
  return parse_results(read_input(path), path, sidecar, fallback_date);
}

}  // namespace ompscale::dashboard
