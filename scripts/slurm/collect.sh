#!/usr/bin/env bash
# The collect step after the Slurm array (submit.sh): every task's results and models go into the
# history in one `ompdash ingest` (all or nothing), the site is rendered, the regressions are
# printed (and written to RESULTS/regressions.json).
#
#   collect.sh RESULTS DB SITE BIN_DIR [LABEL]
set -euo pipefail
results="$1" db="$2" site="$3" bin="$4" label="${5:-}"
ompdash="$bin/ompdash"
[ -x "$ompdash" ] || ompdash="$bin/../dashboard/ompdash"
files=()
for task in "$results"/task-*; do
  [ -f "$task/results.csv" ] && files+=("$task/results.csv")
  [ -f "$task/models.json" ] && files+=("$task/models.json")
done
if [ ${#files[@]} -eq 0 ]; then
  echo "collect.sh: no task results under $results" >&2
  exit 2
fi
"$ompdash" ingest "${files[@]}" --db "$db" --label "$label"
"$ompdash" render --db "$db" --out "$site"
"$ompdash" regressions --db "$db" --format json -o "$results/regressions.json"
"$ompdash" regressions --db "$db"
