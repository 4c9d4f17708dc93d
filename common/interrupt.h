#pragma once
// SIGINT and SIGTERM as a flag, for commands that stop cleanly between units of work (a batch, a
// run) instead of dying with half-written state: the guard installs the handler for its lifetime
// and puts the previous handlers back after. No SA_RESTART, so a blocking wait wakes up at once.

#include <signal.h>

namespace ompscale {

/// True once SIGINT or SIGTERM arrived while an InterruptGuard was alive (async-signal-safe).
bool interrupted();

class InterruptGuard {
 public:
  /// Clears the flag and installs the handler.
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace ompscale
