#!/usr/bin/env bash
# Fresh Debian 12 -> installed dependencies, a Release build in build/, and the main job run on
# an example: models of real barrier measurements, with predictions at 64 threads, then a barrier
# sweep of this machine (both runtimes) piped into the modeler, and ompscan on a test application.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
build/modeler/modeler fit data/examples/barrier-algorithms-intel-16t.csv \
  --param threads --value value --key construct,unit --classes auto --predict 64
build/microbench/ompbench --construct barrier --bind spread --threads 1,2 |
  build/modeler/modeler fit - --where metric=avg_cost
# ompscan on an example application: runs at 1 and 2 threads, then the regions report.
runs=$(mktemp -d)
build/regions/ompscan run --threads 1,2 -o "$runs" -- build/tests/apps/llvm/mandelbrot 600 static
build/regions/ompscan report "$runs" --top 3
rm -rf "$runs"
