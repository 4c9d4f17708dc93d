#!/usr/bin/env bash
# Fresh Debian 12 -> installed dependencies, a Release build in build/ of what the main job needs,
# and the main job run on examples. The modeler is built first and shows its first model (real
# barrier measurements, with predictions at 64 threads) before the rest is built: ompbench and its
# two workers (a barrier sweep of this machine piped into the modeler), then ompscan with its OMPT
# library and one example application (a run at 1 and 2 threads and its report). Tests, fuzzers,
# benchmarks, ompdash and the Python module are built by scripts/test.sh (or
# `cmake --build build`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
start=$(date +%s)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target modeler
build/modeler/modeler fit data/examples/barrier-algorithms-intel-16t.csv \
  --param threads --value value --key construct,unit --classes auto --predict 64
echo "=== setup.sh: first model after $(($(date +%s) - start)) s; building ompbench and ompscan"
cmake --build build --target ompbench ompscan ompscale_app_mandelbrot
build/microbench/ompbench --construct barrier --bind spread --threads 1,2 |
  build/modeler/modeler fit - --where metric=avg_cost
# ompscan on an example application (built with gcc, measured on libomp through its GOMP ABI and
# once on its own libgomp): runs at 1 and 2 threads, then the regions report.
runs=$(mktemp -d)
build/regions/ompscan run --threads 1,2 -o "$runs" -- build/tests/apps/mandelbrot 600 static
build/regions/ompscan report "$runs" --top 3
rm -rf "$runs"
echo "=== setup.sh: done after $(($(date +%s) - start)) s; next: README.md, docs/index.md"
