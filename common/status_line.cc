#include "common/status_line.h"

#include <cstdio>

namespace ompscale {

void StatusLine::show(const std::string& text) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r%-*.*s", kWidth, kWidth, text.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void StatusLine::clear() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r%*s\r", kWidth, "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace ompscale
