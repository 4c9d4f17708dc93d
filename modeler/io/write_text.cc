#include "modeler/io/write_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <string_view>

#include "common/error.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

using io_detail::format_fixed;
using io_detail::format_significant;
using io_detail::kernel_label;
using io_detail::kernel_of;
using io_detail::TextTable;
using Align = TextTable::Align;

// The marks at the start of a model row; legend order.
struct Mark {
  char symbol;
  std::string_view meaning;
};
constexpr Mark kWorseThanLog{'!', "grows faster than logarithmic"};
constexpr Mark kInvalid{'?', "invalid: adjusted R^2 below the validity threshold"};
constexpr Mark kNoisy{'~', "noise dominates: competing hypotheses fit about as well"};

std::string marks_of(const ClassModel& model) {
  std::string marks;
  if (model.worse_than_log) marks += kWorseThanLog.symbol;
  if (!model.valid) marks += kInvalid.symbol;
  if (model.noise_dominates) marks += kNoisy.symbol;
  return marks;
}

// The noisiest point's coefficient of variation across repetitions, in percent.
double largest_cv(const ClassModel& model) {
  double cv = 0.0;
  for (const PointSummary& point : model.points) cv = std::max(cv, point.cv);
  return 100.0 * cv;
}

std::string flags_of(const ClassModel& model) {
  std::vector<std::string_view> flags;
  if (model.worse_than_log) flags.push_back("worse-than-log");
  if (!model.valid) flags.push_back("invalid");
  if (model.noise_dominates) flags.push_back("noisy");
  std::string out = fmt::format("{}", fmt::join(flags, ","));
  if (!model.warnings.empty()) {
    if (!out.empty()) out += ',';
    out +=
        fmt::format("{} warning{}", model.warnings.size(), model.warnings.size() == 1 ? "" : "s");
  }
  return out;
}

std::string header_line(const Dataset& dataset) {
  const std::string sources = dataset.sources.empty()
                                  ? std::string("(no source)")
                                  : fmt::format("{}", fmt::join(dataset.sources, ", "));
  return fmt::format("Models over {} from {} (ompscale {})\n", dataset.parameter, sources,
                     version_string());
}

std::string legend(const std::string& used_marks) {
  std::string out;
  for (const Mark& mark : {kWorseThanLog, kInvalid, kNoisy}) {
    if (used_marks.find(mark.symbol) == std::string::npos) continue;
    out += fmt::format("  {} {}\n", mark.symbol, mark.meaning);
  }
  return out.empty() ? out : "Marks:\n" + out;
}

std::string format_threads(const std::optional<double>& threads) {
  return threads ? format_significant(*threads, 7) : std::string("never");
}

TextTable model_table() {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight,
                   Align::kRight, Align::kRight, Align::kRight, Align::kLeft, Align::kLeft});
  table.add_row(
      {"", "kernel", "class", "model", "adj.R2", "SMAPE%", "xval%", "noise%", "growth", "flags"});
  return table;
}

TextTable predictions_table(const Dataset& dataset) {
  TextTable table(
      {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kRight});
  table.add_row({"kernel", "class", dataset.parameter, "predicted", "interval", "level"});
  return table;
}

TextTable budget_table() {
  TextTable table({Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight,
                   Align::kRight, Align::kRight});
  table.add_row({"kernel", "class", "budget", "exceeded at", "earliest", "latest", "searched to"});
  return table;
}

}  // namespace

TextReport::TextReport(const Dataset& dataset, const TextReportOptions& options)
    : dataset_(dataset),
      options_(options),
      models_(model_table()),
      predictions_(predictions_table(dataset)),
      budgets_(budget_table()) {
  // One row per kernel (more with classes): the key, a model and a few numbers.
  models_.reserve(dataset.kernels.size() + 1, 64 + 2 * dataset.key_columns.size() * 12);
}

void TextReport::add(const KernelResult& result) {
  const std::string label = kernel_label(dataset_, kernel_of(dataset_, result));
  if (result.models.empty()) models_.add_row({"", label, "-", "(no model)"});
  for (const ClassModel& model : result.models) {
    const std::string marks = marks_of(model);
    for (char mark : marks) {
      if (used_marks_.find(mark) == std::string::npos) used_marks_ += mark;
    }
    models_.add_row({marks, label, model.thread_class,
                     model.model.to_string(dataset_.parameter, options_.digits),
                     format_fixed(model.stats.adjusted_r2, 4), format_fixed(model.stats.smape, 2),
                     format_fixed(model.stats.cv_error, 2), format_fixed(largest_cv(model), 1),
                     std::string(to_string(model.growth)), flags_of(model)});
    for (const Prediction& p : model.predictions) {
      predictions_.add_row({label, model.thread_class, format_significant(p.param, 6),
                            format_significant(p.value, 4),
                            fmt::format("[{}, {}]", format_significant(p.interval.low, 4),
                                        format_significant(p.interval.high, 4)),
                            fmt::format("{}%", format_significant(p.level * 100.0, 3))});
    }
    if (model.budget) {
      const BudgetCrossing& b = *model.budget;
      budgets_.add_row({label, model.thread_class, format_significant(b.budget, 4),
                        format_threads(b.threads), format_threads(b.threads_early),
                        format_threads(b.threads_late), format_significant(b.search_limit, 7)});
    }
    for (const std::string& warning : model.warnings) {
      warnings_ += fmt::format("  {} [{}]: {}\n", label, model.thread_class, warning);
    }
  }
  if (!result.class_decision.empty()) {
    decisions_ += fmt::format("  {}: {}\n", label, result.class_decision);
  }
}

void TextReport::write(std::ostream& out) const {
  if (options_.header) out << header_line(dataset_) << '\n';
  models_.render_to(out);
  if (const std::string marks = legend(used_marks_); !marks.empty()) out << '\n' << marks;
  if (predictions_.rows() > 1) {
    out << "\nPredictions (value and prediction interval):\n";
    predictions_.render_to(out, "  ");
  }
  if (budgets_.rows() > 1) {
    // "earliest"/"latest" are where the interval's upper/lower bound crosses the budget.
    out << fmt::format(
        "\nBudget crossings (smallest {} at which the predicted cost exceeds the budget; earliest "
        "and latest from the prediction interval):\n",
        dataset_.parameter);
    budgets_.render_to(out, "  ");
  }
  if (!warnings_.empty()) out << "\nWarnings:\n" << warnings_;
  if (!decisions_.empty()) out << "\nClass decisions:\n" << decisions_;
}

std::string TextReport::finish() const {
  std::ostringstream out;
  write(out);
  return std::move(out).str();
}

std::string format_text_report(const Dataset& dataset, const std::vector<KernelResult>& results,
                               const TextReportOptions& options) {
  TextReport report(dataset, options);
  for (const KernelResult& result : results) report.add(result);
  return report.finish();
}

}  // namespace ompscale::modeler
