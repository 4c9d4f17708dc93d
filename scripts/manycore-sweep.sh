#!/usr/bin/env bash
# One command that measures a many-core machine with nothing of ours installed, from the bundle
# (scripts/bundle.sh): the machine's facts and topology, the sync suite swept over every thread
# count with both methods, both bindings and both runtimes, and the models, all in one folder.
#
#   scripts/manycore-sweep.sh --bundle ompscale-VERSION-linux-x86_64.tar.gz|DIR [--out DIR]
#       [--budget SECONDS] [--reps N] [--batch N] [--epcc-test-time US] [--threads SPEC]
#       [--max-threads N] [--suite NAME] [--bind LIST] [--data-budget SECONDS]
#
# --budget bounds the sweep's wall time (default 360 s): at the deadline ompbench is interrupted,
# keeps every finished batch (its rounds interleave all configurations, so each has some values),
# and the models are made of what was measured. The thread counts stop at the CPUs this process
# may use (affinity and cgroup quota), so a container's share of a larger machine is not
# oversubscribed. Then the data suite (data-environment constructs over thread counts and array
# sizes, close binding: what two-parameter models need) for at most --data-budget seconds
# (default 120; 0 skips it). Every step's status and duration are in OUT/steps.txt; a failing
# step does not stop the others.
set -uo pipefail

bundle=""
out=""
budget=360
reps=50
batch=10
epcc_test_time=300
threads=all
max_threads=""
suite=sync
bind=spread,close
data_budget=120
while (($#)); do
  case "$1" in
    --bundle) bundle=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --epcc-test-time) epcc_test_time=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --max-threads) max_threads=$2; shift 2 ;;
    --suite) suite=$2; shift 2 ;;
    --bind) bind=$2; shift 2 ;;
    --data-budget) data_budget=$2; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "manycore-sweep.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$bundle" ] || { echo "manycore-sweep.sh: --bundle is required (see --help)" >&2; exit 2; }
[ -e "$bundle" ] || { echo "manycore-sweep.sh: --bundle $bundle: no such file" >&2; exit 2; }
[ -n "$out" ] || out=manycore-$(hostname 2>/dev/null || echo host)-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

# The bundle: a directory, or a tarball unpacked next to the results.
if [ -f "$bundle" ]; then
  mkdir -p "$out/.bundle" && tar -xzf "$bundle" -C "$out/.bundle" || exit 2
  bundle=$(echo "$out"/.bundle/ompscale-*)
fi
bin=$(cd "$bundle/bin" && pwd) || { echo "manycore-sweep.sh: no bin/ in $bundle" >&2; exit 2; }

# step NAME COMMAND...: runs it with stdout into OUT/NAME (when NAME has an extension), records
# status and seconds in steps.txt.
step() {
  local name=$1 started status
  shift
  started=$(date +%s%N)
  if [[ $name == *.* ]]; then "$@" >"$out/$name" 2>>"$out/steps.log"; else "$@" 2>>"$out/steps.log"; fi
  status=$?
  local tenths=$((($(date +%s%N) - started) / 100000000))
  printf '%-34s exit %-3s %6d.%d s\n' "$name" "$status" $((tenths / 10)) $((tenths % 10)) \
    >>"$out/steps.txt"
  return 0
}

# with_deadline SECONDS COMMAND...: SIGINT at the deadline (what Ctrl-C does), SIGKILL 60 s later.
# Plain bash, as the machine may lack coreutils' timeout.
with_deadline() {
  local seconds=$1 waited=0
  shift
  "$@" &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null && ((waited < seconds * 10)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "manycore-sweep.sh: budget of $seconds s reached, interrupting" >&2
    kill -INT "$pid"
    for ((waited = 0; waited < 600; waited++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid"
}

# The CPUs this process may use: its affinity, capped by a cgroup v2 or v1 CPU quota.
usable_cpus() {
  local cpus quota period
  cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
  if [ -r /sys/fs/cgroup/cpu.max ]; then
    read -r quota period </sys/fs/cgroup/cpu.max
  elif [ -r /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    quota=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us)
    period=$(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)
  fi
  if [[ ${quota:-max} =~ ^[0-9]+$ ]] && ((quota > 0 && period > 0)); then
    local limit=$(((quota + period - 1) / period))
    ((limit < cpus)) && cpus=$limit
  fi
  echo "$cpus"
}

machine_facts() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -a)"
  [ -r /etc/os-release ] && grep -E '^(PRETTY_NAME|VERSION_ID)=' /etc/os-release
  echo "nproc: $(nproc 2>/dev/null)"
  grep -E '^(Cpus_allowed_list|Mems_allowed_list):' /proc/self/status
  for f in /sys/fs/cgroup/cpu.max /sys/fs/cgroup/cpuset.cpus.effective \
    /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpuset/cpuset.cpus; do
    [ -r "$f" ] && echo "$f: $(cat "$f")"
  done
  echo "usable CPUs: $(usable_cpus)"
  echo "loadavg: $(cat /proc/loadavg)"
  grep -E '^(MemTotal|MemAvailable):' /proc/meminfo
  echo
  if command -v lscpu >/dev/null; then lscpu; else grep -m1 -E 'model name' /proc/cpuinfo; fi
}

: >"$out/steps.txt"
[ -n "$max_threads" ] || max_threads=$(usable_cpus)
step machine.txt machine_facts
step topology.txt "$bin/lstopo-no-graphics" --no-io
step topology.xml "$bin/lstopo-no-graphics" --no-io --of xml
step platform.txt "$bin/ompbench" platform --max-threads "$max_threads"

# The sweep, interrupted (SIGINT: finished batches kept, exit 130) at the budget.
step sweep with_deadline "$budget" \
  "$bin/ompbench" --suite "$suite" --method both --threads "$threads" --max-threads "$max_threads" \
  --bind "$bind" --runtime both --reps "$reps" --batch "$batch" \
  --epcc-test-time "$epcc_test_time" --canary-store "$out/canaries.json" --progress never \
  -o "$out/sweep.csv"
step summary.txt "$bin/ompbench" summary "$out/sweep.csv"
if ((data_budget > 0)); then
  step data-sweep with_deadline "$data_budget" \
    "$bin/ompbench" --suite data --method both --threads "$threads" --max-threads "$max_threads" \
    --bind close --runtime both --reps "$reps" --batch "$batch" \
    --epcc-test-time "$epcc_test_time" --canary-store "$out/canaries.json" --progress never \
    -o "$out/data-sweep.csv"
fi

# Models: every kernel with thread-count classes tried; the per-construct cost that the
# direct method measures (avg_cost) and EPCC's overhead drawn.
fit=("$bin/modeler" fit "$out/sweep.csv" --classes auto --predict 32,64,128)
step models.txt "${fit[@]}"
step models.json "${fit[@]}" --format json
step models-avg_cost-budget-10us.txt "${fit[@]}" --where metric=avg_cost --budget 10us
step plot-avg_cost.svg "$bin/modeler" plot "$out/sweep.csv" --where metric=avg_cost --log-y
step plot-epcc.svg "$bin/modeler" plot "$out/sweep.csv" --where metric=overhead --log-y
if [ -s "$out/data-sweep.csv" ]; then
  step data-models.txt "$bin/modeler" fit "$out/data-sweep.csv" --classes auto --predict 32,64
fi

rm -rf "$out/.bundle"
cat "$out/steps.txt"
