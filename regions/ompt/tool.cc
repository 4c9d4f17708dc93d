// libompscan.so's entry point: the OpenMP runtime finds ompt_start_tool (the library is named by
// OMP_TOOL_LIBRARIES, or LD_PRELOADed so its symbols are global), calls initialize, and calls
// finalize at the application's exit, which writes the profile to $OMPSCAN_OUTPUT.
//
// Environment:
//   OMPSCAN_OUTPUT    profile path; unset or empty: measure, write nothing.
//   OMPSCAN_SAMPLING  "all": measure every execution and time every lock acquisition (for tests
//                     and short runs); anything else: adaptive (sampling.h).
//   OMPSCAN_TSC_HZ    TSC ticks per second measured by a parent (ompscan run) that found the TSC
//                     invariant, so every run of a sweep converts with one factor and none
//                     repeats the check; otherwise a check and a 2 ms calibration at start.
//   OMPSCAN_LOCATIONS "raw": code locations without file/line/function, resolved later by the
//                     launcher (ompscan run does), so the application never reads DWARF;
//                     anything else: resolved at finalize.
//
// exit() inside a parallel region: see at_exit().
//
// A fork() child measures nothing and writes nothing (the parent's profile is the parent's):
// pthread_atfork marks it stopped, and finalize compares the pid.
//
// How the parts fit:
//   callbacks.cc     the OMPT callbacks; parallel begin decides per execution (sampling.h)
//   instance.h       one measured execution shared by its team: barrier phases, the end
//   thread_state.h   per-thread buffer of fixed-size records (record.h), measured contexts
//   aggregate.h      records -> per-region sums, when a buffer fills, a thread ends, at finalize
//   region_table.h   regions by codeptr or name, lock-free
//   manual_regions   ompscan_tool_region_begin/end for regions/include/ompscan.h
//   profile_writer.h the profile JSON (code locations through symbolize.h, loop_schedule.h)
//   memory.h         the tool's memory: its own mappings, never the application's heap
// Serial time: the initial thread's time outside parallel regions, from tool start (or the end
// of an outermost region) to the next outermost parallel begin, is region "serial before <id>"
// of the region that follows; from the last region to finalize it is "serial before end". A
// gap is measured when the region before it was (so it costs no extra stamp otherwise).

#include <dlfcn.h>
#include <omp-tools.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "common/text.h"  // compiled into the tool: it needs only the C++ library
#include "regions/ompt/callbacks.h"
#include "regions/ompt/globals.h"
#include "regions/ompt/memory.h"
#include "regions/ompt/profile_writer.h"
#include "regions/ompt/symbolizer_plugin.h"
#include "sync/clock.h"

namespace ompscale::regions::ompt {

constinit Globals g;

namespace {

// Holding the aggregation lock across fork() means the child's copy is never held by a thread
// that does not exist there.
void before_fork() {
  g.aggregation_lock.lock();
  lock_tool_memory();
}

void after_fork_in_parent() {
  unlock_tool_memory();
  g.aggregation_lock.unlock();
}

void after_fork_in_child() {
  g.stopped.store(true, std::memory_order_release);
  unlock_tool_memory();
  g.aggregation_lock.unlock();
}

void init_clock() {
  sync::ClockOptions options;
  options.calibration_seconds = 0.002;
  options.measure_resolution = false;  // the profile needs ticks per second only
  if (const char* hz = std::getenv("OMPSCAN_TSC_HZ")) {
    const std::optional<double> value = parse_double(hz);
    if (value && std::isfinite(*value) && *value > 0) options.known_ticks_per_second = *value;
  }
  try {
    sync::init_clock(options);
  } catch (...) {
    // The clock stays CLOCK_MONOTONIC_RAW in nanoseconds, which ticks() reads without init.
  }
}

void at_exit();

// omp_get_schedule of the runtime that started the tool (the library that holds `lookup`), not of
// whichever library defines the name first. omp_sched_t is an enum of int size: the function
// takes (omp_sched_t*, int*). The tool calls it from a work callback, once per loop site: LLVM's
// libomp answers from the calling task's settings without a lock (docs/architecture.md).
using GetSchedule = void (*)(int*, int*);
GetSchedule runtime_get_schedule(ompt_function_lookup_t lookup) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(lookup), &info) == 0 || info.dli_fname == nullptr)
    return nullptr;
  void* runtime = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (runtime == nullptr) return nullptr;
  const auto get = reinterpret_cast<GetSchedule>(dlsym(runtime, "omp_get_schedule"));
  dlclose(runtime);  // RTLD_NOLOAD took a reference; the runtime stays loaded
  return get;
}

int initialize(ompt_function_lookup_t lookup, int /*initial_device_num*/,
               ompt_data_t* /*tool_data*/) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (set_callback == nullptr) return 0;
  const char* sampling = std::getenv("OMPSCAN_SAMPLING");
  if (sampling != nullptr && std::strcmp(sampling, "all") == 0) {
    g.sample_all = true;
    g.region_sampling.all = true;
    g.lock_sampler = kMeasureAll;
  }
  const char* locations = std::getenv("OMPSCAN_LOCATIONS");
  g.raw_locations = locations != nullptr && std::strcmp(locations, "raw") == 0;
  if (!g.raw_locations) locate_symbolizer();
  init_clock();
  g.get_schedule = runtime_get_schedule(lookup);
  g.pid = getpid();
  g.init_ticks = sync::ticks();
  g.serial_start = g.init_ticks;
  g.serial_pending = true;
  if (!register_callbacks(set_callback)) return 0;
  g.initialized.store(true, std::memory_order_release);
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  std::atexit(at_exit);
  return 1;
}

void finalize(ompt_data_t* /*tool_data*/) {
  if (!g.initialized.load(std::memory_order_acquire) || getpid() != g.pid) return;
  const std::uint64_t end = sync::ticks();
  if (g.stopped.exchange(true, std::memory_order_acq_rel)) return;  // finalized already
  const char* path = std::getenv("OMPSCAN_OUTPUT");
  if (path != nullptr && path[0] != '\0') write_profile(path, end);
}

// libomp skips its shutdown, and so the tool's finalize, when the application exits while its
// initial thread is inside a parallel region (exit() from a region). This handler, registered
// after the runtime's own exit handler and so run before it, finalizes in that case only.
void at_exit() {
  if (g.initial_encountered.load(std::memory_order_relaxed) > 0) finalize(nullptr);
}

}  // namespace
}  // namespace ompscale::regions::ompt

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(
    unsigned int omp_version, const char* runtime_version) {
  using ompscale::regions::ompt::g;
  // One runtime, one tool instance (the library may be both preloaded and named by
  // OMP_TOOL_LIBRARIES, and a second runtime in the process would find it again).
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return nullptr;
  g.omp_version = omp_version;
  if (runtime_version != nullptr) {
    std::strncpy(g.runtime_version, runtime_version, sizeof(g.runtime_version) - 1);
  }
  static ompt_start_tool_result_t result{
      &ompscale::regions::ompt::initialize, &ompscale::regions::ompt::finalize, {0}};
  return &result;
}
