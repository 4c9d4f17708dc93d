#pragma once
// Outputs are written whole or not at all: a failed or interrupted run never leaves a truncated
// file behind. The content goes to "PATH.tmp.PID" and is renamed over PATH on success.

#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

namespace ompscale {

/// An output written in pieces and published whole: the pieces go to "PATH.tmp.PID", commit()
/// renames it over PATH, and destruction without commit() removes it. "" or "-" is standard
/// output (written as it comes); an existing device or pipe (/dev/null, a FIFO) is written
/// directly, never replaced.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return to_stdout_ ? std::cout : file_; }
  /// Flushes and publishes. Throws std::runtime_error naming the path on failure.
  void commit();

 private:
  std::string path_;
  std::string tmp_;
  bool to_stdout_;
  bool direct_ = false;  // PATH is a device or pipe: no temporary file
  bool committed_ = false;
  std::ofstream file_;
};

/// Writes `content` to `path` atomically; "" or "-" means standard output.
/// Throws std::runtime_error naming the path when the file cannot be written.
void write_output(const std::string& path, std::string_view content);

/// Reads a whole file; "-" reads standard input. Throws InputError when it cannot be opened.
std::string read_input(const std::string& path);

}  // namespace ompscale
