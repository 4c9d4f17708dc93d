// libFuzzer harness of the modeler's fit (not of its readers): the input bytes become one kernel
// (thread counts and repetitions, any doubles: zero, negative, huge, tiny, NaN, infinite) and one
// way of fitting it (preset, classes, budgets, robust loss, exponent refinement, folds, terms);
// fit_kernel and the text report must not crash or throw, and the fit invariants
// (tests/support/fit_invariants.h) must hold. Built by tests/fuzz/CMakeLists.txt with clang
// -fsanitize=fuzzer,address,undefined; see docs/architecture.md (the tests/fuzz row) for how to run
// it.

#include <glog/logging.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "modeler/fit.h"
#include "modeler/io/write_text.h"
#include "platforms/thread_class.h"
#include "tests/support/fit_invariants.h"

namespace {

using namespace ompscale::modeler;

/// Reads the fuzzer's bytes; past the end everything reads as 0.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  double raw_double() {
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = bits << 8 | byte();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  bool empty() const { return at_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

constexpr double kParams[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64, 128, 0.5};

double special(std::uint8_t b) {
  constexpr double kSpecial[] = {0.0,
                                 -0.0,
                                 std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::max(),
                                 std::numeric_limits<double>::min(),
                                 std::numeric_limits<double>::denorm_min(),
                                 1e-100,
                                 1e100,
                                 1.0};
  return kSpecial[b % (sizeof kSpecial / sizeof kSpecial[0])];
}

double value(Bytes& in, std::uint8_t mode) {
  switch (mode % 3) {
    case 0:
      return in.raw_double();
    case 1: {  // a small integer times a power of ten: ordinary measurements
      const auto mantissa = static_cast<std::int8_t>(in.byte());
      const int exponent = in.byte() % 41 - 20;
      return mantissa * std::pow(10.0, exponent);
    }
    default:
      return special(in.byte());
  }
}

double param(Bytes& in) {
  const std::uint8_t b = in.byte();
  if (b < 240) return kParams[b % (sizeof kParams / sizeof kParams[0])];
  const double raw = std::fabs(in.raw_double());  // any positive finite parameter value
  return std::isfinite(raw) && raw > 0.0 ? raw : 1.0;
}

ModelerOptions options_from(Bytes& in) {
  const std::uint8_t a = in.byte();
  const std::uint8_t b = in.byte();
  ModelerOptions o = (a & 1) ? ModelerOptions::extrap() : ModelerOptions{};
  if (o.strategy != Strategy::kExtrap) {
    o.aggregation = static_cast<Aggregation>((a >> 1) % 5);
    const int way = (a >> 4) % 4;  // noise-aware; cross-validated by SMAPE, RSS, or uniformly
    o.strategy = way == 0 ? Strategy::kNoiseAware : Strategy::kCrossValidated;
    o.held_out_error = way == 2 ? HeldOutError::kRss : HeldOutError::kSmape;
    if (way == 3) o.weighting = Weighting::kUniform;
    if (b & 1) o.space = o.space.with_negative_exponents();
    if (b & 2) o.loss = (b & 4) ? Loss::kHuber : Loss::kCauchy;
    if (b & 8) o.refine_exponents = true;
    if (b & 16) o.folds = 3;
    if ((b & 0xE0) == 0xE0)
      o.space = HypothesisSpace::from_exponents({0.5, 1, 2}, {0, 1}, 2);  // two terms
  }
  switch ((a >> 6) % 3) {
    case 1:
      o.class_mode = ClassMode::kAuto;
      o.classes = ompscale::platforms::paper_partition();
      break;
    case 2:
      o.class_mode = ClassMode::kList;
      o.classes = {ompscale::platforms::ThreadClass::po2()};
      break;
    default:
      break;
  }
  const std::uint8_t c = in.byte();
  if (c & 1) o.budget = BudgetSpec{1.0 + (c >> 2) % 8, (c & 2) != 0, ""};
  if (c & 0x80) o.predict_at = {256.0, 1e6};
  o.threads = 1;
  return o;
}

Kernel kernel_from(Bytes& in) {
  const std::size_t points = 1 + in.byte() % 10;
  const std::uint8_t mode = in.byte();
  std::vector<Sample> samples;
  for (std::size_t p = 0; p < points && !in.empty(); ++p) {
    const double t = param(in);
    const std::size_t reps = 1 + in.byte() % 4;
    for (std::size_t r = 0; r < reps; ++r) samples.push_back({t, value(in, mode)});
  }
  return Kernel::from_samples({"k"}, std::move(samples));
}

}  // namespace

// Ceres reports every failed robust fit through glog; at thousands of fits a second that is
// only noise.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  FLAGS_minloglevel = google::GLOG_FATAL;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const ModelerOptions options = options_from(in);
  const std::size_t width = in.byte() % 2 == 0 ? 0 : 100;
  Dataset dataset;
  dataset.key_columns = {"k"};
  dataset.kernels.push_back(kernel_from(in));
  KernelResult result = fit_kernel(dataset.kernels[0], options);
  const std::string violation =
      ompscale::test_support::fit_violation(dataset.kernels[0], options, result);
  if (!violation.empty()) {
    std::fprintf(stderr, "fit invariant broken: %s\n", violation.c_str());
    std::abort();
  }
  result.kernel = 0;
  const std::string report = format_text_report(dataset, {result}, {.width = width});
  if (report.empty()) std::abort();
  return 0;
}
