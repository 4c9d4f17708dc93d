#include "regions/report/read_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "common/error.h"
#include "common/output_file.h"

namespace ompscale::regions::report {

namespace {

using nlohmann::json;

// A field problem; parse_run_file turns it into InputError(path, 0, what()).
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string type_name(const json& value) {
  return value.is_null() ? "null" : std::string(value.type_name());
}

std::string child(const std::string& where, std::string_view key) {
  return where.empty() ? std::string(key) : fmt::format("{}.{}", where, key);
}

const json* find(const json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json& require(const json& object, std::string_view key, const std::string& where) {
  const json* v = find(object, key);
  if (v == nullptr) throw FieldError(fmt::format("{}: missing", child(where, key)));
  return *v;
}

// Missing or null numbers read as `fallback` ("not measured"); other types are errors.
double number(const json& object, std::string_view key, const std::string& where,
              double fallback = 0.0) {
  const json* v = find(object, key);
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_number()) {
    throw FieldError(
        fmt::format("{}: expected a number, got {}", child(where, key), type_name(*v)));
  }
  return v->get<double>();
}

double required_number(const json& object, std::string_view key, const std::string& where) {
  require(object, key, where);
  const json& v = object.at(key);
  if (!v.is_number()) {
    throw FieldError(fmt::format("{}: expected a number, got {}", child(where, key), type_name(v)));
  }
  return v.get<double>();
}

int integer(const json& object, std::string_view key, const std::string& where, int fallback) {
  const double v = number(object, key, where, fallback);
  if (v != static_cast<double>(static_cast<int>(v))) {
    throw FieldError(fmt::format("{}: expected an integer, got {}", child(where, key), v));
  }
  return static_cast<int>(v);
}

std::optional<int> optional_integer(const json& object, std::string_view key,
                                    const std::string& where) {
  const json* v = find(object, key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return integer(object, key, where, 0);
}

std::string text(const json& object, std::string_view key, const std::string& where) {
  const json* v = find(object, key);
  if (v == nullptr || v->is_null()) return {};
  if (!v->is_string()) {
    throw FieldError(
        fmt::format("{}: expected a string, got {}", child(where, key), type_name(*v)));
  }
  return v->get<std::string>();
}

const json* array(const json& object, std::string_view key, const std::string& where) {
  const json* v = find(object, key);
  if (v == nullptr || v->is_null()) return nullptr;
  if (!v->is_array()) {
    throw FieldError(
        fmt::format("{}: expected an array, got {}", child(where, key), type_name(*v)));
  }
  return v;
}

const json* object_field(const json& object, std::string_view key, const std::string& where) {
  const json* v = find(object, key);
  if (v == nullptr || v->is_null()) return nullptr;
  if (!v->is_object()) {
    throw FieldError(
        fmt::format("{}: expected an object, got {}", child(where, key), type_name(*v)));
  }
  return v;
}

Location read_location(const json* v, const std::string& where) {
  Location l;
  if (v == nullptr) return l;
  l.module = text(*v, "module", where);
  l.build_id = text(*v, "build_id", where);
  l.offset = text(*v, "offset", where);
  l.file = text(*v, "file", where);
  l.line = integer(*v, "line", where, 0);
  l.function = text(*v, "function", where);
  return l;
}

RegionKind read_kind(const json& region, const std::string& where) {
  const std::string kind = text(region, "kind", where);
  if (kind == "parallel") return RegionKind::kParallel;
  if (kind == "manual") return RegionKind::kManual;
  if (kind == "serial") return RegionKind::kSerial;
  throw FieldError(
      fmt::format("{}: '{}' is not parallel, manual or serial", child(where, "kind"), kind));
}

std::string read_schedule(const json& entry, const std::string& where) {
  const std::string schedule = text(entry, "schedule", where);
  if (schedule.empty()) return schedule;
  const json* omp = find(entry, "omp_schedule");
  const std::string omp_schedule = omp != nullptr ? text(entry, "omp_schedule", where) : "";
  return schedule_words(schedule, number(entry, "chunk", where), omp ? &omp_schedule : nullptr);
}

ConstructRecord read_construct(const json& c, const std::string& where) {
  if (!c.is_object()) throw FieldError(fmt::format("{}: expected an object", where));
  ConstructRecord out;
  out.kind = text(c, "kind", where);
  out.location = read_location(object_field(c, "location", where), child(where, "location"));
  out.schedule = read_schedule(c, where);
  if (const json* threads = array(c, "threads", where)) {
    for (std::size_t i = 0; i < threads->size(); ++i) {
      const json& t = (*threads)[i];
      const std::string at = fmt::format("{}.threads[{}]", where, i);
      if (!t.is_object()) throw FieldError(fmt::format("{}: expected an object", at));
      ConstructRecord::Thread rec;
      rec.thread = integer(t, "thread", at, static_cast<int>(i));
      rec.executions = number(t, "executions", at);
      rec.time_ns = number(t, "time_ns", at);
      rec.barriers = number(t, "barriers", at);
      rec.imbalance_ns = number(t, "imbalance_ns", at);
      rec.walkthrough_ns = number(t, "walkthrough_ns", at);
      rec.startup_ns = number(t, "startup_ns", at);
      rec.task_wait_ns = number(t, "task_wait_ns", at);
      out.threads.push_back(rec);
    }
  }
  return out;
}

RegionRecord read_region(const json& r, const std::string& where) {
  if (!r.is_object()) throw FieldError(fmt::format("{}: expected an object", where));
  RegionRecord region;
  region.id = static_cast<long long>(required_number(r, "id", where));
  region.kind = read_kind(r, where);
  region.name = text(r, "name", where);
  region.location = read_location(object_field(r, "location", where), child(where, "location"));
  if (const json* parent = find(r, "parent"); parent != nullptr && !parent->is_null()) {
    region.parent = static_cast<long long>(number(r, "parent", where));
  }
  region.nesting_level = integer(r, "nesting_level", where, 0);
  region.executions = required_number(r, "executions", where);
  region.executions_measured = required_number(r, "executions_measured", where);
  if (region.executions_measured > region.executions) {
    throw FieldError(fmt::format("{}: executions_measured ({}) exceeds executions ({})", where,
                                 region.executions_measured, region.executions));
  }
  if (const json* team = object_field(r, "team_size", where)) {
    region.team_min = integer(*team, "min", child(where, "team_size"), 0);
    region.team_max = integer(*team, "max", child(where, "team_size"), 0);
  }
  region.wall_ns = required_number(r, "wall_ns", where);
  region.wall_se_ns = number(r, "wall_se_ns", where);
  if (const json* threads = array(r, "threads", where)) {
    for (std::size_t i = 0; i < threads->size(); ++i) {
      const json& t = (*threads)[i];
      const std::string at = fmt::format("{}.threads[{}]", where, i);
      if (!t.is_object()) throw FieldError(fmt::format("{}: expected an object", at));
      ThreadRecord rec;
      rec.thread = integer(t, "thread", at, static_cast<int>(i));
      rec.work_ns = number(t, "work_ns", at);
      rec.fork_ns = number(t, "fork_ns", at);
      rec.imbalance_ns = number(t, "imbalance_ns", at);
      rec.walkthrough_ns = number(t, "walkthrough_ns", at);
      rec.startup_ns = number(t, "startup_ns", at);
      rec.barriers = number(t, "barriers", at);
      rec.lock_wait_ns = number(t, "lock_wait_ns", at);
      rec.lock_acquisitions = number(t, "lock_acquisitions", at);
      rec.lock_timed = number(t, "lock_timed", at);
      rec.iterations = number(t, "iterations", at);
      rec.task_ns = number(t, "task_ns", at);
      rec.barrier_task_ns = number(t, "barrier_task_ns", at);
      rec.task_wait_ns = number(t, "task_wait_ns", at);
      rec.taskwait_ns = number(t, "taskwait_ns", at);
      rec.tasks_created = number(t, "tasks_created", at);
      region.threads.push_back(rec);
    }
  }
  if (const json* locks = array(r, "locks", where)) {
    for (std::size_t i = 0; i < locks->size(); ++i) {
      const json& l = (*locks)[i];
      const std::string at = fmt::format("{}.locks[{}]", where, i);
      if (!l.is_object()) throw FieldError(fmt::format("{}: expected an object", at));
      LockRecord rec;
      rec.kind = text(l, "kind", at);
      rec.location = read_location(object_field(l, "location", at), child(at, "location"));
      rec.acquisitions = number(l, "acquisitions", at);
      rec.timed = number(l, "timed", at);
      rec.wait_ns = number(l, "wait_ns", at);
      rec.wait_estimate_ns = number(l, "wait_estimate_ns", at);
      rec.fastest_ns = number(l, "fastest_ns", at);
      if (rec.timed > rec.acquisitions) {
        throw FieldError(fmt::format("{}: timed ({}) exceeds acquisitions ({})", at, rec.timed,
                                     rec.acquisitions));
      }
      region.locks.push_back(rec);
    }
  }
  if (const json* loops = array(r, "loops", where)) {
    for (std::size_t i = 0; i < loops->size(); ++i) {
      const std::string at = fmt::format("{}.loops[{}]", where, i);
      if (!(*loops)[i].is_object()) throw FieldError(fmt::format("{}: expected an object", at));
      region.loops.push_back({read_schedule((*loops)[i], at), number((*loops)[i], "executions", at)});
    }
  }
  if (const json* constructs = array(r, "constructs", where)) {
    for (std::size_t i = 0; i < constructs->size(); ++i) {
      region.constructs.push_back(
          read_construct((*constructs)[i], fmt::format("{}.constructs[{}]", where, i)));
    }
  }
  if (const json* tasks = object_field(r, "tasks", where)) {
    region.tasks_created = number(*tasks, "created", child(where, "tasks"));
    region.tasks_executed = number(*tasks, "executed", child(where, "tasks"));
  }
  return region;
}

Profile read_profile(const json& p) {
  if (!p.is_object()) {
    throw FieldError(fmt::format("profile: expected an object or null, got {}", type_name(p)));
  }
  const std::string format = text(p, "format", "profile");
  if (format != "ompscan-profile-1") {
    throw FieldError(fmt::format("profile.format is '{}', expected ompscan-profile-1", format));
  }
  Profile profile;
  profile.tool_version = text(p, "tool_version", "profile");
  profile.runtime_version = text(p, "runtime_version", "profile");
  profile.process_ns = number(p, "process_ns", "profile");
  profile.max_threads = integer(p, "max_threads", "profile", 0);
  if (const json* s = object_field(p, "sampling", "profile")) {
    profile.sampling_policy = text(*s, "policy", "profile.sampling");
    profile.estimator = text(*s, "estimator", "profile.sampling");
    profile.dropped_events = number(*s, "dropped_events", "profile.sampling");
    profile.buffer_full_events = number(*s, "buffer_full_events", "profile.sampling");
  }
  const json* regions = array(p, "regions", "profile");
  if (regions == nullptr) throw FieldError("profile.regions: missing");
  for (std::size_t i = 0; i < regions->size(); ++i) {
    profile.regions.push_back(read_region((*regions)[i], fmt::format("profile.regions[{}]", i)));
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

std::string schedule_words(const std::string& schedule, double chunk,
                           const std::string* omp_schedule) {
  std::string out = schedule;
  if (chunk > 0.0) out += fmt::format(",{:.0f}", chunk);
  if (schedule == "runtime" && omp_schedule != nullptr && !omp_schedule->empty()) {
    out += fmt::format(" (OMP_SCHEDULE={})", *omp_schedule);
  }
  return out;
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

RunFile parse_run_file(std::string_view content, const std::string& path) {
  json doc;
  try {
    doc = json::parse(content);
  } catch (const json::parse_error& e) {
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at ...": keep the position.
    std::string what = e.what();
    const auto at = what.find("parse error");
    throw InputError(path, 0, "not JSON: " + (at == std::string::npos ? what : what.substr(at)));
  }
  try {
    if (!doc.is_object())
      throw FieldError("not an ompscan run file: the top level is not an object");
    const std::string format = text(doc, "format", "");
    if (format != "ompscan-run-1") {
      throw FieldError(fmt::format("not an ompscan run file: format is {}, expected ompscan-run-1",
                                   format.empty() ? std::string("missing") : "'" + format + "'"));
    }
    RunFile run;
    run.path = path;
    run.run_id = text(doc, "run_id", "");
    if (run.run_id.empty()) run.run_id = std::filesystem::path(path).stem().string();
    if (const json* command = array(doc, "command", "")) {
      for (const json& arg : *command) {
        if (arg.is_string()) run.command.push_back(arg.get<std::string>());
      }
    }
    require(doc, "threads", "");
    run.threads = integer(doc, "threads", "", 0);
    if (run.threads < 1)
      throw FieldError(fmt::format("threads: {} is not a thread count", run.threads));
    run.input = text(doc, "input", "");
    run.input_index = integer(doc, "input_index", "", 0);
    run.repetition = integer(doc, "repetition", "", 0);
    if (const json* o = find(doc, "oversubscribed"); o != nullptr && o->is_boolean()) {
      run.oversubscribed = o->get<bool>();
    }
    const std::string status = text(doc, "status", "");
    if (status != "ok" && status != "failed") {
      throw FieldError(fmt::format("status: '{}' is neither ok nor failed", status));
    }
    run.failed = status == "failed";
    run.exit_status = optional_integer(doc, "exit_status", "");
    run.signal = optional_integer(doc, "signal", "");
    run.wall_ns = number(doc, "wall_ns", "");
    if (const json* cpu = object_field(doc, "cpu", "")) {
      run.cpu_ns = number(*cpu, "user_ns", "cpu") + number(*cpu, "system_ns", "cpu");
    }
    if (const json* runtime = object_field(doc, "runtime", "")) {
      run.runtime_library = text(*runtime, "library", "runtime");
      if (const json* g = find(*runtime, "gomp_abi"); g != nullptr && g->is_boolean()) {
        run.gomp_abi = g->get<bool>();
      }
    }
    if (const json* n = find(doc, "native"); n != nullptr && n->is_boolean()) {
      run.native = n->get<bool>();
    }
    if (const json* sharing = object_field(doc, "time_sharing", "")) {
      if (const json* t = find(*sharing, "time_shared"); t != nullptr && t->is_boolean()) {
        run.time_shared = t->get<bool>();
      }
      run.time_sharing_reason = text(*sharing, "reason", "time_sharing");
    }
    run.profile_error = text(doc, "profile_error", "");
    if (const json* profile = find(doc, "profile"); profile != nullptr && !profile->is_null()) {
      run.profile = read_profile(*profile);
    }
    run.requested_threads = run.threads;
    run.threads = observed_threads(run);
    return run;
  } catch (const FieldError& e) {
    throw InputError(path, 0, e.what());
  } catch (const json::exception& e) {
    throw InputError(path, 0, e.what());
  }
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
