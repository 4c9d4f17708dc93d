#!/usr/bin/env bash
# Fresh Debian 12 -> installed dependencies, a warning-free Release build with all tests run by
# CTest, then the same tests in an AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DOMPSCALE_WERROR=ON
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

# Warnings are enforced by the build above; sanitizer instrumentation makes GCC 12 report false
# positives (-Wmaybe-uninitialized inside std::function/std::regex), so no -Werror here.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOMPSCALE_SANITIZE=ON \
  -DOMPSCALE_WERROR=OFF -DOMPSCALE_BUILD_BENCH=OFF
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
