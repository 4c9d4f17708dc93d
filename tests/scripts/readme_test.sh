#!/usr/bin/env bash
# Every ```sh block of README.md, run verbatim top to bottom as a new user would after
# scripts/setup.sh: from a scratch directory that stands in for the repository root (its entries
# linked, build/ the build under test), with a 120-column terminal's width (COLUMNS=120). A block
# fails when a command fails, prints a line wider than 120 columns, or writes into the repository
# (a file below one of its folders: outputs belong in the working directory). A block after
# "<!-- readme-test: skip ... -->" is not run (setup and test scripts); one after
# "<!-- readme-test: slow ... -->" only with OMPSCALE_README_SLOW=1.
# Usage: readme_test.sh REPOSITORY BUILD_DIR
set -uo pipefail
repo=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The stand-in root mirrors the repository with a link per file (cp -as): what a block writes
# (outputs, a decompressed data file) lands in the scratch directory, never in the repository.
mkdir "$work/root"
repo_dirs=()  # the repository's folders, where no block may write
for entry in "$repo"/* "$repo"/.ci; do
  name=$(basename "$entry")
  case "$name" in build | build-*) continue ;; esac
  cp -as "$entry" "$work/root/$name"
  [ -d "$entry" ] && repo_dirs+=("$name")
done
ln -s "$build" "$work/root/build"

# Blocks into block-N.sh; the marker before a block into block-N.mark.
awk -v dir="$work" '
  /^<!-- readme-test: / { mark = $3; next }
  /^```sh$/ { n++; inside = 1; file = sprintf("%s/block-%02d.sh", dir, n);
              printf "%s\n", mark > (file ".mark"); mark = ""; next }
  /^```$/ && inside { inside = 0; close(file); next }
  inside { print > file }
  /^./ && !inside && !/^```/ { if (mark != "" && !/^<!--/) mark = mark }
' "$repo/README.md"

export COLUMNS=120 OMPBENCH_CANARY_STORE=none
failed=0
ran=0
for block in "$work"/block-*.sh; do
  mark=$(cat "$block.mark")
  name=$(basename "$block" .sh)
  if [ "$mark" = skip ]; then echo "$name: skipped (marked skip)"; continue; fi
  if [ "$mark" = slow ] && [ "${OMPSCALE_README_SLOW:-0}" != 1 ]; then
    echo "$name: skipped (slow; OMPSCALE_README_SLOW=1 runs it)"
    continue
  fi
  ran=$((ran + 1))
  start=$(date +%s)
  touch "$work/$name.start"
  if ! (cd "$work/root" && bash -e -o pipefail "$block") > "$work/$name.log" 2>&1; then
    echo "$name: FAILED"
    sed 's/^/    /' "$block"
    echo "  output (last 20 lines):"
    tail -n 20 "$work/$name.log" | sed 's/^/    /'
    failed=1
    continue
  fi
  wide=$(awk 'length($0) > 120 { n++ } END { print n + 0 }' "$work/$name.log")
  if [ "$wide" != 0 ]; then
    echo "$name: $wide output line(s) wider than 120 columns:"
    awk 'length($0) > 120' "$work/$name.log" | head -n 5 | cut -c1-200 | sed 's/^/    /'
    failed=1
    continue
  fi
  # New files below the repository's folders (build/ is a link to the build under test).
  written=$(cd "$work/root" && find "${repo_dirs[@]}" -type f -cnewer "$work/$name.start")
  if [ -n "$written" ]; then
    echo "$name: wrote into the repository (write outputs to the working directory):"
    printf '%s\n' "$written" | head -n 5 | sed 's/^/    /'
    failed=1
    continue
  fi
  echo "$name: ok ($(($(date +%s) - start)) s)"
done
[ "$ran" -gt 0 ] || { echo "no block ran"; exit 1; }
exit "$failed"
