#pragma once
// A history of many nights made from one real ompbench run (its results CSV and sidecar), for
// measuring ompdash at the scale of years: night n is a copy of the run with fresh noise (each
// configuration's valid values drawn again, with replacement, from its own valid values: the same
// distribution, steps of the clock included) and a night-to-night level jitter (all values of a
// configuration scaled by one factor exp(N(0, jitter)) drawn per night and configuration), dated
// n days after the start, run id "g" + date. Invalid rows stay as they were. The sidecar keeps what
// ompdash reads of the run's record (host, status, workers, environment, canaries), not the
// calibrations. bench/make_history writes such nights; bench/dash_scale ingests them one by one.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/output_file.h"
#include "common/text.h"

namespace ompscale::bench {

class NightHistory {
 public:
  /// Reads `results` (an ompbench results CSV) and `results`.meta.json when there is one. Throws
  /// std::runtime_error naming the file and line for what it cannot copy (a quoted field, a row
  /// with another number of fields, a valid value that is not a number).
  explicit NightHistory(const std::string& results);

  /// Night `n`'s date, "2026-01-01" + n days.
  static std::string date(int n);

  /// Writes night `n` as DIR/night-NNNN.csv (and its .meta.json); returns the CSV's path.
  /// `seed` and `n` fix the noise; `jitter` is the level jitter's standard deviation (log scale).
  std::string write_night(const std::filesystem::path& dir, int n, unsigned seed,
                          double jitter) const;

  std::size_t rows() const { return rows_.size(); }
  std::size_t configurations() const { return values_.size(); }

 private:
  struct Row {
    std::string_view line;
    std::uint32_t value_begin = 0, value_end = 0;  // the fields replaced each night, in order
    std::uint32_t run_begin = 0, run_end = 0;
    std::uint32_t time_begin = 0, time_end = 0;
    std::uint32_t configuration = 0;
    bool valid = false;
  };
  void read_header(std::string_view header, const std::string& file);
  void read_row(std::string_view line, std::size_t number, const std::string& file,
                std::map<std::string, std::uint32_t>& configurations);
  std::string sidecar(int n) const;

  std::string text_;
  std::vector<Row> rows_;
  std::vector<std::vector<double>> values_;  // valid values per configuration
  std::size_t columns_ = 0, value_ = 0, valid_ = 0, run_id_ = 0, timestamp_ = 0;
  std::vector<std::size_t> per_measurement_;  // columns left out of a configuration's key
  nlohmann::json record_;                     // the sidecar record, trimmed
};

inline NightHistory::NightHistory(const std::string& results) : text_(read_input(results)) {
  std::map<std::string, std::uint32_t> configurations;
  std::size_t number = 0, start = 0;
  while (start < text_.size()) {
    std::size_t end = text_.find('\n', start);
    if (end == std::string::npos) end = text_.size();
    std::string_view line(text_.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (number == 1) {
      read_header(line, results);
    } else if (!line.empty()) {
      read_row(line, number, results, configurations);
    }
    start = end + 1;
  }
  if (rows_.empty()) throw std::runtime_error(results + ": no rows to copy");
  const std::string sidecar_path = results + ".meta.json";
  if (std::filesystem::exists(sidecar_path)) {
    const nlohmann::json s = nlohmann::json::parse(read_input(sidecar_path));
    const nlohmann::json& r = s.at("runs").at(0);
    for (const char* field :
         {"status", "host", "ompscale_version", "command", "environment", "workers", "warnings"}) {
      if (r.contains(field)) record_[field] = r[field];
    }
    if (r.contains("noise")) {
      for (const char* field : {"reference_ns", "machine_typical_ns", "slow_factor", "canary_ns",
                                "compute_reference_ns"}) {
        if (r["noise"].contains(field)) record_["noise"][field] = r["noise"][field];
      }
    }
    if (record_.contains("workers")) {
      for (auto& [name, worker] : record_["workers"].items()) {
        nlohmann::json kept = nlohmann::json::object();
        for (const char* field :
             {"runtime", "runtime_version", "compiler", "library", "compiler_flags", "clock"}) {
          if (worker.contains(field)) kept[field] = worker[field];
        }
        worker = kept;
      }
    }
  }
}

inline void NightHistory::read_header(std::string_view header, const std::string& file) {
  const std::vector<std::string> names = split(header, ',');
  columns_ = names.size();
  const auto index = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    throw std::runtime_error(
        fmt::format("{}:1: no '{}' column (not an ompbench results file)", file, name));
  };
  value_ = index("value");
  valid_ = index("valid");
  run_id_ = index("run_id");
  timestamp_ = index("timestamp");
  if (!(value_ < run_id_ && run_id_ < timestamp_)) {
    throw std::runtime_error(file + ":1: expected the columns value, run_id, timestamp in order");
  }
  for (const char* name : {"rep", "value", "valid", "canary_ns", "run_id", "timestamp"}) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) per_measurement_.push_back(i);
    }
  }
}

inline void NightHistory::read_row(std::string_view line, std::size_t number,
                                   const std::string& file,
                                   std::map<std::string, std::uint32_t>& configurations) {
  if (line.find('"') != std::string_view::npos) {
    throw std::runtime_error(fmt::format("{}:{}: quoted fields are not copied", file, number));
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> fields;  // begin, end
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    fields.emplace_back(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  if (fields.size() != columns_) {
    throw std::runtime_error(
        fmt::format("{}:{}: {} fields, the header has {}", file, number, fields.size(), columns_));
  }
  const auto field = [&](std::size_t i) {
    return line.substr(fields[i].first, fields[i].second - fields[i].first);
  };
  std::string key;
  for (std::size_t i = 0; i < columns_; ++i) {
    if (std::find(per_measurement_.begin(), per_measurement_.end(), i) != per_measurement_.end())
      continue;
    key += field(i);
    key += '\x1f';
  }
  const auto [it, added] =
      configurations.emplace(key, static_cast<std::uint32_t>(configurations.size()));
  if (added) values_.emplace_back();
  Row row;
  row.line = line;
  row.value_begin = fields[value_].first, row.value_end = fields[value_].second;
  row.run_begin = fields[run_id_].first, row.run_end = fields[run_id_].second;
  row.time_begin = fields[timestamp_].first, row.time_end = fields[timestamp_].second;
  row.configuration = it->second;
  row.valid = field(valid_) == "1";
  if (row.valid) {
    const std::optional<double> value = parse_double(field(value_));
    if (!value || !std::isfinite(*value)) {
      throw std::runtime_error(
          fmt::format("{}:{}: a valid row's value is not a number", file, number));
    }
    values_[row.configuration].push_back(*value);
  }
  rows_.push_back(row);
}

inline std::string NightHistory::date(int n) {
  using namespace std::chrono;
  const year_month_day d{sys_days{year{2026} / January / 1} + days{n}};
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(d.year()),
                     static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()));
}

inline std::string NightHistory::sidecar(int n) const {
  nlohmann::json r = record_;
  const std::string stamp = date(n) + "T01:00:00Z";
  r["run_id"] = fmt::format("g{}", date(n));
  r["started"] = stamp;
  r["finished"] = stamp;
  if (!r.contains("status")) r["status"] = "complete";
  return nlohmann::json{{"format", "ompbench-sidecar-1"}, {"runs", {r}}}.dump() + "\n";
}

inline std::string NightHistory::write_night(const std::filesystem::path& dir, int n, unsigned seed,
                                             double jitter) const {
  std::mt19937_64 rng(seed * 1000003ull + static_cast<unsigned>(n));
  std::normal_distribution<double> level(0.0, jitter);
  std::vector<double> factor(values_.size());
  for (double& f : factor) f = std::exp(level(rng));
  const std::string run_id = fmt::format("g{}", date(n)), stamp = date(n) + "T01:00:00Z";
  const std::string_view header(text_.data(), text_.find('\n'));
  std::string out(header);
  out += '\n';
  out.reserve(text_.size() + text_.size() / 4);
  for (const Row& row : rows_) {
    const std::string_view l = row.line;
    out += l.substr(0, row.value_begin);
    if (row.valid) {
      const std::vector<double>& pool = values_[row.configuration];
      std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
      out += fmt::format("{:.6f}", pool[pick(rng)] * factor[row.configuration]);
    } else {
      out += l.substr(row.value_begin, row.value_end - row.value_begin);
    }
    out += l.substr(row.value_end, row.run_begin - row.value_end);
    out += run_id;
    out += l.substr(row.run_end, row.time_begin - row.run_end);
    out += stamp;
    out += l.substr(row.time_end);
    out += '\n';
  }
  const std::filesystem::path path = dir / fmt::format("night-{:04d}.csv", n);
  write_output(path.string(), out);
  if (!record_.is_null()) write_output(path.string() + ".meta.json", sidecar(n));
  return path.string();
}

}  // namespace ompscale::bench
