#pragma once
// Generated kernels with known generating functions, shared by the accuracy benchmarks: a
// constant plus at most one PMNF term of the "too many threads" paper's space, measured with
// uniform multiplicative noise per repetition (and, optionally, a deviation every repetition of
// a thread count shares, as on real machines).

#include <climits>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_options.h"
#include "common/statistics.h"
#include "modeler/core/hypothesis.h"
#include "modeler/core/kernel.h"

namespace ompscale::bench {

/// How model_accuracy and the scoreboard measure a generated kernel: these thread counts,
/// kGeneratedReps repetitions each, predicted at kTargetFactor times the largest.
inline const std::vector<double> kGeneratedThreads = {2, 4, 8, 16, 32, 64};
inline constexpr int kGeneratedReps = 5;
inline constexpr double kTargetFactor = 4.0;

/// c0 + c1 * t^i * log2(t)^j; c1 = 0 for a constant kernel.
struct Truth {
  double c0 = 0.0;
  double c1 = 0.0;
  modeler::TermShape shape;
  double at(double t) const { return c0 + c1 * shape.evaluate(t); }
};

/// Draws kernels: c0 log-uniform in [0.01, 1000], the shape uniform over the paper's 39 shades
/// and the constant, the term's share of c0 at `reference_t` log-uniform in [share_min, 50].
class KernelGenerator {
 public:
  explicit KernelGenerator(unsigned seed) : rng_(seed) {}

  Truth draw(double share_min, double reference_t) {
    Truth truth{log_uniform(0.01, 1000.0), 0.0, {0.0, 0}};
    const std::size_t s = pick_(rng_);
    if (s < shapes_.size()) {
      truth.shape = shapes_[s];
      // The term's share at the reference thread count, from barely visible to dominant.
      truth.c1 = log_uniform(share_min, 50.0) * truth.c0 / truth.shape.evaluate(reference_t);
    }
    return truth;
  }

  /// `reps` repetitions at each thread count of law(t) * (1 + noise * U(-1, 1)); with
  /// `systematic` > 0, every repetition of a thread count also shares a factor
  /// (1 + systematic * N(0, 1)).
  template <typename Law>
  std::vector<modeler::Sample> measure(const Law& law, const std::vector<double>& threads, int reps,
                                       double noise, double systematic = 0.0) {
    std::vector<modeler::Sample> samples;
    for (double t : threads) {
      const double shared = systematic > 0.0 ? 1.0 + systematic * normal_(rng_) : 1.0;
      for (int r = 0; r < reps; ++r) {
        samples.push_back({t, law(t) * shared * (1.0 + noise * (2.0 * unit_(rng_) - 1.0))});
      }
    }
    return samples;
  }

  /// A held-out measurement at `t`, drawn as measure() draws the training ones: the median of
  /// `reps` repetitions. A prediction interval claims where such a measurement falls; the law's
  /// own value is free of noise, so checking intervals against it would overstate coverage.
  template <typename Law>
  double held_out(const Law& law, double t, int reps, double noise, double systematic = 0.0) {
    std::vector<double> values;
    for (const modeler::Sample& s : measure(law, {t}, reps, noise, systematic))
      values.push_back(s.value);
    return stats::median(values);
  }

  double unit() { return unit_(rng_); }

 private:
  double log_uniform(double lo, double hi) {
    return std::exp(std::log(lo) + unit_(rng_) * (std::log(hi) - std::log(lo)));
  }

  std::mt19937_64 rng_;
  std::vector<modeler::TermShape> shapes_ = modeler::HypothesisSpace::paper().building_blocks;
  std::uniform_int_distribution<std::size_t> pick_{0, shapes_.size()};  // == size: constant
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  std::normal_distribution<double> normal_{0.0, 1.0};
};

/// A held-out measurement at `target` of a kernel whose law is known but whose noise is not (a
/// reference set): the median of `reps` of its repetitions' ratios to the law, drawn at random,
/// times the law at the target; NaN (outside every interval) for a kernel without a repetition
/// where the law is not 0.
inline double held_out_with_own_noise(const modeler::Kernel& kernel, const Truth& truth,
                                      double target, int reps, std::mt19937_64& rng) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    const double law = truth.at(kernel.param(i));
    if (law == 0.0) continue;
    for (double v : kernel.repetitions(i)) ratios.push_back(v / law);
  }
  if (ratios.empty()) return std::nan("");
  std::uniform_int_distribution<std::size_t> pick(0, ratios.size() - 1);
  std::vector<double> drawn;
  for (int r = 0; r < reps; ++r) drawn.push_back(ratios[pick(rng)]);
  return stats::median(drawn) * truth.at(target);
}

/// The command-line settings of a generated set of kernels (model_accuracy, class_accuracy).
struct GeneratorOptions {
  std::size_t kernels = 1000;  ///< --kernels
  unsigned seed = 1;           ///< --seed
  double noise = 0.05;         ///< --noise: uniform multiplicative noise of each repetition
  double systematic = 0.0;     ///< --systematic: a factor all repetitions of a count share
};

/// Reads `flag`'s `value` into `options` when the flag is one of GeneratorOptions' (a bad value
/// exits 2, as bench_options.h says); false for any other flag.
inline bool generator_option(const std::string& flag, const std::string& value,
                             GeneratorOptions& options) {
  if (flag == "--kernels")
    options.kernels = static_cast<std::size_t>(integer_value(flag, value, 1, 10'000'000));
  else if (flag == "--seed")
    options.seed = static_cast<unsigned>(integer_value(flag, value, 0, UINT_MAX));
  else if (flag == "--noise")
    options.noise = number_value(flag, value, 0.0, 1.0);
  else if (flag == "--systematic")
    options.systematic = number_value(flag, value, 0.0, 1.0);
  else
    return false;
  return true;
}

}  // namespace ompscale::bench
