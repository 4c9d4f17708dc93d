#include "regions/cli/cli.h"

int main(int argc, char** argv) {
  return ompscale::regions::run_cli(argc, argv);
}
