#include "dashboard/ingest/read_sidecar.h"

#include <fmt/format.h>

#include <filesystem>

#include "common/json_input.h"
#include "common/output_file.h"
#include "common/statistics.h"

namespace ompscale::dashboard {

using Json = nlohmann::json;

namespace {

// Only what the history keeps of each worker (the calibrations stay in the sidecar).
std::string workers_facts(const JsonNode& record) {
  const auto workers = record.optional_field("workers");
  if (!workers) return "{}";
  if (!workers->json().is_object()) workers->fail("expected an object");
  Json out = Json::object();
  for (const auto& [name, w] : workers->json().items()) {
    const JsonNode worker = workers->field(name);
    Json facts = Json::object();
    for (const char* field :
         {"runtime", "runtime_version", "compiler", "library", "compiler_flags"}) {
      facts[field] = worker.string_or(field, "");
    }
    if (const auto clock = worker.optional_field("clock")) facts["clock"] = clock->json();
    out[name] = facts;
  }
  return out.dump();
}

void read_noise(const JsonNode& noise, SidecarRun& run) {
  run.canary_reference_ns = noise.number_or("reference_ns", 0.0);
  run.canary_typical_ns = noise.number_or("machine_typical_ns", 0.0);
  run.compute_reference_ns = noise.number_or("compute_reference_ns", 0.0);
  run.slow_factor = noise.number_or("slow_factor", 1.5);
  if (!(run.slow_factor > 1.0)) run.slow_factor = 1.5;
  if (const auto canaries = noise.optional_field("canary_ns")) {
    std::vector<double> values;
    for (const JsonNode& c : canaries->elements()) values.push_back(c.number());
    if (!values.empty()) run.canary_median_ns = stats::median(values);
  }
}

// Unusual: measured in a slower state than the machine's typical one. A faster state is the
// typical state changing (a new machine, a quieter host): its runs are kept and judged against
// runs of their own state (analysis/machine_state.h), even when an older ompbench called it an
// unusual phase. Without both round trips, the sidecar's own warning decides.
void judge_phase(const JsonNode& record, SidecarRun& run) {
  std::string warning;
  if (const auto warnings = record.optional_field("warnings")) {
    for (const JsonNode& w : warnings->elements()) {
      const std::string text = w.string();
      if (text.find("unusual phase") != std::string::npos ||
          text.find("faster state") != std::string::npos)
        warning = text;
    }
  }
  const double typical = run.canary_typical_ns, reference = run.canary_reference_ns;
  if (typical > 0 && reference > 0) {
    if (reference > run.slow_factor * typical) {
      run.unusual_phase = true;
      run.phase_note = warning.find("unusual phase") != std::string::npos
                           ? warning
                           : fmt::format(
                                 "round trip {:.0f} ns against this machine's typical "
                                 "{:.0f} ns",
                                 reference, typical);
    } else if (reference * run.slow_factor < typical) {
      run.phase_note = fmt::format(
          "faster than this machine's typical state: round trip {:.0f} ns against {:.0f} ns",
          reference, typical);
    }
    return;
  }
  if (warning.find("unusual phase") != std::string::npos) {
    run.unusual_phase = true;
    run.phase_note = warning;
  }
}

SidecarRun read_record(const JsonNode& record) {
  SidecarRun run;
  run.run_id = record.field("run_id").string();
  run.host = record.string_or("host", "");
  run.started = record.string_or("started", "");
  run.status = record.string_or("status", "unknown");
  run.ompscale_version = record.string_or("ompscale_version", "");
  if (const auto c = record.optional_field("command")) run.command_json = c->json().dump();
  if (const auto e = record.optional_field("environment")) run.environment_json = e->json().dump();
  run.workers_json = workers_facts(record);
  if (const auto noise = record.optional_field("noise")) read_noise(*noise, run);
  judge_phase(record, run);
  run.record_json = record.json().dump();
  return run;
}

}  // namespace

std::map<std::string, SidecarRun> parse_sidecar(std::string_view text, const std::string& file) {
  const JsonDocument parsed(text, file);
  const Json& document = parsed.json();
  const JsonNode root = parsed.root();
  if (!document.is_object() || root.string_or("format", "") != "ompbench-sidecar-1") {
    root.fail("not an ompbench sidecar (no \"format\": \"ompbench-sidecar-1\")");
  }
  std::map<std::string, SidecarRun> runs;
  for (const JsonNode& record : root.field("runs").elements()) {
    SidecarRun run = read_record(record);
    const std::string id = run.run_id;
    runs.insert_or_assign(id, std::move(run));  // a resumed run id keeps its last record
  }
  return runs;
}

std::map<std::string, SidecarRun> read_sidecar(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return {};
  return parse_sidecar(read_input(path), path);
}

}  // namespace ompscale::dashboard
