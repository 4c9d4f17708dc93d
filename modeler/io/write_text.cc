#include "modeler/io/write_text.h"

#include <fmt/format.h>

#include <cmath>
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

std::string model_table(const Dataset& dataset, const std::vector<KernelResult>& results,
                        const TextReportOptions& options, std::string& used_marks) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight,
                   Align::kRight, Align::kRight, Align::kLeft, Align::kLeft});
  table.add_row({"", "kernel", "class", "model", "adj.R2", "SMAPE%", "CV%", "growth", "flags"});
  for (const KernelResult& result : results) {
    const std::string label = kernel_label(dataset, kernel_of(dataset, result));
    if (result.models.empty()) {
      table.add_row({"", label, "-", "(no model)"});
      continue;
    }
    for (const ClassModel& model : result.models) {
      const std::string marks = marks_of(model);
      for (char mark : marks) {
        if (used_marks.find(mark) == std::string::npos) used_marks += mark;
      }
      table.add_row({marks, label, model.thread_class,
                     model.model.to_string(dataset.parameter, options.digits),
                     format_fixed(model.stats.adjusted_r2, 4), format_fixed(model.stats.smape, 2),
                     format_fixed(model.stats.cv_error, 2), std::string(to_string(model.growth)),
                     flags_of(model)});
    }
  }
  return table.render();
}

std::string legend(const std::string& used_marks) {
  std::string out;
  for (const Mark& mark : {kWorseThanLog, kInvalid, kNoisy}) {
    if (used_marks.find(mark.symbol) == std::string::npos) continue;
    out += fmt::format("  {} {}\n", mark.symbol, mark.meaning);
  }
  return out.empty() ? out : "Marks:\n" + out;
}

std::string predictions_section(const Dataset& dataset, const std::vector<KernelResult>& results) {
  TextTable table(
      {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kRight});
  table.add_row({"kernel", "class", dataset.parameter, "predicted", "interval", "level"});
  for (const KernelResult& result : results) {
    const std::string label = kernel_label(dataset, kernel_of(dataset, result));
    for (const ClassModel& model : result.models) {
      for (const Prediction& p : model.predictions) {
        table.add_row({label, model.thread_class, format_significant(p.param, 6),
                       format_significant(p.value, 4),
                       fmt::format("[{}, {}]", format_significant(p.interval.low, 4),
                                   format_significant(p.interval.high, 4)),
                       fmt::format("{}%", format_significant(p.level * 100.0, 3))});
      }
    }
  }
  return table.render("  ");
}

std::string format_threads(const std::optional<double>& threads) {
  return threads ? format_significant(*threads, 7) : std::string("never");
}

std::string budget_section(const Dataset& dataset, const std::vector<KernelResult>& results) {
  TextTable table({Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight,
                   Align::kRight, Align::kRight});
  table.add_row({"kernel", "class", "budget", "exceeded at", "earliest", "latest", "searched to"});
  for (const KernelResult& result : results) {
    const std::string label = kernel_label(dataset, kernel_of(dataset, result));
    for (const ClassModel& model : result.models) {
      if (!model.budget) continue;
      const BudgetCrossing& b = *model.budget;
      table.add_row({label, model.thread_class, format_significant(b.budget, 4),
                     format_threads(b.threads), format_threads(b.threads_early),
                     format_threads(b.threads_late), format_significant(b.search_limit, 7)});
    }
  }
  return table.render("  ");
}

}  // namespace

std::string format_text_report(const Dataset& dataset, const std::vector<KernelResult>& results,
                               const TextReportOptions& options) {
  std::string out;
  if (options.header) out += header_line(dataset) + "\n";

  std::string used_marks;
  out += model_table(dataset, results, options, used_marks);
  if (const std::string marks = legend(used_marks); !marks.empty()) out += "\n" + marks;

  bool has_predictions = false;
  bool has_budget = false;
  bool has_warnings = false;
  bool has_decisions = false;
  for (const KernelResult& result : results) {
    has_decisions |= !result.class_decision.empty();
    for (const ClassModel& model : result.models) {
      has_predictions |= !model.predictions.empty();
      has_budget |= model.budget.has_value();
      has_warnings |= !model.warnings.empty();
    }
  }

  if (has_predictions) {
    out += "\nPredictions (value and prediction interval):\n";
    out += predictions_section(dataset, results);
  }
  if (has_budget) {
    // "earliest"/"latest" are where the interval's upper/lower bound crosses the budget.
    out += fmt::format(
        "\nBudget crossings (smallest {} at which the predicted cost exceeds the budget; earliest "
        "and latest from the prediction interval):\n",
        dataset.parameter);
    out += budget_section(dataset, results);
  }
  if (has_warnings) {
    out += "\nWarnings:\n";
    for (const KernelResult& result : results) {
      const std::string label = kernel_label(dataset, kernel_of(dataset, result));
      for (const ClassModel& model : result.models) {
        for (const std::string& warning : model.warnings) {
          out += fmt::format("  {} [{}]: {}\n", label, model.thread_class, warning);
        }
      }
    }
  }
  if (has_decisions) {
    out += "\nClass decisions:\n";
    for (const KernelResult& result : results) {
      if (result.class_decision.empty()) continue;
      out += fmt::format("  {}: {}\n", kernel_label(dataset, kernel_of(dataset, result)),
                         result.class_decision);
    }
  }
  return out;
}

}  // namespace ompscale::modeler
