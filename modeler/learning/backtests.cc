#include "modeler/learning/backtests.h"

#include <algorithm>
#include <cmath>

#include "common/statistics.h"

namespace ompscale::modeler {

namespace {

/// The kernel at its first `count` thread counts.
Kernel first_points(const Kernel& kernel, std::size_t count) {
  std::vector<Sample> samples;
  for (std::size_t i = 0; i < count; ++i) {
    for (double v : kernel.repetitions(i)) samples.push_back({kernel.param(i), v});
  }
  return Kernel::from_samples({}, std::move(samples));
}

/// Kernel `k`'s backtest trained on its first `count` thread counts; none without a held-out
/// count to score.
void add_backtest(const Dataset& data, std::size_t k, std::size_t count,
                  std::vector<Backtest>& out) {
  const Kernel& kernel = data.kernels[k];
  Backtest backtest;
  backtest.kernel = k;
  const double largest_training = kernel.param(count - 1);
  for (std::size_t i = count; i < kernel.size(); ++i) {
    const double median = stats::median(kernel.repetitions(i));
    if (median == 0.0 || !std::isfinite(median)) continue;
    backtest.t.push_back(kernel.param(i));
    backtest.measured.push_back(median);
    backtest.doublings.push_back(std::log2(kernel.param(i) / largest_training));
  }
  if (backtest.t.empty()) return;
  backtest.training = first_points(kernel, count);
  backtest.edge = count + 1 == kernel.size();
  out.push_back(std::move(backtest));
}

}  // namespace

std::vector<Backtest> make_backtests(const Dataset& data, const BacktestPlan& plan) {
  std::vector<Backtest> out;
  if (data.dimensions() != 1 || data.kernels.empty() || plan.max_kernels == 0) return out;
  // The kernels that can be backtested, then an even sample of them: short kernels (a sparse
  // design's lines along the first parameter) take no places in the sample.
  std::vector<std::size_t> usable;
  for (std::size_t k = 0; k < data.kernels.size(); ++k) {
    if (data.kernels[k].size() > plan.min_training && data.kernels[k].params().front() > 0.0)
      usable.push_back(k);
  }
  const std::size_t picked = std::min(usable.size(), plan.max_kernels);
  for (std::size_t i = 0; i < picked; ++i) {
    const std::size_t k = usable[i * usable.size() / picked];  // evenly spread, deterministic
    const std::size_t n = data.kernels[k].size();
    const std::size_t half = std::max(plan.min_training, (n + 1) / 2);
    add_backtest(data, k, half, out);
    if (n - 1 > half) add_backtest(data, k, n - 1, out);
  }
  return out;
}

}  // namespace ompscale::modeler
