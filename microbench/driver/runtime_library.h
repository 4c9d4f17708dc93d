#pragma once
// `ompbench --runtime-lib PATH`: measure a freshly built libgomp or libomp instead of the
// installed one, as a runtime developer's nightly does. The worker of that runtime is started
// with a shim directory first on LD_LIBRARY_PATH (common/library_shim.h) whose libgomp.so.1 or
// libomp.so.5 points to PATH; the sidecar records PATH as the worker's library.

#include <map>
#include <string>
#include <vector>

namespace ompscale::microbench {

/// The worker runtime ("gnu" or "llvm") -> the library to load instead of the installed one.
/// Each spec is "gnu=PATH", "llvm=PATH", or a PATH whose file name says libgomp or libomp.
/// Throws UsageError for another spec, a runtime given twice, or a PATH that is not a file.
std::map<std::string, std::string> parse_runtime_libraries(const std::vector<std::string>& specs);

/// The soname each worker loads its runtime by: "libgomp.so.1" (gnu), "libomp.so.5" (llvm).
std::string runtime_soname(const std::string& runtime);

/// Shim directories for the duration of a sweep, removed on destruction.
class RuntimeShims {
 public:
  explicit RuntimeShims(const std::map<std::string, std::string>& libraries);
  ~RuntimeShims();
  RuntimeShims(const RuntimeShims&) = delete;
  RuntimeShims& operator=(const RuntimeShims&) = delete;

  /// The environment entries for a worker of `runtime` (none when it runs the installed one):
  /// LD_LIBRARY_PATH, and OMPSCALE_SHIM_PATH for a worker of the relocatable bundle, whose loader
  /// does not read LD_LIBRARY_PATH.
  std::vector<std::string> environment(const std::string& runtime) const;
  /// `reported` (the library a worker found itself loaded from) with a shim path replaced by the
  /// library it stands for.
  std::string library(const std::string& runtime, const std::string& reported) const;

 private:
  std::map<std::string, std::string> directory_;  // runtime -> shim directory
  std::map<std::string, std::string> library_;    // runtime -> absolute library path
};

}  // namespace ompscale::microbench
