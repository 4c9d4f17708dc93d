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

std::string points_line(std::span<const double> params) {
  std::string out = "POINTS";
  for (double p : params) out += fmt::format(" ( {} )", format_exact(p));
  return out + "\n";
}

}  // namespace

std::string format_extrap_text(const Dataset& dataset) {
  if (dataset.kernels.empty()) throw UsageError("no kernels to export in Extra-P format");

  const Kernel& first = dataset.kernels.front();
  if (first.empty()) throw UsageError("no measurements to export in Extra-P format");
  for (const Kernel& kernel : dataset.kernels) {
    if (std::ranges::equal(kernel.params(), first.params())) continue;
    throw UsageError(fmt::format(
        "cannot export to Extra-P text: kernels '{}' and '{}' were measured at different {} values "
        "({} and {}), and an Extra-P file has one list of points; export each class or subset of "
        "kernels that shares its points separately",
        io_detail::kernel_label(dataset, first), io_detail::kernel_label(dataset, kernel),
        dataset.parameter, fmt::join(first.params(), ","), fmt::join(kernel.params(), ",")));
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

  std::string out = fmt::format("PARAMETER {}\n", single_line(dataset.parameter));
  out += points_line(first.params());
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
