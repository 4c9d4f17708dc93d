#!/usr/bin/env bash
# The Slurm integration test: starts a single-node Slurm on this machine (Debian's slurm-wlm and
# munge, as root, with its own key, socket, ports, spool and state under a temporary directory),
# submits scripts/slurm/submit.sh's array job (eight tasks sharing the node) and its collect step,
# waits, checks the history they ingested, and stops every daemon it started, also on failure.
#
#   tests/slurm/slurm_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir="$(cd "$1" && pwd)" build_dir="$(cd "$2" && pwd)"
fail() { echo "slurm_test: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "must run as root (it starts munged, slurmctld and slurmd)"
for tool in munged mungekey slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/install-deps.sh installs slurm-wlm and munge)"
done

work="$(mktemp -d /tmp/ompscale-slurm.XXXXXX)"
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "${keep:-0}" = 1 ]; then echo "slurm_test: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
keep="${OMPSCALE_SLURM_KEEP:-0}"

# munge with its own key and socket.
mkdir -p "$work/munge" && chmod 700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --seed-file="$work/munge/munged.seed"
for _ in $(seq 50); do [ -s "$work/munge/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/munge/munged.pid")")

# Slurm: this host as controller and only node, ports away from a system Slurm's.
node="$(hostname -s)"
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=ompscale-test
SlurmctldHost=$node
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
SlurmdParameters=config_overrides
NodeName=$node CPUs=8 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -f "$SLURM_CONF" > "$work/slurmctld.out" 2>&1 &
pids+=("$!")
slurmd -D -f "$SLURM_CONF" -N "$node" > "$work/slurmd.out" 2>&1 &
pids+=("$!")
ready=0
for _ in $(seq 120); do
  if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then ready=1; break; fi
  sleep 0.5
done
if [ "$ready" != 1 ]; then
  tail -5 "$work/slurmctld.log" "$work/slurmd.log" >&2 || true
  fail "the single-node Slurm did not come up"
fi

# The array job: eight tasks, four per runtime, on this one node and allowed to share it
# (--oversubscribe after submit.sh's --exclusive; the node declares 8 CPUs whatever it has,
# config_overrides): the tasks start together, in the same second, as an array's tasks that land
# on one node do; then the collect step.
cat > "$work/matrix" <<'MATRIX'
# ompbench arguments, one configuration per line
--construct barrier,single --threads 1,2 --reps 20 --runtime gnu --bind spread
--construct barrier,single --threads 1,2 --reps 20 --runtime llvm --bind spread
--construct barrier --threads 1,2 --reps 10 --runtime gnu --bind close
--construct barrier --threads 1,2 --reps 10 --runtime llvm --bind close
--construct single --threads 1,2 --reps 10 --runtime gnu --bind spread
--construct single --threads 1,2 --reps 10 --runtime llvm --bind spread
--construct critical --threads 1,2 --reps 10 --runtime gnu --bind spread
--construct critical --threads 1,2 --reps 10 --runtime llvm --bind spread
MATRIX
ids="$(OMPSCALE_BIN="$build_dir/dashboard" "$source_dir/scripts/slurm/submit.sh" "$work/matrix" \
  "$work/results" "$work/history.sqlite" "$work/site" "slurm-test" -- --oversubscribe)"
echo "slurm_test: submitted $ids"
for _ in $(seq 600); do
  [ -z "$(squeue -h -o '%i' 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -o '%i')" ] || { squeue >&2; fail "jobs still queued after 300 s"; }

# The history holds both tasks' runs and models, ingested by the collect step.
[ -f "$work/results/collect.log" ] || fail "the collect step did not run (see $work/results/task-*.log)"
list="$("$build_dir/dashboard/ompdash" list --db "$work/history.sqlite")" \
  || { cat "$work/results/collect.log" >&2; fail "no history"; }
check() { grep -qE -e "$1" <<< "$list" || { echo "$list" >&2; fail "$2"; }; }
check "^Runs \(8\)" "the history does not hold the 8 runs of the array"
check "^Model sets \(8\)" "the 8 tasks' models are missing"
check "construct=barrier .*runtime=libomp" "the barrier kernels are missing"
check "construct=critical .*runtime=libgomp" "the critical kernels are missing"
json="$("$build_dir/dashboard/ompdash" list --db "$work/history.sqlite" --what runs --format json)"
for task in 0 1 2 3 4 5 6 7; do
  grep -q "task-$task/results.csv" <<< "$json" || { echo "$json" >&2; fail "task $task is missing"; }
done
[ "$(grep -o '"run_id": "[^"]*"' <<< "$json" | sort -u | wc -l)" -eq 8 ] || fail "run ids are not distinct"
starts="$(cat "$work"/results/task-*/results.csv.meta.json | grep -o '"started": "[^"]*"' | sort | uniq -c | sort -rn | head -1)"
echo "slurm_test: most tasks started in one second: $starts"
[ "$(grep -c " slurm-test " <<< "$list")" -eq 16 ] || fail "runs and models are not labelled"
[ -f "$work/site/index.html" ] || fail "no site"
[ -f "$work/results/regressions.json" ] || fail "no regressions report"
echo "slurm_test: 8 array tasks and the collect step ran; the history holds every run"
