#!/usr/bin/env bash
# docs/architecture.md must stay true to the tree: every source file outside tests/ is named
# there with its job. A file counts as named when the document mentions its path, its name, the
# header of its pair (x.cc is covered by x.h), or a pattern such as `page_*.cc` that matches it.
# Usage: architecture_test.sh REPOSITORY
set -uo pipefail
repo=$(cd "$1" && pwd)
doc="$repo/docs/architecture.md"
[ -f "$doc" ] || { echo "architecture_test: $doc is missing"; exit 1; }
# Backticked words of the document holding a '*': the patterns.
mapfile -t patterns < <(grep -o '`[^`]*\*[^`]*`' "$doc" | tr -d '`' | sort -u)
named() {
  local path=$1 name stem
  name=$(basename "$path")
  stem=${name%.*}
  grep -qF -- "$name" "$doc" && return 0
  case "$name" in *.cc) grep -qF -- "$stem.h" "$doc" && return 0 ;; esac
  local pattern
  for pattern in "${patterns[@]}"; do
    # shellcheck disable=SC2053 # the pattern is meant to glob
    [[ $path == *$pattern || $name == $pattern ]] && return 0
  done
  return 1
}
# The tracked files (a checkout owned by another user is still read: safe.directory); outside a
# git checkout, every such file below the root but the build folders.
files=$(cd "$repo" && git -c safe.directory="$repo" ls-files -- '*.cc' '*.h' '*.sh' '*.py' '*.cmake' 2>/dev/null |
        grep -v -e '^tests/' -e '^build')
if [ -z "$files" ]; then
  files=$(cd "$repo" && find . \( -path ./tests -o -path './build*' -o -path ./.git \) -prune -o \
            -type f \( -name '*.cc' -o -name '*.h' -o -name '*.sh' -o -name '*.py' -o -name '*.cmake' \) \
            -print | sed 's|^\./||' | sort)
fi
[ -n "$files" ] || { echo "architecture_test: no source files under $repo"; exit 1; }
missing=0
checked=0
while IFS= read -r path; do
  checked=$((checked + 1))
  if ! named "$path"; then
    echo "docs/architecture.md does not name $path"
    missing=$((missing + 1))
  fi
done <<< "$files"
if [ "$missing" -gt 0 ]; then
  echo "$missing files are not named in docs/architecture.md: add each with its one job"
  exit 1
fi
echo "docs/architecture.md names every source file ($checked checked)"
