#!/usr/bin/env bash
# Fresh Debian 12 -> installed dependencies, a warning-free Release build with all tests run by
# CTest (in build-test/), then the same tests in an AddressSanitizer + UndefinedBehaviorSanitizer
# build (in build-asan/). Its own build directories: the tools that scripts/setup.sh built in
# build/ stay usable meanwhile. Both stages run even when the first one fails; the end lists the
# failed builds and tests of each stage, and the exit status is 1 when anything failed.
# Each stage ends with the tests it skipped and why (GTEST_SKIP messages, and "SKIP:" lines of
# tests that exit with CTest's SKIP_RETURN_CODE). With CI set (.ci/run), a skip for a reason CI
# must not have (clang absent, the Extra-P reference data absent) fails the run.
# OMPSCALE_SKIP_DEPS=1 skips the dependency check (for a machine set up already).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${OMPSCALE_SKIP_DEPS:-0}" != 1 ]; then
  scripts/install-deps.sh || exit 1
fi
jobs=$(nproc)
summary=""
outputs=""  # of the failed tests, printed last

# Skip reasons that mean the CI machine is not set up as it must be.
ci_forbidden_skips='clang|reference data'

# What both readers of CTest's JUnit file need (awk functions): decode(S), the text of S with its
# XML entities decoded, and testcase_name(LINE), the name of a <testcase> line.
junit_awk='
    function decode(s) {
      gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s)
      gsub(/&amp;/, "\\&", s); return s
    }
    function testcase_name(line) {
      sub(/.*<testcase name="/, "", line); sub(/".*/, "", line); return line
    }
'

# skipped_tests JUNIT: "NAME: REASON" for each test CTest's JUnit file records as skipped, or
# whose output has a GoogleTest "[  SKIPPED ]" line. The reason is the GTEST_SKIP message (the
# line after "Skipped") or a "SKIP: ..." line of the test's output.
skipped_tests() {
  awk "$junit_awk"'
    /<testcase / {
      name = testcase_name($0)
      skipped = ($0 ~ /status="notrun"/); reason = ""; after = 0; next
    }
    { line = $0; sub(/^[ \t]*<system-out>/, "", line) }
    /<skipped/ { skipped = 1 }
    /\[  SKIPPED \]/ { skipped = 1 }
    after && reason == "" && line != "" { reason = line }
    { after = 0 }
    line ~ /: Skipped$/ { after = 1 }
    line ~ /^SKIP: / && reason == "" { reason = substr(line, 7) }
    /<\/testcase>/ {
      if (skipped) {
        if (reason == "") reason = "(no reason given)"
        print decode(name) ": " decode(reason)
      }
      skipped = 0
    }
  ' "$1"
}

# failed_test_output JUNIT: the output of each test CTest's JUnit file records as failed, its
# first and last 40 lines, so that the end of a CI log says why a test failed.
failed_test_output() {
  awk "$junit_awk"'
    function show(   i) {
      print "--- " decode(name) " (failed): its output" (n > 80 ? ", first and last 40 of " n " lines" : "")
      for (i = 1; i <= n; ++i) {
        if (n > 80 && i == 41) { print "  ..."; i = n - 40; continue }
        print "  " decode(lines[i])
      }
    }
    /<testcase / {
      name = testcase_name($0)
      failed = ($0 ~ /status="fail"/); n = 0; inside = 0; next
    }
    failed && /<system-out>/ { inside = 1; sub(/^[ \t]*<system-out>/, "") }
    failed && inside {
      done = sub(/<\/system-out>.*/, "")
      if (!(done && $0 == "")) lines[++n] = $0
      if (done) inside = 0
    }
    /<\/testcase>/ { if (failed) show(); failed = 0 }
  ' "$1"
}

# stage NAME DIR CMAKE-ARGS...: configure, build and test; failures go into the summary.
stage() {
  local name=$1 dir=$2
  shift 2
  echo "=== scripts/test.sh: $name stage in $dir/"
  if ! cmake -S . -B "$dir" -G Ninja "$@" || ! cmake --build "$dir" -j "$jobs"; then
    summary+="$name stage ($dir/): the build failed"$'\n'
    return
  fi
  local junit="$PWD/$dir/ctest-junit.xml"
  rm -f "$junit"
  if ! ctest --test-dir "$dir" --output-on-failure -j "$jobs" --output-junit "$junit"; then
    summary+="$name stage ($dir/): failed tests:"$'\n'
    local list="$dir/Testing/Temporary/LastTestsFailed.log"
    if [ -f "$list" ]; then
      summary+="$(sed 's/^[0-9]*:/  /' "$list")"$'\n'
    else
      summary+="  (ctest wrote no list)"$'\n'
    fi
    outputs+="$(failed_test_output "$junit")"$'\n'
  fi
  report_skips "$name" "$dir" "$junit"
}

# report_skips NAME DIR JUNIT: prints the stage's skipped tests; under CI, forbidden ones go into
# the summary as failures.
report_skips() {
  local name=$1 dir=$2 junit=$3 skips
  [ -f "$junit" ] || return 0
  skips=$(skipped_tests "$junit")
  if [ -z "$skips" ]; then
    echo "=== scripts/test.sh: $name stage: no test skipped"
    return
  fi
  echo "=== scripts/test.sh: $name stage: skipped tests"
  printf '%s\n' "$skips" | sed 's/^/  /'
  if [ -n "${CI:-}" ]; then
    local forbidden
    forbidden=$(printf '%s\n' "$skips" | grep -E -i "$ci_forbidden_skips" || true)
    if [ -n "$forbidden" ]; then
      summary+="$name stage ($dir/): skipped for a reason CI must not have:"$'\n'
      summary+="$(printf '%s\n' "$forbidden" | sed 's/^/  /')"$'\n'
    fi
  fi
}

# Unity builds (CMake compiles a target's sources in batches) keep both stages within CI's time on
# two cores; scripts/setup.sh and builds by hand compile file by file, so each file still has to
# stand alone. A name private to one file (an anonymous namespace) must not clash with another
# file's of the same target: docs/testing.md, "Unity builds".
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
stage Release build-test -DCMAKE_BUILD_TYPE=Release -DOMPSCALE_WERROR=ON "${unity[@]}"

# Warnings are enforced by the build above; sanitizer instrumentation makes GCC 12 report false
# positives (-Wmaybe-uninitialized inside std::function/std::regex), so no -Werror here.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# -O1 -g1: what the sanitizers recommend, with line tables for their reports; quicker to build.
stage ASan+UBSan build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOMPSCALE_SANITIZE=ON \
  -DOMPSCALE_WERROR=OFF -DOMPSCALE_BUILD_BENCH=OFF "${unity[@]}" \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1"

if [ -n "$summary" ]; then
  if [ -n "${outputs//$'\n'/}" ]; then
    echo "=== scripts/test.sh: output of the failed tests"
    printf '%s' "$outputs"
  fi
  echo "=== scripts/test.sh: FAILED"
  printf '%s' "$summary"
  exit 1
fi
echo "=== scripts/test.sh: both stages passed"
