#pragma once
// How long the process's threads waited for a CPU: the EPCC method's detector of repetitions
// disturbed by other work on the machine.

namespace ompscale::microbench::epcc {

/// Seconds the process's threads have spent runnable but not running so far (preempted, or woken
/// while their CPU was busy), summed over its threads from /proc/self/task/*/schedstat. When the
/// kernel does not report that: 0 until a thread is preempted (involuntary context switch), then
/// a huge value, so any preemption counts as a long wait.
double cpu_wait_seconds();

}  // namespace ompscale::microbench::epcc
