#pragma once
// Errors that reach the user. Every input problem names the file, the line and the cause, so the
// user can fix it without reading our code; the CLIs turn these into exit status 2.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ompscale {

/// Bad input data: a file that does not parse or holds values we cannot use.
/// what() reads "FILE:LINE: CAUSE" (or "FILE: CAUSE" when line is 0).
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::size_t line, const std::string& cause);

  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }

 private:
  std::string file_;
  std::size_t line_;
};

/// A command line or option the program cannot act on; what() is the one-line cause.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "0.1.0 (git 1a2b3c4d5e6f)": written into every output for provenance.
std::string version_string();

}  // namespace ompscale
