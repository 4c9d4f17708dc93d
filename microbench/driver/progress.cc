#include "microbench/driver/progress.h"

#include <algorithm>
#include <cstdio>

namespace ompscale::microbench {

ProgressBar::ProgressBar(bool enabled, long total)
    : enabled_(enabled), total_(std::max(1L, total)) {}

void ProgressBar::update(long done, const std::string& label) {
  if (!enabled_) return;
  constexpr int kWidth = 30;
  const double fraction =
      std::clamp(static_cast<double>(done) / static_cast<double>(total_), 0.0, 1.0);
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r[%s] %3d%% %-40.40s", bar.c_str(), static_cast<int>(fraction * 100),
               label.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r%80s\r", "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace ompscale::microbench
