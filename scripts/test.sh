#!/usr/bin/env bash
# Fresh Debian 12 -> installed dependencies, a warning-free Release build with all tests run by
# CTest (in build-test/), then the same tests in an AddressSanitizer + UndefinedBehaviorSanitizer
# build (in build-asan/). Its own build directories: the tools that scripts/setup.sh built in
# build/ stay usable meanwhile. Both stages run even when the first one fails; the end lists the
# failed builds and tests of each stage, and the exit status is 1 when anything failed.
# OMPSCALE_SKIP_DEPS=1 skips the dependency check (for a machine set up already).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${OMPSCALE_SKIP_DEPS:-0}" != 1 ]; then
  scripts/install-deps.sh || exit 1
fi
jobs=$(nproc)
summary=""

# stage NAME DIR CMAKE-ARGS...: configure, build and test; failures go into the summary.
stage() {
  local name=$1 dir=$2
  shift 2
  echo "=== scripts/test.sh: $name stage in $dir/"
  if ! cmake -S . -B "$dir" -G Ninja "$@" || ! cmake --build "$dir" -j "$jobs"; then
    summary+="$name stage ($dir/): the build failed"$'\n'
    return
  fi
  if ! ctest --test-dir "$dir" --output-on-failure -j "$jobs"; then
    summary+="$name stage ($dir/): failed tests:"$'\n'
    local list="$dir/Testing/Temporary/LastTestsFailed.log"
    if [ -f "$list" ]; then
      summary+="$(sed 's/^[0-9]*:/  /' "$list")"$'\n'
    else
      summary+="  (ctest wrote no list)"$'\n'
    fi
  fi
}

stage Release build-test -DCMAKE_BUILD_TYPE=Release -DOMPSCALE_WERROR=ON

# Warnings are enforced by the build above; sanitizer instrumentation makes GCC 12 report false
# positives (-Wmaybe-uninitialized inside std::function/std::regex), so no -Werror here.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
stage ASan+UBSan build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOMPSCALE_SANITIZE=ON \
  -DOMPSCALE_WERROR=OFF -DOMPSCALE_BUILD_BENCH=OFF

if [ -n "$summary" ]; then
  echo "=== scripts/test.sh: FAILED"
  printf '%s' "$summary"
  exit 1
fi
echo "=== scripts/test.sh: both stages passed"
