#pragma once
// Running a built tool as a child process in end-to-end tests: argv as given (no shell), stdin
// from a file, stdout and stderr into files. Shared by every CLI test.

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/child_process.h"

namespace ompscale::test_support {

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `text` split at its line ends, without them (no empty last line for a final newline).
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline void spit(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out.good()) throw std::runtime_error("cannot write " + path.string());
}

/// A started child (common/child_process.h) with stdin from a file and stdout and stderr into
/// files, in the test's own process group. wait() returns the exit status, or 128 + signal.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& stdin_file,
               const std::filesystem::path& stdout_file, const std::filesystem::path& stderr_file)
      : child_(options(argv, stdin_file, stdout_file, stderr_file)) {}

  void signal(int number) { child_.signal(number); }

  /// The exit status (as wait()) when the child has ended, nothing while it runs.
  std::optional<int> try_wait() {
    const std::optional<ExitStatus> status = child_.try_wait();
    return status ? std::optional<int>(status->shell_code()) : std::nullopt;
  }

  int wait() { return child_.wait().shell_code(); }

 private:
  static ChildOptions options(const std::vector<std::string>& argv,
                              const std::filesystem::path& stdin_file,
                              const std::filesystem::path& stdout_file,
                              const std::filesystem::path& stderr_file) {
    ChildOptions options;
    options.argv = argv;
    options.stdin_from = ChildStream::file(stdin_file);
    options.stdout_to = ChildStream::file(stdout_file);
    options.stderr_to = ChildStream::file(stderr_file);
    return options;
  }

  ompscale::ChildProcess child_;
};

struct Outcome {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

/// Runs argv to completion with stdin from `stdin_file`; output files live in `scratch_dir` and
/// are removed afterwards.
inline Outcome run_program(const std::vector<std::string>& argv,
                           const std::filesystem::path& scratch_dir,
                           const std::filesystem::path& stdin_file = "/dev/null") {
  static int runs = 0;
  const std::string stem = "run" + std::to_string(runs++);
  const std::filesystem::path out_file = scratch_dir / (stem + ".stdout");
  const std::filesystem::path err_file = scratch_dir / (stem + ".stderr");
  Outcome result;
  {
    ChildProcess child(argv, stdin_file, out_file, err_file);
    result.status = child.wait();
  }
  result.out = slurp(out_file);
  result.err = slurp(err_file);
  std::filesystem::remove(out_file);
  std::filesystem::remove(err_file);
  return result;
}

}  // namespace ompscale::test_support
