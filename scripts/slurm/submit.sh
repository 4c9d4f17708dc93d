#!/usr/bin/env bash
# Sweeps on Slurm: one array task per line of MATRIX (the ompbench arguments of one runtime and
# binding, e.g. `--runtime gnu --bind spread --threads po2`), then a collect job, run once every
# task succeeded (cancelled when one failed), that ingests all of them into DB and renders SITE.
# For several node types, submit once per partition (`-- --partition=NAME`): each task records
# its host and platform, so their histories stay apart in one database.
#
#   scripts/slurm/submit.sh MATRIX RESULTS DB SITE [LABEL] [-- SBATCH_OPTIONS...]
#
# Prints the array's and the collect job's ids. The tools are taken from OMPSCALE_BIN (default:
# the build tree next to this script). Tasks ask for every CPU of a node (--exclusive): two
# measurements on one node would measure each other.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
matrix="$1" results="$2" db="$3" site="$4"
shift 4
label=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then label="$1"; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
bin="${OMPSCALE_BIN:-$here/../../build/dashboard}"
tasks="$(grep -v '^\s*#' "$matrix" | grep -cv '^\s*$' || true)"
if [ "$tasks" -eq 0 ]; then
  echo "submit.sh: $matrix holds no configuration" >&2
  exit 2
fi
mkdir -p "$results"
results="$(cd "$results" && pwd)"
array=$(sbatch --parsable --exclusive --array="0-$((tasks - 1))" --job-name=ompbench-sweep \
  --output="$results/task-%a.log" "$@" \
  "$here/sweep-task.sh" "$(realpath "$matrix")" "$results" "$(realpath "$bin")")
collect=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name=ompdash-collect \
  --output="$results/collect.log" "$@" \
  "$here/collect.sh" "$results" "$(realpath -m "$db")" "$(realpath -m "$site")" "$(realpath "$bin")" "$label")
echo "array $array collect $collect"
