#include "common/library_shim.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace ompscale {

void make_library_shim(const std::string& directory, const std::string& soname,
                       const std::string& target) {
  std::filesystem::create_directories(directory);
  std::filesystem::create_symlink(target, std::filesystem::path(directory) / soname);
}

std::string make_temporary_directory(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  pattern.append("/").append(prefix).append(".XXXXXX");
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    throw std::runtime_error(pattern +
                             ": cannot create a temporary directory: " + std::strerror(errno));
  }
  return buffer.data();
}

std::string library_path_with(const std::string& directory) {
  const char* current = std::getenv("LD_LIBRARY_PATH");
  std::string entry = "LD_LIBRARY_PATH=";
  entry.append(directory);
  if (current != nullptr && *current != '\0') entry.append(":").append(current);
  return entry;
}

}  // namespace ompscale
