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

namespace {

// "threads_64_size_27": a point of several parameters in a column name.
std::string point_label(const std::vector<std::string>& names, const std::vector<double>& x,
                        std::size_t first) {
  std::string out;
  for (std::size_t d = first; d < names.size() && d < x.size() + first; ++d) {
    if (!out.empty()) out += '_';
    out += fmt::format("{}_{}", names[d], param_label(x[d - first]));
  }
  return out;
}

template <typename T, typename Key>
std::vector<std::vector<double>> distinct(const std::vector<MultiResult>& results, T member,
                                          Key key) {
  std::vector<std::vector<double>> out;
  for (const MultiResult& r : results) {
    for (const auto& item : r.*member) out.push_back(key(item));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void add_multi_terms(std::vector<std::string>& row, const MultiModel& model, std::size_t groups,
                     std::size_t parameters) {
  for (std::size_t k = 0; k < groups; ++k) {
    if (k >= model.terms.size()) {
      row.insert(row.end(), 1 + 2 * parameters, std::string());
      continue;
    }
    const MultiTerm& term = model.terms[k];
    row.push_back(number_cell(term.coefficient));
    for (std::size_t d = 0; d < parameters; ++d) {
      const auto f = std::find_if(term.factors.begin(), term.factors.end(),
                                  [&](const Factor& factor) { return factor.parameter == d; });
      row.push_back(f == term.factors.end() ? std::string() : number_cell(f->shape.exponent));
      row.push_back(f == term.factors.end() ? std::string()
                                            : fmt::format("{}", f->shape.log_exponent));
    }
  }
}

}  // namespace

std::string format_multi_csv(const Dataset& dataset, const std::vector<MultiResult>& results) {
  const std::vector<std::string> names = dataset.parameter_names();
  std::size_t term_groups = kMinTermGroups;
  for (const MultiResult& r : results) term_groups = std::max(term_groups, r.model.terms.size());
  const auto predicted =
      distinct(results, &MultiResult::predictions, [](const MultiPrediction& p) { return p.at; });
  const auto budgets =
      distinct(results, &MultiResult::budgets, [](const MultiBudget& b) { return b.others; });

  std::vector<std::string> header = dataset.key_columns;
  for (const char* column : {"class", "model", "constant"}) header.emplace_back(column);
  for (std::size_t k = 1; k <= term_groups; ++k) {
    header.push_back(fmt::format("term{}_coefficient", k));
    for (const std::string& name : names) {
      header.push_back(fmt::format("term{}_{}_exponent", k, name));
      header.push_back(fmt::format("term{}_{}_log_exponent", k, name));
    }
  }
  for (const char* column : {"adjusted_r2", "smape", "cv_error", "rss", "points"})
    header.emplace_back(column);
  for (const auto& at : predicted) header.push_back("predicted_" + point_label(names, at, 0));
  if (!budgets.empty()) header.emplace_back("budget");
  for (const auto& others : budgets)
    header.push_back(fmt::format("budget_{}_{}", names.front(), point_label(names, others, 1)));

  std::string out = csv_line(header);
  for (const MultiResult& r : results) {
    std::vector<std::string> row = io_detail::key_values(dataset, dataset.kernels.at(r.kernel));
    row.push_back(r.thread_class);
    row.push_back(r.model.to_string(names, 17));
    row.push_back(number_cell(r.model.constant));
    add_multi_terms(row, r.model, term_groups, names.size());
    for (double v : {r.stats.adjusted_r2, r.stats.smape, r.stats.cv_error, r.stats.rss})
      row.push_back(number_cell(v));
    row.push_back(fmt::format("{}", r.points.size()));
    for (const auto& at : predicted) {
      const auto it = std::find_if(r.predictions.begin(), r.predictions.end(),
                                   [&](const MultiPrediction& p) { return p.at == at; });
      row.push_back(it == r.predictions.end() ? std::string() : number_cell(it->value));
    }
    if (!budgets.empty())
      row.push_back(r.budgets.empty() ? std::string()
                                      : number_cell(r.budgets.front().crossing.budget));
    for (const auto& others : budgets) {
      const auto it = std::find_if(r.budgets.begin(), r.budgets.end(),
                                   [&](const MultiBudget& b) { return b.others == others; });
      row.push_back(it == r.budgets.end() ? std::string() : number_cell(it->crossing.threads));
    }
    out += csv_line(row);
  }
  return out;
}

}  // namespace ompscale::modeler
