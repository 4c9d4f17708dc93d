#include "modeler/io/write_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <string_view>

#include "common/error.h"
#include "common/text.h"
#include "modeler/io/write_common.h"
#include "modeler/prediction/budget.h"

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

std::string header_line(const Dataset& dataset, std::size_t width) {
  const std::string sources = dataset.sources.empty()
                                  ? std::string("(no source)")
                                  : fmt::format("{}", fmt::join(dataset.sources, ", "));
  return wrap(fmt::format("Models over {} from {} (ompscale {})", dataset.parameter, sources,
                          version_string()),
              width, "", "  ");
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

// On a terminal the flags column is left out: the marks and the warnings say the same.
TextTable model_table(bool flags) {
  std::vector<Align> align{Align::kLeft,  Align::kLeft,  Align::kLeft,  Align::kLeft, Align::kRight,
                           Align::kRight, Align::kRight, Align::kRight, Align::kLeft};
  std::vector<std::string> header{"",       "kernel", "class",  "model", "adj.R2",
                                  "SMAPE%", "xval%",  "noise%", "growth"};
  if (flags) {
    align.push_back(Align::kLeft);
    header.emplace_back("flags");
  }
  TextTable table(std::move(align));
  table.add_row(header);
  return table;
}

TextTable predictions_table(const Dataset& dataset) {
  TextTable table(
      {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kLeft, Align::kRight});
  table.add_row({"kernel", "class", dataset.parameter, "predicted", "interval", "level"});
  return table;
}

std::string unit_of(const Dataset& dataset, const Kernel& kernel) {
  const std::size_t unit = io_detail::key_column_index(dataset, "unit");
  return unit < dataset.key_columns.size() ? std::string(kernel.key_value(unit)) : std::string();
}

}  // namespace

TextReport::TextReport(const Dataset& dataset, const TextReportOptions& options)
    : dataset_(dataset),
      options_(options),
      labels_(dataset, io_detail::all_kernels(dataset), options.width > 0),
      models_(model_table(options.width == 0)),
      predictions_(predictions_table(dataset)) {
  // One row per kernel (more with classes): the key, a model and a few numbers.
  models_.reserve(dataset.kernels.size() + 1, 64 + 2 * dataset.key_columns.size() * 12);
}

void TextReport::add_model_row(const std::string& label, const ClassModel& model) {
  const bool flags = options_.width == 0;
  if (!model.has_model()) {
    // Statistics of a model that does not exist would mislead: dashes.
    std::vector<std::string> row{"",
                                 label,
                                 model.thread_class,
                                 io_detail::no_model_text(model),
                                 "-",
                                 "-",
                                 "-",
                                 format_fixed(largest_cv(model), 1),
                                 "-"};
    if (flags) row.emplace_back("no model");
    models_.add_row(row);
    warnings_.add("no model: " + model.no_model, fmt::format("{} [{}]", label, model.thread_class));
    return;
  }
  const std::string marks = marks_of(model);
  for (char mark : marks) {
    if (used_marks_.find(mark) == std::string::npos) used_marks_ += mark;
  }
  std::vector<std::string> row{marks,
                               label,
                               model.thread_class,
                               model.model.to_string(dataset_.parameter, options_.digits),
                               format_fixed(model.stats.adjusted_r2, 4),
                               format_fixed(model.stats.smape, 2),
                               format_fixed(model.stats.cv_error, 2),
                               format_fixed(largest_cv(model), 1),
                               std::string(to_string(model.growth))};
  if (flags) row.push_back(flags_of(model));
  models_.add_row(row);
}

void TextReport::add(const KernelResult& result) {
  const Kernel& kernel = kernel_of(dataset_, result);
  const std::string label = labels_.label(kernel);
  if (result.models.empty()) models_.add_row({"", label, "-", "(no model)"});
  for (const ClassModel& model : result.models) {
    add_model_row(label, model);
    for (const Prediction& p : model.predictions) {
      const bool past = !p.boundaries.empty();
      past_boundary_ |= past;
      for (const std::string& boundary : p.boundaries) {
        warnings_.add(fmt::format("predicted past {}, which no measured {} crosses: the law may "
                                  "change there and the data cannot show how (the interval "
                                  "allows for it); measure one {} past it",
                                  boundary, dataset_.parameter, dataset_.parameter),
                      fmt::format("{} [{}]", label, model.thread_class));
      }
      predictions_.add_row({label, model.thread_class, format_significant(p.param, 6),
                            format_significant(p.value, 4) + (past ? " ^" : ""),
                            fmt::format("[{}, {}]", format_significant(p.interval.low, 4),
                                        format_significant(p.interval.high, 4)),
                            fmt::format("{}%", format_significant(p.level * 100.0, 3))});
    }
    if (model.budget) {
      budgets_.push_back({label, model.thread_class, *model.budget, unit_of(dataset_, kernel)});
    }
    for (const std::string& warning : model.warnings) {
      warnings_.add(warning, fmt::format("{} [{}]", label, model.thread_class));
    }
  }
  if (!result.class_decision.empty()) decisions_.add(result.class_decision, label);
}

void TextReport::write_budgets(std::ostream& out) const {
  if (budgets_.empty()) return;
  bool relative = false;
  std::vector<double> limits;
  for (const BudgetRow& row : budgets_) {
    relative |= row.crossing.base.has_value();
    if (std::find(limits.begin(), limits.end(), row.crossing.search_limit) == limits.end())
      limits.push_back(row.crossing.search_limit);
  }
  std::vector<Align> align{Align::kLeft, Align::kLeft, Align::kRight};
  std::vector<std::string> header{"kernel", "class", "budget"};
  if (relative) align.push_back(Align::kRight), header.emplace_back("relative to");
  for (const char* column : {"exceeded at", "earliest", "latest"})
    align.push_back(Align::kRight), header.emplace_back(column);
  if (limits.size() > 1) align.push_back(Align::kRight), header.emplace_back("searched to");
  TextTable table(std::move(align));
  table.add_row(header);
  for (const BudgetRow& row : budgets_) {
    const BudgetCrossing& b = row.crossing;
    std::vector<std::string> cells{
        row.label, row.thread_class,
        format_significant(b.budget, 4) + (row.unit.empty() ? "" : " " + row.unit)};
    if (relative) {
      cells.push_back(b.base ? fmt::format("{} at {}", format_significant(b.base->value, 4),
                                           format_significant(b.base->param, 6))
                             : std::string("-"));
    }
    for (const auto& t : {b.threads, b.threads_early, b.threads_late})
      cells.push_back(format_threads(t));
    if (limits.size() > 1) cells.push_back(format_significant(b.search_limit, 7));
    table.add_row(cells);
  }
  const std::string& t = dataset_.parameter;
  std::string intro = fmt::format(
      "Budget crossings: the smallest {} at which the predicted cost exceeds the budget; "
      "earliest and latest where the prediction interval's upper and lower bound exceed it",
      t);
  if (relative) {
    intro += fmt::format(
        ". A relative budget is a multiple of the cost at the smallest {} that costs {:g} or more "
        "times the data's resolution (the smallest step between repetitions)",
        t, kBaseResolutions);
  }
  if (limits.size() == 1)
    intro += fmt::format(". Searched up to {} {}", format_threads(limits[0]), t);
  out << '\n' << wrap(intro + ":", options_.width);
  table.render_to(out, "  ", options_.width, 0);
}

void TextReport::write(std::ostream& out) const {
  const std::size_t width = options_.width;
  if (options_.header) out << header_line(dataset_, width) << '\n';
  if (!dataset_.kernels.empty()) {
    if (const std::string shared = labels_.shared(dataset_.kernels.front()); !shared.empty())
      out << wrap("Every kernel has " + shared, width) << '\n';
  }
  models_.render_to(out, "", width, 1);
  if (const std::string marks = legend(used_marks_); !marks.empty()) out << '\n' << marks;
  if (!options_.learned.empty())
    out << "\nLearnt from this input:\n" << wrap(options_.learned, width, "  ", "  ");
  if (predictions_.rows() > 1) {
    out << "\nPredictions (value and prediction interval):\n";
    predictions_.render_to(out, "  ", width, 0);
    if (past_boundary_)
      out << wrap("  ^ past a topology boundary that no measured " + dataset_.parameter +
                      " crosses (Warnings)",
                  width, "", "    ");
  }
  write_budgets(out);
  // On a terminal a group names its first few subjects; a file names them all.
  const std::size_t named = width == 0 ? 0 : 3;
  if (!warnings_.empty()) out << "\nWarnings:\n" << warnings_.render(width, "  ", named);
  if (!decisions_.empty()) out << "\nClass decisions:\n" << decisions_.render(width, "  ", named);
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
