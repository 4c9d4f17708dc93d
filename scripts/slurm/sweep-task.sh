#!/usr/bin/env bash
# One task of the Slurm array (submit.sh): line SLURM_ARRAY_TASK_ID (from 0) of the matrix file
# holds the ompbench arguments of one platform, runtime and binding; the task measures them into
# RESULTS/task-ID/results.csv (with its sidecar) and fits RESULTS/task-ID/models.json.
#
#   sweep-task.sh MATRIX RESULTS BIN_DIR
#
# BIN_DIR holds ompbench and modeler (the build tree's microbench/ and modeler/ are looked up
# too). Each task gets its own canary store next to its results: the node's own typical state.
set -euo pipefail
matrix="$1" results="$2" bin="$3"
task="${SLURM_ARRAY_TASK_ID:?run me as a Slurm array task}"
tool() {
  for candidate in "$bin/$1" "$bin/../microbench/$1" "$bin/../modeler/$1"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return; fi
  done
  echo "sweep-task.sh: cannot find $1 in $bin" >&2
  exit 2
}
line="$(grep -v '^\s*#' "$matrix" | grep -v '^\s*$' | sed -n "$((task + 1))p")"
if [ -z "$line" ]; then
  echo "sweep-task.sh: $matrix has no line for task $task" >&2
  exit 2
fi
out="$results/task-$task"
mkdir -p "$out"
read -r -a args <<< "$line"
# Tasks of one array may start in the same second, on one node or on several: ompbench names each
# run uniquely without coordination (its start second and random bits); the history keeps the
# task in the run's source, RESULTS/task-ID/results.csv.
"$(tool ompbench)" "${args[@]}" --canary-store "$out/canaries.json" --progress never \
  -o "$out/results.csv"
"$(tool modeler)" fit "$out/results.csv" --format json -o "$out/models.json"
