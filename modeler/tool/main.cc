// `modeler`: PMNF scaling models from ompbench, Extra-P and generic inputs. See README.md.
#include "modeler/cli/cli.h"

int main(int argc, char** argv) {
  return ompscale::modeler::run_cli(argc, argv);
}
