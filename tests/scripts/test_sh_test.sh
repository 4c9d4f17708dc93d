#!/usr/bin/env bash
# scripts/test.sh with cmake and ctest replaced by stand-ins that record their arguments: it must
# build in its own directories (build-test/, build-asan/; never build/ of scripts/setup.sh), run
# the sanitizer stage even when the first stage has failing tests, name those tests, print their
# output (first and last 40 lines, before the summary), and fail;
# list each stage's skipped tests with their reasons, and under CI fail on a skip for a reason CI
# must not have (clang absent, reference data absent).
# Usage: test_sh_test.sh PATH/TO/scripts/test.sh
set -euo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo/scripts" "$work/bin"
cp "$script" "$work/repo/scripts/test.sh"
log="$work/calls.log"

cat > "$work/bin/cmake" <<STUB
#!/usr/bin/env bash
echo "cmake \$*" >> "$log"
STUB
# ctest: the Release stage has two failing tests (as a timing test fails under load). Every stage
# skips a GoogleTest test (its reason is \$SKIP_REASON) and a SKIP_RETURN_CODE test (not root).
cat > "$work/bin/ctest" <<STUB
#!/usr/bin/env bash
echo "ctest \$*" >> "$log"
dir=\$2
junit=\${@: -1}
mkdir -p "\$(dirname "\$junit")"
failing=0
[ "\$dir" = build-test ] && [ "\${FAIL_RELEASE:-1}" = 1 ] && failing=1
# A failing test's output: 100 lines, with characters the JUnit file writes as entities.
failed_case=""
if [ "\$failing" = 1 ]; then
  failed_case="<testcase name=\"SyncClock.ResolutionIsFine\" classname=\"s\" time=\"1\" status=\"fail\">
		<failure message=\"\"/>
		<system-out>\$(for i in \$(seq 1 100); do echo "line \$i &lt;ns&gt;"; done)
</system-out>
	</testcase>"
fi
cat > "\$junit" <<XML
<testsuite>
	\$failed_case
	<testcase name="Conformance.Matches" classname="c" time="0.01" status="notrun">
		<skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
		<system-out>Running main() from gtest_main.cc
x_test.cc:12: Skipped
\${SKIP_REASON:-no clang}

[  SKIPPED ] Conformance.Matches (0 ms)
</system-out>
	</testcase>
	<testcase name="bundle.runs_in_an_empty_root" classname="b" time="0.01" status="notrun">
		<skipped message="SKIP_RETURN_CODE=77"/>
		<system-out>SKIP: not root &amp; no mount namespace
</system-out>
	</testcase>
	<testcase name="Passing.Test" classname="p" time="0.01" status="run">
		<system-out></system-out>
	</testcase>
</testsuite>
XML
if [ "\$failing" = 1 ]; then
  mkdir -p "\$dir/Testing/Temporary"
  printf '12:SyncClock.ResolutionIsFine\n40:WindowRelease.LateArrivals\n' > "\$dir/Testing/Temporary/LastTestsFailed.log"
  exit 8
fi
exit 0
STUB
chmod +x "$work/bin/cmake" "$work/bin/ctest"

fail() { echo "FAIL: $*"; echo "--- output:"; cat "$work/out"; echo "--- calls:"; cat "$log"; exit 1; }

status=0
PATH="$work/bin:$PATH" OMPSCALE_SKIP_DEPS=1 env -u CI "$work/repo/scripts/test.sh" > "$work/out" 2>&1 || status=$?
[ "$status" = 1 ] || fail "exit status $status, expected 1"
grep -q -- "-B build-test " "$log" || fail "no Release build in build-test/"
grep -q -- "-B build-asan " "$log" || fail "no sanitizer build in build-asan/"
if grep -q -- "-B build " "$log"; then fail "used build/ of scripts/setup.sh"; fi
grep -q "ctest --test-dir build-asan" "$log" || fail "the sanitizer stage did not run its tests"
# Both stages in unity batches, within CI's time (docs/testing.md).
[ "$(grep -c -- "-DCMAKE_UNITY_BUILD=ON" "$log")" -ge 2 ] || fail "a stage is not a unity build"
grep -q "Release stage (build-test/): failed tests:" "$work/out" || fail "no list of failed tests"
grep -q "^  SyncClock.ResolutionIsFine$" "$work/out" || fail "the failed test is not named"
grep -q "^  WindowRelease.LateArrivals$" "$work/out" || fail "the second failed test is not named"
# The failed test's output, its first and last 40 lines decoded, before the summary.
grep -q "^--- SyncClock.ResolutionIsFine (failed): its output, first and last 40 of 100 lines$" \
  "$work/out" || fail "the failed test's output is not introduced"
for shown in 1 40 61 100; do
  grep -q "^  line $shown <ns>$" "$work/out" || fail "line $shown of the failed test's output is missing"
done
for elided in 41 60; do
  if grep -q "^  line $elided <ns>$" "$work/out"; then fail "line $elided should be elided"; fi
done
output_at=$(grep -n "output of the failed tests" "$work/out" | cut -d: -f1)
summary_at=$(grep -n "=== scripts/test.sh: FAILED" "$work/out" | cut -d: -f1)
[ -n "$output_at" ] && [ "$output_at" -lt "$summary_at" ] ||
  fail "the failed tests' output is not printed before the summary"

: > "$log"
rm -rf "$work/repo/build-test"
status=0
PATH="$work/bin:$PATH" OMPSCALE_SKIP_DEPS=1 FAIL_RELEASE=0 env -u CI "$work/repo/scripts/test.sh" \
  > "$work/out" 2>&1 || status=$?
[ "$status" = 0 ] || fail "exit status $status with every test passing (outside CI)"
grep -q "both stages passed" "$work/out" || fail "no success line"
grep -q "Release stage: skipped tests" "$work/out" || fail "no skip summary for the Release stage"
grep -q "ASan+UBSan stage: skipped tests" "$work/out" || fail "no skip summary for the sanitizer stage"
grep -q "^  Conformance.Matches: no clang$" "$work/out" || fail "the GTEST_SKIP reason is not named"
grep -q "^  bundle.runs_in_an_empty_root: not root & no mount namespace$" "$work/out" ||
  fail "the SKIP_RETURN_CODE reason is not named"

# Under CI, "no clang" fails the run; a skip CI may have (not root) does not.
status=0
PATH="$work/bin:$PATH" OMPSCALE_SKIP_DEPS=1 FAIL_RELEASE=0 CI=true "$work/repo/scripts/test.sh" \
  > "$work/out" 2>&1 || status=$?
[ "$status" = 1 ] || fail "exit status $status under CI with a clang skip, expected 1"
grep -q "Release stage (build-test/): skipped for a reason CI must not have:" "$work/out" ||
  fail "the forbidden skip is not in the summary"
grep -q "^  Conformance.Matches: no clang$" "$work/out" || fail "the forbidden skip is not named"
status=0
PATH="$work/bin:$PATH" OMPSCALE_SKIP_DEPS=1 FAIL_RELEASE=0 CI=true \
  SKIP_REASON="rsvg-convert (librsvg2-bin) is not installed" "$work/repo/scripts/test.sh" \
  > "$work/out" 2>&1 || status=$?
[ "$status" = 0 ] || fail "exit status $status under CI with allowed skips only"
echo "test.sh: own build directories, both stages, failed tests named with their output, skips listed and judged"
