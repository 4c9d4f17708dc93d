#pragma once
// A one-line progress bar on stderr, redrawn in place; only when enabled (stderr a terminal, or
// --progress always). Never writes to stdout, which may carry the results.

#include <string>

#include "common/status_line.h"

namespace ompscale::microbench {

class ProgressBar {
 public:
  ProgressBar(bool enabled, long total);
  /// Sets the amount done and the text after the bar ("libomp spread barrier t=2").
  void update(long done, const std::string& label);
  /// Clears the line (before other stderr output and at the end).
  void clear();

 private:
  StatusLine line_;
  long total_;
};

}  // namespace ompscale::microbench
