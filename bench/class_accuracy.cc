// How well `--classes auto` tells kernels that change law between thread-count classes from
// kernels that follow one law.
//
//   build/bench/class_accuracy [--kernels 1000] [--seed 1] [--noise 0.05] [--systematic 0]
//
// Thread counts: the PO2 and ODD counts of a 128-core machine (2..128 and 24..120, 14 in all), 5
// repetitions each with uniform multiplicative noise (and with --systematic S a factor
// 1 + S N(0, 1) that all repetitions of a thread count share). Every other kernel follows one
// law (a generated kernel as in model_accuracy); the others follow one law on PO2 and another on
// ODD counts: the same constant, an independently drawn term, and at least 10% apart somewhere
// on the ODD counts. Prints the sensitivity (share of law-changing kernels split into classes)
// and the specificity (share of one-law kernels kept whole).

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench/bench_options.h"
#include "bench/generated_kernels.h"
#include "modeler/fit.h"
#include "platforms/thread_class.h"

using namespace ompscale;
using namespace ompscale::modeler;

namespace {

constexpr std::string_view kUsage =
    "class_accuracy: how well --classes auto tells kernels that change law between thread-count\n"
    "classes from kernels that follow one law (sensitivity and specificity).\n"
    "Usage: build/bench/class_accuracy [--kernels 1000] [--seed 1] [--noise 0.05] "
    "[--systematic 0]\n";

const std::vector<double> kPo2 = {2, 4, 8, 16, 32, 64, 128};
const std::vector<double> kOdd = {24, 40, 56, 72, 88, 104, 120};
constexpr double kMinChange = 0.10;

bool is_po2(double t) {
  const auto n = static_cast<long>(t);
  return (n & (n - 1)) == 0;
}

/// A law for the ODD counts that differs from `po2` by at least kMinChange somewhere on them.
bench::Truth changed_law(bench::KernelGenerator& generator, const bench::Truth& po2) {
  while (true) {
    bench::Truth odd = generator.draw(0.1, 128.0);
    odd.c1 *= po2.c0 / odd.c0;  // same constant: only the growth changes
    odd.c0 = po2.c0;
    double largest = 0.0;
    for (double t : kOdd) largest = std::max(largest, std::fabs(odd.at(t) / po2.at(t) - 1.0));
    if (largest >= kMinChange) return odd;
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::GeneratorOptions g;
  for (const auto& [flag, value] :
       bench::options(argc, argv, kUsage, {"--kernels", "--seed", "--noise", "--systematic"}))
    bench::generator_option(flag, value, g);
  const std::size_t count = g.kernels;
  const unsigned seed = g.seed;
  const double noise = g.noise, systematic = g.systematic;
  std::vector<double> threads = kPo2;
  threads.insert(threads.end(), kOdd.begin(), kOdd.end());
  bench::KernelGenerator generator(seed);
  ModelerOptions options;
  options.class_mode = ClassMode::kAuto;
  options.classes = platforms::paper_partition();
  std::size_t changing = 0, split_changing = 0, whole = 0, kept_whole = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const bench::Truth po2 = generator.draw(0.1, 128.0);
    const bool changes = k % 2 == 1;
    const bench::Truth odd = changes ? changed_law(generator, po2) : po2;
    const auto samples = generator.measure(
        [&](double t) { return is_po2(t) ? po2.at(t) : odd.at(t); }, threads, 5, noise, systematic);
    const KernelResult r = fit_kernel(Kernel::from_samples({}, samples), options);
    const bool split = r.models.size() > 1;
    if (changes) {
      ++changing;
      split_changing += split ? 1 : 0;
    } else {
      ++whole;
      kept_whole += split ? 0 : 1;
    }
  }
  std::printf("kernels %zu (%zu change law between PO2 and ODD), noise %g, systematic %g\n", count,
              changing, noise, systematic);
  std::printf("sensitivity (split when the law changes)    %.1f%%\n",
              100.0 * static_cast<double>(split_changing) / static_cast<double>(changing));
  std::printf("specificity (one model when one law holds)  %.1f%%\n",
              100.0 * static_cast<double>(kept_whole) / static_cast<double>(whole));
  return 0;
}
