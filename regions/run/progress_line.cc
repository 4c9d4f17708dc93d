#include "regions/run/progress_line.h"

#include <fmt/format.h>

namespace ompscale::regions {

ProgressLine::ProgressLine(bool enabled, int total) : line_(enabled), total_(total) {}

void ProgressLine::show(int number, const std::string& run_id, double seconds, int failed) {
  if (!line_.enabled()) return;
  std::string line = fmt::format("ompscan: run {}/{} {} {:.0f} s", number, total_, run_id, seconds);
  if (failed > 0) line += fmt::format(" ({} failed)", failed);
  line_.show(line);
}

void ProgressLine::clear() {
  line_.clear();
}

}  // namespace ompscale::regions
