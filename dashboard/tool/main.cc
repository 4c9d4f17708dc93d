// `ompdash`: the history of runtime scalability, its regressions and its site. See README.md.
#include "dashboard/cli/cli.h"

int main(int argc, char** argv) {
  return ompscale::dashboard::run_cli(argc, argv);
}
