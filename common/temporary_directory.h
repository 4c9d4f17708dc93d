#pragma once
// Private scratch directories under $TMPDIR (or /tmp): a tool's shim directory, a test's or a
// benchmark's working files.

#include <string>

namespace ompscale {

/// A fresh, empty directory named PREFIX.XXXXXX under $TMPDIR (or /tmp, when TMPDIR is unset or
/// empty). Throws std::runtime_error naming the pattern when it cannot be made.
std::string make_temporary_directory(const std::string& prefix);

/// A make_temporary_directory() removed, with everything in it, when this object goes.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(const std::string& prefix)
      : path_(make_temporary_directory(prefix)) {}
  ~TemporaryDirectory();
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ompscale
