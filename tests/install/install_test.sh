#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the README's first examples run with the
# installed tools only: every tool (modeler, ompbench and its workers, ompscan and its OMPT tool,
# ompdash) from P/bin on a PATH without the build tree, finding its files from the prefix
# (platform descriptions, workers, libompscan.so); the man pages; the Python module from the
# prefix; and a small C++ program that uses find_package(ompscale) and ompscale::modeler.
# Where a mount namespace can be made (root, or user namespaces), the source and build trees are
# hidden under empty directories while the examples run, so a tool that still reached into them
# fails here.
# Usage: install_test.sh REPOSITORY BUILD_DIR
set -euo pipefail
repo=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d /tmp/ompscale-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log" ||
  { cat "$work/install.log"; exit 1; }

fail() { echo "install_test: $*"; exit 1; }
for f in bin/modeler bin/ompbench bin/ompbench-worker-gnu bin/ompscan bin/ompdash \
         lib/libompscan.so lib/libompscan_symbolize.so include/ompscan.h \
         share/ompscale/platforms/rwth-bcs.json share/ompscale/examples/barrier-algorithms-intel-16t.csv \
         share/doc/ompscale/README.md share/doc/ompscale/docs/index.md \
         lib/cmake/ompscale/ompscaleConfig.cmake include/ompscale/modeler/fit.h \
         include/ompscale/common/error.h; do
  [ -e "$prefix/$f" ] || fail "cmake --install did not install $f"
done
if command -v help2man > /dev/null; then
  for tool in modeler ompbench ompscan ompdash; do
    page=$prefix/share/man/man1/$tool.1
    [ -f "$page" ] || fail "no man page $page"
  done
  grep -q 'modeler fit' "$prefix/share/man/man1/modeler.1" || fail "modeler.1 lacks modeler fit"
  grep -q -- '--threads' "$prefix/share/man/man1/ompbench.1" || fail "ompbench.1 lacks --threads"
fi
python_package=$(cd "$prefix" && find . -path '*-packages/ompscale/__init__.py' | head -n 1)

# What the examples need from outside the prefix: an OpenMP application (the test's own, built
# with clang where the build has it) and the consumer's sources.
app=$build/tests/apps/llvm/mandelbrot
[ -x "$app" ] || app=$build/tests/apps/mandelbrot
cp "$app" "$work/mandelbrot"
cp -r "$repo/tests/install/consumer" "$work/consumer"

cat > "$work/examples.sh" <<EOF
set -euo pipefail
export PATH=$prefix/bin:/usr/bin:/bin HOME=$work OMPBENCH_CANARY_STORE=none
cd $work
examples=$prefix/share/ompscale/examples
echo "--- modeler fit (and a shipped platform description)"
modeler fit \$examples/barrier-algorithms-intel-16t.csv --param threads --value value \\
  --key construct,unit --classes auto --platform rwth-bcs --predict 64 | tee fit.txt
grep -q 'SpinningDisseminationBarrier' fit.txt
echo "--- ompbench (workers from the prefix) | modeler"
ompbench --construct barrier --threads 1,2 --reps 20 -o night.csv
ompbench --construct barrier --threads 1,2 --reps 20 | modeler fit - --where metric=avg_cost
ompbench platform > platform.txt
echo "--- ompscan run and report (libompscan.so from the prefix)"
ompscan run --threads 1,2 -o runs -- ./mandelbrot 300 static
ompscan report runs --top 3 | tee report.txt
grep -q 'mandelbrot' report.txt
echo "--- ompdash"
modeler fit night.csv --format json -o night.json
ompdash ingest night.csv night.json --db history.sqlite --label night1
ompdash render --db history.sqlite --out site
[ -f site/index.html ]
echo "--- Python module from the prefix"
if [ -n "$python_package" ]; then
  PYTHONPATH=$prefix/$(dirname "$(dirname "$python_package")") python3 -c '
import ompscale
models = ompscale.fit("night.csv", where={"metric": "avg_cost"})
print(ompscale.__file__, len(models), "models")
assert ompscale.__file__.startswith("$prefix")
'
fi
echo "--- find_package(ompscale) from a C++ program"
cmake -S consumer -B consumer-build -G Ninja -DCMAKE_PREFIX_PATH=$prefix > consumer.log ||
  { cat consumer.log; exit 1; }
cmake --build consumer-build > consumer.log || { cat consumer.log; exit 1; }
consumer-build/consumer | tee consumer.txt
grep -q '^model: ' consumer.txt
EOF

# Hide the source and build trees where a mount namespace allows it.
hide="mount -t tmpfs -o size=1m ompscale-hidden '$repo' && "
case "$build/" in "$repo"/*) ;; *) hide+="mount -t tmpfs -o size=1m ompscale-hidden '$build' && " ;; esac
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2> /dev/null; then
  echo "install_test: the source and build trees are hidden while the examples run"
  unshare --mount --propagation private bash -c "$hide exec bash '$work/examples.sh'"
elif unshare --mount --map-root-user --propagation private true 2> /dev/null; then
  echo "install_test: the source and build trees are hidden while the examples run"
  unshare --mount --map-root-user --propagation private bash -c "$hide exec bash '$work/examples.sh'"
else
  echo "install_test: no mount namespace here; the examples run with the trees in place"
  bash "$work/examples.sh"
fi
echo "install_test: every tool ran from $prefix"
