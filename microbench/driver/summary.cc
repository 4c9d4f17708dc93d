#include "microbench/driver/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "common/csv.h"
#include "common/error.h"
#include "common/statistics.h"
#include "common/text.h"

namespace ompscale::microbench {

namespace {

struct Series {
  std::vector<double> values;
  int invalid = 0;
  std::string unit;
};

// Configurations in the order people read them: fields that are numbers (threads, array sizes,
// chunks) by value, so 27 comes before 729 and 19683, and the rest as text.
struct NaturalOrder {
  bool operator()(const std::vector<std::string>& a, const std::vector<std::string>& b) const {
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i] == b[i]) continue;
      const std::optional<double> x = parse_double(a[i]), y = parse_double(b[i]);
      if (x && y && *x != *y) return *x < *y;
      if (x.has_value() != y.has_value()) return x.has_value();  // numbers before words
      return a[i] < b[i];
    }
    return a.size() < b.size();
  }
};

// One configuration's statistics, as the text table prints them.
struct TextRow {
  std::string label;  // the configuration without its thread count
  std::string threads;
  std::string numbers;  // n through inv
};

// The text table: one line per configuration, or, when that is wider than `width` (a terminal),
// each configuration's name on a line of its own above its thread counts' rows.
std::string render_text(const std::vector<TextRow>& rows, std::size_t width) {
  const std::string kNumbersHeader =
      fmt::format("{:>5} {:>10} {:>10} {:>10} {:>10} {:>9} {:>21} {:>4} {:>4}", "n", "mean",
                  "median", "min", "max", "sd", "95% CI of the mean", "out", "inv");
  std::size_t label_width = 44;
  for (const TextRow& r : rows) label_width = std::max(label_width, r.label.size());
  const std::size_t line_width = label_width + 5 + kNumbersHeader.size();
  std::string out;
  if (width == 0 || line_width <= width) {
    out += fmt::format("{:<{}} {:>3} {}\n", "configuration", label_width, "t", kNumbersHeader);
    for (const TextRow& r : rows)
      out += fmt::format("{:<{}} {:>3} {}\n", r.label, label_width, r.threads, r.numbers);
    return out;
  }
  out += fmt::format("configuration\n  {:>3} {}\n", "t", kNumbersHeader);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i].label != rows[i - 1].label) out += rows[i].label + "\n";
    out += fmt::format("  {:>3} {}\n", rows[i].threads, rows[i].numbers);
  }
  return out;
}

// The configuration columns, in the order the summary prints them.
constexpr const char* kKeyColumns[] = {"construct", "method", "metric",      "runtime", "bind",
                                       "places",    "param",  "param_value", "threads"};

}  // namespace

std::string summarize_results(const std::string& text, const std::string& file,
                              const SummaryOptions& options) {
  CsvReader reader(text, file);
  std::vector<std::string_view> fields;
  if (!reader.next(fields))
    throw InputError(file, 1, "empty file; expected an ompbench results CSV");
  std::vector<std::string> header(fields.begin(), fields.end());
  const auto column = [&](const char* name) -> std::size_t {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw InputError(file, 1,
                       fmt::format("no '{}' column; expected an ompbench results CSV", name));
    return static_cast<std::size_t>(it - header.begin());
  };
  std::vector<std::size_t> key_columns;
  for (const char* name : kKeyColumns) key_columns.push_back(column(name));
  const std::size_t value_column = column("value"), valid_column = column("valid"),
                    unit_column = column("unit");

  // Ordered by key so related configurations print together.
  std::map<std::vector<std::string>, Series, NaturalOrder> series;
  while (reader.next(fields)) {
    if (fields.size() != header.size())
      throw InputError(file, reader.line(),
                       fmt::format("expected {} fields, found {}", header.size(), fields.size()));
    std::vector<std::string> key;
    for (std::size_t c : key_columns) key.emplace_back(fields[c]);
    Series& s = series[key];
    s.unit = fields[unit_column];
    const bool valid = fields[valid_column] == "1";
    if (!valid) ++s.invalid;
    if (!valid && !options.include_invalid) continue;
    const std::string value(fields[value_column]);
    const double number = parse_double(value).value_or(std::nan(""));
    if (!std::isfinite(number))
      throw InputError(file, reader.line(), fmt::format("value '{}' is not a number", value));
    s.values.push_back(number);
  }

  std::string out;
  if (options.format == "csv") {
    for (const char* name : kKeyColumns) out += fmt::format("{},", name);
    out += "n,mean,median,min,max,sd,ci95_low,ci95_high,outliers,invalid,unit\n";
  }
  std::vector<TextRow> rows;
  for (const auto& [key, s] : series) {
    const std::size_t n = s.values.size();
    double mean = 0, median = 0, low = 0, high = 0, sd = 0, lo_ci = 0, hi_ci = 0;
    int outliers = 0;
    if (n > 0) {
      mean = stats::mean(s.values);
      median = stats::median(s.values);
      low = stats::min(s.values);
      high = stats::max(s.values);
      sd = n > 1 ? stats::stddev(s.values) : 0;
      double half = 0;
      if (n > 1) {
        const boost::math::students_t_distribution<double> student(static_cast<double>(n - 1));
        half = boost::math::quantile(student, 0.975) * sd / std::sqrt(static_cast<double>(n));
      }
      lo_ci = mean - half;
      hi_ci = mean + half;
      for (double v : s.values) outliers += std::abs(v - mean) > 3 * sd && sd > 0;
    }
    if (options.format == "csv") {
      std::string line;
      for (const std::string& k : key) line += csv_field(k) + ",";
      line += fmt::format("{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{}\n", n, mean,
                          median, low, high, sd, lo_ci, hi_ci, outliers, s.invalid, s.unit);
      out += line;
      continue;
    }
    std::string label = fmt::format("{} {} {} {} {}", key[0], key[1], key[2], key[3], key[4]);
    if (!key[7].empty()) label += fmt::format(" {}={}", key[6], key[7]);
    rows.push_back(
        {std::move(label), key[8],
         fmt::format("{:>5} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>9.4f} "
                     "[{:>9.4f},{:>9.4f}] {:>4} {:>4}",
                     n, mean, median, low, high, sd, lo_ci, hi_ci, outliers, s.invalid)});
  }
  if (options.format != "csv")
    out += render_text(rows, options.width) +
           wrap(std::string("times in the file's unit (us); out: values more than 3 sd from the "
                            "mean (EPCC's rule); inv: valid=0 values") +
                    (options.include_invalid ? " (included)" : " (excluded)"),
                options.width);
  return out;
}

}  // namespace ompscale::microbench
