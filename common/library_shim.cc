#include "common/library_shim.h"

#include <cstdlib>
#include <filesystem>

namespace ompscale {

void make_library_shim(const std::string& directory, const std::string& soname,
                       const std::string& target) {
  std::filesystem::create_directories(directory);
  std::filesystem::create_symlink(target, std::filesystem::path(directory) / soname);
}

namespace {

// "NAME=DIRECTORY[:current value of NAME]".
std::string path_with(const char* name, const std::string& directory) {
  const char* current = std::getenv(name);
  std::string entry = std::string(name) + "=";
  entry.append(directory);
  if (current != nullptr && *current != '\0') entry.append(":").append(current);
  return entry;
}

}  // namespace

std::string library_path_with(const std::string& directory) {
  return path_with("LD_LIBRARY_PATH", directory);
}

std::string shim_path_with(const std::string& directory) {
  return path_with("OMPSCALE_SHIM_PATH", directory);
}

}  // namespace ompscale
