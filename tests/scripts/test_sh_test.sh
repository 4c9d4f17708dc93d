#!/usr/bin/env bash
# scripts/test.sh with cmake and ctest replaced by stand-ins that record their arguments: it must
# build in its own directories (build-test/, build-asan/; never build/ of scripts/setup.sh), run
# the sanitizer stage even when the first stage has failing tests, name those tests, and fail.
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
# ctest: the Release stage has two failing tests (as a timing test fails under load).
cat > "$work/bin/ctest" <<STUB
#!/usr/bin/env bash
echo "ctest \$*" >> "$log"
dir=\$2
if [ "\$dir" = build-test ] && [ "\${FAIL_RELEASE:-1}" = 1 ]; then
  mkdir -p "\$dir/Testing/Temporary"
  printf '12:SyncClock.ResolutionIsFine\n40:WindowRelease.LateArrivals\n' > "\$dir/Testing/Temporary/LastTestsFailed.log"
  exit 8
fi
exit 0
STUB
chmod +x "$work/bin/cmake" "$work/bin/ctest"

fail() { echo "FAIL: $*"; echo "--- output:"; cat "$work/out"; echo "--- calls:"; cat "$log"; exit 1; }

status=0
PATH="$work/bin:$PATH" OMPSCALE_SKIP_DEPS=1 "$work/repo/scripts/test.sh" > "$work/out" 2>&1 || status=$?
[ "$status" = 1 ] || fail "exit status $status, expected 1"
grep -q -- "-B build-test " "$log" || fail "no Release build in build-test/"
grep -q -- "-B build-asan " "$log" || fail "no sanitizer build in build-asan/"
if grep -q -- "-B build " "$log"; then fail "used build/ of scripts/setup.sh"; fi
grep -q "ctest --test-dir build-asan" "$log" || fail "the sanitizer stage did not run its tests"
grep -q "Release stage (build-test/): failed tests:" "$work/out" || fail "no list of failed tests"
grep -q "^  SyncClock.ResolutionIsFine$" "$work/out" || fail "the failed test is not named"
grep -q "^  WindowRelease.LateArrivals$" "$work/out" || fail "the second failed test is not named"

: > "$log"
rm -rf "$work/repo/build-test"
status=0
PATH="$work/bin:$PATH" OMPSCALE_SKIP_DEPS=1 FAIL_RELEASE=0 "$work/repo/scripts/test.sh" \
  > "$work/out" 2>&1 || status=$?
[ "$status" = 0 ] || fail "exit status $status with every test passing"
grep -q "both stages passed" "$work/out" || fail "no success line"
echo "test.sh: own build directories, both stages, failed tests named"
