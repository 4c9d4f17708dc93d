#include "common/executable_path.h"

#include <errno.h>  // program_invocation_name

#include <string>
#include <system_error>

namespace ompscale {

namespace fs = std::filesystem;

bool is_dynamic_loader_name(const std::string& file_name) {
  return file_name.rfind("ld-linux", 0) == 0 || file_name.rfind("ld64.so", 0) == 0 ||
         (file_name.rfind("ld-", 0) == 0 && file_name.find(".so") != std::string::npos);
}

fs::path executable_path() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  if (!is_dynamic_loader_name(self.filename().string())) return self;
  // Run through the loader, which hands the program its own argv[0] (the --argv0 name, else the
  // program's file); glibc keeps it as program_invocation_name. (/proc/self/cmdline still shows
  // the loader's command line.) A relative name is relative to the directory the program started
  // in, which is still ours unless it called chdir first.
  const std::string argument = program_invocation_name != nullptr ? program_invocation_name : "";
  if (argument.empty()) return self;
  const fs::path program = fs::absolute(argument, error);
  return error ? self : program.lexically_normal();
}

fs::path executable_directory() {
  return executable_path().parent_path();
}

}  // namespace ompscale
