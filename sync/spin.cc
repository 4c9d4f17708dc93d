#include "sync/spin.h"

#include <sched.h>

namespace ompscale::sync {

void Backoff::spin() {
  ++spins_;
  // Past the limit the writer is probably not running (more threads than cores): give it the CPU
  // now and then, and keep the pauses in between so a writer that is running is still seen fast.
  if (spins_ > limit_ && (spins_ - limit_) % 64 == 0) {
    sched_yield();
  } else {
    cpu_relax();
  }
}

}  // namespace ompscale::sync
