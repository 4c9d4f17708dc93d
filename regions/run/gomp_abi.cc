#include "regions/run/gomp_abi.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join

#include <algorithm>
#include <filesystem>
#include <optional>

#include "common/error.h"
#include "common/executable_path.h"
#include "common/library_shim.h"

#ifndef OMPSCALE_LIBOMP_DIR
#error "OMPSCALE_LIBOMP_DIR must name the directory of libomp.so.5 (regions/CMakeLists.txt)"
#endif

namespace ompscale::regions {

std::string default_libomp() {
  // An install or bundle carries its own libomp in ../lib beside the binary; a build tree uses
  // the one it was built against.
  const std::filesystem::path directory = executable_directory();
  if (!directory.empty()) {
    const std::filesystem::path bundled = directory.parent_path() / "lib" / "libomp.so.5";
    std::error_code error;
    if (std::filesystem::is_regular_file(bundled, error)) return bundled.string();
  }
  return std::string(OMPSCALE_LIBOMP_DIR) + "/libomp.so.5";
}

std::vector<std::string> missing_versions(const std::vector<std::string>& needed,
                                          const std::vector<std::string>& defined) {
  std::vector<std::string> missing;
  for (const std::string& version : needed)
    if (std::find(defined.begin(), defined.end(), version) == defined.end() &&
        std::find(missing.begin(), missing.end(), version) == missing.end())
      missing.push_back(version);
  return missing;
}

bool check_gomp_abi(const std::string& app, const ElfDynamicInfo& app_info,
                    const std::string& libomp) {
  if (!app_info.needs(kLibgompSoname)) return false;
  std::optional<ElfDynamicInfo> runtime;
  try {
    runtime = read_elf_dynamic_info(libomp);
  } catch (const InputError& e) {
    throw UsageError(fmt::format(
        "{} is GCC-built (needs {}) and runs on libomp, but {}; install libomp-dev or pass "
        "--libomp PATH",
        app, kLibgompSoname, e.what()));
  }
  if (!runtime || runtime->version_definitions.empty())
    throw UsageError(
        fmt::format("--libomp {}: not a libomp shared library with versioned symbols", libomp));
  const auto needs = app_info.version_needs.find(kLibgompSoname);
  if (needs == app_info.version_needs.end()) return true;
  const std::vector<std::string> missing =
      missing_versions(needs->second, runtime->version_definitions);
  if (!missing.empty())
    throw UsageError(fmt::format(
        "{} is GCC-built and needs libgomp symbol version{} {} that {} does not define, so it "
        "cannot run on libomp (the only runtime with OMPT); rebuild it with clang -fopenmp or "
        "without the OpenMP features that need {}",
        app, missing.size() > 1 ? "s" : "", fmt::join(missing, ", "), libomp,
        missing.size() > 1 ? "them" : "it"));
  return true;
}

void make_gomp_shim(const std::string& directory, const std::string& libomp) {
  make_library_shim(directory, kLibgompSoname, libomp);
}

}  // namespace ompscale::regions
