// Tests of the output writers (text, models.json and its reader, CSV, Extra-P text, SVG plot,
// comparison) against hand-built results, independent of the fitting code.

#include "modeler/io/writers.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/error.h"
#include "modeler/io/readers.h"
#include "modeler/io/write_multi.h"

namespace ompscale::modeler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// ---------------------------------------------------------------------------------------------
// Fixture: two kernels, three class models, with every optional part filled somewhere.

Kernel keyed_kernel(std::vector<std::string> key, const std::vector<double>& params,
                    double (*cost)(double)) {
  std::vector<Sample> samples;
  for (double t : params) {
    for (double noise : {0.98, 1.0, 1.03}) samples.push_back({t, cost(t) * noise});
  }
  return Kernel::from_samples(key, std::move(samples));
}

/// The points of `kernel` whose parameter value satisfies `keep` (all by default).
std::vector<PointSummary> summarize(const Kernel& kernel,
                                    const std::function<bool(double)>& keep = {}) {
  std::vector<PointSummary> points;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    if (keep && !keep(kernel.param(i))) continue;
    const auto reps = kernel.repetitions(i);
    points.push_back({.param = kernel.param(i),
                      .value = reps[1],
                      .min = reps[0],
                      .max = reps[2],
                      .cv = 0.02,
                      .repetitions = reps.size()});
  }
  return points;
}

double barrier_cost(double t) {
  return 0.5 + 0.25 * std::pow(t, 1.5) * std::log2(t);
}
double reduction_cost(double t) {
  return 1.2 + 0.3 * std::log2(t);
}

Dataset make_dataset() {
  Dataset d;
  d.parameter = "t";
  d.key_columns = {"construct", "metric", "unit"};
  d.sources = {"results.csv", "more.csv"};
  d.kernels.push_back(keyed_kernel({"barrier", "overhead", "us"}, {1, 2, 4, 8, 16}, barrier_cost));
  d.kernels.push_back(
      keyed_kernel({"reduction", "overhead", "us"}, {1, 2, 3, 4, 5, 8, 16}, reduction_cost));
  return d;
}

ClassModel barrier_model(const Dataset& d) {
  ClassModel m;
  m.thread_class = "all";
  m.points = summarize(d.kernels[0]);
  m.model.constant = 0.5;
  m.model.terms = {{0.25, {1.5, 1}}};
  m.stats = {.points = 5,
             .rss = 1e-3,
             .tss = 120.0,
             .adjusted_r2 = 0.99912,
             .smape = 1.2,
             .cv_error = 2.31};
  m.coefficient_intervals = {{0.4, 0.6}, {0.24, 0.26}};
  PredictiveComponent c;
  c.weight = 1.0;
  c.model = m.model;
  c.covariance = {0.01, -0.001, -0.001, 0.0001};
  c.dof = 3;
  c.noise_sd_absolute = 0.02;
  c.noise_sd_relative = 0.015;
  c.drift_sd_relative = 0.04;
  c.law_change_sd_relative = 0.08;
  c.range_low = 2.0;
  c.range_high = 64.0;
  c.positive = true;
  m.predictive.components = {c};
  m.growth = GrowthClass::kSuperlinear;
  m.valid = true;
  m.worse_than_log = true;
  m.predictions = {{64, barrier_cost(64), {780.0, 820.0}, 0.9},
                   {32, barrier_cost(32), {220.0, 235.0}, 0.9}};
  m.budget = BudgetCrossing{.budget = 100.0,
                            .threads = 18.0,
                            .threads_early = 17.0,
                            .threads_late = std::nullopt,
                            .search_limit = 1 << 20};
  return m;
}

std::vector<KernelResult> make_results(const Dataset& d) {
  KernelResult barrier;
  barrier.kernel = 0;
  barrier.models.push_back(barrier_model(d));

  KernelResult reduction;
  reduction.kernel = 1;
  reduction.class_decision = "split into po2/other: held-out error 1.1% vs 4.0%";
  const auto po2 = [](double t) { return t == 1 || t == 2 || t == 4 || t == 8 || t == 16; };
  ClassModel a;
  a.thread_class = "po2";
  a.points = summarize(d.kernels[1], po2);
  a.model.constant = 1.2;
  a.model.terms = {{0.3, {0.0, 1}}};
  a.stats = {
      .points = 5, .rss = 2e-4, .tss = 1.5, .adjusted_r2 = 0.9951, .smape = 0.8, .cv_error = 1.1};
  a.growth = GrowthClass::kLogarithmic;
  a.valid = true;
  PredictiveComponent ca;
  ca.weight = 0.7;
  ca.model = a.model;
  ca.covariance = {1e-4, 0, 0, 1e-5};
  ca.dof = 3;
  PredictiveComponent cb;
  cb.weight = 0.3;
  cb.model.constant = 1.1;
  cb.model.terms = {{0.05, {0.5, 0}}};
  cb.dof = 3;
  a.predictive.components = {ca, cb};

  ClassModel b;
  b.thread_class = "other";
  b.points = summarize(d.kernels[1], [](double t) { return t == 3 || t == 5; });
  b.model.constant = 1.7;
  b.stats = {.points = 2,
             .rss = 0.0,
             .tss = 0.0,
             .adjusted_r2 = std::numeric_limits<double>::quiet_NaN(),
             .smape = 3.0,
             .cv_error = 9.5};
  b.growth = GrowthClass::kConstant;
  b.valid = false;
  b.noise_dominates = true;
  b.warnings = {"only 2 points: constant model"};
  reduction.models = {a, b};
  return {barrier, reduction};
}

// ---------------------------------------------------------------------------------------------
// Text report

TEST(TextReport, OneAlignedLinePerModelWithMarks) {
  const Dataset d = make_dataset();
  const std::string text = format_text_report(d, make_results(d));
  std::vector<std::string> lines;
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
  }
  EXPECT_THAT(lines[0], StartsWith("Models over t from results.csv, more.csv (ompscale "));
  ASSERT_GE(lines.size(), 6u);
  const std::string& header = lines[2];
  EXPECT_THAT(header, HasSubstr("kernel"));
  const std::size_t model_column = header.find("model");
  const std::size_t growth_column = header.find("growth");

  const std::string& barrier = lines[3];
  EXPECT_THAT(barrier, StartsWith("!"));
  EXPECT_EQ(barrier.find("0.5 + 0.25 * t^(3/2) * log2(t)^(1)"), model_column);
  EXPECT_EQ(barrier.find("superlinear"), growth_column);
  EXPECT_THAT(barrier, HasSubstr("construct=barrier metric=overhead unit=us"));
  EXPECT_THAT(barrier, HasSubstr("0.9991"));  // adjusted R^2, 4 decimals
  EXPECT_THAT(barrier, HasSubstr("worse-than-log"));

  const std::string& po2 = lines[4];
  EXPECT_THAT(po2, StartsWith(" "));  // no mark
  EXPECT_EQ(po2.find("1.2 + 0.3 * log2(t)^(1)"), model_column);
  EXPECT_EQ(po2.find("logarithmic"), growth_column);

  const std::string& other = lines[5];
  EXPECT_THAT(other, StartsWith("?~"));
  EXPECT_THAT(other, HasSubstr("n/a"));  // NaN adjusted R^2
  EXPECT_THAT(other, HasSubstr("invalid,noisy,1 warning"));

  EXPECT_THAT(text, HasSubstr("! grows faster than logarithmic"));
  EXPECT_THAT(text, HasSubstr("? invalid"));
  EXPECT_THAT(text, HasSubstr("~ noise dominates"));
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "no terminal colours in files";
}

TEST(TextReport, DetailSectionsWhenPresent) {
  const Dataset d = make_dataset();
  const std::string text = format_text_report(d, make_results(d));
  EXPECT_THAT(text, HasSubstr("Predictions"));
  EXPECT_THAT(text, HasSubstr("[780, 820]"));
  EXPECT_THAT(text, HasSubstr("90%"));
  EXPECT_THAT(text, HasSubstr("Budget crossings"));
  EXPECT_THAT(text, HasSubstr("never"));  // threads_late: not crossed
  EXPECT_THAT(text,
              HasSubstr("construct=reduction metric=overhead unit=us [other]: only 2 points"));
  EXPECT_THAT(text, HasSubstr("Class decisions:\n  construct=reduction metric=overhead unit=us: "
                              "split into po2/other"));
  // Predictions are listed in the order the model holds them.
  EXPECT_LT(text.find("[780, 820]"), text.find("[220, 235]"));
}

TEST(TextReport, NoDetailSectionsWithoutDetails) {
  Dataset d = make_dataset();
  std::vector<KernelResult> results = make_results(d);
  results.resize(1);
  results[0].models[0].predictions.clear();
  results[0].models[0].budget.reset();
  const std::string text =
      format_text_report(d, results, {.digits = 4, .header = false, .learned = {}, .width = 0});
  EXPECT_THAT(text, Not(HasSubstr("Predictions")));
  EXPECT_THAT(text, Not(HasSubstr("Budget")));
  EXPECT_THAT(text, Not(HasSubstr("Warnings")));
  EXPECT_THAT(text, Not(HasSubstr("Class decisions")));
  EXPECT_THAT(text, Not(HasSubstr("Models over")));
  EXPECT_THAT(text, Not(HasSubstr("? invalid")));  // legend lists only the marks used
}

// ---------------------------------------------------------------------------------------------
// models.json

TEST(ModelsJson, DocumentStructure) {
  const Dataset d = make_dataset();
  const auto doc = nlohmann::json::parse(
      format_models_json(d, make_results(d), R"({"preset": "default", "folds": 0})"));
  EXPECT_EQ(doc["parameter"], "t");
  EXPECT_EQ(doc["key_columns"], nlohmann::json({"construct", "metric", "unit"}));
  EXPECT_EQ(doc["sources"], nlohmann::json({"results.csv", "more.csv"}));
  EXPECT_EQ(doc["options"]["preset"], "default");
  EXPECT_EQ(doc["ompscale_version"], version_string());
  ASSERT_EQ(doc["kernels"].size(), 2u);

  const auto& barrier = doc["kernels"][0];
  EXPECT_EQ(barrier["key"]["construct"], "barrier");
  const auto& m = barrier["models"][0];
  EXPECT_EQ(m["class"], "all");
  EXPECT_EQ(m["model"], "0.5 + 0.25 * t^(3/2) * log2(t)^(1)");
  EXPECT_EQ(m["terms"][0]["exponent"], "3/2");
  EXPECT_EQ(m["terms"][0]["exponent_value"], 1.5);
  EXPECT_EQ(m["terms"][0]["log_exponent"], 1);
  EXPECT_EQ(m["points"].size(), 5u);
  EXPECT_EQ(m["points"][2]["repetitions"], 3);
  EXPECT_EQ(m["statistics"]["adjusted_r2"], 0.99912);
  EXPECT_EQ(m["growth"], "superlinear");
  EXPECT_EQ(m["worse_than_log"], true);
  EXPECT_EQ(m["predictions"][0]["param"], 64.0);
  EXPECT_EQ(m["predictions"][0]["low"], 780.0);
  EXPECT_EQ(m["budget"]["threads"], 18.0);
  EXPECT_TRUE(m["budget"]["threads_late"].is_null());
  EXPECT_EQ(m["predictive"]["components"][0]["covariance"],
            nlohmann::json::parse("[[0.01, -0.001], [-0.001, 0.0001]]"));

  const auto& other = doc["kernels"][1]["models"][1];
  EXPECT_TRUE(other["statistics"]["adjusted_r2"].is_null());  // NaN
  EXPECT_TRUE(other["budget"].is_null());
  EXPECT_EQ(doc["kernels"][1]["class_decision"],
            "split into po2/other: held-out error 1.1% vs 4.0%");
}

TEST(ModelsJson, RoundTripKeepsEverything) {
  const Dataset d = make_dataset();
  const std::vector<KernelResult> results = make_results(d);
  const std::string written = format_models_json(d, results, R"({"b": 1, "a": [2]})");
  const ModelsFile file = parse_models_json(written, "models.json");

  EXPECT_EQ(format_models_json(file), written) << "write -> read -> write must be the identity";
  EXPECT_EQ(file.options_json, R"({"b":1,"a":[2]})");
  EXPECT_EQ(file.ompscale_version, version_string());
  EXPECT_EQ(file.dataset.parameter, "t");
  EXPECT_EQ(file.dataset.key_columns, d.key_columns);
  EXPECT_EQ(file.dataset.sources, d.sources);
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_THAT(file.dataset.kernels[1].key_values(), ElementsAre("reduction", "overhead", "us"));
  EXPECT_EQ(file.results[1].kernel, 1u);

  const ClassModel& in = results[0].models[0];
  const ClassModel& out = file.results[0].models[0];
  EXPECT_EQ(out.model.constant, in.model.constant);
  ASSERT_EQ(out.model.terms.size(), 1u);
  EXPECT_EQ(out.model.terms[0].coefficient, in.model.terms[0].coefficient);
  EXPECT_EQ(out.model.terms[0].shape, in.model.terms[0].shape);
  EXPECT_EQ(out.points.size(), in.points.size());
  EXPECT_EQ(out.points[4].max, in.points[4].max);  // bit-exact doubles
  EXPECT_EQ(out.stats.adjusted_r2, in.stats.adjusted_r2);
  EXPECT_EQ(out.coefficient_intervals[1].high, in.coefficient_intervals[1].high);
  EXPECT_EQ(out.predictions[1].interval.low, 220.0);
  EXPECT_EQ(out.predictions[1].level, 0.9);
  ASSERT_TRUE(out.budget.has_value());
  EXPECT_EQ(out.budget->threads, 18.0);
  EXPECT_FALSE(out.budget->threads_late.has_value());
  EXPECT_EQ(out.budget->search_limit, 1 << 20);
  ASSERT_EQ(out.predictive.components.size(), 1u);
  EXPECT_EQ(out.predictive.components[0].covariance, in.predictive.components[0].covariance);
  EXPECT_EQ(out.predictive.components[0].noise_sd_relative, 0.015);
  EXPECT_EQ(out.predictive.components[0].drift_sd_relative, 0.04);
  EXPECT_EQ(out.predictive.components[0].law_change_sd_relative, 0.08);
  EXPECT_EQ(out.predictive.components[0].range_low, 2.0);
  EXPECT_EQ(out.predictive.components[0].range_high, 64.0);
  EXPECT_TRUE(out.predictive.components[0].positive);

  const ClassModel& mixture = file.results[1].models[0];
  ASSERT_EQ(mixture.predictive.components.size(), 2u);
  EXPECT_EQ(mixture.predictive.components[1].weight, 0.3);
  EXPECT_EQ(mixture.predictive.components[1].model.terms[0].shape.exponent, 0.5);
  EXPECT_TRUE(mixture.predictive.components[1].covariance.empty());

  const ClassModel& other = file.results[1].models[1];
  EXPECT_TRUE(std::isnan(other.stats.adjusted_r2));
  EXPECT_FALSE(other.valid);
  EXPECT_TRUE(other.noise_dominates);
  EXPECT_EQ(other.warnings, results[1].models[1].warnings);
  EXPECT_FALSE(other.budget.has_value());
  EXPECT_EQ(file.results[1].class_decision, results[1].class_decision);
}

TEST(ModelsJson, ReadsFromFile) {
  const Dataset d = make_dataset();
  const std::string path = ::testing::TempDir() + "/writers_test_models.json";
  {
    std::ofstream out(path);
    out << format_models_json(d, make_results(d));
  }
  const ModelsFile file = read_models_json(path);
  std::remove(path.c_str());
  EXPECT_EQ(file.results.size(), 2u);
  EXPECT_THROW(read_models_json(path), InputError);  // gone now
}

// A minimal valid file, edited by each malformed-input test.
nlohmann::json minimal_document() {
  return nlohmann::json::parse(R"({
    "parameter": "t", "key_columns": ["construct"],
    "kernels": [
      {"key": {"construct": "barrier"}, "models": [
        {"class": "all", "constant": 1.0,
         "terms": [{"coefficient": 2.0, "exponent": "3/2", "log_exponent": 0}],
         "statistics": {"points": 4, "rss": 0.1, "tss": 9, "adjusted_r2": 0.99, "smape": 1,
                        "cv_error": 2},
         "growth": "superlinear", "valid": true}]},
      {"key": {"construct": "single"}, "models": [
        {"class": "all", "constant": 0.5, "terms": [],
         "statistics": {"points": 4, "rss": 0.1, "tss": 9, "adjusted_r2": null, "smape": 1,
                        "cv_error": 2},
         "growth": "constant", "valid": false}]}]})");
}

// The InputError `parse` (a models.json reader) throws on `text`, named m.json.
template <typename Parse>
std::string input_error_of(const std::string& text, Parse parse) {
  try {
    parse(text, "m.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string input_error_of(const std::string& text) {
  return input_error_of(text, parse_models_json);
}

TEST(ModelsJson, MinimalFileFillsDefaults) {
  const ModelsFile file = parse_models_json(minimal_document().dump(), "m.json");
  ASSERT_EQ(file.results.size(), 2u);
  const ClassModel& m = file.results[0].models[0];
  EXPECT_EQ(m.model.terms[0].shape.exponent, 1.5);  // parsed from the fraction
  EXPECT_EQ(file.options_json, "{}");
  // Without a predictive part, the model itself predicts.
  ASSERT_EQ(m.predictive.components.size(), 1u);
  EXPECT_EQ(m.predictive.components[0].model.terms[0].coefficient, 2.0);
  EXPECT_TRUE(std::isnan(file.results[1].models[0].stats.adjusted_r2));
}

// Fuzzer-found: nlohmann's out_of_range for a number beyond a double escaped as an
// uncaught exception; an integer beyond 64 bits wrapped.
TEST(ModelsJson, NumbersThatDoNotFitAreInputErrors) {
  EXPECT_EQ(input_error_of("7e377"), "m.json:1: invalid JSON: number overflow parsing '7e377'");
  nlohmann::json doc = minimal_document();
  doc["kernels"][0]["models"][0]["statistics"]["points"] = 18446744073709551615ULL;
  EXPECT_THAT(
      input_error_of(doc.dump(2)),
      HasSubstr("kernels[0].models[0].statistics.points: expected an integer in 0..2^63-1"));
  EXPECT_THAT(input_error_of(doc.dump(2)), ::testing::StartsWith("m.json:"));
  EXPECT_THAT(input_error_of(doc.dump(2)), Not(::testing::StartsWith("m.json:1:")));
}

TEST(ModelsJson, MissingFieldNamesFieldAndKernel) {
  nlohmann::json doc = minimal_document();
  doc["kernels"][1]["models"][0].erase("constant");
  EXPECT_EQ(input_error_of(doc.dump()), "m.json:1: kernels[1].models[0]: missing field 'constant'");

  doc = minimal_document();
  doc["kernels"][0]["models"][0]["statistics"].erase("smape");
  EXPECT_EQ(input_error_of(doc.dump()),
            "m.json:1: kernels[0].models[0].statistics: missing field 'smape'");

  doc = minimal_document();
  doc["kernels"][1]["key"].erase("construct");
  EXPECT_EQ(input_error_of(doc.dump()), "m.json:1: kernels[1].key: missing field 'construct'");

  doc = minimal_document();
  doc.erase("parameter");
  EXPECT_EQ(input_error_of(doc.dump()), "m.json:1: missing field 'parameter'");
}

TEST(ModelsJson, WrongTypesAndValuesAreInputErrors) {
  nlohmann::json doc = minimal_document();
  doc["kernels"][0]["models"][0]["terms"][0]["coefficient"] = "two";
  EXPECT_EQ(input_error_of(doc.dump()),
            "m.json:1: kernels[0].models[0].terms[0].coefficient: expected a number, found string");

  doc = minimal_document();
  doc["kernels"][0]["models"][0]["growth"] = "quadratic";
  EXPECT_THAT(input_error_of(doc.dump()),
              HasSubstr("kernels[0].models[0].growth: unknown growth class 'quadratic'"));

  doc = minimal_document();
  doc["kernels"][0]["models"][0]["terms"][0]["exponent"] = "three halves";
  EXPECT_THAT(input_error_of(doc.dump()), HasSubstr("kernels[0].models[0].terms[0]: exponent"));

  doc = minimal_document();
  doc["kernels"][0]["key"]["extra"] = "x";
  EXPECT_THAT(input_error_of(doc.dump()), HasSubstr("column 'extra' is not one of key_columns"));

  doc = minimal_document();
  doc["kernels"][0]["models"][0]["predictive"] = {{"components",
                                                   {{{"weight", 1},
                                                     {"constant", 1},
                                                     {"terms", nlohmann::json::array()},
                                                     {"covariance", {{1, 0}, {0, 1}}},
                                                     {"dof", 2},
                                                     {"noise_sd_absolute", 0},
                                                     {"noise_sd_relative", 0}}}}};
  EXPECT_THAT(input_error_of(doc.dump()), HasSubstr("covariance has 4 values"));
}

TEST(ModelsJson, PosteriorWeightsMustBeUsable) {
  // The point prediction is a weighted median: a negative weight or weights summing to 0 would
  // give a plausible-looking number from nothing.
  const auto with_weights = [](const std::vector<double>& weights) {
    nlohmann::json doc = minimal_document();
    nlohmann::json components = nlohmann::json::array();
    for (double w : weights) {
      components.push_back({{"weight", w},
                            {"constant", 1},
                            {"terms", nlohmann::json::array()},
                            {"covariance", nlohmann::json::array()},
                            {"dof", 2},
                            {"noise_sd_absolute", 0},
                            {"noise_sd_relative", 0}});
    }
    doc["kernels"][0]["models"][0]["predictive"] = {{"components", components}};
    return doc.dump();
  };
  EXPECT_THAT(input_error_of(with_weights({0.5, -0.5})),
              HasSubstr("components[1].weight: expected a finite posterior weight of at least 0"));
  EXPECT_THAT(input_error_of(with_weights({0.0, 0.0})),
              HasSubstr("predictive.components: expected components whose weights sum to more "
                        "than 0"));
}

TEST(ModelsJson, SyntaxErrorNamesLine) {
  EXPECT_THAT(input_error_of("{\n  \"parameter\": \"t\",\n  \"kernels\": [,]\n}"),
              StartsWith("m.json:3: "));
  EXPECT_THAT(input_error_of("[1, 2]"), HasSubstr("expected a JSON object"));
}

TEST(ModelsJson, OptionsMustBeAnObject) {
  const Dataset d = make_dataset();
  EXPECT_THROW(format_models_json(d, make_results(d), "[1]"), std::invalid_argument);
  EXPECT_THROW(format_models_json(d, make_results(d), "{"), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// CSV

TEST(ModelsCsv, OneRowPerModelWithStableColumns) {
  Dataset d = make_dataset();
  // A key value that needs quoting.
  d.kernels[0] = keyed_kernel({"for,\"static\"", "overhead", "us"}, {1, 2, 4, 8, 16}, barrier_cost);
  const std::vector<CsvRecord> rows = read_csv(format_models_csv(d, make_results(d)), "m.csv");
  ASSERT_EQ(rows.size(), 4u);  // header + 3 models
  const std::vector<std::string>& header = rows[0].fields;
  EXPECT_THAT(
      std::vector<std::string>(header.begin(), header.begin() + 18),
      ElementsAre("construct", "metric", "unit", "class", "model", "constant", "term1_coefficient",
                  "term1_exponent", "term1_log_exponent", "term2_coefficient", "term2_exponent",
                  "term2_log_exponent", "term3_coefficient", "term3_exponent", "term3_log_exponent",
                  "adjusted_r2", "smape", "cv_error"));
  const auto column = [&](std::string_view name) {
    const auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return static_cast<std::size_t>(it - header.begin());
  };
  for (const CsvRecord& row : rows) EXPECT_EQ(row.fields.size(), header.size());

  const std::vector<std::string>& barrier = rows[1].fields;
  EXPECT_EQ(barrier[0], "for,\"static\"");  // quoted and read back intact
  EXPECT_EQ(barrier[column("model")], "0.5 + 0.25 * t^(3/2) * log2(t)^(1)");
  EXPECT_EQ(barrier[column("term1_exponent")], "1.5");
  EXPECT_EQ(barrier[column("term1_log_exponent")], "1");
  EXPECT_EQ(barrier[column("term2_coefficient")], "");
  EXPECT_EQ(barrier[column("adjusted_r2")], "0.99912");
  EXPECT_EQ(barrier[column("growth")], "superlinear");
  EXPECT_EQ(barrier[column("worse_than_log")], "1");
  EXPECT_EQ(barrier[column("predicted_t_64_low")], "780");
  EXPECT_EQ(barrier[column("predicted_t_32_high")], "235");
  EXPECT_EQ(barrier[column("budget_threads")], "18");
  EXPECT_EQ(barrier[column("budget_threads_late")], "");
  EXPECT_LT(column("predicted_t_32"), column("predicted_t_64"));

  const std::vector<std::string>& other = rows[3].fields;
  EXPECT_EQ(other[column("class")], "other");
  EXPECT_EQ(other[column("adjusted_r2")], "");  // NaN
  EXPECT_EQ(other[column("valid")], "0");
  EXPECT_EQ(other[column("noise_dominates")], "1");
  EXPECT_EQ(other[column("predicted_t_64")], "");
  EXPECT_EQ(other[column("budget")], "");
}

// ---------------------------------------------------------------------------------------------
// Extra-P text export

Dataset same_points_dataset() {
  Dataset d;
  d.parameter = "threads";
  d.key_columns = {"construct", "metric", "bind"};
  d.sources = {"results.csv"};
  d.kernels.push_back(keyed_kernel({"barrier", "overhead", "spread"}, {1, 2, 4}, barrier_cost));
  d.kernels.push_back(keyed_kernel({"barrier", "skew", "spread"}, {1, 2, 4}, reduction_cost));
  d.kernels.push_back(keyed_kernel({"single", "overhead", ""}, {1, 2, 4}, reduction_cost));
  return d;
}

TEST(ExtrapExport, StructureKeepsEveryRepetition) {
  const Dataset d = same_points_dataset();
  const std::string text = format_extrap_text(d);
  EXPECT_THAT(text, StartsWith("PARAMETER threads\nPOINTS ( 1 ) ( 2 ) ( 4 )\n"));
  // Each metric declared once, its regions below it.
  EXPECT_THAT(text, HasSubstr("\nMETRIC overhead\nREGION barrier/spread\nDATA "));
  EXPECT_THAT(text, HasSubstr("\nREGION single\nDATA "));
  EXPECT_EQ(text.find("METRIC overhead"), text.rfind("METRIC overhead"));
  EXPECT_LT(text.find("REGION single"), text.find("METRIC skew"));
  std::size_t data_lines = 0;
  for (std::size_t pos = text.find("\nDATA "); pos != std::string::npos;
       pos = text.find("\nDATA ", pos + 1)) {
    ++data_lines;
  }
  EXPECT_EQ(data_lines, 9u);
  const std::string first_data =
      text.substr(text.find("DATA "), text.find('\n', text.find("DATA ")) - text.find("DATA "));
  EXPECT_EQ(first_data, fmt::format("DATA {} {} {}", barrier_cost(1) * 0.98, barrier_cost(1),
                                    barrier_cost(1) * 1.03));
}

TEST(ExtrapExport, ReadsBackWithTheExtrapReader) {
  const Dataset d = same_points_dataset();
  const Dataset back = parse_dataset(format_extrap_text(d), "export.txt", ReadOptions{});
  EXPECT_EQ(back.parameter, "threads");
  ASSERT_EQ(back.kernels.size(), 3u);
  std::size_t samples = 0;
  for (const Kernel& k : back.kernels) {
    EXPECT_THAT(std::vector<double>(k.params().begin(), k.params().end()), ElementsAre(1, 2, 4));
    samples += k.sample_count();
  }
  EXPECT_EQ(samples, 27u);
  // Values survive exactly (shortest round-trip formatting).
  const auto reps = back.kernels[0].repetitions(2);
  EXPECT_THAT(std::vector<double>(reps.begin(), reps.end()),
              ElementsAre(barrier_cost(4) * 0.98, barrier_cost(4), barrier_cost(4) * 1.03));
}

TEST(ExtrapExport, RefusesKernelsWithDifferentPoints) {
  const Dataset d = make_dataset();  // 5 and 7 points
  try {
    format_extrap_text(d);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("different t values"));
    EXPECT_THAT(e.what(), HasSubstr("export each class or subset"));
  }
  EXPECT_THROW(format_extrap_text(Dataset{}), UsageError);
}

TEST(ExtrapExport, RefusesKernelsThatWouldMerge) {
  Dataset d = same_points_dataset();
  d.key_columns = {"construct", "metric", "bind"};
  d.kernels.push_back(keyed_kernel({"barrier/spread", "overhead", ""}, {1, 2, 4}, barrier_cost));
  EXPECT_THROW(format_extrap_text(d), UsageError);
}

// ---------------------------------------------------------------------------------------------
// SVG plot

// Checks what a renderer needs: balanced tags, quoted attributes, entities only where escaped.
// Returns "" for well-formed input, otherwise what is wrong.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t roots = 0;
  std::size_t pos = 0;
  const auto check_text = [&](std::string_view text) -> std::string {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '<') return "raw '<' in text or attribute";
      if (text[i] != '&') continue;
      const std::size_t semi = text.find(';', i);
      if (semi == std::string_view::npos) return "unterminated entity";
      const std::string_view entity = text.substr(i, semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" &&
          entity != "&apos;" && !entity.starts_with("&#")) {
        return "unknown entity " + std::string(entity);
      }
    }
    return "";
  };
  if (xml.starts_with("<?xml")) pos = xml.find("?>") + 2;
  while (pos < xml.size()) {
    const std::size_t lt = xml.find('<', pos);
    if (const std::string p = check_text(std::string_view(xml).substr(pos, lt - pos)); !p.empty()) {
      return p;
    }
    if (lt == std::string::npos) break;
    // The tag ends at the first '>' outside quotes.
    std::size_t gt = lt + 1;
    bool quoted = false;
    while (gt < xml.size() && (quoted || xml[gt] != '>')) {
      if (xml[gt] == '"') quoted = !quoted;
      ++gt;
    }
    if (gt >= xml.size()) return "unterminated tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    pos = gt + 1;
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1))
        return "mismatched </" + tag.substr(1) + ">";
      open.pop_back();
      continue;
    }
    const bool self_closing = tag.ends_with("/");
    if (self_closing) tag.pop_back();
    const std::string name = tag.substr(0, tag.find_first_of(" \n\t"));
    std::string attributes = tag.substr(name.size());
    for (std::size_t q = attributes.find('"'); q != std::string::npos;
         q = attributes.find('"', q + 1)) {
      const std::size_t end = attributes.find('"', q + 1);
      if (end == std::string::npos) return "unbalanced quotes in <" + name + ">";
      if (const std::string p = check_text(std::string_view(attributes).substr(q + 1, end - q - 1));
          !p.empty()) {
        return p + " in <" + name + ">";
      }
      q = end;
    }
    if (open.empty()) ++roots;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return "expected one root element";
  return "";
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos;
       pos = text.find(what, pos + 1)) {
    ++n;
  }
  return n;
}

TEST(PlotSvg, CheckerRejectsBrokenXml) {
  EXPECT_EQ(xml_problem("<svg><g></g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a < b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg a=\"<\"/>"), "");
}

TEST(PlotSvg, WellFormedPanelsCurvesAndExtrapolation) {
  const Dataset d = make_dataset();
  const std::string svg = plot_svg(d, make_results(d));
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_THAT(svg, StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  EXPECT_THAT(svg, HasSubstr("xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count(svg, "class=\"panel\""), 2u);
  // Barrier: one class, solid then dashed; reduction: two classes, po2 dashed below 1? no: both
  // ends inside the measured range except beyond 16, "other" measured at 3..5 dashed both sides.
  EXPECT_GE(count(svg, "class=\"model\""), 3u);
  EXPECT_GE(count(svg, "class=\"model extrapolated\""), 4u);
  EXPECT_THAT(svg, HasSubstr("stroke-dasharray=\"6,4\""));
  EXPECT_EQ(count(svg, "class=\"prediction-band\""), 1u);  // two predictions on the barrier
  EXPECT_THAT(svg, HasSubstr("90% prediction interval"));
  // Powers of two up to 4x the largest point (16 -> 64), none beyond.
  EXPECT_THAT(svg, HasSubstr(">64</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(">128</text>")));
  // Axis labels from the key columns, shared key values in the figure title.
  EXPECT_THAT(svg, HasSubstr(">overhead [us]</text>"));
  EXPECT_THAT(svg, HasSubstr(">t (log scale)</text>"));
  EXPECT_THAT(svg, HasSubstr("<title>Scaling models: metric=overhead</title>"));
  EXPECT_THAT(svg, HasSubstr(">construct=barrier</text>"));
  // Colours per class, explained once.
  EXPECT_THAT(svg, HasSubstr(">model, po2</text>"));
  EXPECT_THAT(svg, HasSubstr(">model, other</text>"));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));
  EXPECT_THAT(svg, Not(HasSubstr("inf")));
}

TEST(PlotSvg, EscapesKeyText) {
  Dataset d = make_dataset();
  std::vector<KernelResult> results = make_results(d);
  results.resize(1);
  d.kernels.resize(1);
  d.kernels[0] = keyed_kernel({"a<b&c\"d", "overhead", "us"}, {1, 2, 4, 8, 16}, barrier_cost);
  const std::string svg = plot_svg(d, results);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_THAT(svg, HasSubstr("construct=a&lt;b&amp;c&quot;d"));
  EXPECT_THAT(svg, Not(HasSubstr("a<b")));
}

TEST(PlotSvg, OptionsShapeTheFigure) {
  const Dataset d = make_dataset();
  const std::vector<KernelResult> results = make_results(d);
  PlotOptions options;
  options.columns = 1;
  options.panel_width = 300;
  options.panel_height = 200;
  options.extrapolate_to = 256;
  options.log_y = true;
  options.title = "Barriers & reductions";
  const std::string svg = plot_svg(d, results, options);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_THAT(svg, HasSubstr("width=\"324\""));  // one column: 300 + 2 * 12 margin
  EXPECT_THAT(svg, HasSubstr(">256</text>"));
  EXPECT_THAT(svg, HasSubstr("Barriers &amp; reductions"));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));

  options.columns = 0;
  EXPECT_THROW(plot_svg(d, results, options), UsageError);
}

TEST(PlotSvg, UnmodeledPointsAndEmptyModels) {
  Dataset d = make_dataset();
  std::vector<KernelResult> results = make_results(d);
  results[1].models.pop_back();  // thread counts 3 and 5 are now not modeled
  results[0].models.clear();
  const std::string svg = plot_svg(d, results);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_THAT(svg, HasSubstr("measured, not modeled"));
  EXPECT_THAT(svg, HasSubstr(">no model</text>"));
}

// ---------------------------------------------------------------------------------------------
// Comparison

ModelsFile models_file(Dataset dataset, std::vector<KernelResult> results) {
  ModelsFile file;
  file.dataset = std::move(dataset);
  file.results = std::move(results);
  return file;
}

TEST(Comparison, MatchesByKeyAndClassAndMarksGrowthChanges) {
  const Dataset da = make_dataset();
  const ModelsFile a = models_file(da, make_results(da));

  // B: key columns in another order, the barrier now logarithmic, the reduction's "other" class
  // gone and a new kernel.
  Dataset db;
  db.parameter = "t";
  db.key_columns = {"unit", "construct", "metric"};
  db.kernels.push_back(Kernel::from_samples({"us", "reduction", "overhead"}, {}));
  db.kernels.push_back(Kernel::from_samples({"us", "barrier", "overhead"}, {}));
  db.kernels.push_back(Kernel::from_samples({"us", "critical", "overhead"}, {}));
  std::vector<KernelResult> rb = make_results(da);
  rb[0].kernel = 1;
  rb[0].models[0].model.terms = {{0.3, {0.0, 1}}};
  rb[0].models[0].growth = GrowthClass::kLogarithmic;
  rb[1].kernel = 0;
  rb[1].models.pop_back();
  KernelResult critical;
  critical.kernel = 2;
  critical.models.push_back(rb[1].models[0]);
  rb.push_back(critical);
  const ModelsFile b = models_file(db, rb);

  const ModelComparison comparison = compare_models(a, b);
  ASSERT_EQ(comparison.matched.size(), 2u);
  EXPECT_EQ(comparison.growth_differences(), 1u);
  EXPECT_TRUE(comparison.matched[0].growth_differs);
  EXPECT_FALSE(comparison.matched[1].growth_differs);
  ASSERT_EQ(comparison.only_in_a.size(), 1u);
  EXPECT_EQ(comparison.only_in_a[0].thread_class, "other");
  ASSERT_EQ(comparison.only_in_b.size(), 1u);
  EXPECT_EQ(comparison.only_in_b[0].label, "unit=us construct=critical metric=overhead");

  const std::string text = format_comparison(a, b, {"old.json", "new.json"});
  EXPECT_THAT(text, StartsWith("A = old.json, B = new.json\n"));
  const std::size_t barrier_row = text.find("construct=barrier");
  const std::string row = text.substr(barrier_row, text.find('\n', barrier_row) - barrier_row);
  EXPECT_THAT(row, HasSubstr("0.5 + 0.25 * t^(3/2) * log2(t)^(1)"));
  EXPECT_THAT(row, HasSubstr("0.5 + 0.3 * log2(t)^(1)"));
  EXPECT_THAT(row, HasSubstr("superlinear"));
  EXPECT_THAT(row, HasSubstr("<< differs"));
  const std::size_t po2_row = text.find("po2");
  EXPECT_THAT(text.substr(po2_row, text.find('\n', po2_row) - po2_row), Not(HasSubstr("differs")));
  EXPECT_THAT(text, HasSubstr("2 models compared, 1 with a different growth class."));
  EXPECT_THAT(text, HasSubstr("Only in A (old.json):\n  construct=reduction metric=overhead "
                              "unit=us [other]\n"));
  EXPECT_THAT(text, HasSubstr("Only in B (new.json):\n  unit=us construct=critical"));

  const auto json = nlohmann::json::parse(format_comparison_json(a, b, {"old.json", "new.json"}));
  EXPECT_EQ(json["a"]["name"], "old.json");
  EXPECT_EQ(json["summary"]["compared"], 2);
  EXPECT_EQ(json["summary"]["growth_differs"], 1);
  EXPECT_EQ(json["models"][0]["key"]["construct"], "barrier");
  EXPECT_EQ(json["models"][0]["a"]["growth"], "superlinear");
  EXPECT_EQ(json["models"][0]["b"]["growth"], "logarithmic");
  EXPECT_EQ(json["models"][0]["growth_differs"], true);
  EXPECT_EQ(json["only_in_a"][0]["class"], "other");
  EXPECT_EQ(json["only_in_b"][0]["key"]["construct"], "critical");
}

TEST(Comparison, WorksOnFilesReadBack) {
  const Dataset d = make_dataset();
  const ModelsFile a = parse_models_json(format_models_json(d, make_results(d)), "a.json");
  const std::string text = format_comparison(a, a);
  EXPECT_THAT(text, HasSubstr("3 models compared, 0 with a different growth class."));
  EXPECT_THAT(text, Not(HasSubstr("Only in")));
}

}  // namespace
}  // namespace ompscale::modeler

// The models.json of several parameters is read through common/json_input.h: every error names
// the file, the line of the value and its path, however deep (not nlohmann's at() message).

namespace ompscale::modeler {
namespace {

constexpr std::string_view kMultiModels = R"json({
  "parameters": ["p", "s"],
  "key_columns": ["kernel"],
  "kernels": [
    {"key": {"kernel": "a"}, "model": "1 + 2 * p^(1)",
     "statistics": {"points": 4, "rss": 0, "tss": 1, "adjusted_r2": 1, "smape": 0, "cv_error": null},
     "points": [{"at": [1, 2], "value": 3}]},
    {"key": {"kernel": "b"}, "model": "2 * s^(1/2)", "class": "po2",
     "statistics": {"points": 4, "rss": 0, "tss": 1, "adjusted_r2": 1, "smape": 0, "cv_error": 0},
     "points": [{"at": [1, 2], "value": 3},
                {"at": [2, 2], "value": 5}]}
  ]
})json";

std::string multi_error(std::string_view from, std::string_view to) {
  std::string text(kMultiModels);
  text.replace(text.find(from), from.size(), to);
  return input_error_of(text, parse_multi_models_json);
}

TEST(MultiModelsJson, ReadsKernelsModelsAndStatistics) {
  const MultiModelsFile file = parse_multi_models_json(kMultiModels, "m.json");
  EXPECT_THAT(file.dataset.parameters, ElementsAre("p", "s"));
  ASSERT_EQ(file.results.size(), 2u);
  EXPECT_EQ(file.results[0].model.constant, 1.0);
  EXPECT_EQ(file.results[0].thread_class, "all");  // written before classes: one model
  EXPECT_TRUE(std::isnan(file.results[0].stats.cv_error));
  EXPECT_EQ(file.results[1].thread_class, "po2");
  ASSERT_EQ(file.results[1].points.size(), 2u);
  EXPECT_EQ(file.results[1].points[1].x, (std::vector<double>{2, 2}));
  EXPECT_EQ(file.results[1].points[1].value, 5.0);
}

TEST(MultiModelsJson, ErrorsNameTheFileLineAndPath) {
  EXPECT_EQ(multi_error("\"tss\": 1, \"adjusted_r2\": 1, \"smape\": 0, \"cv_error\": 0",
                        "\"adjusted_r2\": 1, \"smape\": 0, \"cv_error\": 0"),
            "m.json:9: kernels[1].statistics: missing field 'tss'");
  EXPECT_EQ(multi_error("{\"at\": [2, 2]", "{\"at\": [2, \"2\"]"),
            "m.json:11: kernels[1].points[1].at[1]: expected a number, found string");
  EXPECT_EQ(multi_error("{\"at\": [2, 2]", "{\"at\": [2]"),
            "m.json:11: kernels[1].points[1].at: expected one value per parameter (2), found 1");
  EXPECT_EQ(multi_error("{\"kernel\": \"b\"}", "{\"name\": \"b\"}"),
            "m.json:8: kernels[1].key: missing field 'kernel'");
  EXPECT_EQ(multi_error("\"points\": 4, \"rss\": 0, \"tss\": 1, \"adjusted_r2\": 1, \"smape\": 0, "
                        "\"cv_error\": null",
                        "\"points\": -4, \"rss\": 0, \"tss\": 1, \"adjusted_r2\": 1, \"smape\": 0, "
                        "\"cv_error\": null"),
            "m.json:6: kernels[0].statistics.points: expected a count >= 0, found -4");
  EXPECT_THAT(multi_error("\"2 * s^(1/2)\"", "\"2 * q\""),
              StartsWith("m.json:8: kernels[1].model: cannot parse model '2 * q' at position"));
  EXPECT_EQ(multi_error("[\"p\", \"s\"]", "[]"),
            "m.json:2: parameters: expected at least one parameter");
}

}  // namespace
}  // namespace ompscale::modeler
