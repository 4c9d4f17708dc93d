#pragma once
// GCC-built applications (DT_NEEDED libgomp.so.1) run on libomp through its GOMP ABI, since only
// libomp implements OMPT: a directory holding `libgomp.so.1 -> libomp.so.5` goes first on
// LD_LIBRARY_PATH. That works only when libomp defines every symbol version the application needs
// from libgomp (GOMP_5.1 and OMP_5.1, for instance, are libgomp-only in LLVM 14), so this is
// checked before any run.

#include <string>
#include <vector>

#include "regions/run/elf_file.h"

namespace ompscale::regions {

inline constexpr char kLibgompSoname[] = "libgomp.so.1";

/// What libgomp's schedule(runtime) loops do when OMP_SCHEDULE is unset (its run-sched-var
/// default); libomp's default is static. A GCC build run on libomp gets this OMP_SCHEDULE unless
/// the user set one, so that its runtime-scheduled loops deal their iterations as they do on
/// the application's own runtime.
inline constexpr char kLibgompRuntimeSchedule[] = "dynamic,1";

/// ../lib/libomp.so.5 beside the ompscan binary when there is one (a bundle), else the libomp.so.5
/// of the LLVM this ompscan was built against (OMPSCALE_LIBOMP_DIR).
std::string default_libomp();

/// The versions of `needed` that `defined` lacks, in the order of `needed`, each once.
std::vector<std::string> missing_versions(const std::vector<std::string>& needed,
                                          const std::vector<std::string>& defined);

/// True when `app` needs libgomp.so.1 and so runs through the GOMP ABI of `libomp`. Throws
/// UsageError (one line) when `libomp` cannot be read or lacks versions the application needs
/// from libgomp, naming them.
bool check_gomp_abi(const std::string& app, const ElfDynamicInfo& app_info,
                    const std::string& libomp);

/// Creates `directory` holding the symlink libgomp.so.1 -> `libomp`; the caller prepends the
/// directory to LD_LIBRARY_PATH and removes it at the end. Throws std::runtime_error on failure.
void make_gomp_shim(const std::string& directory, const std::string& libomp);

}  // namespace ompscale::regions
