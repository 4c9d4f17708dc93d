#include "microbench/driver/cli.h"

int main(int argc, char** argv) { return ompscale::microbench::run_cli(argc, argv); }
