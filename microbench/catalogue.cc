#include "microbench/catalogue.h"

namespace ompscale::microbench {

const char* to_string(Suite suite) {
  switch (suite) {
    case Suite::kSync: return "sync";
    case Suite::kSched: return "sched";
    case Suite::kData: return "data";
    case Suite::kTask: return "task";
  }
  return "?";
}

const char* to_string(Method method) { return method == Method::kDirect ? "direct" : "epcc"; }

namespace {

const std::vector<std::string> kChunks = {"16"};
// EPCC arraybench's sizes are powers of 3; four of them span one cache line to L2-sized arrays.
const std::vector<std::string> kArraySizes = {"1", "27", "729", "19683"};

std::vector<ConstructInfo> make_catalogue() {
  using S = Suite;
  return {
      // Synchronisation (EPCC syncbench and the paper's direct measurements).
      {"parallel", S::kSync, "open and close a parallel region (fork and join)", "", {}, true, true},
      {"for", S::kSync, "worksharing loop with static schedule inside a region, with its barrier", "", {}, true, true},
      {"parallel_for", S::kSync, "combined parallel worksharing loop", "", {}, true, true},
      {"barrier", S::kSync, "explicit barrier, all threads arriving together", "", {}, true, true},
      {"barrier_late", S::kSync, "explicit barrier with one thread arriving 2 us late", "", {}, true, true},
      {"single", S::kSync, "single construct with its implicit barrier", "", {}, true, true},
      {"masked", S::kSync, "masked (master) construct, no barrier", "", {}, true, true},
      {"critical", S::kSync, "unnamed critical section entered by every thread", "", {}, true, true},
      {"lock_contended", S::kSync, "omp_set_lock/omp_unset_lock on one lock shared by all threads", "", {}, true, true},
      {"lock_uncontended", S::kSync, "omp_set_lock/omp_unset_lock, each thread on its own lock", "", {}, true, true},
      {"lock_hint_contended", S::kSync, "shared lock initialised with omp_sync_hint_contended (needs omp_init_lock_with_hint)", "", {}, true, true},
      {"lock_hint_uncontended", S::kSync, "per-thread lock initialised with omp_sync_hint_uncontended (needs omp_init_lock_with_hint)", "", {}, true, true},
      {"nest_lock", S::kSync, "omp_set_nest_lock twice and unset twice on one shared nestable lock", "", {}, true, true},
      {"ordered", S::kSync, "ordered region inside a loop with ordered clause, one iteration per thread", "", {}, true, true},
      {"atomic_update", S::kSync, "atomic update (relaxed) of one shared counter", "", {}, true, true},
      {"atomic_seq_cst", S::kSync, "atomic update seq_cst of one shared counter", "", {}, true, true},
      {"reduction", S::kSync, "parallel region with a + reduction of one double", "", {}, true, true},
      {"flush", S::kSync, "flush (full memory fence)", "", {}, true, true},
      {"firstprivate", S::kSync, "parallel region with firstprivate of one 8-byte variable (the paper's case)", "", {}, true, true},
      // Data environment (EPCC arraybench), array of doubles of `array_size` elements.
      {"private", S::kData, "parallel region with a private array", "array_size", kArraySizes, true, true},
      {"firstprivate_array", S::kData, "parallel region with a firstprivate array", "array_size", kArraySizes, true, true},
      {"copyprivate", S::kData, "single with copyprivate of an array", "array_size", kArraySizes, true, true},
      {"copyin", S::kData, "parallel region with copyin of a threadprivate array", "array_size", kArraySizes, true, true},
      // Scheduling (EPCC schedbench): loops of 128 iterations per thread over chunk sizes.
      {"for_static", S::kSched, "schedule(static, chunk)", "chunk", kChunks, true, true},
      {"for_dynamic_monotonic", S::kSched, "schedule(monotonic: dynamic, chunk)", "chunk", kChunks, true, true},
      {"for_dynamic_nonmonotonic", S::kSched, "schedule(nonmonotonic: dynamic, chunk)", "chunk", kChunks, true, true},
      {"for_guided_monotonic", S::kSched, "schedule(monotonic: guided, chunk)", "chunk", kChunks, true, true},
      {"for_guided_nonmonotonic", S::kSched, "schedule(nonmonotonic: guided, chunk)", "chunk", kChunks, true, true},
      {"taskloop", S::kSched, "taskloop with grainsize(chunk) from a single thread", "chunk", kChunks, false, true},
      // Tasks (EPCC taskbench).
      {"task_all", S::kTask, "every thread creates tasks (EPCC PARALLEL TASK)", "", {}, false, true},
      {"task_single", S::kTask, "one thread creates all tasks, others execute (EPCC MASTER TASK)", "", {}, false, true},
      {"taskwait", S::kTask, "every thread creates a task and waits for it (EPCC TASK WAIT)", "", {}, true, true},
      {"taskgroup", S::kTask, "every thread creates a task inside a taskgroup", "", {}, true, true},
      {"task_barrier", S::kTask, "tasks completed at a barrier (EPCC TASK BARRIER)", "", {}, true, true},
      {"task_nested", S::kTask, "tasks that create tasks (EPCC NESTED TASK)", "", {}, false, true},
      {"task_tree", S::kTask, "binary task tree, work at the leaves (EPCC LEAF TASK TREE)", "", {}, false, true},
  };
}

}  // namespace

const std::vector<ConstructInfo>& catalogue() {
  static const std::vector<ConstructInfo> constructs = make_catalogue();
  return constructs;
}

const ConstructInfo* find_construct(std::string_view name) {
  for (const ConstructInfo& c : catalogue())
    if (c.name == name) return &c;
  return nullptr;
}

bool parse_suite(std::string_view text, Suite& suite) {
  for (Suite s : {Suite::kSync, Suite::kSched, Suite::kData, Suite::kTask})
    if (text == to_string(s)) {
      suite = s;
      return true;
    }
  return false;
}

}  // namespace ompscale::microbench
