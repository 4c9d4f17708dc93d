#pragma once
// models.csv: one row per (kernel, class) model, for spreadsheets and data frames
// (docs/output-formats.md, "CSV"). RFC 4180 quoting (common/csv.h).
//
//   construct,class,model,constant,term1_coefficient,term1_exponent,term1_log_exponent,...,
//   adjusted_r2,smape,cv_error,rss,growth,valid,worse_than_log,noise_dominates[,prediction columns]
//
// Term columns come in groups of three for three terms (more when a model has more terms), empty
// where a model has fewer. Exponents are written as decimal numbers (1.5, not 3/2, which
// spreadsheets read as a date); the model column keeps the fraction notation.

#include <string>
#include <vector>

#include "modeler/core/kernel.h"
#include "modeler/core/result.h"
#include "modeler/multi/multi_fit.h"

namespace ompscale::modeler {

/// The header and one row per model. When models carry predictions, one group of columns per
/// distinct predicted parameter value follows ("predicted_t_256", "..._low", "..._high"); when
/// any carries a budget crossing, the budget columns follow those. Numbers are written so they
/// read back exactly; cells without a value are empty.
std::string format_models_csv(const Dataset& dataset, const std::vector<KernelResult>& results);

/// Models over several parameters, one row per (kernel, class) model:
///
///   construct,class,model,constant,term1_coefficient,term1_threads_exponent,
///   term1_threads_log_exponent,term1_size_exponent,...,adjusted_r2,smape,cv_error,rss,points
///
/// then, when there are predictions, one column per predicted point
/// ("predicted_threads_64_size_27", no interval: the multi-parameter models carry none), and with
/// budgets "budget" and one column per combination of the other parameters
/// ("budget_threads_size_27"). A term's exponents are empty for a parameter it does not depend on.
std::string format_multi_csv(const Dataset& dataset, const std::vector<MultiResult>& results);

}  // namespace ompscale::modeler
