#!/usr/bin/env bash
# One night of a runtime's history, for cron or CI: `scripts/nightly.sh CONFIG` runs
# `ompdash nightly --config CONFIG` from the build tree (docs/ompdash.md, "Nightly"). Exit status
# 0, 1 (regressions, when the configuration fails on them), 2 (a step failed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ompdash="${OMPDASH:-$root/build/dashboard/ompdash}"
if [ $# -ne 1 ]; then
  echo "usage: scripts/nightly.sh CONFIG" >&2
  exit 2
fi
exec "$ompdash" nightly --config "$1"
