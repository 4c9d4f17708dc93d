#!/usr/bin/env bash
# The relocatable bundle on a machine with nothing installed: scripts/bundle.sh's archive unpacked
# into an otherwise empty root (/proc, /sys and /dev mounted; no /usr, /lib or /bin of the host),
# where
#   - ompbench measures a barrier at 1 and 2 threads on both runtimes, piped into `modeler fit -`;
#   - every library the loader loads into the sweep's processes (both workers among them) and
#     every file seen mapped by the processes in that root lies inside the bundle;
#   - ompscan runs a clang-built and a GCC-built test application (given the bundle's loader and
#     C library, as an application built for that machine would use its own) on the bundle's
#     libomp, and reports;
#   - ompbench --runtime-lib measures the build it is given, not the bundle's libomp.
#
#   tests/bundle/chroot_test.sh SOURCE_DIR BUILD_DIR
# Exit 0: passed; 77: skipped (not root, or no mount namespace); anything else: failed.
set -euo pipefail

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Inside a private mount namespace (see the end): mount, run, check.
inside() {
  local root=$1 bundle=$2 work=$3
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --rbind /dev "$root/dev"
  local chroot_program
  chroot_program=$(command -v chroot)
  # The environment is emptied but for what the caller sets of LD_LIBRARY_PATH, LD_DEBUG and
  # LD_DEBUG_OUTPUT.
  in_root() {
    env -i HOME=/tmp PATH="$bundle/bin" ${LD_LIBRARY_PATH:+LD_LIBRARY_PATH=$LD_LIBRARY_PATH} \
      ${LD_DEBUG:+LD_DEBUG=$LD_DEBUG} ${LD_DEBUG_OUTPUT:+LD_DEBUG_OUTPUT=$LD_DEBUG_OUTPUT} \
      "$chroot_program" "$root" "$@"
  }

  # The loader records every library it loads, process by process (LD_DEBUG=files into
  # /tmp/loaded.PID): the short-lived workers cannot slip through it. The watcher of /proc adds
  # what the loader does not load itself (programs, the loader, files mapped later).
  watch_maps "$root" "$work/maps" &
  watcher=$!
  trap 'kill "$watcher" 2>/dev/null || true' EXIT
  LD_DEBUG=files LD_DEBUG_OUTPUT=/tmp/loaded in_root "$bundle/bin/ompbench" --construct barrier \
    --threads 1,2 --method both --reps 20 --runtime both --progress never |
    in_root "$bundle/bin/modeler" fit - --where metric=avg_cost >"$work/fit.txt"
  kill "$watcher"
  wait "$watcher" 2>/dev/null || true
  grep -q "runtime=libgomp" "$work/fit.txt" || fail "no libgomp model: $(cat "$work/fit.txt")"
  grep -q "runtime=libomp" "$work/fit.txt" || fail "no libomp model: $(cat "$work/fit.txt")"
  check_loaded "$root" "$bundle"
  check_maps "$root" "$bundle" "$work/maps"

  local compiler
  # The applications find their C library on the library path, as they would find the machine's;
  # the bundle's own programs ignore LD_LIBRARY_PATH (the launcher passes --library-path).
  for compiler in llvm gnu; do
    LD_LIBRARY_PATH=$bundle/lib in_root "$bundle/bin/ompscan" run --threads 1,2 --progress never -o "/tmp/runs-$compiler" \
      -- "/app/$compiler/mandelbrot" 300 static
    in_root "$bundle/bin/ompscan" report "/tmp/runs-$compiler" --top 3 >"$work/report-$compiler"
    grep -q "mandelbrot.cc:" "$work/report-$compiler" ||
      fail "$compiler app: no mandelbrot region in the report: $(cat "$work/report-$compiler")"
    grep -q "\"library\": \"$bundle/lib/libomp.so.5\"" "$root/tmp/runs-$compiler"/t2-r0.json ||
      fail "$compiler app did not run on the bundle's libomp"
  done
  # ompbench --runtime-lib: the launcher's --library-path replaces LD_LIBRARY_PATH, so a worker
  # finds the other build through OMPSCALE_SHIM_PATH (a copy of the bundle's libomp stands for
  # another build: the sidecar names the library the worker found itself loaded from).
  mkdir -p "$root/opt/other-libomp"
  cp "$root$bundle/lib/libomp.so.5" "$root/opt/other-libomp/libomp.so.5"
  in_root "$bundle/bin/ompbench" --construct barrier --threads 2 --runtime llvm --reps 5 \
    --runtime-lib llvm=/opt/other-libomp/libomp.so.5 --progress never -o /tmp/other.csv
  grep -Eq '"library": ?"/opt/other-libomp/libomp.so.5"' "$root/tmp/other.csv.meta.json" ||
    fail "--runtime-lib: the llvm worker did not load /opt/other-libomp/libomp.so.5: $(grep -o '"library": *"[^"]*"' "$root/tmp/other.csv.meta.json")"
  echo "PASS: $(awk '{print $NF}' "$work/maps" | sort -u | wc -l) files mapped, all inside the bundle; both apps scanned; --runtime-lib loads its build"
}

# Appends "PID COMMAND|LINE|WORDS FILE" for every file mapped by a process whose root is ROOT, until killed.
watch_maps() {
  local root=$1 out=$2 link pid command exe
  while :; do
    # One find for all processes: a fork per process would make the sweep slower than a worker.
    for link in $(find /proc/[0-9]*/root -maxdepth 0 -lname "$root" 2>/dev/null); do
      pid=${link%/root}
      command=$(tr '\0' '|' 2>/dev/null <"$pid/cmdline") || continue
      awk -v pid="${pid#/proc/}" -v command="$command" \
        '$6 ~ /^\// {print pid, command, $6}' "$pid/maps" 2>/dev/null >>"$out" || true
      exe=$(readlink "$pid/exe" 2>/dev/null) && [ -n "$exe" ] && [ -n "$command" ] &&
        echo "${pid#/proc/} $command $exe" >>"$out"
    done
    sleep 0.01
  done
}

# Both workers ran, and every library the loader loaded into a process of the sweep (its
# "calling init: PATH" lines) lies inside the bundle.
check_loaded() {
  local root=$1 bundle=$2 records
  records=$(cat "$root"/tmp/loaded.* 2>/dev/null || true)
  [ -n "$records" ] || fail "the loader recorded nothing (LD_DEBUG_OUTPUT=/tmp/loaded)"
  grep -q "needed by $bundle/[^ ]*ompbench-worker-gnu" <<<"$records" ||
    fail "no gnu worker was loaded"
  grep -q "needed by $bundle/[^ ]*ompbench-worker-llvm" <<<"$records" ||
    fail "no llvm worker was loaded"
  local outside
  outside=$(sed -n 's/.*calling init: //p' <<<"$records" | grep -v "^$bundle/" | sort -u || true)
  [ -z "$outside" ] || fail "libraries loaded from outside the bundle:"$'\n'"$outside"
}

# Every file the watcher saw mapped lies inside the bundle.
check_maps() {
  local root=$1 bundle=$2 maps=$3
  [ -s "$maps" ] || fail "the watcher saw no process in the root"
  local outside
  outside=$(awk -v prefix="$root$bundle/" 'index($3, prefix) != 1' "$maps" | sort -u -k3,3)
  [ -z "$outside" ] || fail "files mapped from outside the bundle:"$'\n'"$outside"
}

if [ "${1:-}" = --inside ]; then
  shift
  inside "$@"
  exit 0
fi

source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
[ "$(id -u)" -eq 0 ] || skip "needs root for chroot and mounts"
unshare --mount true 2>/dev/null || skip "cannot create a mount namespace here"
for tool in patchelf chroot; do command -v "$tool" >/dev/null || fail "$tool is not installed"; done
[ -x "$build_dir/tests/apps/llvm/mandelbrot" ] || skip "the clang-built test apps are missing"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$source_dir/scripts/bundle.sh" --build-dir "$build_dir" --out "$work" --no-build
root=$work/root
mkdir -p "$root"/{proc,sys,dev,tmp,opt,app/llvm,app/gnu}
chmod 1777 "$root/tmp"
tar -xzf "$work"/ompscale-*-linux-x86_64.tar.gz -C "$root/opt"
bundle=/opt/$(basename "$root"/opt/ompscale-*)
for compiler in llvm gnu; do
  from=$build_dir/tests/apps/$compiler/mandelbrot
  [ "$compiler" = gnu ] && from=$build_dir/tests/apps/mandelbrot
  cp "$from" "$root/app/$compiler/"
  patchelf --set-interpreter "$bundle/lib/ld-linux-x86-64.so.2" "$root/app/$compiler/mandelbrot"
done
# The mounts live and die with this namespace: nothing is left mounted whatever happens.
unshare --mount --propagation private -- "$0" --inside "$root" "$bundle" "$work"
