#include "regions/report/read_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "common/error.h"
#include "common/json_input.h"
#include "common/output_file.h"

namespace ompscale::regions::report {

namespace {

using nlohmann::json;

// Missing or null numbers read as `fallback` ("not measured"); other types are errors.
double number(const JsonNode& object, std::string_view key, double fallback = 0.0) {
  const auto v = object.optional_field(key);
  return v ? v->number() : fallback;
}

double required_number(const JsonNode& object, std::string_view key) {
  const JsonNode v = object.field(key);
  if (v.is_null()) v.fail("expected a number, found null");
  return v.number();
}

int integer(const JsonNode& object, std::string_view key, int fallback) {
  const auto v = object.optional_field(key);
  return v ? static_cast<int>(v->whole_number(INT_MIN, INT_MAX)) : fallback;
}

std::optional<int> optional_integer(const JsonNode& object, std::string_view key) {
  if (!object.optional_field(key)) return std::nullopt;
  return integer(object, key, 0);
}

std::string text(const JsonNode& object, std::string_view key) {
  return object.string_or(key, "");
}

bool flag(const JsonNode& object, std::string_view key, bool fallback) {
  const auto v = object.optional_field(key);
  return v && v->json().is_boolean() ? v->boolean() : fallback;
}

std::vector<JsonNode> array(const JsonNode& object, std::string_view key) {
  const auto v = object.optional_field(key);
  return v ? v->elements() : std::vector<JsonNode>{};
}

std::optional<JsonNode> object_field(const JsonNode& object, std::string_view key) {
  auto v = object.optional_field(key);
  if (v && !v->json().is_object()) {
    v->fail(fmt::format("expected an object, found {}", v->json().type_name()));
  }
  return v;
}

void expect_object(const JsonNode& node) {
  if (!node.json().is_object()) node.fail("expected an object");
}

Location read_location(const std::optional<JsonNode>& v) {
  Location l;
  if (!v) return l;
  l.module = text(*v, "module");
  l.build_id = text(*v, "build_id");
  l.offset = text(*v, "offset");
  l.file = text(*v, "file");
  l.line = integer(*v, "line", 0);
  l.function = text(*v, "function");
  return l;
}

RegionKind read_kind(const JsonNode& region) {
  const std::string kind = text(region, "kind");
  if (kind == "parallel") return RegionKind::kParallel;
  if (kind == "manual") return RegionKind::kManual;
  if (kind == "serial") return RegionKind::kSerial;
  const auto node = region.optional_field("kind");
  (node ? *node : region).fail(fmt::format("'{}' is not parallel, manual or serial", kind));
}

std::string read_schedule(const JsonNode& entry) {
  const std::string schedule = text(entry, "schedule");
  if (schedule.empty()) return schedule;
  const bool has_omp = entry.has("omp_schedule");
  const std::string omp_schedule = has_omp ? text(entry, "omp_schedule") : "";
  // Profiles written before the source was recorded say only what the loop ran with.
  const std::string source =
      entry.has("omp_schedule_source") ? text(entry, "omp_schedule_source") : "";
  return schedule_words(schedule, number(entry, "chunk"), has_omp ? &omp_schedule : nullptr,
                        source == "OMP_SCHEDULE" ? ScheduleSource::kEnvironment
                        : source == "program"    ? ScheduleSource::kProgram
                                                 : ScheduleSource::kProgramOrDefault);
}

// The numeric members of a record, each read as number() reads it (absent or null: 0).
template <class Record, std::size_t N>
using NumberFields = std::array<std::pair<std::string_view, double Record::*>, N>;

template <class Record, std::size_t N>
void read_numbers(const JsonNode& object, Record& record, const NumberFields<Record, N>& fields) {
  for (const auto& [key, member] : fields) record.*member = number(object, key);
}

constexpr NumberFields<ConstructRecord::Thread, 8> kConstructThreadFields = {{
    {"executions", &ConstructRecord::Thread::executions},
    {"iterations", &ConstructRecord::Thread::iterations},
    {"time_ns", &ConstructRecord::Thread::time_ns},
    {"barriers", &ConstructRecord::Thread::barriers},
    {"imbalance_ns", &ConstructRecord::Thread::imbalance_ns},
    {"walkthrough_ns", &ConstructRecord::Thread::walkthrough_ns},
    {"startup_ns", &ConstructRecord::Thread::startup_ns},
    {"task_wait_ns", &ConstructRecord::Thread::task_wait_ns},
}};

constexpr NumberFields<ThreadRecord, 17> kThreadFields = {{
    {"work_ns", &ThreadRecord::work_ns},
    {"fork_ns", &ThreadRecord::fork_ns},
    {"team_start_ns", &ThreadRecord::team_start_ns},
    {"start_cpu_wait_ns", &ThreadRecord::start_cpu_wait_ns},
    {"imbalance_ns", &ThreadRecord::imbalance_ns},
    {"walkthrough_ns", &ThreadRecord::walkthrough_ns},
    {"startup_ns", &ThreadRecord::startup_ns},
    {"barriers", &ThreadRecord::barriers},
    {"lock_wait_ns", &ThreadRecord::lock_wait_ns},
    {"lock_acquisitions", &ThreadRecord::lock_acquisitions},
    {"lock_timed", &ThreadRecord::lock_timed},
    {"iterations", &ThreadRecord::iterations},
    {"task_ns", &ThreadRecord::task_ns},
    {"barrier_task_ns", &ThreadRecord::barrier_task_ns},
    {"task_wait_ns", &ThreadRecord::task_wait_ns},
    {"taskwait_ns", &ThreadRecord::taskwait_ns},
    {"tasks_created", &ThreadRecord::tasks_created},
}};

ConstructRecord read_construct(const JsonNode& c) {
  expect_object(c);
  ConstructRecord out;
  out.kind = text(c, "kind");
  out.location = read_location(object_field(c, "location"));
  out.schedule = read_schedule(c);
  const std::vector<JsonNode> threads = array(c, "threads");
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const JsonNode& t = threads[i];
    expect_object(t);
    ConstructRecord::Thread rec;
    rec.thread = integer(t, "thread", static_cast<int>(i));
    read_numbers(t, rec, kConstructThreadFields);
    out.threads.push_back(rec);
  }
  return out;
}

ThreadRecord read_thread(const JsonNode& t, std::size_t i) {
  expect_object(t);
  ThreadRecord rec;
  rec.thread = integer(t, "thread", static_cast<int>(i));
  read_numbers(t, rec, kThreadFields);
  return rec;
}

LockRecord read_lock(const JsonNode& l) {
  expect_object(l);
  LockRecord rec;
  rec.kind = text(l, "kind");
  rec.location = read_location(object_field(l, "location"));
  rec.acquisitions = number(l, "acquisitions");
  rec.timed = number(l, "timed");
  rec.wait_ns = number(l, "wait_ns");
  rec.wait_estimate_ns = number(l, "wait_estimate_ns");
  rec.fastest_ns = number(l, "fastest_ns");
  if (rec.timed > rec.acquisitions) {
    l.fail(fmt::format("timed ({}) exceeds acquisitions ({})", rec.timed, rec.acquisitions));
  }
  return rec;
}

// Region ids and parents are 64-bit counters of the tool; a value past them is no id.
long long region_id(const JsonNode& id) {
  return id.whole_number(0, std::numeric_limits<long long>::max());
}

RegionRecord read_region(const JsonNode& r) {
  expect_object(r);
  RegionRecord region;
  const JsonNode id = r.field("id");
  if (id.is_null()) id.fail("expected a number, found null");
  region.id = region_id(id);
  region.kind = read_kind(r);
  region.name = text(r, "name");
  region.location = read_location(object_field(r, "location"));
  if (const auto parent = r.optional_field("parent")) region.parent = region_id(*parent);
  region.nesting_level = integer(r, "nesting_level", 0);
  region.executions = required_number(r, "executions");
  region.executions_measured = required_number(r, "executions_measured");
  if (region.executions_measured > region.executions) {
    r.fail(fmt::format("executions_measured ({}) exceeds executions ({})",
                       region.executions_measured, region.executions));
  }
  if (const auto team = object_field(r, "team_size")) {
    region.team_min = integer(*team, "min", 0);
    region.team_max = integer(*team, "max", 0);
  }
  region.wall_ns = required_number(r, "wall_ns");
  region.wall_se_ns = number(r, "wall_se_ns");
  region.idle_se_ns = number(r, "idle_se_ns");
  region.wall_exact = r.has("idle_se_ns");
  const std::vector<JsonNode> threads = array(r, "threads");
  for (std::size_t i = 0; i < threads.size(); ++i)
    region.threads.push_back(read_thread(threads[i], i));
  for (const JsonNode& l : array(r, "locks")) region.locks.push_back(read_lock(l));
  for (const JsonNode& loop : array(r, "loops")) {
    expect_object(loop);
    region.loops.push_back({read_schedule(loop), number(loop, "executions")});
  }
  for (const JsonNode& c : array(r, "constructs")) region.constructs.push_back(read_construct(c));
  if (const auto tasks = object_field(r, "tasks")) {
    region.tasks_created = number(*tasks, "created");
    region.tasks_executed = number(*tasks, "executed");
  }
  return region;
}

Profile read_profile(const JsonNode& p) {
  if (!p.json().is_object()) {
    p.fail(fmt::format("expected an object or null, got {}", p.json().type_name()));
  }
  const std::string format = text(p, "format");
  if (format != "ompscan-profile-1") {
    p.fail(fmt::format("format is '{}', expected ompscan-profile-1", format));
  }
  Profile profile;
  profile.tool_version = text(p, "tool_version");
  profile.runtime_version = text(p, "runtime_version");
  profile.process_ns = number(p, "process_ns");
  profile.max_threads = integer(p, "max_threads", 0);
  if (const auto s = object_field(p, "sampling")) {
    profile.sampling_policy = text(*s, "policy");
    profile.estimator = text(*s, "estimator");
    profile.dropped_events = number(*s, "dropped_events");
    profile.buffer_full_events = number(*s, "buffer_full_events");
  }
  if (!p.optional_field("regions")) p.fail("regions: missing");
  for (const JsonNode& r : array(p, "regions")) {
    profile.regions.push_back(read_region(r));
    profile.regions.back().weighted = profile.estimator == "horvitz-thompson";
  }
  return profile;
}

// The requested count when some parallel region had teams of that size (a nested program may fix
// its outer team and size its inner ones by OMP_NUM_THREADS), else the largest team of the
// outermost regions: the application set its own count (omp_set_num_threads, num_threads).
int observed_threads(const RunFile& run) {
  int team = 0;
  if (!run.profile) return run.threads;
  for (const RegionRecord& r : run.profile->regions) {
    if (r.kind != RegionKind::kParallel || r.team_max == 0) continue;
    if (r.team_min <= run.threads && run.threads <= r.team_max) return run.threads;
    if (r.nesting_level == 0) team = std::max(team, r.team_max);
  }
  return team > 0 ? team : run.threads;
}

}  // namespace

std::string_view to_string(RegionKind kind) {
  switch (kind) {
    case RegionKind::kParallel:
      return "parallel";
    case RegionKind::kManual:
      return "manual";
    case RegionKind::kSerial:
      return "serial";
  }
  return "unknown";
}

namespace {

// How schedule_words() introduces what a schedule(runtime) loop ran with, per source.
constexpr std::array<std::pair<ScheduleSource, std::string_view>, 3> kScheduleMarkers = {{
    {ScheduleSource::kEnvironment, " (OMP_SCHEDULE="},
    {ScheduleSource::kProgram, " (omp_set_schedule: "},
    {ScheduleSource::kProgramOrDefault, " (ran as "},
}};
constexpr std::string_view kRuntime = "runtime";

}  // namespace

std::string schedule_words(const std::string& schedule, double chunk,
                           const std::string* omp_schedule, ScheduleSource source) {
  std::string out = schedule;
  if (chunk > 0.0) out += fmt::format(",{:.0f}", chunk);
  if (schedule == kRuntime && omp_schedule != nullptr && !omp_schedule->empty()) {
    for (const auto& [from, marker] : kScheduleMarkers) {
      if (from == source) out += fmt::format("{}{})", marker, *omp_schedule);
    }
  }
  return out;
}

std::string runtime_schedule_of(const std::string& words) {
  if (!words.starts_with(kRuntime)) return "";
  const std::string_view rest = std::string_view(words).substr(kRuntime.size());
  for (const auto& [source, marker] : kScheduleMarkers) {
    if (!rest.starts_with(marker)) continue;
    const std::string_view ran = rest.substr(marker.size());
    return std::string(ran.substr(0, ran.find(')')));
  }
  return "";
}

ScheduleSource schedule_source_of(const std::string& words) {
  if (!words.starts_with(kRuntime)) return ScheduleSource::kProgramOrDefault;
  const std::string_view rest = std::string_view(words).substr(kRuntime.size());
  for (const auto& [source, marker] : kScheduleMarkers) {
    if (rest.starts_with(marker)) return source;
  }
  return ScheduleSource::kProgramOrDefault;
}

double sampling_scale(const RegionRecord& region) {
  if (!(region.executions_measured > 0.0)) return 0.0;
  return region.weighted ? 1.0 : region.executions / region.executions_measured;
}

std::string Location::label() const {
  if (resolved()) {
    const std::string base = std::filesystem::path(file).filename().string();
    std::string out = line > 0 ? fmt::format("{}:{}", base, line) : base;
    if (!function.empty()) out += fmt::format(" ({})", function);
    return out;
  }
  if (module.empty()) return offset.empty() ? "?" : offset;
  return fmt::format("{}+{}", std::filesystem::path(module).filename().string(), offset);
}

std::string describe_end(const RunFile& run) {
  return run.signal ? fmt::format("signal {}", *run.signal)
                    : fmt::format("exit status {}", run.exit_status.value_or(-1));
}

namespace {

// The run file's own members; the profile is read by read_profile.
RunFile read_run(const JsonNode& doc, const std::string& path) {
  RunFile run;
  run.path = path;
  run.run_id = text(doc, "run_id");
  if (run.run_id.empty()) run.run_id = std::filesystem::path(path).stem().string();
  for (const JsonNode& arg : array(doc, "command")) {
    if (arg.json().is_string()) run.command.push_back(arg.string());
  }
  const JsonNode threads = doc.field("threads");
  run.threads = integer(doc, "threads", 0);
  if (run.threads < 1) threads.fail(fmt::format("{} is not a thread count", run.threads));
  run.input = text(doc, "input");
  run.input_index = integer(doc, "input_index", 0);
  run.repetition = integer(doc, "repetition", 0);
  run.oversubscribed = flag(doc, "oversubscribed", run.oversubscribed);
  const std::optional<JsonNode> bind = doc.optional_field("bind");  // null when unset
  run.bind = bind && bind->json().is_string() ? bind->string() : "";
  const std::string status = text(doc, "status");
  if (status != "ok" && status != "failed") {
    doc.fail(fmt::format("status: '{}' is neither ok nor failed", status));
  }
  run.failed = status == "failed";
  run.exit_status = optional_integer(doc, "exit_status");
  run.signal = optional_integer(doc, "signal");
  run.wall_ns = number(doc, "wall_ns");
  if (const auto cpu = object_field(doc, "cpu")) {
    run.cpu_ns = number(*cpu, "user_ns") + number(*cpu, "system_ns");
  }
  if (const auto runtime = object_field(doc, "runtime")) {
    run.runtime_library = text(*runtime, "library");
    run.gomp_abi = flag(*runtime, "gomp_abi", run.gomp_abi);
  }
  run.native = flag(doc, "native", run.native);
  run.variant = text(doc, "variant");
  if (run.native && run.variant.empty()) run.variant = "libgomp";  // earlier ompscan run
  if (const auto environment = object_field(doc, "environment")) {
    for (const char* knob : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"}) {
      const std::string value = text(*environment, knob);
      if (!value.empty()) run.knobs += (run.knobs.empty() ? "" : " ") + (knob + ("=" + value));
    }
  }
  if (const auto sharing = object_field(doc, "time_sharing")) {
    run.time_shared = flag(*sharing, "time_shared", run.time_shared);
    run.time_sharing_reason = text(*sharing, "reason");
  }
  run.profile_error = text(doc, "profile_error");
  return run;
}

}  // namespace

RunFile parse_run_file(std::string_view content, const std::string& path) {
  const JsonDocument document(content, path);
  const JsonNode doc = document.root();
  if (!doc.json().is_object()) doc.fail("not an ompscan run file: the top level is not an object");
  const std::string format = doc.has("format") ? text(doc, "format") : "";
  if (format != "ompscan-run-1") {
    doc.fail(fmt::format("not an ompscan run file: format is {}, expected ompscan-run-1",
                         format.empty() ? std::string("missing") : "'" + format + "'"));
  }
  RunFile run = read_run(doc, path);
  if (const auto profile = doc.optional_field("profile")) run.profile = read_profile(*profile);
  run.requested_threads = run.threads;
  run.threads = observed_threads(run);
  return run;
}

// Why the file is not a run file at all (a stray file next to the runs), or "" when it claims to
// be one.
std::string not_a_run_file(std::string_view content) {
  const json doc = json::parse(content, nullptr, false);
  if (doc.is_discarded()) return "not JSON";
  if (!doc.is_object()) return "not a JSON object";
  const auto format = doc.find("format");
  if (format == doc.end() || !format->is_string()) return "no format field";
  if (format->get<std::string>().rfind("ompscan-run-", 0) != 0)
    return "format " + format->get<std::string>();
  return "";
}

// The machine costs `ompscan run` measured (machine_costs.h), not a run.
bool is_probe_file(std::string_view content) {
  const json doc = json::parse(content, nullptr, false);
  return doc.is_object() && doc.value("format", "") == "ompscan-probe-run-1";
}

RunSet read_run_directory(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(directory, ec)) {
    throw UsageError(
        fmt::format("{}: no such directory (ompscan run -o {} makes it)", directory, directory));
  }
  if (!fs::is_directory(directory, ec)) {
    throw UsageError(fmt::format("{}: not a directory", directory));
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".json" && it->is_regular_file(ec)) files.push_back(p);
  }
  if (ec) throw UsageError(fmt::format("{}: cannot list: {}", directory, ec.message()));
  std::sort(files.begin(), files.end());
  RunSet set;
  set.directory = directory;
  for (const fs::path& p : files) {
    const std::string content = read_input(p.string());
    if (is_probe_file(content)) {
      set.probes.push_back({p.string(), content});
      continue;
    }
    if (const std::string why = not_a_run_file(content); !why.empty()) {
      set.skipped.push_back(fmt::format("{} ({})", p.filename().string(), why));
      continue;
    }
    RunFile run = parse_run_file(content, p.string());
    if (run.native) {
      set.native.push_back(std::move(run));
    } else if (run.failed && !run.profile) {
      set.failed.push_back(std::move(run));
    } else if (!run.profile) {
      set.without_profile.push_back(std::move(run));
    } else {
      set.usable.push_back(std::move(run));
    }
  }
  return set;
}

}  // namespace ompscale::regions::report
