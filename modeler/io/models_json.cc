#include "modeler/io/models_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <stdexcept>

#include "common/error.h"
#include "common/json_input.h"
#include "common/json_stream.h"
#include "common/output_file.h"
#include "modeler/io/write_common.h"

namespace ompscale::modeler {

namespace {

// Ordered, so files list fields in the documented order and the options keep the caller's order.
using Json = nlohmann::ordered_json;

constexpr std::array kGrowthClasses = {GrowthClass::kDecreasing,  GrowthClass::kConstant,
                                       GrowthClass::kLogarithmic, GrowthClass::kSublinear,
                                       GrowthClass::kLinear,      GrowthClass::kSuperlinear};

// ---------------------------------------------------------------------------------------------
// Writing: straight into the text, member by member (no tree per kernel), in the documented
// order.

void write_optional(JsonStream& json, const std::optional<double>& value) {
  if (value) {
    json.value(*value);
  } else {
    json.null();
  }
}

void write_terms(JsonStream& json, const std::vector<Term>& terms) {
  json.begin_array();
  for (const Term& term : terms) {
    json.begin_object();
    json.member("coefficient", term.coefficient);
    json.member("exponent", format_exponent(term.shape.exponent));
    json.member("exponent_value", term.shape.exponent);
    json.member("log_exponent", term.shape.log_exponent);
    json.end_object();
  }
  json.end_array();
}

void write_numbers(JsonStream& json, std::span<const double> values) {
  json.begin_array();
  for (double v : values) json.value(v);
  json.end_array();
}

// Row-major p x p becomes p rows; anything not square stays one flat row so nothing is lost.
void write_covariance(JsonStream& json, const std::vector<double>& covariance) {
  const auto p = static_cast<std::size_t>(std::llround(std::sqrt(covariance.size())));
  json.begin_array();
  if (p * p != covariance.size()) {
    write_numbers(json, covariance);
  } else {
    for (std::size_t r = 0; r < p; ++r)
      write_numbers(json, std::span(covariance).subspan(r * p, p));
  }
  json.end_array();
}

void write_points(JsonStream& json, const std::vector<PointSummary>& points) {
  json.begin_array();
  for (const PointSummary& p : points) {
    json.begin_object();
    json.member("param", p.param);
    json.member("value", p.value);
    json.member("min", p.min);
    json.member("max", p.max);
    json.member("cv", p.cv);
    json.member("repetitions", static_cast<std::uint64_t>(p.repetitions));
    json.end_object();
  }
  json.end_array();
}

void write_statistics(JsonStream& json, const FitStatistics& s) {
  json.begin_object();
  json.member("points", static_cast<std::uint64_t>(s.points));
  json.member("rss", s.rss);
  json.member("tss", s.tss);
  json.member("adjusted_r2", s.adjusted_r2);
  json.member("smape", s.smape);
  json.member("cv_error", s.cv_error);
  json.end_object();
}

void write_intervals(JsonStream& json, const std::vector<Interval>& intervals) {
  json.begin_array();
  for (const Interval& i : intervals) {
    json.begin_object();
    json.member("low", i.low);
    json.member("high", i.high);
    json.end_object();
  }
  json.end_array();
}

void write_predictions(JsonStream& json, const std::vector<Prediction>& predictions) {
  json.begin_array();
  for (const Prediction& p : predictions) {
    json.begin_object();
    json.member("param", p.param);
    json.member("value", p.value);
    json.member("low", p.interval.low);
    json.member("high", p.interval.high);
    json.member("level", p.level);
    if (!p.boundaries.empty()) {
      json.key("boundaries");
      json.begin_array();
      for (const std::string& b : p.boundaries) json.value(b);
      json.end_array();
    }
    json.end_object();
  }
  json.end_array();
}

void write_budget(JsonStream& json, const std::optional<BudgetCrossing>& budget) {
  if (!budget) return json.null();
  json.begin_object();
  json.member("budget", budget->budget);
  json.key("base");
  if (budget->base) {
    json.begin_object();
    json.member("param", budget->base->param);
    json.member("value", budget->base->value);
    json.end_object();
  } else {
    json.null();
  }
  json.key("threads");
  write_optional(json, budget->threads);
  json.key("threads_early");
  write_optional(json, budget->threads_early);
  json.key("threads_late");
  write_optional(json, budget->threads_late);
  json.member("search_limit", budget->search_limit);
  json.end_object();
}

void write_component(JsonStream& json, const PredictiveComponent& c) {
  json.begin_object();
  json.member("weight", c.weight);
  json.member("constant", c.model.constant);
  json.key("terms");
  write_terms(json, c.model.terms);
  json.key("covariance");
  write_covariance(json, c.covariance);
  json.member("dof", c.dof);
  json.member("noise_sd_absolute", c.noise_sd_absolute);
  json.member("noise_sd_relative", c.noise_sd_relative);
  json.member("drift_sd_relative", c.drift_sd_relative);
  json.member("law_change_sd_relative", c.law_change_sd_relative);
  json.key("range");
  write_numbers(json, std::array{c.range_low, c.range_high});
  json.member("positive", c.positive);
  json.end_object();
}

void write_predictive(JsonStream& json, const PredictiveDistribution& distribution) {
  json.begin_object();
  json.key("components");
  json.begin_array();
  for (const PredictiveComponent& c : distribution.components) write_component(json, c);
  json.end_array();
  json.end_object();
}

void write_strings(JsonStream& json, const std::vector<std::string>& strings) {
  json.begin_array();
  for (const std::string& s : strings) json.value(s);
  json.end_array();
}

void write_class_model(JsonStream& json, const ClassModel& m, const std::string& parameter) {
  json.begin_object();
  json.member("class", m.thread_class);
  json.key("model");
  m.has_model() ? json.value(m.model.to_string(parameter)) : json.null();
  json.key("no_model");
  m.has_model() ? json.null() : json.value(m.no_model);
  json.member("resolution", m.resolution);
  json.key("terms");
  write_terms(json, m.model.terms);
  json.member("constant", m.model.constant);
  json.key("points");
  write_points(json, m.points);
  json.key("statistics");
  write_statistics(json, m.stats);
  json.key("coefficient_intervals");
  write_intervals(json, m.coefficient_intervals);
  json.member("growth", to_string(m.growth));
  json.member("valid", m.valid);
  json.member("worse_than_log", m.worse_than_log);
  json.member("noise_dominates", m.noise_dominates);
  json.key("warnings");
  write_strings(json, m.warnings);
  json.key("predictions");
  write_predictions(json, m.predictions);
  json.key("budget");
  write_budget(json, m.budget);
  json.key("predictive");
  write_predictive(json, m.predictive);
  json.end_object();
}

// ---------------------------------------------------------------------------------------------
// Reading

using Node = OrderedJsonNode;

double read_exponent(const Node& term) {
  if (term.has("exponent_value")) return term.field("exponent_value").number();
  // Hand-written files may give the fraction only; parse it the way model strings are parsed.
  const std::string fraction = term.field("exponent").string();
  try {
    const Model probe = parse_model(fmt::format("0 + 1 * t^({})", fraction));
    return probe.terms.at(0).shape.exponent;
  } catch (const std::exception&) {
    term.fail(fmt::format("exponent '{}' is not a number or fraction", fraction));
  }
}

std::vector<Term> read_terms(const Node& node) {
  std::vector<Term> terms;
  for (const Node& t : node.elements()) {
    Term term;
    term.coefficient = t.field("coefficient").number();
    term.shape.exponent = read_exponent(t);
    const long long log_exponent = t.field("log_exponent").integer();
    if (log_exponent < 0 || log_exponent > 64) {
      t.fail(fmt::format("log_exponent {} is outside 0..64", log_exponent));
    }
    term.shape.log_exponent = static_cast<int>(log_exponent);
    terms.push_back(term);
  }
  return terms;
}

std::vector<double> read_covariance(const Node& node) {
  std::vector<double> flat;
  for (const Node& row : node.elements()) {
    for (const Node& value : row.elements()) flat.push_back(value.number());
  }
  return flat;
}

GrowthClass read_growth(const Node& node) {
  const std::string name = node.string();
  for (GrowthClass growth : kGrowthClasses) {
    if (to_string(growth) == name) return growth;
  }
  std::vector<std::string_view> known;
  for (GrowthClass growth : kGrowthClasses) known.push_back(to_string(growth));
  node.fail(
      fmt::format("unknown growth class '{}' (expected one of {})", name, fmt::join(known, ", ")));
}

PredictiveComponent read_component(const Node& node) {
  PredictiveComponent c;
  c.weight = node.field("weight").number();
  if (!(std::isfinite(c.weight) && c.weight >= 0.0))
    node.field("weight").fail("expected a finite posterior weight of at least 0");
  c.model.constant = node.field("constant").number();
  c.model.terms = read_terms(node.field("terms"));
  c.covariance = read_covariance(node.field("covariance"));
  const std::size_t p = c.model.terms.size() + 1;
  if (!c.covariance.empty() && c.covariance.size() != p * p) {
    node.fail(fmt::format("covariance has {} values; a model with {} coefficients needs {}",
                          c.covariance.size(), p, p * p));
  }
  c.dof = node.field("dof").number();
  c.noise_sd_absolute = node.field("noise_sd_absolute").number();
  c.noise_sd_relative = node.field("noise_sd_relative").number();
  // Written since the model-form term was added; older files predict without it.
  if (auto drift = node.present_field("drift_sd_relative")) c.drift_sd_relative = drift->number();
  if (auto change = node.present_field("law_change_sd_relative"))
    c.law_change_sd_relative = change->number();
  if (auto positive = node.present_field("positive")) c.positive = positive->boolean();
  if (auto range = node.present_field("range")) {
    const std::vector<Node> bounds = range->elements();
    if (bounds.size() != 2) range->fail("expected [low, high]");
    c.range_low = bounds[0].number();
    c.range_high = bounds[1].number();
  }
  return c;
}

PredictiveDistribution read_predictive_node(const Node& node) {
  PredictiveDistribution distribution;
  double total = 0.0;
  for (const Node& c : node.field("components").elements()) {
    distribution.components.push_back(read_component(c));
    total += distribution.components.back().weight;
  }
  if (!distribution.components.empty() && !(total > 0.0))
    node.field("components").fail("expected components whose weights sum to more than 0");
  return distribution;
}

FitStatistics read_statistics_node(const Node& stats) {
  FitStatistics s;
  s.points = stats.field("points").count();
  s.rss = stats.field("rss").number();  // null (a non-finite value) reads as NaN
  s.tss = stats.field("tss").number();
  s.adjusted_r2 = stats.field("adjusted_r2").number();
  s.smape = stats.field("smape").number();
  s.cv_error = stats.field("cv_error").number();
  return s;
}

ClassModel read_class_model(const Node& node) {
  ClassModel m;
  m.thread_class = node.field("class").string();
  m.model.constant = node.field("constant").number();
  m.model.terms = read_terms(node.field("terms"));

  m.stats = read_statistics_node(node.field("statistics"));

  m.growth = read_growth(node.field("growth"));
  m.valid = node.field("valid").boolean();
  if (auto f = node.present_field("worse_than_log")) m.worse_than_log = f->boolean();
  if (auto f = node.present_field("noise_dominates")) m.noise_dominates = f->boolean();
  if (auto f = node.present_field("warnings")) m.warnings = f->strings();
  if (auto f = node.optional_field("no_model")) m.no_model = f->string();
  if (auto f = node.present_field("resolution")) m.resolution = f->number();

  if (auto f = node.present_field("points")) {
    for (const Node& p : f->elements()) {
      m.points.push_back({.param = p.field("param").number(),
                          .value = p.field("value").number(),
                          .min = p.field("min").number(),
                          .max = p.field("max").number(),
                          .cv = p.field("cv").number(),
                          .repetitions = p.field("repetitions").count()});
    }
  }
  if (auto f = node.present_field("coefficient_intervals")) {
    for (const Node& i : f->elements()) {
      m.coefficient_intervals.push_back({i.field("low").number(), i.field("high").number()});
    }
  }
  if (auto f = node.present_field("predictions")) {
    for (const Node& p : f->elements()) {
      Prediction prediction;
      prediction.param = p.field("param").number();
      prediction.value = p.field("value").number();
      prediction.interval = {p.field("low").number(), p.field("high").number()};
      prediction.level = p.field("level").number();
      if (auto b = p.present_field("boundaries")) {
        for (const Node& what : b->elements()) prediction.boundaries.push_back(what.string());
      }
      m.predictions.push_back(prediction);
    }
  }
  if (auto f = node.optional_field("budget")) {
    BudgetCrossing b;
    b.budget = f->field("budget").number();
    b.threads = f->field("threads").optional_number();
    b.threads_early = f->field("threads_early").optional_number();
    b.threads_late = f->field("threads_late").optional_number();
    b.search_limit = f->field("search_limit").number();
    if (auto base = f->optional_field("base")) {
      b.base = PointSummary{.param = base->field("param").number(),
                            .value = base->field("value").number()};
    }
    m.budget = b;
  }
  if (auto f = node.present_field("predictive")) {
    m.predictive = read_predictive_node(*f);
  } else if (m.has_model()) {
    // Without the predictive part the model itself is the prediction, with no uncertainty.
    PredictiveComponent only;
    only.model = m.model;
    m.predictive.components.push_back(std::move(only));
  }
  return m;
}

// Invalid UTF-8 in a key value (from a Latin-1 CSV) is replaced, not fatal.
std::string dump(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace);
}

// `value` written as it appears nested `depth` levels deep in a two-space indented document
// (nlohmann's serializer takes the indentation to start from), straight into the stream.
void write_nested(std::ostream& out, const Json& value, unsigned depth) {
  nlohmann::detail::serializer<Json> serializer(nlohmann::detail::output_adapter<char>(out), ' ',
                                                Json::error_handler_t::replace);
  serializer.dump(value, true, false, 2, 2 * depth);
}

void write_kernel(JsonStream& json, const Dataset& dataset, const KernelResult& result) {
  const Kernel& kernel = io_detail::kernel_of(dataset, result);
  json.begin_object();
  json.key("key");
  json.begin_object();
  for (std::size_t c = 0; c < dataset.key_columns.size(); ++c) {
    json.key(dataset.key_columns[c]);
    json.value(kernel.key_value(c));
  }
  json.end_object();
  json.member("class_decision", result.class_decision);
  json.key("models");
  json.begin_array();
  for (const ClassModel& m : result.models) write_class_model(json, m, dataset.parameter);
  json.end_array();
  json.end_object();
}

}  // namespace

ModelsJsonWriter::ModelsJsonWriter(std::ostream& out, const Dataset& dataset,
                                   std::string_view options_json)
    : out_(out), dataset_(dataset), json_(out, 1) {
  Json options;
  try {
    options = Json::parse(options_json);
  } catch (const Json::parse_error& e) {
    throw std::invalid_argument(fmt::format("options are not JSON: {}", e.what()));
  }
  if (!options.is_object()) throw std::invalid_argument("options must be a JSON object");
  // The document's members before "kernels", as the whole document's dump would write them.
  out_ << "{\n  \"ompscale_version\": " << dump(version_string()) << ",\n  \"parameter\": ";
  write_nested(out_, dataset.parameter, 1);
  out_ << ",\n  \"key_columns\": ";
  write_nested(out_, dataset.key_columns, 1);
  out_ << ",\n  \"sources\": ";
  write_nested(out_, dataset.sources, 1);
  out_ << ",\n  \"options\": ";
  write_nested(out_, options, 1);
  out_ << ",\n  \"kernels\": ";
  json_.begin_array();
}

void ModelsJsonWriter::add(const KernelResult& result) {
  write_kernel(json_, dataset_, result);
}

std::string ModelsJsonWriter::format(const KernelResult& result) const {
  std::string text;
  // A kernel's text is a few KiB: growing the string from empty would reallocate it a dozen times.
  text.reserve(16384);
  JsonStream json(text, 2);
  write_kernel(json, dataset_, result);
  return text;
}

void ModelsJsonWriter::add_formatted(std::string_view text) {
  json_.raw_value(text);
}

void ModelsJsonWriter::finish() {
  json_.end_array();
  json_.flush();
  out_ << "\n}\n";
}

std::string format_models_json(const Dataset& dataset, const std::vector<KernelResult>& results,
                               std::string_view options_json) {
  std::ostringstream out;
  ModelsJsonWriter writer(out, dataset, options_json);
  for (const KernelResult& result : results) writer.add(result);
  writer.finish();
  return out.str();
}

std::string format_models_json(const ModelsFile& file) {
  return format_models_json(file.dataset, file.results, file.options_json);
}

ModelsFile parse_models_json(std::string_view text, const std::string& name) {
  const OrderedJsonDocument document(text, name);
  const Node root = document.root();
  if (!document.json().is_object()) root.fail("expected a JSON object (a models.json file)");

  ModelsFile file;
  if (auto f = root.present_field("ompscale_version")) file.ompscale_version = f->string();
  if (auto f = root.present_field("options")) {
    if (!f->json().is_object()) f->fail("expected an object");
    file.options_json = f->json().dump();
  }
  Dataset& dataset = file.dataset;
  dataset.parameter = root.field("parameter").string();
  dataset.key_columns = root.field("key_columns").strings();
  if (auto f = root.present_field("sources")) dataset.sources = f->strings();

  for (const Node& kernel : root.field("kernels").elements()) {
    const Node key = kernel.field("key");
    std::vector<std::string> key_values;
    for (const std::string& column : dataset.key_columns) {
      key_values.push_back(key.field(column).string());
      // Kernel keys are stored joined by the ASCII unit separator; it cannot be part of a value.
      if (key_values.back().find('\x1f') != std::string::npos) {
        key.fail(fmt::format("value of '{}' contains the control character 0x1f", column));
      }
    }
    for (const auto& [column, value] : key.json().items()) {
      if (std::find(dataset.key_columns.begin(), dataset.key_columns.end(), column) ==
          dataset.key_columns.end()) {
        key.fail(fmt::format("column '{}' is not one of key_columns", column));
      }
    }
    KernelResult result;
    result.kernel = dataset.kernels.size();
    if (auto f = kernel.present_field("class_decision")) result.class_decision = f->string();
    for (const Node& model : kernel.field("models").elements()) {
      result.models.push_back(read_class_model(model));
    }
    dataset.kernels.push_back(Kernel::from_samples(key_values, {}));
    file.results.push_back(std::move(result));
  }
  return file;
}

ModelsFile read_models_json(const std::string& path) {
  const std::string text = read_input(path);
  return parse_models_json(text, path == "-" ? std::string("<stdin>") : path);
}

namespace {

// What `write` writes of `value`, as text (a JsonStream flushes when it ends).
template <class Value>
std::string written(void (*write)(JsonStream&, const Value&), const Value& value) {
  std::string text;
  {
    JsonStream json(text);
    write(json, value);
  }
  return text;
}

}  // namespace

namespace io_detail {

std::string predictive_json(const PredictiveDistribution& distribution) {
  return written(write_predictive, distribution);
}

PredictiveDistribution read_predictive(const OrderedJsonNode& node) {
  return read_predictive_node(node);
}

std::string statistics_json(const FitStatistics& statistics) {
  return written(write_statistics, statistics);
}

FitStatistics read_statistics(const OrderedJsonNode& node) {
  return read_statistics_node(node);
}

}  // namespace io_detail

}  // namespace ompscale::modeler
