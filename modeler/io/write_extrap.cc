#include "modeler/io/write_extrap.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <utility>

#include "common/error.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

using io_detail::format_exact;

// Extra-P reads one line per keyword: control characters must not split or garble a name.
std::string single_line(std::string_view text) {
  std::string out(text);
  std::replace_if(
      out.begin(), out.end(),
      [](char c) { return c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'; }, ' ');
  return out;
}

// "POINTS ( 1 ) ( 2 )", or with several parameters "POINTS ( 1 27 ) ( 2 27 )".
std::string points_line(const Kernel& kernel) {
  std::string out = "POINTS";
  for (std::size_t point = 0; point < kernel.size(); ++point) {
    out += " (";
    for (std::size_t d = 0; d < kernel.dimensions(); ++d)
      out += ' ' + format_exact(kernel.coordinate(point, d));
    out += " )";
  }
  return out + "\n";
}

// "1,2,4", or with several parameters "(1 27),(2 27)", for messages.
std::string points_text(const Kernel& kernel) {
  if (kernel.dimensions() == 1) return fmt::format("{}", fmt::join(kernel.params(), ","));
  std::vector<std::string> points;
  for (std::size_t point = 0; point < kernel.size(); ++point) {
    std::vector<double> x;
    for (std::size_t d = 0; d < kernel.dimensions(); ++d) x.push_back(kernel.coordinate(point, d));
    points.push_back(fmt::format("({})", fmt::join(x, " ")));
  }
  return fmt::format("{}", fmt::join(points, ","));
}

bool same_points(const Kernel& a, const Kernel& b) {
  if (a.size() != b.size() || a.dimensions() != b.dimensions()) return false;
  for (std::size_t point = 0; point < a.size(); ++point) {
    for (std::size_t d = 0; d < a.dimensions(); ++d) {
      if (a.coordinate(point, d) != b.coordinate(point, d)) return false;
    }
  }
  return true;
}

}  // namespace

std::string format_extrap_text(const Dataset& dataset) {
  if (dataset.kernels.empty()) throw UsageError("no kernels to export in Extra-P format");

  const Kernel& first = dataset.kernels.front();
  if (first.empty()) throw UsageError("no measurements to export in Extra-P format");
  for (const Kernel& kernel : dataset.kernels) {
    if (same_points(kernel, first)) continue;
    throw UsageError(fmt::format(
        "cannot export to Extra-P text: kernels '{}' and '{}' were measured at different {} values "
        "({} and {}), and an Extra-P file has one list of points; export each class or subset of "
        "kernels that shares its points separately",
        io_detail::kernel_label(dataset, first), io_detail::kernel_label(dataset, kernel),
        fmt::join(dataset.parameter_names(), ","), points_text(first), points_text(kernel)));
  }

  const std::size_t metric_column = io_detail::key_column_index(dataset, "metric");
  // Metrics in order of first appearance, each with its kernels' regions.
  std::vector<std::string> metrics;
  std::map<std::string, std::vector<std::pair<std::string, const Kernel*>>> regions_by_metric;
  std::set<std::pair<std::string, std::string>> seen;
  for (const Kernel& kernel : dataset.kernels) {
    std::string metric = "value";
    std::vector<std::string_view> region_parts;
    for (std::size_t c = 0; c < dataset.key_columns.size(); ++c) {
      const std::string_view value = kernel.key_value(c);
      if (c == metric_column) {
        if (!value.empty()) metric = single_line(value);
      } else if (!value.empty()) {
        region_parts.push_back(value);
      }
    }
    std::string region = region_parts.empty()
                             ? std::string("all")
                             : single_line(fmt::format("{}", fmt::join(region_parts, "/")));
    if (!seen.emplace(metric, region).second) {
      throw UsageError(fmt::format(
          "cannot export to Extra-P text: two kernels become METRIC '{}' REGION '{}' (for example "
          "'{}'); select fewer kernels or make their keys differ in non-empty values",
          metric, region, io_detail::kernel_label(dataset, kernel)));
    }
    auto [it, inserted] = regions_by_metric.try_emplace(metric);
    if (inserted) metrics.push_back(metric);
    it->second.emplace_back(std::move(region), &kernel);
  }

  std::string out = "PARAMETER";
  for (const std::string& name : dataset.parameter_names()) out += ' ' + single_line(name);
  out += '\n' + points_line(first);
  for (const std::string& metric : metrics) {
    out += fmt::format("\nMETRIC {}\n", metric);
    for (const auto& [region, kernel] : regions_by_metric[metric]) {
      out += fmt::format("REGION {}\n", region);
      for (std::size_t point = 0; point < kernel->size(); ++point) {
        out += "DATA";
        for (double value : kernel->repetitions(point)) {
          out += ' ';
          out += format_exact(value);
        }
        out += '\n';
      }
    }
  }
  return out;
}

}  // namespace ompscale::modeler
