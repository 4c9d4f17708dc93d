#include "common/library_shim.h"

#include <cstdlib>
#include <filesystem>

namespace ompscale {

void make_library_shim(const std::string& directory, const std::string& soname,
                       const std::string& target) {
  std::filesystem::create_directories(directory);
  std::filesystem::create_symlink(target, std::filesystem::path(directory) / soname);
}

std::string library_path_with(const std::string& directory) {
  const char* current = std::getenv("LD_LIBRARY_PATH");
  std::string entry = "LD_LIBRARY_PATH=";
  entry.append(directory);
  if (current != nullptr && *current != '\0') entry.append(":").append(current);
  return entry;
}

}  // namespace ompscale
