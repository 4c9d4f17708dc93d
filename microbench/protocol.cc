#include "microbench/protocol.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "common/text.h"

namespace ompscale::microbench {

namespace {

// `text` as a number into `value`; false (and `value` as it was) otherwise.
bool assign_double(const std::string& text, double& value) {
  const auto parsed = ompscale::parse_double(text);
  if (parsed) value = *parsed;
  return parsed.has_value();
}

bool parse_int_list(const std::string& text, std::vector<std::int64_t>& values) {
  values.clear();
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const std::optional<long long> value = parse_integer(item, INT64_MIN, INT64_MAX);
    if (!value) return false;
    values.push_back(*value);
  }
  return !values.empty();
}

// `value` as a whole number in [min, INT_MAX] into `field`; false (and `field` as it was)
// otherwise.
bool set_int_from(const std::string& value, long long min, int& field) {
  const std::optional<long long> number = parse_integer(value, min, INT_MAX);
  if (number) field = static_cast<int>(*number);
  return number.has_value();
}

// The worker links no formatting library: the message is put together by hand.
[[noreturn]] void throw_bad_field(const std::vector<std::string>& fields, std::size_t index,
                                  const char* expected) {
  std::string record;
  for (const std::string& field : fields) record += (record.empty() ? "" : "\t") + field;
  throw std::runtime_error("worker record '" + record + "': field " + std::to_string(index) +
                           " is not " + expected);
}

int record_int(const std::vector<std::string>& fields, std::size_t index) {
  if (const auto v = parse_integer(fields[index], INT_MIN, INT_MAX)) return static_cast<int>(*v);
  throw_bad_field(fields, index, "an integer");
}

double record_double(const std::vector<std::string>& fields, std::size_t index) {
  if (const auto v = ompscale::parse_double(fields[index])) return *v;
  throw_bad_field(fields, index, "a number");
}

}  // namespace

WorkerRecord parse_record(const std::string& line) {
  const std::vector<std::string> f = split(line, '\t');
  const std::string& kind = f[0];
  if (kind == "sample" && f.size() == 6) {
    return SampleRecord{record_int(f, 1), f[2], record_int(f, 3), record_double(f, 4), f[5] == "1"};
  }
  if (kind == "unavailable" && f.size() >= 3) return UnavailableRecord{record_int(f, 1), f[2]};
  if (kind == "end" && f.size() == 7) {
    return EndRecord{record_int(f, 1), std::max(record_double(f, 2), record_double(f, 3)),
                     std::max(record_double(f, 4), record_double(f, 5))};
  }
  if (kind == "runtime" && f.size() == 6) {
    return RuntimeRecord{f[1], f[2], f[3], f[4], record_int(f, 5)};
  }
  if (kind == "build" && f.size() == 2) return BuildRecord{f[1]};
  if (kind == "clock" && f.size() == 6) {
    return ClockRecord{f[1], f[2] == "1", record_double(f, 3), record_double(f, 4),
                       record_double(f, 5)};
  }
  if (kind == "calibration" || kind == "causality" || kind == "window") {
    return DiagnosticRecord{kind, std::vector<std::string>(f.begin() + 1, f.end())};
  }
  return std::monostate{};
}

bool apply_option(Job& job, const std::string& name, const std::string& value) {
  if (name == "epcc.delay_us") return assign_double(value, job.epcc.delay_us);
  if (name == "epcc.test_time_us") return assign_double(value, job.epcc.test_time_us);
  if (name == "epcc.probes") return set_int_from(value, 1, job.epcc.probes);
  if (name == "epcc.warmup") return set_int_from(value, 0, job.epcc.warmup);
  if (name == "direct.warmup") return set_int_from(value, 0, job.direct.warmup);
  if (name == "direct.exchanges")
    return set_int_from(value, 1, job.direct.calibration.exchanges_per_batch);
  if (name == "direct.batches") return set_int_from(value, 2, job.direct.calibration.batches);
  if (name == "direct.skew_ticks") return parse_int_list(value, job.direct.skew_ticks);
  return false;
}

bool parse_job(const std::string& text, Job& job, std::string& error) {
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    auto fail = [&](const std::string& cause) {
      error = "line " + std::to_string(number) + ": " + cause;
      return false;
    };
    if (kind == "clock") {
      std::string source;
      std::string hz;
      fields >> source >> hz;
      if (source != "tsc" && source != "monotonic_raw")
        return fail("clock must be tsc or monotonic_raw");
      job.allow_tsc = source == "tsc";
      if (!assign_double(hz, job.ticks_per_second) || job.ticks_per_second < 0)
        return fail("clock needs a tick rate (0 = calibrate)");
    } else if (kind == "canary") {
      std::string value;
      fields >> value;
      if (!set_int_from(value, 0, job.canary_exchanges)) return fail("canary needs a count >= 0");
    } else if (kind == "option") {
      std::string name;
      std::string value;
      fields >> name >> value;
      if (!apply_option(job, name, value)) return fail("bad option '" + name + " " + value + "'");
    } else if (kind == "batch") {
      JobBatch batch;
      std::string id, method, threads, param, count, first;
      fields >> id >> batch.construct >> method >> threads >> param >> count >> first;
      if (!set_int_from(id, INT_MIN, batch.id)) return fail("batch id must be an integer");
      const ConstructInfo* construct = find_construct(batch.construct);
      if (construct == nullptr) return fail("unknown construct '" + batch.construct + "'");
      if (method == "direct" && construct->direct) {
        batch.method = Method::kDirect;
      } else if (method == "epcc" && construct->epcc) {
        batch.method = Method::kEpcc;
      } else {
        return fail("method '" + method + "' does not apply to " + batch.construct);
      }
      if (!set_int_from(threads, 1, batch.threads)) return fail("threads must be >= 1");
      batch.param_value = param == "-" ? "" : param;
      if (!set_int_from(count, 1, batch.count)) return fail("count must be >= 1");
      if (!set_int_from(first, 0, batch.first_rep)) return fail("first rep must be >= 0");
      job.batches.push_back(batch);
    } else {
      return fail("unknown item '" + kind + "'");
    }
  }
  return true;
}

std::string format_job(const Job& job, const std::string& options_text) {
  std::ostringstream out;
  out.precision(17);
  out << "clock " << (job.allow_tsc ? "tsc" : "monotonic_raw") << ' ' << job.ticks_per_second
      << '\n';
  out << "canary " << job.canary_exchanges << '\n';
  out << options_text;
  for (const JobBatch& b : job.batches)
    out << "batch " << b.id << ' ' << b.construct << ' ' << to_string(b.method) << ' ' << b.threads
        << ' ' << (b.param_value.empty() ? "-" : b.param_value) << ' ' << b.count << ' '
        << b.first_rep << '\n';
  return out.str();
}

}  // namespace ompscale::microbench
