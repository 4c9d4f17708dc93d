// Manual regions (regions/include/ompscan.h): the application marks a region with
// ompscan_region_begin("name") / ompscan_region_end("name"); the header finds these two
// functions with dlsym at its first call. Exported with default visibility (the library is built
// with hidden visibility) and C linkage.
//
// Per thread, open regions form a stack; an end closes the innermost open region of that name,
// and any region opened inside it and left open ends with it (counted as unmatched). Every
// execution is measured: manual regions are placed by hand around coarse phases, and one costs
// a name hash, a table probe and two TSC reads. Parent: the innermost manual region opened in
// the same implicit task, else the parallel region of that task.
//
// A manual region may begin before the application's first OpenMP construct, when the runtime
// has not started the tool yet: the first call then asks the runtime for omp_get_max_threads(),
// which initializes it (and the tool) as the application's first construct would have.

#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "regions/ompt/globals.h"
#include "regions/ompt/region_table.h"
#include "regions/ompt/thread_state.h"
#include "sync/clock.h"

namespace {

using namespace ompscale::regions::ompt;

bool ensure_initialized() {
  if (g.initialized.load(std::memory_order_acquire)) return true;
  static constinit std::atomic<bool> asked{false};
  if (!asked.exchange(true, std::memory_order_acq_rel)) {
    if (void* symbol = dlsym(RTLD_DEFAULT, "omp_get_max_threads")) {
      reinterpret_cast<int (*)()>(symbol)();
    }
  }
  return g.initialized.load(std::memory_order_acquire);
}

void close(ThreadState& ts, const ThreadState::OpenManual& open, std::uint64_t now) {
  append(ts, RecordType::kManual, open.region_id, ts.current_index, 0,
         ticks_between(open.begin, now));
  open.region->ends.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void ompscan_tool_region_begin(const char* name) {
  if (name == nullptr || !ensure_initialized() || g.stopped.load(std::memory_order_relaxed)) {
    return;
  }
  ThreadState* ts = current_thread();
  if (ts == nullptr) return;
  if (ts->manual_depth >= kMaxManualDepth) {
    ++ts->manual_depth;  // too deep to measure, still paired with its end
    return;
  }
  Region* region = find_manual_region(name, parent_for_new_region(*ts));
  if (region == nullptr) return;
  region->executions.fetch_add(1, std::memory_order_relaxed);
  ts->manual[ts->manual_depth++] = {region, region->id, ts->current_region,
                                    ompscale::sync::ticks()};
}

extern "C" __attribute__((visibility("default"))) void ompscan_tool_region_end(const char* name) {
  if (name == nullptr || !g.initialized.load(std::memory_order_acquire)) return;
  ThreadState* ts = tls_thread;
  if (ts == nullptr || ts->manual_depth == 0) {
    g.manual_unmatched.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (ts->manual_depth > kMaxManualDepth) {
    --ts->manual_depth;
    return;
  }
  const std::uint64_t now = ompscale::sync::ticks();
  for (std::uint32_t i = ts->manual_depth; i-- > 0;) {
    if (std::strcmp(ts->manual[i].region->name, name) != 0) continue;
    for (std::uint32_t open = ts->manual_depth; open-- > i;) close(*ts, ts->manual[open], now);
    g.manual_unmatched.fetch_add(ts->manual_depth - 1 - i, std::memory_order_relaxed);
    ts->manual_depth = i;
    return;
  }
  g.manual_unmatched.fetch_add(1, std::memory_order_relaxed);
}
