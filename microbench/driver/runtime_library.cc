#include "microbench/driver/runtime_library.h"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "common/error.h"
#include "common/library_shim.h"
#include "common/temporary_directory.h"

namespace ompscale::microbench {

namespace fs = std::filesystem;

std::map<std::string, std::string> parse_runtime_libraries(const std::vector<std::string>& specs) {
  std::map<std::string, std::string> out;
  for (const std::string& spec : specs) {
    std::string runtime, path = spec;
    if (spec.starts_with("gnu=") || spec.starts_with("llvm=")) {
      runtime = spec.substr(0, spec.find('='));
      path = spec.substr(spec.find('=') + 1);
    } else {
      const std::string name = fs::path(spec).filename().string();
      runtime = name.find("libgomp") != std::string::npos  ? "gnu"
                : name.find("libomp") != std::string::npos ? "llvm"
                                                           : "";
    }
    if (runtime.empty()) {
      throw UsageError(
          fmt::format("--runtime-lib {}: say which runtime it is (gnu=PATH or llvm=PATH)", spec));
    }
    std::error_code error;
    if (!fs::is_regular_file(path, error)) {
      throw UsageError(fmt::format("--runtime-lib {}: no such library file", path));
    }
    if (!out.emplace(runtime, fs::absolute(path).lexically_normal().string()).second) {
      throw UsageError(fmt::format("--runtime-lib: two libraries for the {} runtime", runtime));
    }
  }
  return out;
}

std::string runtime_soname(const std::string& runtime) {
  return runtime == "llvm" ? "libomp.so.5" : "libgomp.so.1";
}

RuntimeShims::RuntimeShims(const std::map<std::string, std::string>& libraries)
    : library_(libraries) {
  for (const auto& [runtime, path] : libraries) {
    const std::string directory = make_temporary_directory("ompbench-runtime-" + runtime);
    directory_[runtime] = directory;
    make_library_shim(directory, runtime_soname(runtime), path);
  }
}

RuntimeShims::~RuntimeShims() {
  for (const auto& [runtime, directory] : directory_) {
    std::error_code ignored;
    fs::remove_all(directory, ignored);
  }
}

std::vector<std::string> RuntimeShims::environment(const std::string& runtime) const {
  const auto it = directory_.find(runtime);
  if (it == directory_.end()) return {};
  return {library_path_with(it->second), shim_path_with(it->second)};
}

std::string RuntimeShims::library(const std::string& runtime, const std::string& reported) const {
  const auto it = directory_.find(runtime);
  if (it == directory_.end() || !reported.starts_with(it->second)) return reported;
  return library_.at(runtime);
}

}  // namespace ompscale::microbench
