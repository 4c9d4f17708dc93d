#!/usr/bin/env bash
# The front door stays a front door: README.md has at most 200 lines and points at docs/index.md;
# docs/index.md lists every page of docs/ (each *.md and each example), and every page it links
# exists; no file of the repository refers to ../shared (a clone must be understood alone).
# Usage: docs_index_test.sh REPOSITORY
set -uo pipefail
repo=$(cd "$1" && pwd)
index=$repo/docs/index.md
[ -f "$index" ] || { echo "docs_index_test: $index is missing"; exit 1; }
failed=0
while IFS= read -r page; do
  grep -qF "]($page)" "$index" || { echo "docs/index.md does not list $page"; failed=1; }
done < <(cd "$repo/docs" && find . -type f \( -name '*.md' -o -path './examples/*' \) \
           ! -name index.md | sed 's|^\./||' | sort)
while IFS= read -r link; do
  [ -e "$repo/docs/$link" ] || { echo "docs/index.md links $link, which does not exist"; failed=1; }
done < <(grep -o '](\([^)]*\))' "$index" | sed 's/^](//; s/)$//')
grep -qF 'docs/index.md' "$repo/README.md" || { echo "README.md does not point at docs/index.md"; failed=1; }
lines=$(wc -l < "$repo/README.md")
[ "$lines" -le 200 ] || { echo "README.md has $lines lines; at most 200 (move the rest into docs/)"; failed=1; }
outside="../"shared  # spelled apart, so this file does not find itself
if git -C "$repo" -c safe.directory="$repo" rev-parse 2> /dev/null; then
  refs=$(git -C "$repo" -c safe.directory="$repo" grep -n -F "$outside" -- . ':!tests/scripts/docs_index_test.sh')
else
  refs=$(grep -rnF --exclude-dir='build*' --exclude-dir=.git "$outside" "$repo" | grep -v docs_index_test.sh)
fi
[ -z "$refs" ] || { echo "files refer to $outside:"; echo "$refs" | head -n 10; failed=1; }
[ "$failed" = 0 ] && echo "docs/index.md lists every page of docs/"
exit "$failed"
