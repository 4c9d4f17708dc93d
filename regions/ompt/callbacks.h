#pragma once
// The OMPT callbacks of libompscan.so (callbacks.cc).
//
// Structural callbacks (thread, parallel and implicit-task begin/end) run for every execution:
// parallel begin counts the execution and takes the sampling decision (sampling.h), storing an
// Instance* (measured) or the region's tagged id (not measured) in parallel_data; implicit-task
// begin turns that into the thread's tls_context. Every other callback reads tls_context first
// and returns at once when it is null, so an unmeasured execution costs one TLS load per event.
//
// Facts about libomp 14 the callbacks rely on (checked on clang- and gcc-built binaries):
// - sync_region brackets the barrier (sync_region_wait fires back to back with it and is not
//   used); loop-end and end-of-parallel barriers are barrier_implicit, explicit ones
//   barrier_explicit, and GOMP_barrier in gcc-built binaries barrier_implementation: all kinds
//   of barrier are treated alike.
// - The end of the end-of-parallel barrier comes with parallel_data == NULL: at once on the
//   master, at the next fork on workers (followed by their implicit-task end), so a worker's
//   late events are recognised and ignored (instance.h).
// - Teams of one and serialized regions report no end-of-parallel barrier: a thread's span then
//   ends at its implicit-task end.
// - Nested re-acquisition of an owned nest lock reports mutex_acquire then nest_lock begin
//   (no mutex_acquired).
// - Worksharing loops report the loop's total trip count as work count; gcc-built binaries
//   report no work events for static loops.

#include <omp-tools.h>

namespace ompscale::regions::ompt {

/// Registers the callbacks; false when the runtime refuses the structural ones (the tool then
/// stays inactive).
bool register_callbacks(ompt_set_callback_t set_callback);

}  // namespace ompscale::regions::ompt
