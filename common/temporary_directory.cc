#include "common/temporary_directory.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace ompscale {

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

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace ompscale
