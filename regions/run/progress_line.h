#pragma once
// One status line on stderr, redrawn in place while runs go on: which run of how many, how long
// the current one has been running (runs can take minutes), and how many failed so far. Only when
// enabled (stderr a terminal, or --progress always); never on stdout.

#include <string>

#include "common/status_line.h"

namespace ompscale::regions {

class ProgressLine {
 public:
  ProgressLine(bool enabled, int total);
  /// Shows run `number` (1-based) of the total, `seconds` into it.
  void show(int number, const std::string& run_id, double seconds, int failed);
  /// Clears the line (before other stderr output and at the end).
  void clear();

 private:
  StatusLine line_;
  int total_;
};

}  // namespace ompscale::regions
