#include "regions/cli/cli.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/text.h"
#include "regions/report/report_command.h"
#include "regions/run/run_command.h"

namespace ompscale::regions {

namespace {

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "ompscan: region analysis of unmodified OpenMP applications (OMPT).\n"
               "Usage:\n"
               "  ompscan run [options] -- APP [ARGS...]   run APP over thread counts and inputs "
               "under the tool\n"
               "  ompscan report [options] DIR             analyse the runs in DIR\n"
               "  ompscan --version\n"
               "`ompscan run --help` and `ompscan report --help` list the options.\n");
}

}  // namespace

int run_cli(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::printf("%s\n", version_string().c_str());
    return 0;
  }
  if (std::strcmp(argv[1], "run") == 0) return run_command(argc - 1, argv + 1, argv[0]);
  if (std::strcmp(argv[1], "report") == 0) return report_command(argc - 1, argv + 1);
  const std::string nearest = nearest_word(argv[1], {"run", "report"});
  std::fprintf(
      stderr, "ompscan: unknown command '%s'; %s (ompscan --help)\n", argv[1],
      nearest.empty() ? "expected run or report" : ("did you mean " + nearest + "?").c_str());
  return 2;
}

}  // namespace ompscale::regions
