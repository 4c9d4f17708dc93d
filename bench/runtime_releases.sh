#!/usr/bin/env bash
# Real runtime releases side by side: Debian 12's libomp 13, 14, 15 and 16 (packages libomp5-NN,
# unpacked, never installed) measured as a history of nights in release order, with the installed
# libgomp measured every night beside them (a runtime that does not change: what it reports is the
# machine). Every night is an `ompdash nightly` (ompbench, modeler fit, ingest, the night's
# regressions A/B'd against the previous night's build); after the first night of each release the
# whole suite is A/B'd against the previous release (`ompdash confirm`), so every difference this
# reports was measured round by round, both releases in one run. The site is rendered.
#
#   bench/runtime_releases.sh fetch LIBS          # online: apt-get download + dpkg-deb -x into LIBS
#   bench/runtime_releases.sh run LIBS OUT [--threads 1,2] [--sequence "13:3 14:3 15:3 16:3"]
#                                  [--suites sync] [--reps 100] [--rounds 10] [--release-rounds 20]
#                                  [--ab-reps 20] [--bin DIR]
#   bench/runtime_releases.sh scenario LIBS OUT [--threads 1,2] [--bin DIR]
#   bench/runtime_releases.sh pack LIBS ARCHIVE   # the bundle, LIBS and this script, for a machine
#                                                 # without network
#
# run: OUT/history.sqlite, OUT/site/, OUT/nights/ (each night's files and kept build),
# OUT/summary.md (per release: each kernel the A/B measured slower or faster, by how much, its
# interval; then the nights' findings and whether their A/B confirmed them). --rounds: round pairs
# of a night's A/B (its few flagged kernels); --release-rounds: of a release's (every kernel of the
# suites, so a stricter Bonferroni share each). --sequence lists
# RELEASE:NIGHTS in order; --suites takes ompbench's suites (sync, sched, task). --bin names the
# directory of ompdash, ompbench and modeler (default: the build tree next to this script, else
# the bundle's bin/ next to it).
#
# scenario: six nights of libomp 14, then one of libomp 16, failing on regressions: the night must
# end without a regression its A/B did not confirm (exit status 0 unless one is confirmed).
#
# On a machine without network, from this repository's build machine:
#   bench/runtime_releases.sh fetch /tmp/libomp-releases
#   bench/runtime_releases.sh pack /tmp/libomp-releases /tmp/releases.tar.gz
# then on the other machine:
#   tar xzf releases.tar.gz && cd ompscale-releases &&
#   ./runtime_releases.sh run libs out --threads 1,2,4,8,16
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
releases=(13 14 15 16)

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
fail() { echo "runtime_releases.sh: $*" >&2; exit 2; }

# The libomp.so.5 of release $2 under LIBS $1.
library() {
  local lib
  for lib in "$1/libomp5-$2/usr/lib/llvm-$2/lib/libomp.so.5" "$1/libomp5-$2/libomp.so.5"; do
    [ -e "$lib" ] && { readlink -f "$lib"; return; }
  done
  fail "no libomp $2 in $1 (run: $0 fetch $1)"
}

fetch() {
  local libs=$1 version
  mkdir -p "$libs/debs"
  for version in "${releases[@]}"; do
    (cd "$libs/debs" && apt-get download "libomp5-$version")
    rm -rf "$libs/libomp5-$version"
    dpkg-deb -x "$libs"/debs/libomp5-"$version"_*.deb "$libs/libomp5-$version"
    echo "libomp $version: $(library "$libs" "$version")"
  done
}

# Where ompdash, ompbench and modeler are.
find_bin() {
  local candidate
  for candidate in "$here/../build/dashboard" "$here/bundle/bin"; do
    if [ -x "$candidate/ompdash" ]; then echo "$candidate"; return; fi
  done
  fail "no ompdash built (ninja -C build ompdash ompbench modeler) and no bundle next to this script"
}

tool_paths() {
  local bin=$1 name
  for name in ompbench modeler; do
    for candidate in "$bin/$name" "$bin/../microbench/$name" "$bin/../modeler/$name"; do
      if [ -x "$candidate" ]; then printf '"%s": "%s", ' "$name" "$(realpath -s "$candidate")"; break; fi
    done
  done
}

# The nightly configuration of release $2 (libomp from LIBS $3) in OUT $1.
night_config() {
  local out=$1 version=$2 libs=$3
  cat > "$out/night-$version.json" <<JSON
{"db": "history.sqlite", "site": "site", "work": "nights", "label": "libomp $version",
 "ompbench": {"args": [$(args_json)],
              "runtime_lib": ["llvm=$(library "$libs" "$version")"]},
 "regressions": {"fail_on_regression": true},
 "confirm": {"rounds": $rounds, "reps": $ab_reps},
 "tools": {$(tool_paths "$bin") "ompdash": "$bin/ompdash"}}
JSON
  echo "$out/night-$version.json"
}

args_json() {
  local suite
  printf '"--threads", "%s", "--reps", "%s", "--canary-store", "canaries.json"' "$threads" "$reps"
  for suite in ${suites//,/ }; do printf ', "--suite", "%s"' "$suite"; done
}

newest_night() { find "$1/nights" -mindepth 1 -maxdepth 1 -type d | sort | tail -1; }

# Every construct of the suites (`ompbench list`: "SUITE suite:" headings, then one construct a
# line), for the release A/B.
constructs() {
  "$(ompbench_bin)" list | awk -v suites=",$suites," '
    /^[a-z]+ suite:/ { keep = index(suites, "," $1 ",") > 0; next }
    keep && NF > 0 { print $1 }' | paste -sd, -
}

ompbench_bin() {
  local candidate
  for candidate in "$bin/ompbench" "$bin/../microbench/ompbench"; do
    [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  fail "no ompbench next to $bin"
}

# One night of release $2; its exit status (0, or 1: a regression failed it).
night() {
  local out=$1 version=$2 status=0
  echo "== night of libomp $version ($(date -u +%H:%M:%S))"
  (cd "$out" && "$bin/ompdash" nightly --config "$(night_config "$out" "$version" "$libs")") \
    > "$out/last-night.txt" 2>&1 || status=$?
  tail -3 "$out/last-night.txt"
  [ "$status" -le 1 ] || { cat "$out/last-night.txt" >&2; fail "the night failed"; }
  return "$status"
}

# The whole suite A/B'd: the previous release's kept build against this one's.
release_ab() {
  local out=$1 from=$2 to=$3 old_build=$4 new_build=$5
  echo "== A/B libomp $from -> $to ($(date -u +%H:%M:%S))"
  "$bin/ompdash" confirm --db "$out/history.sqlite" --old-build "$old_build" \
    --new-build "$new_build" --construct "$(constructs)" --runtime libomp --rounds "$release_rounds" \
    --reps "$ab_reps" --label "libomp $from -> $to" \
    "--ompbench-arg=--canary-store" "--ompbench-arg=$out/canaries.json" \
    > "$out/ab-$from-$to.txt" 2>&1 || { cat "$out/ab-$from-$to.txt" >&2; fail "the A/B failed"; }
  grep -E "slower|faster" "$out/ab-$from-$to.txt" || echo "  (no kernel slower or faster)"
}

summarise() {
  local out=$1
  "$bin/ompdash" list --db "$out/history.sqlite" --what ab --format json > "$out/ab.json"
  "$bin/ompdash" regressions --db "$out/history.sqlite" --since "$first_date" --format json \
    -o "$out/findings.json"
  python3 - "$out" "$threads" <<'PY' > "$out/summary.md"
import json, sys
out, threads = sys.argv[1], sys.argv[2]
ab = json.load(open(f"{out}/ab.json"))["ab"]
findings = json.load(open(f"{out}/findings.json"))["findings"]
pct = lambda v: "n/a" if v is None else f"{100 * v:+.1f}%"
num = lambda v: "n/a" if v is None else f"{v:.4g}"
print(f"# libomp releases on this machine (threads {threads})\n")
print("## Release to release: every kernel the A/B measured slower or faster\n")
labels = []
for a in ab:
    if a["label"] and a["label"] not in labels and "->" in a["label"]: labels.append(a["label"])
for label in labels:
    rows = [a for a in ab if a["label"] == label]
    changed = [a for a in rows if a["verdict"] in ("slower", "faster")]
    print(f"### {label}: {len(changed)} of {len(rows)} kernel x thread counts changed\n")
    if changed:
        print("| construct | threads | old median | new median | change | interval | pairs |")
        print("|---|---:|---:|---:|---:|---|---:|")
        for a in sorted(changed, key=lambda a: (a["construct"], a["threads"])):
            print(f"| {a['construct']} ({a['verdict']}) | {a['threads']} | {num(a['old_median'])} | "
                  f"{num(a['new_median'])} | {pct(a['change'])} | [{pct(a['low'])}, {pct(a['high'])}] | "
                  f"{a['pairs']} |")
    print()
print("## The nights' findings and their A/B\n")
print("| night | finding | construct | runtime | threads | change | A/B |")
print("|---|---|---|---|---:|---:|---|")
for f in findings:
    if f["kind"] in ("unusual phase", "faster state"): continue
    c = f["confirmation"]
    verdict = "not measured again" if c is None else (
        f"{'confirmed' if c['confirmed'] else 'not confirmed'}: {pct(c['change'])} "
        f"[{pct(c['low'])}, {pct(c['high'])}]")
    print(f"| {f['label']} | {f['kind']} | {f['construct']} | {f['runtime']} | {f['threads']} | "
          f"{pct(f['change'])} | {verdict} |")
PY
  echo "== summary: $out/summary.md"
  cat "$out/summary.md"
}

run_sequence() {
  local out=$1 sequence=$2 item version nights n previous="" previous_build="" status=0
  mkdir -p "$out"
  out="$(cd "$out" && pwd)"
  first_date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for item in $sequence; do
    version=${item%%:*} nights=${item##*:}
    for ((n = 0; n < nights; n++)); do
      night "$out" "$version" || status=$?
      if [ "$n" -eq 0 ] && [ -n "$previous" ] && [ "$mode" = run ]; then
        release_ab "$out" "$previous" "$version" "$previous_build" "$(newest_night "$out")/build.json"
      fi
    done
    previous=$version
    previous_build="$(newest_night "$out")/build.json"
  done
  summarise "$out"
  return "$status"
}

[ $# -ge 1 ] || { usage; exit 2; }
mode=$1
shift
case "$mode" in
  -h | --help) usage; exit 0 ;;
  fetch) [ $# -eq 1 ] || fail "usage: fetch LIBS"; fetch "$1"; exit 0 ;;
  pack)
    [ $# -eq 2 ] || fail "usage: pack LIBS ARCHIVE"
    libs="$(cd "$1" && pwd)" archive="$(realpath -m "$2")"
    stage="$(mktemp -d)"
    trap 'rm -rf "$stage"' EXIT
    "$here/../scripts/bundle.sh" --out "$stage" >&2
    mkdir -p "$stage/ompscale-releases/libs"
    tar -C "$stage/ompscale-releases" -xzf "$stage"/ompscale-*-linux-x86_64.tar.gz
    mv "$stage/ompscale-releases"/ompscale-*/ "$stage/ompscale-releases/bundle"
    for version in "${releases[@]}"; do
      mkdir -p "$stage/ompscale-releases/libs/libomp5-$version"
      cp "$(library "$libs" "$version")" "$stage/ompscale-releases/libs/libomp5-$version/libomp.so.5"
    done
    cp "$0" "$stage/ompscale-releases/runtime_releases.sh"
    tar -C "$stage" --owner=0 --group=0 -czf "$archive" ompscale-releases
    echo "runtime_releases.sh: $archive ($(du -h "$archive" | cut -f1))"
    exit 0 ;;
  run | scenario) ;;
  *) fail "unknown mode '$mode' (fetch, run, scenario, pack; see --help)" ;;
esac

[ $# -ge 2 ] || fail "usage: $mode LIBS OUT [options]"
libs="$(cd "$1" && pwd)" out_dir=$2
shift 2
threads=1,2 sequence="13:3 14:3 15:3 16:3" suites=sync reps=100 rounds=10 release_rounds=20 ab_reps=20
bin=""
[ "$mode" = scenario ] && sequence="14:6 16:1"
while (($#)); do
  case "$1" in
    --threads) threads=$2 ;;
    --sequence) sequence=$2 ;;
    --suites) suites=$2 ;;
    --reps) reps=$2 ;;
    --rounds) rounds=$2 ;;
    --release-rounds) release_rounds=$2 ;;
    --ab-reps) ab_reps=$2 ;;
    --bin) bin=$2 ;;
    *) fail "unknown option '$1' (see --help)" ;;
  esac
  shift 2
done
[ -n "$bin" ] || bin="$(find_bin)"
bin="$(cd "$bin" && pwd)"
status=0
run_sequence "$out_dir" "$sequence" || status=$?
if [ "$mode" = scenario ]; then
  echo "scenario: the libomp 16 night exited $status (0: no regression failed it; 1: one its A/B confirmed)"
fi
exit "$status"
