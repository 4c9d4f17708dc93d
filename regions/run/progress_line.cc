#include "regions/run/progress_line.h"

#include <fmt/format.h>

#include <cstdio>

namespace ompscale::regions {

ProgressLine::ProgressLine(bool enabled, int total) : enabled_(enabled), total_(total) {}

void ProgressLine::show(int number, const std::string& run_id, double seconds, int failed) {
  if (!enabled_) return;
  std::string line = fmt::format("ompscan: run {}/{} {} {:.0f} s", number, total_, run_id, seconds);
  if (failed > 0) line += fmt::format(" ({} failed)", failed);
  std::fprintf(stderr, "\r%-79.79s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r%79s\r", "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace ompscale::regions
