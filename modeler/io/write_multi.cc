#include "modeler/io/write_multi.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "common/error.h"
#include "common/json_input.h"
#include "common/message_groups.h"
#include "common/text.h"
#include "modeler/io/models_json.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

using io_detail::format_fixed;
using io_detail::format_significant;
using io_detail::TextTable;
using Align = TextTable::Align;
using Json = nlohmann::ordered_json;

// "x and y", "x, y and z".
std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

std::string header(const Dataset& dataset) {
  return fmt::format("Models over {} from {} (ompscale {})\n\n", listed(dataset.parameter_names()),
                     fmt::join(dataset.sources, ", "), version_string());
}

// Tables on a terminal put the key on its own line when they are too wide (TextTable).
std::string rendered(const TextTable& table, std::size_t width) {
  std::ostringstream out;
  table.render_to(out, "  ", width, 0);
  return std::move(out).str();
}

bool has_classes(const std::vector<MultiResult>& results) {
  return std::any_of(results.begin(), results.end(),
                     [](const MultiResult& r) { return r.thread_class != "all"; });
}

// "construct=copy", or with classes "construct=copy [po2]": a result's name in tables.
std::string result_label(const Dataset& dataset, const MultiResult& r,
                         const io_detail::KeyLabels& labels, bool classes) {
  const std::string label = labels.label(dataset.kernels.at(r.kernel));
  return classes ? fmt::format("{} [{}]", label, r.thread_class) : label;
}

std::string models_table(const Dataset& dataset, const std::vector<MultiResult>& results,
                         const io_detail::KeyLabels& labels, std::size_t width) {
  const bool classes = has_classes(results);
  std::vector<Align> align = {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight,
                              Align::kRight};
  std::vector<std::string> head = {"kernel", "model", "adj.R2", "SMAPE%", "points"};
  if (classes) {
    align.insert(align.begin() + 1, Align::kLeft);
    head.insert(head.begin() + 1, "class");
  }
  TextTable table(align);
  table.add_row(head);
  for (const MultiResult& r : results) {
    std::vector<std::string> row = {
        labels.label(dataset.kernels.at(r.kernel)), r.model.to_string(dataset.parameter_names(), 4),
        format_fixed(r.stats.adjusted_r2, 4), format_fixed(r.stats.smape, 2),
        std::to_string(r.points.size())};
    if (classes) row.insert(row.begin() + 1, r.thread_class);
    table.add_row(row);
  }
  return rendered(table, width);
}

std::string predictions_table(const Dataset& dataset, const std::vector<MultiResult>& results,
                              const io_detail::KeyLabels& labels, std::size_t width) {
  std::vector<Align> align = {Align::kLeft};
  std::vector<std::string> head = {"kernel"};
  for (const std::string& name : dataset.parameter_names()) {
    align.push_back(Align::kRight);
    head.push_back(name);
  }
  align.insert(align.end(), {Align::kRight, Align::kLeft, Align::kRight});
  head.insert(head.end(), {"predicted", "interval", "level"});
  TextTable table(align);
  table.add_row(head);
  const bool classes = has_classes(results);
  for (const MultiResult& r : results) {
    for (const MultiPrediction& p : r.predictions) {
      std::vector<std::string> row = {result_label(dataset, r, labels, classes)};
      for (double v : p.at) row.push_back(format_significant(v, 6));
      row.push_back(format_significant(p.value, 4));
      row.push_back(fmt::format("[{}, {}]", format_significant(p.interval.low, 4),
                                format_significant(p.interval.high, 4)));
      row.push_back(fmt::format("{}%", format_significant(p.level * 100.0, 3)));
      table.add_row(row);
    }
  }
  return table.rows() > 1 ? rendered(table, width) : "";
}

// A table whose rows name the kernel and the other parameters' values, then the `tail` columns;
// its header row added.
TextTable table_over_others(const std::vector<std::string>& names,
                            const std::vector<std::pair<Align, std::string>>& tail) {
  std::vector<Align> align = {Align::kLeft};
  std::vector<std::string> head = {"kernel"};
  for (std::size_t d = 1; d < names.size(); ++d) {
    align.push_back(Align::kRight);
    head.push_back(names[d]);
  }
  for (const auto& [a, name] : tail) {
    align.push_back(a);
    head.push_back(name);
  }
  TextTable table(align);
  table.add_row(head);
  return table;
}

std::string lines_table(const Dataset& dataset, const std::vector<MultiResult>& results,
                        const io_detail::KeyLabels& labels, std::size_t width) {
  const std::vector<std::string> names = dataset.parameter_names();
  TextTable table = table_over_others(names, {{Align::kLeft, "model along " + names[0]}});
  const bool classes = has_classes(results);
  for (const MultiResult& r : results) {
    for (const LineModel& line : r.lines) {
      std::vector<std::string> row = {result_label(dataset, r, labels, classes)};
      for (double v : line.others) row.push_back(format_significant(v, 6));
      row.push_back(line.model.to_string(names[0], 4));
      table.add_row(row);
    }
  }
  return table.rows() > 1 ? rendered(table, width) : "";
}

Json lines_json(const Dataset& dataset, const MultiResult& r) {
  Json lines = Json::array();
  for (const LineModel& line : r.lines) {
    lines.push_back({{"others", line.others},
                     {"model", line.model.to_string(dataset.parameter_names().front(), 17)},
                     {"statistics", Json::parse(io_detail::statistics_json(line.stats))},
                     {"predictive", Json::parse(io_detail::predictive_json(line.predictive))}});
  }
  return lines;
}

std::string budgets_table(const Dataset& dataset, const std::vector<MultiResult>& results,
                          const io_detail::KeyLabels& labels, std::size_t width) {
  const std::vector<std::string> names = dataset.parameter_names();
  TextTable table = table_over_others(
      names, {{Align::kRight, "budget"}, {Align::kRight, "exceeded at " + names[0]}});
  const bool classes = has_classes(results);
  for (const MultiResult& r : results) {
    for (const MultiBudget& b : r.budgets) {
      std::vector<std::string> row = {result_label(dataset, r, labels, classes)};
      for (double v : b.others) row.push_back(format_significant(v, 6));
      row.push_back(format_significant(b.crossing.budget, 4));
      row.push_back(b.crossing.threads ? format_significant(*b.crossing.threads, 6)
                                       : fmt::format("not below {:g}", b.crossing.search_limit));
      table.add_row(row);
    }
  }
  return table.rows() > 1 ? rendered(table, width) : "";
}

Json terms_json(const MultiModel& model, const std::vector<std::string>& names) {
  Json terms = Json::array();
  for (const MultiTerm& term : model.terms) {
    Json factors = Json::array();
    for (const Factor& f : term.factors) {
      factors.push_back({{"parameter", names.at(f.parameter)},
                         {"exponent", format_exponent(f.shape.exponent)},
                         {"exponent_value", f.shape.exponent},
                         {"log_exponent", f.shape.log_exponent}});
    }
    terms.push_back({{"coefficient", term.coefficient}, {"factors", std::move(factors)}});
  }
  return terms;
}

Json kernel_json(const Dataset& dataset, const MultiResult& r) {
  const std::vector<std::string> names = dataset.parameter_names();
  const Kernel& kernel = dataset.kernels.at(r.kernel);
  Json key = Json::object();
  const std::vector<std::string> values = io_detail::key_values(dataset, kernel);
  for (std::size_t i = 0; i < dataset.key_columns.size(); ++i)
    key[dataset.key_columns[i]] = values[i];
  Json points = Json::array();
  for (const MultiPoint& p : r.points) points.push_back({{"at", p.x}, {"value", p.value}});
  Json predictions = Json::array();
  for (const MultiPrediction& p : r.predictions) {
    predictions.push_back({{"at", p.at},
                           {"value", p.value},
                           {"low", p.interval.low},
                           {"high", p.interval.high},
                           {"level", p.level}});
  }
  Json budgets = Json::array();
  for (const MultiBudget& b : r.budgets) {
    budgets.push_back({{"others", b.others},
                       {"budget", b.crossing.budget},
                       {"threads", b.crossing.threads ? Json(*b.crossing.threads) : Json(nullptr)},
                       {"search_limit", b.crossing.search_limit}});
  }
  return {{"key", std::move(key)},
          {"class", r.thread_class},
          {"class_decision", r.class_decision},
          {"model", r.model.to_string(names, 17)},
          {"constant", r.model.constant},
          {"terms", terms_json(r.model, names)},
          {"statistics", Json::parse(io_detail::statistics_json(r.stats))},
          {"points", std::move(points)},
          {"predictions", std::move(predictions)},
          {"budgets", std::move(budgets)},
          {"uncertainty",
           {{"covariance", r.uncertainty.covariance},
            {"noise_sd_relative", r.uncertainty.noise_sd_relative},
            {"dof", r.uncertainty.dof},
            {"law_change_per_doubling", r.uncertainty.law_change_per_doubling}}},
          {"lines", lines_json(dataset, r)},
          {"warnings", r.warnings}};
}

}  // namespace

std::string format_multi_text(const Dataset& dataset, const std::vector<MultiResult>& results,
                              const std::vector<std::string>& notes, std::size_t width) {
  // On a terminal, the key columns every kernel shares are said once (as in the text report).
  const io_detail::KeyLabels labels(dataset, io_detail::all_kernels(dataset), width > 0);
  std::string out = header(dataset);
  if (!dataset.kernels.empty()) {
    if (const std::string shared = labels.shared(dataset.kernels.front()); !shared.empty())
      out += wrap("Every kernel has " + shared, width) + "\n";
  }
  out += models_table(dataset, results, labels, width);
  if (const std::string l = lines_table(dataset, results, labels, width); !l.empty()) {
    out += fmt::format(
        "\nLines modeled on their own (predictions along {} at these values come from them):\n{}",
        dataset.parameter_names().front(), l);
  }
  if (const std::string p = predictions_table(dataset, results, labels, width); !p.empty()) {
    out += fmt::format("\nPredictions (along {}, the others at each measured value):\n{}",
                       dataset.parameter_names().front(), p);
  }
  if (const std::string b = budgets_table(dataset, results, labels, width); !b.empty()) {
    out += fmt::format("\nBudgets (along {}):\n{}", dataset.parameter_names().front(), b);
  }
  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& n : notes) out += wrap(n, width, "  ", "    ");
  }
  std::string warnings;
  const bool classes = has_classes(results);
  MessageGroups decisions("kernel", "kernels");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const MultiResult& r = results[i];
    for (const std::string& w : r.warnings) {
      warnings += wrap(fmt::format("{}: {}", result_label(dataset, r, labels, classes), w), width,
                       "  ", "    ");
    }
    // Said once per kernel: its classes' results carry the same decision.
    const bool first_of_kernel = i == 0 || results[i - 1].kernel != r.kernel;
    if (first_of_kernel && !r.class_decision.empty())
      decisions.add(r.class_decision, labels.label(dataset.kernels.at(r.kernel)));
  }
  if (!warnings.empty()) out += "\nWarnings:\n" + warnings;
  if (!decisions.empty()) {
    out += "\nClass decisions:\n" + decisions.render(width, "  ", width == 0 ? 0 : 3);
  }
  return out;
}

std::string format_multi_json(const Dataset& dataset, const std::vector<MultiResult>& results,
                              const std::vector<std::string>& notes,
                              const std::string& options_json) {
  Json kernels = Json::array();
  for (const MultiResult& r : results) kernels.push_back(kernel_json(dataset, r));
  const Json document = {{"ompscale_version", version_string()},
                         {"parameter", dataset.parameter},
                         {"parameters", dataset.parameter_names()},
                         {"key_columns", dataset.key_columns},
                         {"sources", dataset.sources},
                         {"options", Json::parse(options_json)},
                         {"notes", notes},
                         {"kernels", std::move(kernels)}};
  // Invalid UTF-8 in a key value (from a Latin-1 CSV) is replaced, not fatal.
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool has_several_parameters(std::string_view text) {
  const Json document = Json::parse(text, nullptr, false);
  return document.is_object() && document.contains("parameters") &&
         document["parameters"].is_array() && document["parameters"].size() > 1;
}

namespace {

using Node = OrderedJsonNode;

// The model of a kernel in Extra-P notation over the file's parameters.
MultiModel model_at(const Node& node, const Dataset& dataset) {
  try {
    return parse_multi_model(node.string(), dataset.parameters);
  } catch (const std::invalid_argument& e) {
    node.fail(e.what());
  }
}

// A kernel's lines modeled on their own; written since ModelerOptions::model_each_line.
std::vector<LineModel> read_lines(const Node& node, const Dataset& dataset) {
  std::vector<LineModel> lines;
  for (const Node& entry : node.elements()) {
    LineModel line;
    const Node others = entry.field("others");
    for (const Node& v : others.elements()) line.others.push_back(v.number());
    if (line.others.size() + 1 != dataset.parameters.size())
      others.fail(fmt::format("expected one value per parameter but the first ({}), found {}",
                              dataset.parameters.size() - 1, line.others.size()));
    const Node model = entry.field("model");
    try {
      line.model = parse_model(model.string());
    } catch (const std::invalid_argument& e) {
      model.fail(e.what());
    }
    if (const auto stats = entry.optional_field("statistics"))
      line.stats = io_detail::read_statistics(*stats);
    const Node predictive = entry.field("predictive");
    line.predictive = io_detail::read_predictive(predictive);
    if (line.predictive.components.empty())
      predictive.fail("expected at least one component: a line's predictions come from them");
    const bool repeated = std::any_of(lines.begin(), lines.end(), [&](const LineModel& other) {
      return other.others == line.others;
    });
    if (repeated) others.fail("a second line at the same values of the other parameters");
    lines.push_back(std::move(line));
  }
  return lines;
}

MultiResult read_multi_kernel(const Node& entry, const Dataset& dataset, std::size_t index) {
  MultiResult r;
  r.kernel = index;
  r.model = model_at(entry.field("model"), dataset);
  r.stats = io_detail::read_statistics(entry.field("statistics"));
  for (const Node& p : entry.field("points").elements()) {
    MultiPoint point;
    const Node at = p.field("at");
    for (const Node& x : at.elements()) point.x.push_back(x.number());
    if (point.x.size() != dataset.parameters.size())
      at.fail(fmt::format("expected one value per parameter ({}), found {}",
                          dataset.parameters.size(), point.x.size()));
    point.value = p.field("value").number();
    r.points.push_back(std::move(point));
  }
  if (const auto u = entry.optional_field("uncertainty")) {
    // Written since predictions over several parameters have intervals; older files have none.
    for (const Node& c : u->field("covariance").elements())
      r.uncertainty.covariance.push_back(c.number());
    const std::size_t p = r.model.terms.size() + 1;
    if (!r.uncertainty.covariance.empty() && r.uncertainty.covariance.size() != p * p)
      u->field("covariance")
          .fail(fmt::format("expected {} values ({} coefficients squared), found {}", p * p, p,
                            r.uncertainty.covariance.size()));
    r.uncertainty.noise_sd_relative = u->field("noise_sd_relative").number();
    r.uncertainty.dof = u->field("dof").number();
    r.uncertainty.law_change_per_doubling = u->field("law_change_per_doubling").number();
  }
  if (const auto lines = entry.optional_field("lines")) r.lines = read_lines(*lines, dataset);
  if (const auto warnings = entry.optional_field("warnings")) r.warnings = warnings->strings();
  // Written since thread-count classes apply to several parameters; older files have one model.
  r.thread_class = entry.string_or("class", r.thread_class);
  r.class_decision = entry.string_or("class_decision", "");
  return r;
}

}  // namespace

MultiModelsFile parse_multi_models_json(std::string_view text, const std::string& name) {
  MultiModelsFile file;
  const OrderedJsonDocument document(text, name);
  const Node root = document.root();
  const Node parameters = root.field("parameters");
  file.dataset.parameters = parameters.strings();
  if (file.dataset.parameters.empty()) parameters.fail("expected at least one parameter");
  file.dataset.parameter = file.dataset.parameters.front();
  file.dataset.key_columns = root.field("key_columns").strings();
  if (const auto sources = root.optional_field("sources"))
    file.dataset.sources = sources->strings();
  if (const auto options = root.optional_field("options"))
    file.options_json = options->json().dump();
  file.ompscale_version = root.string_or("ompscale_version", "");
  std::size_t index = 0;
  for (const Node& entry : root.field("kernels").elements()) {
    const Node key_node = entry.field("key");
    std::vector<std::string> key;
    for (const std::string& column : file.dataset.key_columns)
      key.push_back(key_node.field(column).string());
    file.dataset.kernels.push_back(Kernel::from_samples(key, {}));
    file.results.push_back(read_multi_kernel(entry, file.dataset, index));
    ++index;
  }
  return file;
}

}  // namespace ompscale::modeler
