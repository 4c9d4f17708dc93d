#pragma once
// Facts about the OpenMP runtime and compiler this binary was built with and runs on, and the
// optional runtime entry points looked up at run time (so one source builds with gcc + libgomp 12,
// which lacks them, and with clang + libomp).

#include <string>

#include <omp.h>

namespace ompscale::microbench {

struct RuntimeInfo {
  std::string runtime;          // "libgomp" or "libomp"
  std::string runtime_version;  // e.g. "12.2.0" (libgomp: the compiler's), "14.0.6"
  std::string compiler;         // e.g. "gcc-12.2.0", "clang-14.0.6"
  std::string library_path;     // the loaded runtime library, e.g. /usr/lib/llvm-14/lib/libomp.so.5
  int hardware_threads = 0;     // omp_get_num_procs()
};

const RuntimeInfo& runtime_info();

/// omp_init_lock_with_hint as exported by the loaded runtime, or nullptr when it exports none.
using InitLockWithHint = void (*)(omp_lock_t*, omp_sync_hint_t);
InitLockWithHint init_lock_with_hint();

/// The one-line reason lock-hint constructs are skipped on this runtime ("" when they run).
std::string lock_hint_unavailable_reason();

}  // namespace ompscale::microbench
