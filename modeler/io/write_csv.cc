#include "modeler/io/write_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/csv.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

using io_detail::format_exact;

// Term column groups every row has, so the schema does not depend on the models in the file.
constexpr std::size_t kMinTermGroups = 3;

// Empty for NaN: spreadsheets and data frames read an empty cell as missing, "nan" as text.
std::string number_cell(double value) {
  return std::isnan(value) ? std::string() : format_exact(value);
}
std::string number_cell(const std::optional<double>& value) {
  return value ? number_cell(*value) : std::string();
}
std::string bool_cell(bool value) {
  return value ? "1" : "0";
}

// Parameter values as they appear in column names: "256", "0.5".
std::string param_label(double param) {
  return format_exact(param);
}

}  // namespace

std::string format_models_csv(const Dataset& dataset, const std::vector<KernelResult>& results) {
  std::size_t term_groups = kMinTermGroups;
  std::vector<double> predicted_params;
  bool has_budget = false;
  for (const KernelResult& result : results) {
    for (const ClassModel& m : result.models) {
      term_groups = std::max(term_groups, m.model.terms.size());
      for (const Prediction& p : m.predictions) predicted_params.push_back(p.param);
      has_budget |= m.budget.has_value();
    }
  }
  std::sort(predicted_params.begin(), predicted_params.end());
  predicted_params.erase(std::unique(predicted_params.begin(), predicted_params.end()),
                         predicted_params.end());

  std::vector<std::string> header = dataset.key_columns;
  for (const char* column : {"class", "model", "constant"}) header.emplace_back(column);
  for (std::size_t k = 1; k <= term_groups; ++k) {
    header.push_back(fmt::format("term{}_coefficient", k));
    header.push_back(fmt::format("term{}_exponent", k));
    header.push_back(fmt::format("term{}_log_exponent", k));
  }
  for (const char* column : {"adjusted_r2", "smape", "cv_error", "rss", "growth", "valid",
                             "worse_than_log", "noise_dominates", "no_model"}) {
    header.emplace_back(column);
  }
  for (double param : predicted_params) {
    const std::string base = fmt::format("predicted_{}_{}", dataset.parameter, param_label(param));
    header.push_back(base);
    header.push_back(base + "_low");
    header.push_back(base + "_high");
  }
  if (has_budget) {
    for (const char* column : {"budget", "budget_base_param", "budget_threads",
                               "budget_threads_early", "budget_threads_late"}) {
      header.emplace_back(column);
    }
  }

  std::string out = csv_line(header);
  for (const KernelResult& result : results) {
    const std::vector<std::string> key =
        io_detail::key_values(dataset, io_detail::kernel_of(dataset, result));
    for (const ClassModel& m : result.models) {
      std::vector<std::string> row = key;
      row.push_back(m.thread_class);
      // No model: an empty model cell, and the reason in the last column.
      row.push_back(m.has_model() ? m.model.to_string(dataset.parameter) : std::string());
      row.push_back(number_cell(m.model.constant));
      for (std::size_t k = 0; k < term_groups; ++k) {
        if (k < m.model.terms.size()) {
          const Term& term = m.model.terms[k];
          row.push_back(number_cell(term.coefficient));
          row.push_back(number_cell(term.shape.exponent));
          row.push_back(fmt::format("{}", term.shape.log_exponent));
        } else {
          row.insert(row.end(), 3, std::string());
        }
      }
      row.push_back(number_cell(m.stats.adjusted_r2));
      row.push_back(number_cell(m.stats.smape));
      row.push_back(number_cell(m.stats.cv_error));
      row.push_back(number_cell(m.stats.rss));
      row.emplace_back(to_string(m.growth));
      row.push_back(bool_cell(m.valid));
      row.push_back(bool_cell(m.worse_than_log));
      row.push_back(bool_cell(m.noise_dominates));
      row.push_back(m.no_model);
      for (double param : predicted_params) {
        const auto it = std::find_if(m.predictions.begin(), m.predictions.end(),
                                     [&](const Prediction& p) { return p.param == param; });
        if (it == m.predictions.end()) {
          row.insert(row.end(), 3, std::string());
        } else {
          row.push_back(number_cell(it->value));
          row.push_back(number_cell(it->interval.low));
          row.push_back(number_cell(it->interval.high));
        }
      }
      if (has_budget) {
        if (m.budget) {
          row.push_back(number_cell(m.budget->budget));
          row.push_back(m.budget->base ? number_cell(m.budget->base->param) : std::string());
          row.push_back(number_cell(m.budget->threads));
          row.push_back(number_cell(m.budget->threads_early));
          row.push_back(number_cell(m.budget->threads_late));
        } else {
          row.insert(row.end(), 5, std::string());
        }
      }
      out += csv_line(row);
    }
  }
  return out;
}

}  // namespace ompscale::modeler
