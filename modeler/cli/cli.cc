#include "modeler/cli/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/cli_help.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/terminal.h"
#include "common/text.h"
#include "modeler/core/units.h"
#include "modeler/fit.h"
#include "modeler/io/compare.h"
#include "modeler/io/models_json.h"
#include "modeler/io/plot_svg.h"
#include "modeler/io/readers.h"
#include "modeler/io/sidecar_platform.h"
#include "modeler/io/write_common.h"
#include "modeler/io/write_csv.h"
#include "modeler/io/write_extrap.h"
#include "modeler/io/write_multi.h"
#include "modeler/io/write_text.h"
#include "modeler/learning/learn_from_input.h"
#include "modeler/multi/multi_fit.h"
#include "modeler/prediction/budget.h"
#include "modeler/prediction/predict.h"
#include "modeler/presets/presets.h"
#include "platforms/platform.h"

namespace ompscale::modeler {

namespace {

// The spellings of the enum options; CLI11 checks values against them.
const std::map<std::string, Aggregation> kAggregations = {{"mean", Aggregation::kMean},
                                                          {"median", Aggregation::kMedian},
                                                          {"min", Aggregation::kMin},
                                                          {"max", Aggregation::kMax},
                                                          {"trimmed", Aggregation::kTrimmedMean}};
// --selection names a strategy and, for the cross-validated ones, the held-out error.
const std::map<std::string, HeldOutError> kSelections = {
    {"noise", HeldOutError::kSmape}, {"smape", HeldOutError::kSmape}, {"rss", HeldOutError::kRss}};
const std::map<std::string, Weighting> kWeightings = {{"noise", Weighting::kNoise},
                                                      {"uniform", Weighting::kUniform}};
const std::map<std::string, LearnFromInput> kLearning = {
    {"all", {.strategy = true, .law_change = true, .lines = true}},
    {"intervals", {.strategy = false, .law_change = true, .lines = false}},
    {"none", {.strategy = false, .law_change = false, .lines = false}}};
const std::map<std::string, Loss> kLosses = {
    {"ls", Loss::kLeastSquares}, {"huber", Loss::kHuber}, {"cauchy", Loss::kCauchy}};

template <typename Enum>
std::string name_of(const std::map<std::string, Enum>& names, Enum value) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return "?";
}

/// Everything `fit` and `plot` share: how inputs are read and how models are made.
struct FitArguments {
  std::vector<std::string> inputs;
  std::string input_format = "auto";
  std::string param_column, value_column;
  std::vector<std::string> key_columns;
  bool include_invalid = false;
  std::vector<std::string> where;  // "column=value": keep only kernels whose key matches all
  std::string preset = "default";
  std::string aggregation;   // empty: trimmed for ompbench results, mean otherwise
  std::string selection;     // empty: the preset's (or learnt)
  std::string weighting;     // empty: the strategy's (or learnt)
  std::string learn;         // empty: the preset's
  std::string lines;         // empty: learnt (two parameters)
  std::optional<int> folds;  // absent: the preset's
  std::vector<std::string> exponents;
  std::vector<int> log_exponents;
  int terms = 0;
  bool negative_exponents = false;
  double valid_r2 = 0.95;
  std::string loss = "ls";
  bool refine_exponents = false;
  double confidence = 0.90;
  std::optional<double> law_change;  // absent: the preset's
  std::vector<double> predict_at;
  std::string budget;
  double budget_limit = 1 << 20;
  std::string classes = "none";
  std::string platform;
  int threads = 0;
};

void add_fit_options(CLI::App& cmd, FitArguments& a) {
  cmd.add_option("inputs", a.inputs,
                 "Measurement files (ompbench CSV, CSV, Extra-P text/JSON/JSONL); - reads stdin")
      ->required();
  cmd.add_option("--input-format", a.input_format,
                 "auto, ompbench, csv, extrap, extrap-json or jsonl")
      ->capture_default_str();
  cmd.add_option("--param", a.param_column,
                 "Column(s) of the parameter(s): threads, or several, e.g. threads,size (generic "
                 "CSV), threads,param_value (ompbench results: array size or chunk as well)");
  cmd.add_option("--value", a.value_column, "Generic CSV: the column holding the measured value");
  cmd.add_option("--key", a.key_columns, "Generic CSV: columns that name a kernel")->delimiter(',');
  cmd.add_flag("--include-invalid", a.include_invalid, "Also use rows marked valid=0");
  cmd.add_option("--where", a.where,
                 "Keep only kernels whose key column has this value, e.g. metric=avg_cost "
                 "(repeatable; all must hold)")
      ->allow_extra_args(false);
  cmd.add_option("--preset", a.preset,
                 "default (ours, learnt from the input), extrap (Extra-P 4.2.5's default "
                 "modeler) or extrap-paper (Extra-P's method, the paper's hypotheses)")
      ->capture_default_str();
  cmd.add_option("--aggregate", a.aggregation,
                 "mean, median, min, max or trimmed (drop 25% best and worst); default: trimmed "
                 "(--preset extrap: mean)")
      ->check(CLI::IsMember(kAggregations));
  cmd.add_option("--selection", a.selection,
                 "noise (the noise-aware strategy), smape or rss (cross-validated); default: "
                 "learnt from the input (--preset extrap: smape)")
      ->check(CLI::IsMember(kSelections));
  cmd.add_option("--weighting", a.weighting,
                 "noise (1/variance) or uniform (absolute errors) for cross-validated fits; "
                 "default: learnt from the input")
      ->check(CLI::IsMember(kWeightings));
  cmd.add_option("--learn", a.learn,
                 "all: learn from the input's own backtests which strategy extrapolates best, how "
                 "wide intervals must be and, with two parameters, whether its lines share one "
                 "law (default); intervals: only the width; none")
      ->check(CLI::IsMember(kLearning));
  cmd.add_option("--lines", a.lines,
                 "Two parameters: law (one law over both) or each (each measured line along the "
                 "first modeled on its own, predicting along it); default: learnt from the input")
      ->check(CLI::IsMember({"law", "each"}));
  cmd.add_option("--folds", a.folds, "0: leave-one-out (default); k >= 2: k-fold cross-validation");
  cmd.add_option("--exponents", a.exponents, "Polynomial exponents, e.g. 0,1/2,1,3/2,2")
      ->delimiter(',');
  cmd.add_option("--logs", a.log_exponents, "Log exponents, e.g. 0,1,2")->delimiter(',');
  cmd.add_option("--terms", a.terms, "Terms per hypothesis besides the constant (1 to 3)");
  cmd.add_flag("--negative-exponents", a.negative_exponents,
               "Always try t^-i too (without it: for kernels whose values fall with threads)");
  cmd.add_option("--valid-r2", a.valid_r2, "Adjusted R^2 at which a model is valid")
      ->capture_default_str();
  cmd.add_option("--loss", a.loss, "ls (least squares), huber or cauchy (robust, with Ceres)")
      ->capture_default_str()
      ->check(CLI::IsMember(kLosses));
  cmd.add_flag("--refine-exponents", a.refine_exponents,
               "Refine exponents to continuous values; kept only when held-out error improves");
  cmd.add_option("--confidence", a.confidence, "Level of all intervals")->capture_default_str();
  cmd.add_option("--law-change", a.law_change,
                 "Relative change of law per doubling beyond the measured thread counts that "
                 "intervals allow for (default: learnt from the input, else 0.08; 0 trusts the "
                 "measured law there)");
  cmd.add_option("--predict", a.predict_at, "Thread counts to predict at, e.g. 256,512,1024")
      ->delimiter(',');
  cmd.add_option("--budget", a.budget,
                 "Cost budget: 10us, 2.5ms, 0.3 (data's unit) or 4x (of the cost at the "
                 "smallest thread count); prints where it is exceeded");
  cmd.add_option("--budget-limit", a.budget_limit, "Largest thread count the budget search tries")
      ->capture_default_str();
  cmd.add_option("--classes", a.classes,
                 "none, auto, or a list such as po2,odd,even or mine=3,5,7 (one model per class)")
      ->capture_default_str();
  cmd.add_option("--platform", a.platform,
                 "Platform description (shipped name or file): its topology boundaries flag "
                 "predictions past them (default: the ompbench sidecar's), and --classes auto "
                 "tries its classes");
  cmd.add_option("--jobs", a.threads, "Threads fitting kernels in parallel (0: all cores)");
}

double parse_exponent(const std::string& text) {
  const std::optional<double> exponent = parse_fraction(text);
  if (!exponent) {
    throw UsageError(fmt::format(
        "bad exponent '{}': use numbers or fractions such as 3/2 (denominator not 0)", text));
  }
  return *exponent;
}

/// Runs `parse`, prefixing a UsageError's message with the option it came from.
template <typename Parse>
auto naming_option(std::string_view option, Parse parse) {
  try {
    return parse();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", option, e.what()));
  }
}

/// Refuses a --format value that `formats` does not hold, before anything is read.
void check_format(const std::string& format, const std::vector<std::string_view>& formats) {
  if (std::find(formats.begin(), formats.end(), format) != formats.end()) return;
  std::string listed;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    listed += i == 0 ? "" : i + 1 == formats.size() ? " or " : ", ";
    listed += formats[i];
  }
  throw UsageError(fmt::format("bad --format '{}': use {}", format, listed));
}

void check_confidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw UsageError("bad --confidence: use a level between 0 and 1, e.g. 0.9");
  }
}

// Keeps the kernels whose key matches every "column=value" condition.
void select_kernels(Dataset& data, const std::vector<std::string>& conditions) {
  std::vector<std::pair<std::size_t, std::string>> wanted;  // key column index, value
  for (const std::string& condition : conditions) {
    const std::size_t equals = condition.find('=');
    if (equals == std::string::npos)
      throw UsageError("--where '" + condition + "': expected COLUMN=VALUE, e.g. metric=avg_cost");
    const std::string column = condition.substr(0, equals);
    const auto it = std::find(data.key_columns.begin(), data.key_columns.end(), column);
    if (it == data.key_columns.end())
      throw UsageError(fmt::format("--where '{}': '{}' is not a key column; the inputs have {}",
                                   condition, column, fmt::join(data.key_columns, ", ")));
    wanted.emplace_back(static_cast<std::size_t>(it - data.key_columns.begin()),
                        condition.substr(equals + 1));
  }
  std::erase_if(data.kernels, [&](const Kernel& kernel) {
    const std::vector<std::string_view> values = kernel.key_values();
    return std::any_of(wanted.begin(), wanted.end(),
                       [&](const auto& w) { return values[w.first] != w.second; });
  });
  if (data.kernels.empty())
    throw UsageError("--where: no kernel matches " +
                     fmt::format("{}", fmt::join(conditions, " and ")));
  // The note on unused valid=0 values speaks of the kernels selected, not of the whole file.
  data.skipped_invalid = 0;
  for (const Kernel& kernel : data.kernels) {
    const auto it = data.skipped_invalid_by_key.find(kernel.joined_key());
    if (it != data.skipped_invalid_by_key.end()) data.skipped_invalid += it->second;
  }
}

/// Notes about the inputs (values not used, parameters folded into the key): the CLI prints them
/// on stderr, the Python module turns them into warnings.
using NoteSink = std::function<void(const std::string&)>;

void note_on_stderr(const std::string& note) {
  std::cerr << wrap("modeler: " + note, output_width(STDERR_FILENO), "", "  ");
}

/// Reads every input; "-" is `standard_input` when given (the Python module's data frame), else
/// standard input itself.
Dataset read_inputs(const FitArguments& a, const NoteSink& note = note_on_stderr,
                    const NamedText* standard_input = nullptr) {
  ReadOptions read;
  read.format = parse_input_format(a.input_format);
  read.param_column = a.param_column;
  read.value_column = a.value_column;
  read.key_columns = a.key_columns;
  read.include_invalid = a.include_invalid;
  Dataset data;
  for (const std::string& input : a.inputs) {
    data.append(input == "-" && standard_input != nullptr
                    ? parse_dataset(standard_input->text, standard_input->name, read)
                    : read_dataset(input, read));
  }
  if (!a.where.empty()) select_kernels(data, a.where);
  if (data.skipped_invalid > 0) {
    note(fmt::format(
        "{} value(s) of these kernels marked valid=0 were not used (--include-invalid uses them)",
        data.skipped_invalid));
  }
  for (const std::string& folded : fold_sparse_parameters(data)) note(folded);
  return data;
}

std::vector<platforms::ThreadClass> partition_classes(
    const std::vector<platforms::ThreadClass>& classes) {
  // 8X and LINEAR are sweep sets that overlap everything; they make no partition.
  std::vector<platforms::ThreadClass> out;
  for (const auto& c : classes) {
    if (c.kind() != platforms::ThreadClass::Kind::kLinear &&
        c.kind() != platforms::ThreadClass::Kind::kMultipleOf8) {
      out.push_back(c);
    }
  }
  return out;
}

/// --selection, --weighting, --aggregate and --learn. What the user names is not learnt; a
/// user's --law-change is kept as given.
void apply_way_of_modeling(const FitArguments& a, ModelerOptions& o) {
  if (!a.learn.empty()) o.learn = kLearning.at(a.learn);
  // Without --aggregate the preset decides: Extra-P's mean, or the default preset's trimmed mean
  // (robust: a slow phase or a wrapped timer in one repetition does not move it).
  if (!a.aggregation.empty()) o.aggregation = kAggregations.at(a.aggregation);
  if (!a.selection.empty() && o.strategy == Strategy::kExtrap && a.selection != "smape")
    throw UsageError("--selection " + a.selection +
                     ": --preset extrap selects by SMAPE, as Extra-P does; drop --selection");
  if (!a.selection.empty() && o.strategy != Strategy::kExtrap) {
    o.strategy = a.selection == "noise" ? Strategy::kNoiseAware : Strategy::kCrossValidated;
    o.held_out_error = kSelections.at(a.selection);
  }
  if (!a.weighting.empty()) o.weighting = kWeightings.at(a.weighting);
  if (!a.selection.empty() || !a.weighting.empty() || !a.aggregation.empty())
    o.learn.strategy = false;
  if (a.law_change) o.learn.law_change = false;
  if (!a.lines.empty()) {
    o.model_each_line = a.lines == "each";
    o.learn.lines = false;
  }
}

bool same_thresholds(const std::vector<TopologyBoundary>& a,
                     const std::vector<TopologyBoundary>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const TopologyBoundary& x, const TopologyBoundary& y) {
                      return x.threads == y.threads && x.what == y.what;
                    });
}

/// The topology boundaries of the measured machine: --platform's, or those of the platform the
/// inputs' ompbench sidecars record (all inputs alike; none when they differ or say nothing).
std::vector<TopologyBoundary> boundaries_for(const FitArguments& a) {
  if (!a.platform.empty()) return topology_boundaries(platforms::find_platform(a.platform));
  std::optional<std::vector<TopologyBoundary>> shared;
  for (const std::string& input : a.inputs) {
    const std::optional<platforms::Platform> platform = read_sidecar_platform(input);
    if (!platform) return {};
    std::vector<TopologyBoundary> boundaries = topology_boundaries(*platform);
    if (shared && !same_thresholds(*shared, boundaries)) return {};
    shared = std::move(boundaries);
  }
  return shared.value_or(std::vector<TopologyBoundary>{});
}

/// The options of `a`, checked before any input is read (a bad value costs no reading). The
/// caller sets `parameter` from the data.
ModelerOptions make_options(const FitArguments& a) {
  ModelerOptions o = preset_options(a.preset);
  apply_way_of_modeling(a, o);
  if (a.folds) o.folds = *a.folds;
  if (!a.exponents.empty() || !a.log_exponents.empty() || a.terms > 0) {
    std::vector<double> poly;
    for (const auto& e : a.exponents) poly.push_back(parse_exponent(e));
    if (poly.empty()) poly = HypothesisSpace::paper_exponents();
    std::vector<int> logs = a.log_exponents.empty() ? std::vector<int>{0, 1, 2} : a.log_exponents;
    for (int j : logs) {
      if (j < 0) throw UsageError("bad --logs: log exponents are 0 or positive integers");
    }
    const int terms = a.terms > 0 ? a.terms : 1;
    if (terms > 3) throw UsageError("bad --terms: use 1, 2 or 3");
    if (o.strategy == Strategy::kExtrap &&
        (terms != 1 || !a.exponents.empty() || !a.log_exponents.empty())) {
      throw UsageError(
          "--preset extrap fixes the hypothesis space; drop --exponents/--logs/--terms");
    }
    o.space = HypothesisSpace::from_exponents(poly, logs, terms);
  }
  if (a.negative_exponents) o.space = o.space.with_negative_exponents();
  o.valid_adjusted_r2 = a.valid_r2;
  o.loss = kLosses.at(a.loss);
  o.refine_exponents = a.refine_exponents;
  o.confidence = a.confidence;
  if (a.law_change) o.law_change_per_doubling = *a.law_change;
  o.predict_at = a.predict_at;
  o.boundaries = boundaries_for(a);
  if (!a.budget.empty()) {
    o.budget = naming_option("--budget", [&] { return parse_budget(a.budget); });
  }
  o.budget_search_limit = a.budget_limit;
  if (a.threads < 0) {
    throw UsageError(fmt::format(
        "bad --jobs {}: use the number of threads fitting kernels, or 0 for all cores", a.threads));
  }
  o.threads = a.threads;
  if (a.classes == "none") {
    o.class_mode = ClassMode::kNone;
  } else if (a.classes == "auto") {
    o.class_mode = ClassMode::kAuto;
    o.classes = a.platform.empty()
                    ? platforms::paper_partition()
                    : partition_classes(platforms::find_platform(a.platform).classes);
  } else {
    o.class_mode = ClassMode::kList;
    // "po2,odd,mine=3,5,7": a spec with '=' swallows the plain numbers that follow it.
    std::vector<std::string> specs;
    std::string_view rest = a.classes;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      const bool is_number = !item.empty() && std::all_of(item.begin(), item.end(), ::isdigit);
      if (is_number && !specs.empty() && specs.back().find('=') != std::string::npos) {
        specs.back() += "," + std::string(item);
      } else {
        specs.emplace_back(item);
      }
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    for (const auto& s : specs) {
      o.classes.push_back(
          naming_option("--classes", [&] { return platforms::ThreadClass::parse(s); }));
    }
  }
  if (const std::string why = o.validate(); !why.empty()) throw UsageError("bad --" + why);
  return o;
}

std::string strategy_name(Strategy s) {
  switch (s) {
    case Strategy::kNoiseAware:
      return "noise-aware";
    case Strategy::kCrossValidated:
      return "cross-validated";
    case Strategy::kExtrap:
      return "extrap";
  }
  return "?";
}

nlohmann::json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
}

nlohmann::json candidates_json(const std::vector<LearningCandidate>& candidates) {
  nlohmann::json tried = nlohmann::json::array();
  for (const LearningCandidate& c : candidates) {
    tried.push_back({{"name", c.name},
                     {"loss", finite_or_null(c.loss)},
                     {"median_error", finite_or_null(c.median_error)},
                     {"p90_error", finite_or_null(c.p90_error)}});
  }
  return tried;
}

/// What learning tried and chose, for models.json (docs/output-formats.md, "learned").
nlohmann::json learned_json(const LearnedExtrapolation& l) {
  nlohmann::json j;
  j["strategy_learned"] = l.strategy_learned;
  j["law_change_learned"] = l.law_change_learned;
  if (!l.reason.empty()) j["reason"] = l.reason;
  j["kernels"] = l.kernels;
  if (l.along_lines) j["along_lines"] = true;
  j["predictions"] = l.predictions;
  j["chosen"] = l.candidates[l.chosen].name;
  j["candidates"] = candidates_json(l.candidates);
  if (!l.line_ways.empty()) {
    j["line_ways"] = candidates_json(l.line_ways);
    j["line_way"] = l.line_ways[l.line_way].name;
  }
  if (std::isfinite(l.coverage)) j["coverage"] = l.coverage;
  j["overshoot_per_doubling"] = l.overshoot_per_doubling;
  if (!l.example.empty()) j["example"] = l.example;
  j["description"] = l.describe();
  return j;
}

nlohmann::json options_json(const FitArguments& a, const ModelerOptions& o,
                            const LearnedExtrapolation* learned = nullptr) {
  nlohmann::json j;
  j["preset"] = a.preset;
  j["aggregation"] = name_of(kAggregations, o.aggregation);
  j["selection"] = o.strategy == Strategy::kNoiseAware
                       ? "noise"
                       : (o.held_out_error == HeldOutError::kRss ? "rss" : "smape");
  j["strategy"] = strategy_name(o.strategy);
  j["weighting"] = name_of(kWeightings, o.weighting);
  j["folds"] = o.folds;
  j["hypotheses"] = o.space.hypotheses().size();
  j["valid_r2"] = o.valid_adjusted_r2;
  j["loss"] = name_of(kLosses, o.loss);
  j["refine_exponents"] = o.refine_exponents;
  j["confidence"] = o.confidence;
  j["law_change_per_doubling"] = o.law_change_per_doubling;
  if (o.model_each_line) j["lines"] = "each";
  if (!o.boundaries.empty()) {
    j["law_change_past_boundary"] = o.law_change_past_boundary;
    for (const TopologyBoundary& b : o.boundaries)
      j["boundaries"].push_back({{"threads", b.threads}, {"what", b.what}});
  }
  j["classes"] = a.classes;
  if (!a.budget.empty()) j["budget"] = a.budget;
  if (learned != nullptr) j["learned"] = learned_json(*learned);
  return j;
}

std::string render(const std::string& format, const Dataset& data,
                   const std::vector<KernelResult>& results, const std::string& options) {
  if (format == "text") return format_text_report(data, results);
  if (format == "json") return format_models_json(data, results, options);
  if (format == "csv") return format_models_csv(data, results);
  throw UsageError(fmt::format("bad --format '{}': use text, json or csv", format));
}

bool any_worse_than_log(const std::vector<KernelResult>& results) {
  for (const auto& r : results) {
    for (const auto& m : r.models) {
      if (m.worse_than_log) return true;
    }
  }
  return false;
}

/// Several parameters: models over all of them (README, "Several parameters").
int run_fit_multi(const Dataset& data, const ModelerOptions& options, const std::string& learned,
                  const std::string& format, const std::string& output,
                  const std::string& options_json, std::size_t width) {
  const auto results = fit_multi_dataset(data, options);
  if (format == "text") {
    write_output(output, format_multi_text(data, results, {learned}, width));
  } else if (format == "json") {
    write_output(output, format_multi_json(data, results, {}, options_json));
  } else {
    write_output(output, format_multi_csv(data, results));
  }
  return 0;
}

/// Where and how a report goes.
struct Output {
  std::string format = "text";
  std::string path;  ///< empty or "-": stdout
  bool wide = false;

  /// The terminal's width when the report goes to one and --wide is not given; else 0.
  std::size_t width() const {
    return wide || (!path.empty() && path != "-") ? 0 : output_width(STDOUT_FILENO);
  }
  void add_options(CLI::App& cmd, const std::string& formats) {
    cmd.add_option("--format", format, formats)->capture_default_str();
    cmd.add_option("-o,--output", path, "Output file (default: stdout)");
    cmd.add_flag("--wide", wide,
                 "Whole keys and lines on a terminal too (default: fit the terminal's width)");
  }
};

/// --lines chooses how two parameters are modeled; other inputs have no such choice.
void check_lines_option(const FitArguments& a, const Dataset& data) {
  if (a.lines.empty() || data.dimensions() == 2) return;
  throw UsageError(fmt::format(
      "--lines {}: the input has {} parameter(s); lines along the first parameter are modeled on "
      "their own only with two (e.g. --param threads,size)",
      a.lines, data.dimensions()));
}

int run_fit(const FitArguments& a, const Output& to, bool fail_on_worse) {
  const std::string& format = to.format;
  const std::string& output = to.path;
  check_format(format, {"text", "json", "csv", "extrap"});
  ModelerOptions asked = make_options(a);
  const Dataset data = read_inputs(a);
  check_lines_option(a, data);
  if (format == "extrap") {  // the measurements in Extra-P's text format: nothing to fit
    write_output(output, format_extrap_text(data));
    return 0;
  }
  asked.parameter = data.parameter;
  // The input teaches first (learning/learn_from_input.h), then every kernel is fitted with it.
  const LearnedExtrapolation learned = learn_from_input(data, asked);
  const ModelerOptions options = with_learned(asked, learned);
  const std::string recorded = options_json(a, options, &learned).dump();
  if (data.dimensions() > 1) {
    return run_fit_multi(data, options, learned.describe(), format, output, recorded, to.width());
  }
  if (format == "text") {
    // Reported as kernels are fitted: memory stays at the data plus the report's text.
    TextReport report(data, {.learned = learned.describe(), .width = to.width()});
    bool worse = false;
    fit_dataset(data, options, {}, [&](KernelResult&& result, std::string&&) {
      for (const auto& m : result.models) worse |= m.worse_than_log;
      report.add(result);
    });
    OutputFile out(output);
    report.write(out.stream());
    out.commit();
    return fail_on_worse && worse ? 1 : 0;
  }
  if (format == "json") {
    // Streamed like the text report; each kernel is formatted by the thread that fitted it.
    OutputFile out(output);
    ModelsJsonWriter writer(out.stream(), data, recorded);
    bool worse = false;
    fit_dataset(
        data, options, [&](const KernelResult& result) { return writer.format(result); },
        [&](KernelResult&& result, std::string&& text) {
          for (const auto& m : result.models) worse |= m.worse_than_log;
          writer.add_formatted(text);
        });
    writer.finish();
    out.commit();
    return fail_on_worse && worse ? 1 : 0;
  }
  const auto results = fit_dataset(data, options);
  write_output(output, render(format, data, results, recorded));
  return fail_on_worse && any_worse_than_log(results) ? 1 : 0;
}

int run_plot(const FitArguments& a, const std::string& output, double extrapolate_to, bool log_y) {
  ModelerOptions options = make_options(a);
  const Dataset data = read_inputs(a);
  check_lines_option(a, data);
  options.parameter = data.parameter;
  PlotOptions plot;
  if (extrapolate_to > 0.0) plot.extrapolate_to = extrapolate_to;
  plot.log_y = log_y;
  if (data.dimensions() > 1) {
    // Several parameters: one panel per kernel, one line along the first parameter per measured
    // value of the others.
    std::vector<KernelResult> lines;
    const Dataset along = lines_along_first(
        data, fit_multi_dataset(data, with_learned(options, learn_from_input(data, options))),
        lines);
    const std::vector<std::string> names = data.parameter_names();
    plot.series_columns.assign(names.begin() + 1, names.end());
    write_output(output, plot_svg(along, lines, plot));
    return 0;
  }
  const auto results = fit_dataset(data, with_learned(options, learn_from_input(data, options)));
  write_output(output, plot_svg(data, results, plot));
  return 0;
}

/// `modeler predict` on a models.json with several parameters: along the first parameter.
int run_predict_multi(const std::string& text, const std::string& name,
                      const std::vector<double>& at, double confidence,
                      const std::optional<BudgetSpec>& budget, double budget_limit,
                      const std::string& format, const std::string& output, std::size_t width) {
  MultiModelsFile file = parse_multi_models_json(text, name);
  if (budget && !budget->unit.empty()) {
    throw UsageError("predict takes budgets in the data's unit (e.g. 0.3) or relative (4x)");
  }
  for (MultiResult& r : file.results) {
    predict_along_first(r, at, budget, budget ? budget->value : 0.0, confidence, budget_limit);
  }
  if (format == "json") {
    write_output(output, format_multi_json(file.dataset, file.results, {}, file.options_json));
  } else if (format == "text") {
    write_output(output, format_multi_text(file.dataset, file.results, {}, width));
  } else {
    throw UsageError(
        fmt::format("bad --format '{}': with several parameters use text or json", format));
  }
  return 0;
}

/// Refuses a file that is no models.json (a measurements CSV given to predict) by name, instead
/// of with a JSON parser's complaint.
void expect_models_json(const std::string& text, const std::string& name) {
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || text[start] == '{') return;
  std::string first = text.substr(start, text.find('\n', start) - start);
  if (first.size() > 40) first = first.substr(0, 40) + "...";
  throw UsageError(
      fmt::format("{}: not a models.json (it starts with '{}'); predict and compare read what "
                  "'modeler fit --format json -o FILE' writes",
                  name, first));
}

/// A models.json (one parameter).
/// A models.json for `compare`; one with several parameters as models along the first.
ModelsFile read_models(const std::string& path) {
  const std::string name = path == "-" ? "<stdin>" : path;
  const std::string text = read_input(path);
  expect_models_json(text, name);
  if (has_several_parameters(text)) return models_along_first(parse_multi_models_json(text, name));
  return parse_models_json(text, name);
}

}  // namespace

void predict_kernel(const ModelsFile& file, KernelResult& result, const std::vector<double>& at,
                    double confidence, const std::optional<BudgetSpec>& spec, double budget_limit) {
  const std::optional<BudgetSpec> budget =
      budget_for_kernel(file.dataset, io_detail::kernel_of(file.dataset, result), spec);
  std::optional<PointSummary> base;
  if (budget && budget->relative && !result.models.empty()) {
    base = relative_budget_base(all_points(result), result.models.front().resolution);
  }
  for (auto& m : result.models) {
    m.predictions.clear();
    m.budget.reset();
    if (!m.has_model()) continue;
    for (double t : at) m.predictions.push_back(predict(m.predictive, t, confidence));
    // A warning in place of a budget that cannot be had, as `fit` gives (one, not one per run).
    std::erase_if(m.warnings, is_unusable_budget_warning);
    if (budget && budget->relative && !base)
      m.warnings.push_back(unusable_relative_budget(budget->value, m.resolution));
    if (!budget || (budget->relative && !base)) continue;
    const double first = m.points.empty() ? 1.0 : m.points.front().param;
    const double absolute = budget->relative ? budget->value * base->value : budget->value;
    m.budget = find_budget_crossing(m.predictive, absolute, confidence, first, budget_limit);
    m.budget->base = budget->relative ? base : std::nullopt;
  }
}

namespace {

int run_predict(const std::string& models_path, const std::vector<double>& at, double confidence,
                const std::string& budget_text, double budget_limit, const Output& to) {
  const std::string& format = to.format;
  const std::string& output = to.path;
  check_format(format, {"text", "json", "csv"});
  check_confidence(confidence);
  std::optional<BudgetSpec> budget;
  if (!budget_text.empty()) {
    budget = naming_option("--budget", [&] { return parse_budget(budget_text); });
  }
  for (double t : at) {
    if (!(t > 0.0))
      throw UsageError(fmt::format("bad --at value {}: thread counts are positive", t));
  }
  const std::string text = read_input(models_path);
  expect_models_json(text, models_path == "-" ? "<stdin>" : models_path);
  if (has_several_parameters(text)) {
    return run_predict_multi(text, models_path == "-" ? "<stdin>" : models_path, at, confidence,
                             budget, budget_limit, format, output, to.width());
  }
  ModelsFile file = parse_models_json(text, models_path == "-" ? "<stdin>" : models_path);
  for (auto& result : file.results)
    predict_kernel(file, result, at, confidence, budget, budget_limit);
  if (format == "json") {
    write_output(output, format_models_json(file));
  } else if (format == "csv") {
    write_output(output, format_models_csv(file.dataset, file.results));
  } else if (format == "text") {
    write_output(output, format_text_report(file.dataset, file.results, {.width = to.width()}));
  } else {
    throw UsageError(fmt::format("bad --format '{}': use text, json or csv", format));
  }
  return 0;
}

struct CompareArguments {
  std::string a, b, names;
  std::vector<std::string> across;
  Output to;
  bool fail_on_difference = false;

  void add_options(CLI::App& cmd) {
    cmd.add_option("a", a, "First models.json (e.g. libgomp)")->required();
    cmd.add_option("b", b, "Second models.json (e.g. libomp)")->required();
    cmd.add_option("--names", names, "Column names for the two files, e.g. gnu,llvm");
    cmd.add_option("--across", across,
                   "Key columns not to match on, e.g. runtime,runtime_version,compiler (default: "
                   "those holding one value in each file, a different one in each)")
        ->delimiter(',');
    to.add_options(cmd, "text or json");
    cmd.add_flag("--fail-on-difference", fail_on_difference, "Exit 1 when growth classes differ");
  }
};

int run_compare(const CompareArguments& c) {
  check_format(c.to.format, {"text", "json"});
  ComparisonNames n{c.a, c.b};
  if (!c.names.empty()) {
    const auto comma = c.names.find(',');
    if (comma == std::string::npos) throw UsageError("bad --names: give two names, e.g. gnu,llvm");
    n.a = c.names.substr(0, comma);
    n.b = c.names.substr(comma + 1);
  }
  const ModelsFile a = read_models(c.a);
  const ModelsFile b = read_models(c.b);
  std::optional<std::vector<std::string>> across;
  if (!c.across.empty()) across = c.across;
  const ModelComparison comparison = compare_models(a, b, across);
  if (comparison.matched.empty())
    throw UsageError("nothing to compare: " + explain_no_match(a, b, comparison));
  if (c.to.format == "text") {
    write_output(c.to.path, format_comparison(a, b, comparison, n, c.to.width()));
  } else if (c.to.format == "json") {
    write_output(c.to.path, format_comparison_json(a, b, comparison, n));
  } else {
    throw UsageError(fmt::format("bad --format '{}': use text or json", c.to.format));
  }
  return c.fail_on_difference && comparison.growth_differences() > 0 ? 1 : 0;
}

}  // namespace

ModelsFile fit_command_line(const std::vector<std::string>& args, const NamedText* standard_input,
                            std::vector<std::string>& notes) {
  CLI::App app{"modeler"};
  FitArguments a;
  CLI::App* fit = app.add_subcommand("fit");
  add_fit_options(*fit, a);
  std::vector<std::string> words = {"modeler", "fit"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    throw UsageError(parse_error_message(app, e, static_cast<int>(argv.size()), argv.data(),
                                         "modeler fit --help"));
  }
  ModelerOptions options = make_options(a);
  ModelsFile file;
  file.dataset = read_inputs(
      a, [&](const std::string& note) { notes.push_back(note); }, standard_input);
  if (file.dataset.dimensions() > 1) {
    throw UsageError(fmt::format(
        "{} parameters ({}): models over several parameters come from the command line, "
        "`modeler fit --format json`",
        file.dataset.dimensions(), fmt::join(file.dataset.parameter_names(), ", ")));
  }
  options.parameter = file.dataset.parameter;
  // As `modeler fit` does (run_fit): the input teaches first, then every kernel is fitted with it.
  const LearnedExtrapolation learned = learn_from_input(file.dataset, options);
  options = with_learned(options, learned);
  file.ompscale_version = version_string();
  file.options_json = options_json(a, options, &learned).dump();
  file.results = fit_dataset(file.dataset, options);
  return file;
}

ModelsFile read_single_parameter_models(const std::string& path) {
  const std::string name = path == "-" ? "<stdin>" : path;
  const std::string text = read_input(path);
  expect_models_json(text, name);
  if (has_several_parameters(text)) {
    throw UsageError(fmt::format(
        "{}: models over several parameters; this reader takes models of one parameter", name));
  }
  return parse_models_json(text, name);
}

int run_cli(int argc, char** argv) {
  CLI::App app{
      "modeler: scaling models (PMNF) of OpenMP construct costs and other kernels.\n"
      "Reads ompbench CSV, generic CSV and Extra-P text/JSON/JSONL inputs."};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_string());
  wrap_help(app);

  FitArguments fit_args;
  Output fit_output;
  bool fail_on_worse = false;
  CLI::App* fit =
      app.add_subcommand("fit", "Model every kernel and report (text, json, csv, extrap)");
  add_fit_options(*fit, fit_args);
  fit_output.add_options(*fit,
                         "text, json (models.json), csv, or extrap (the data as Extra-P text)");
  fit->add_flag("--fail-on-worse-than-log", fail_on_worse,
                "Exit 1 when a valid model grows faster than log t");

  FitArguments plot_args;
  std::string plot_output;
  double extrapolate_to = 0.0;
  bool log_y = false;
  CLI::App* plot = app.add_subcommand("plot", "Fit and draw points, spread and models as SVG");
  add_fit_options(*plot, plot_args);
  plot->add_option("-o,--output", plot_output, "SVG file (default: stdout)");
  plot->add_option("--extrapolate-to", extrapolate_to,
                   "Draw models (dashed) up to this thread count (default 4x the largest)");
  plot->add_flag("--log-y", log_y, "Logarithmic value axis");

  std::string models_path, budget;
  Output predict_output;
  std::vector<double> at;
  double confidence = 0.90, budget_limit = 1 << 20;
  CLI::App* pred = app.add_subcommand("predict", "Predictions with intervals from a models.json");
  pred->add_option("models", models_path, "models.json written by modeler fit --format json")
      ->required();
  pred->add_option("--at", at, "Thread counts, e.g. 512,1024")->delimiter(',');
  pred->add_option("--confidence", confidence, "Interval level")->capture_default_str();
  pred->add_option("--budget", budget,
                   "Cost budget: 10us, 2.5ms, 0.3 (data's unit) or 4x (of the base cost, as fit)");
  pred->add_option("--budget-limit", budget_limit, "Largest thread count the budget search tries")
      ->capture_default_str();
  predict_output.add_options(*pred, "text, json or csv");

  CompareArguments compare;
  CLI::App* cmp = app.add_subcommand("compare", "The same kernels of two models.json side by side");
  compare.add_options(*cmp);

  if (const auto unknown = unknown_subcommand(app, argc, argv)) {
    std::cerr << "modeler: " << *unknown << " (see modeler --help)\n";
    return 2;
  }
  if (const auto status =
          parse_command_line(app, argc, argv, "modeler", help_command("modeler", app, argc, argv)))
    return *status;
  return run_reporting_errors(
      "modeler",
      [&] {
        if (fit->parsed()) return run_fit(fit_args, fit_output, fail_on_worse);
        if (plot->parsed()) return run_plot(plot_args, plot_output, extrapolate_to, log_y);
        if (pred->parsed()) {
          if (at.empty() && budget.empty()) throw UsageError("predict needs --at and/or --budget");
          return run_predict(models_path, at, confidence, budget, budget_limit, predict_output);
        }
        if (cmp->parsed()) return run_compare(compare);
        return 2;
      },
      2);
}

}  // namespace ompscale::modeler
