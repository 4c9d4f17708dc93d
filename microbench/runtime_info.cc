#include "microbench/runtime_info.h"

#include <dlfcn.h>

namespace ompscale::microbench {

namespace {

std::string version_of_compiler() {
#if defined(__clang__)
  return std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
         std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  return std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

std::string loaded_library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&omp_get_num_threads), &info) != 0 && info.dli_fname)
    return info.dli_fname;
  return "";
}

RuntimeInfo detect() {
  RuntimeInfo info;
  info.library_path = loaded_library_path();
  // The runtime is what is loaded, not what the compiler usually links: a gcc binary can run on
  // libomp through its GOMP ABI.
  const bool libomp = info.library_path.find("libomp") != std::string::npos ||
                      dlsym(RTLD_DEFAULT, "__kmpc_fork_call") != nullptr;
  info.runtime = libomp ? "libomp" : "libgomp";
#if defined(__clang__)
  info.compiler = "clang-" + version_of_compiler();
#else
  info.compiler = "gcc-" + version_of_compiler();
#endif
  // Neither runtime exports its version; each ships with the compiler of the same release.
  info.runtime_version = version_of_compiler();
  info.hardware_threads = omp_get_num_procs();
  return info;
}

}  // namespace

const RuntimeInfo& runtime_info() {
  static const RuntimeInfo info = detect();
  return info;
}

InitLockWithHint init_lock_with_hint() {
  static const InitLockWithHint function =
      reinterpret_cast<InitLockWithHint>(dlsym(RTLD_DEFAULT, "omp_init_lock_with_hint"));
  return function;
}

std::string lock_hint_unavailable_reason() {
  if (init_lock_with_hint() != nullptr) return "";
  return runtime_info().runtime + " " + runtime_info().runtime_version +
         " exports no omp_init_lock_with_hint";
}

}  // namespace ompscale::microbench
