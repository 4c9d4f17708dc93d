#pragma once
// One status line on stderr, redrawn in place while a long command goes on (ompbench's progress
// bar, ompscan run's run counter). Only when enabled (stderr a terminal, or --progress always);
// never on stdout, which may carry the results.

#include <string>

namespace ompscale {

class StatusLine {
 public:
  /// The most characters a line shows: a 80-column terminal, the cursor kept off its edge.
  static constexpr int kWidth = 79;

  explicit StatusLine(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  /// Replaces the line with `text` (cut at kWidth characters).
  void show(const std::string& text);
  /// Clears the line (before other stderr output and at the end).
  void clear();

 private:
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace ompscale
