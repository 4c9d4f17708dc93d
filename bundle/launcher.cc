// The launcher of a relocatable ompscale bundle (scripts/bundle.sh). Every name in the bundle's
// bin/ is a link to this one static program; it runs the program of the same name from
// libexec/ompscale/ through the bundle's own dynamic loader and libraries:
//
//   ROOT/lib/ld-linux-x86-64.so.2 --library-path ROOT/lib --argv0 ROOT/bin/NAME
//                                  ROOT/libexec/ompscale/NAME ARGS...
//
// so that nothing of the machine's C library or loader is used, and the program still knows where
// it lives (common/executable_path.h reads the --argv0 name). Static, because a machine without a
// compatible loader could not start a dynamic launcher either. The library path is an argument of
// the loader rather than LD_LIBRARY_PATH so that the programs' children (the applications ompscan
// measures) never inherit the bundle's libraries.

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

constexpr char kLauncherName[] = "ompscale-launcher";
constexpr char kLoaderName[] = "ld-linux-x86-64.so.2";
constexpr char kShimPathVariable[] = "OMPSCALE_SHIM_PATH";

[[noreturn]] void fail(const std::string& message, int status) {
  fprintf(stderr, "%s: %s\n", kLauncherName, message.c_str());
  exit(status);
}

// The bundle's root: this file is ROOT/bin/ompscale-launcher, whichever link ran it.
std::string bundle_root() {
  char self[PATH_MAX];
  if (realpath("/proc/self/exe", self) == nullptr)
    fail("cannot resolve /proc/self/exe (is /proc mounted?)", 127);
  std::string path = self;
  for (int level = 0; level < 2; ++level) {
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) fail("unexpected location " + std::string(self), 127);
    path.erase(slash == 0 ? 1 : slash);
  }
  return path;
}

std::string base_name(const char* argument) {
  const char* slash = strrchr(argument, '/');
  return slash != nullptr ? slash + 1 : argument;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 0 ? base_name(argv[0]) : "";
  const std::string root = bundle_root();
  if (name.empty() || name == kLauncherName)
    fail("run one of the programs in " + root + "/bin (ompbench, modeler, ompscan, ...)", 2);
  const std::string program = root + "/libexec/ompscale/" + name;
  if (access(program.c_str(), X_OK) != 0)
    fail("this bundle has no program " + name + " (looked for " + program + ")", 127);
  const std::string loader = root + "/lib/" + kLoaderName;
  // The loader's --library-path replaces LD_LIBRARY_PATH, so a library that must come before the
  // bundle's own (ompbench --runtime-lib: another build of libomp or libgomp, through a shim
  // directory) is named in OMPSCALE_SHIM_PATH (common/library_shim.h) and searched first.
  std::string library_path = root + "/lib";
  if (const char* shims = getenv(kShimPathVariable); shims != nullptr && *shims != '\0')
    library_path = std::string(shims) + ":" + library_path;
  const std::string argv0 = root + "/bin/" + name;

  std::vector<char*> arguments = {
      const_cast<char*>(loader.c_str()),       const_cast<char*>("--library-path"),
      const_cast<char*>(library_path.c_str()), const_cast<char*>("--argv0"),
      const_cast<char*>(argv0.c_str()),        const_cast<char*>(program.c_str())};
  for (int i = 1; i < argc; ++i) arguments.push_back(argv[i]);
  arguments.push_back(nullptr);
  execv(loader.c_str(), arguments.data());
  fail("cannot run " + loader + ": " + strerror(errno), 127);
}
