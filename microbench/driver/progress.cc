#include "microbench/driver/progress.h"

#include <fmt/format.h>

#include <algorithm>

namespace ompscale::microbench {

ProgressBar::ProgressBar(bool enabled, long total) : line_(enabled), total_(std::max(1L, total)) {}

void ProgressBar::update(long done, const std::string& label) {
  if (!line_.enabled()) return;
  constexpr int kWidth = 30;
  const double fraction =
      std::clamp(static_cast<double>(done) / static_cast<double>(total_), 0.0, 1.0);
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  line_.show(fmt::format("[{}] {:3d}% {:.40}", bar, static_cast<int>(fraction * 100), label));
}

void ProgressBar::clear() {
  line_.clear();
}

}  // namespace ompscale::microbench
