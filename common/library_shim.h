#pragma once
// Making a program load another build of a shared library than the one it was linked with: a
// directory holding a symlink named by the library's soname points to the other build, and goes
// first on LD_LIBRARY_PATH (which the dynamic loader searches before DT_RUNPATH). Used to run
// GCC-built applications on libomp (ompscan) and to measure a freshly built runtime (ompbench
// --runtime-lib).

#include <string>

namespace ompscale {

/// Creates `directory` (and its parents) holding the symlink `soname` -> `target`. Throws
/// std::filesystem::filesystem_error on failure.
void make_library_shim(const std::string& directory, const std::string& soname,
                       const std::string& target);

/// "LD_LIBRARY_PATH=DIRECTORY" followed by ":" and the current value, when there is one.
std::string library_path_with(const std::string& directory);

/// "OMPSCALE_SHIM_PATH=DIRECTORY" followed by ":" and the current value, when there is one: the
/// same directory for a program of the relocatable bundle, whose launcher (bundle/launcher.cc)
/// gives the loader a library path of its own, which replaces LD_LIBRARY_PATH; it searches these
/// directories before the bundle's libraries.
std::string shim_path_with(const std::string& directory);

}  // namespace ompscale
