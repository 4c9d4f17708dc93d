#!/bin/bash
# ompscan on public OpenMP mini-apps nobody here wrote, at pinned commits, built with GCC and clang
# outside the project (their code is never copied into it):
#
#   LULESH   https://github.com/LLNL/LULESH            3e01c40b3281aadb7f996525cdd4a3354f6d3801
#   XSBench  https://github.com/ANL-CESAR/XSBench       ba08e5221af6106252b866e50ea123c69d31a4e2
#            (openmp-threading)
#   RSBench  https://github.com/ANL-CESAR/RSBench       34b644787ea9af4fb188e1253da72e09bbed9989
#            (openmp-threading)
#
#   bench/real_apps.sh [build|check|overhead|all] [--mirrors DIR] [--lulesh PATH] [--xsbench PATH]
#                      [--rsbench PATH] [--out DIR] [--ompscan BIN] [--rounds N] [--reps N]
#
# Sources: PATH is a checkout or a git directory (a bare mirror); --mirrors DIR looks for each as
# DIR/<owner>+<name>/repo, DIR/<name>.git or DIR/<name>. The pinned commit is exported with git
# archive (a checkout at another commit is refused). Binaries: OUT/bin/<app>-{gcc,clang}, -O3 -g
# -fopenmp (OUT defaults to build/real-apps).
#
# check: `ompscan run --threads 1,2` of every binary, then again with default sampling and
# OMPSCAN_SAMPLING=all (every execution measured) as two inputs of one experiment, interleaved
# repetition by repetition (a wrapper script sets the variable), `ompscan report --format json`,
# and these checks on each report: POP efficiencies within [0, 1]; no hint predicting more than
# its region's time; the runtime named (GCC builds: libomp through its GOMP ABI, compared with their
# own libgomp); each region's time with default sampling against every execution measured (medians
# of --reps repetitions, 3 by default), over the points sampled by default, with the points that
# both measured in full beside them: their difference is the runs' own spread. Points whose every
# repetition was time-shared (fewer CPUs free than threads) are left out.
#
# overhead: LULESH and XSBench, both builds, 2 threads: rounds of a run without the tool and one
# with it as `ompscan run` loads it (the TSC's rate measured once and passed on), order alternating; prints each round's ratio, their median,
# with its 90% bootstrap interval, and the ratio of the fastest run with the tool to the fastest
# without (target: at most 2%).
# Wall times on a shared machine move by far more than that from run to run: the rounds' spread
# is printed as the noise. The host's noise only ever adds time, so the fastest runs are the
# steadier estimate; the median of the ratios is kept beside it.
#
# XSBench and RSBench exit 1 on any non-default input (their checksums are the default input's):
# their runs use --expect-exit 1.

set -euo pipefail

LULESH_COMMIT=3e01c40b3281aadb7f996525cdd4a3354f6d3801
XSBENCH_COMMIT=ba08e5221af6106252b866e50ea123c69d31a4e2
RSBENCH_COMMIT=34b644787ea9af4fb188e1253da72e09bbed9989

root=$(cd "$(dirname "$0")/.." && pwd)
action=all
mirrors=""
declare -A source=([lulesh]="" [xsbench]="" [rsbench]="")
out="$root/build/real-apps"
ompscan="$root/build/regions/ompscan"
rounds=7
reps=3

die() {
  echo "real_apps.sh: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    build | check | overhead | all) action=$1 ;;
    --mirrors) mirrors=${2:?--mirrors needs a directory}; shift ;;
    --lulesh | --xsbench | --rsbench) source[${1#--}]=${2:?$1 needs a path}; shift ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --ompscan) ompscan=${2:?--ompscan needs a binary}; shift ;;
    --rounds) rounds=${2:?--rounds needs a count}; shift ;;
    --reps) reps=${2:?--reps needs a count}; shift ;;
    -h | --help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: expected a positive count"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "--reps $reps: expected a positive count"
command -v jq > /dev/null || die "needs jq (scripts/install-deps.sh installs it)"

# app -> "owner name commit"
declare -A origin=(
  [lulesh]="LLNL LULESH $LULESH_COMMIT"
  [xsbench]="ANL-CESAR XSBench $XSBENCH_COMMIT"
  [rsbench]="ANL-CESAR RSBench $RSBENCH_COMMIT"
)

# The source tree of one app at its pinned commit, exported into OUT/src/<app>.
export_source() {
  local app=$1 owner name commit path=${source[$1]}
  read -r owner name commit <<< "${origin[$app]}"
  if [ -z "$path" ] && [ -n "$mirrors" ]; then
    for candidate in "$mirrors/$owner+$name/repo" "$mirrors/$name.git" "$mirrors/$name"; do
      if [ -e "$candidate" ]; then path=$candidate; break; fi
    done
  fi
  [ -n "$path" ] || die "$app: no source; pass --$app PATH (a checkout or git directory of $owner/$name) or --mirrors DIR"
  local git_dir
  if git_dir=$(git -C "$path" rev-parse --git-dir 2> /dev/null); then
    git_dir=$(cd "$path" && cd "$git_dir" && pwd)
  elif git --git-dir="$path" rev-parse --git-dir > /dev/null 2>&1; then
    git_dir=$path
  else
    die "$app: $path is not a git checkout or git directory"
  fi
  git --git-dir="$git_dir" cat-file -e "$commit^{commit}" 2> /dev/null ||
    die "$app: $path does not hold commit $commit of $owner/$name"
  rm -rf "$out/src/$app"
  mkdir -p "$out/src/$app"
  git --git-dir="$git_dir" archive "$commit" | tar -x -C "$out/src/$app"
  echo "$app: $owner/$name at $commit from $path"
}

build() {
  mkdir -p "$out/bin"
  for app in lulesh xsbench rsbench; do export_source "$app"; done
  local l="$out/src/lulesh" x="$out/src/xsbench/openmp-threading" r="$out/src/rsbench/openmp-threading"
  g++ -O3 -g -fopenmp -DUSE_MPI=0 -I"$l" "$l"/lulesh*.cc -o "$out/bin/lulesh-gcc" -lm
  clang++ -O3 -g -fopenmp -DUSE_MPI=0 -I"$l" "$l"/lulesh*.cc -o "$out/bin/lulesh-clang" -lm
  for compiler in gcc clang; do
    "$compiler" -std=gnu99 -O3 -g -fopenmp "$x"/*.c -o "$out/bin/xsbench-$compiler" -lm
    "$compiler" -std=gnu99 -O3 -g -fopenmp "$r"/*.c -o "$out/bin/rsbench-$compiler" -lm
  done
  echo "built: $(cd "$out/bin" && echo *)"
}

# The command line and expected exit status of each app: inputs of about a second at one thread.
arguments() {
  case $1 in
    lulesh) echo "0 -s 30 -i 100" ;;
    xsbench) echo "1 -m event -s small -l 500000" ;;
    rsbench) echo "1 -m event -s small -l 200000" ;;
  esac
}

report_of() {  # binary mode -> report JSON path
  local bin=$1 mode=$2 dir="$out/runs/$1-$2"
  local expect args
  read -r expect args <<< "$(arguments "${bin%-*}")"
  rm -rf "$dir"
  if [ "$mode" = paired ]; then
    # The tool's sampling and every execution measured as two inputs of one experiment: ompscan
    # interleaves them repetition by repetition, so a slow phase of the machine hits both.
    local wrapper="$out/sampling-as-input.sh"
    printf '#!/bin/sh\n# OMPSCAN_SAMPLING=$1 for the application that follows\nOMPSCAN_SAMPLING=$1\nexport OMPSCAN_SAMPLING\nshift\nexec "$@"\n' > "$wrapper"
    chmod +x "$wrapper"
    "$ompscan" run --threads 1,2 --reps "$reps" --progress never --no-native-runs \
      --inputs adaptive all --expect-exit "$expect" -o "$dir" -- \
      "$wrapper" "{input}" "$out/bin/$bin" $args > /dev/null 2>&1
  else
    "$ompscan" run --threads 1,2 --reps "$reps" --progress never --expect-exit "$expect" \
      -o "$dir" -- "$out/bin/$bin" $args > /dev/null 2>&1
  fi
  "$ompscan" report "$dir" --format json -o "$dir/report.json" > /dev/null
  echo "$dir/report.json"
}

check() {
  local failures=0
  for app in lulesh xsbench rsbench; do
    for compiler in gcc clang; do
      local bin="$app-$compiler"
      [ -x "$out/bin/$bin" ] || die "$out/bin/$bin is not built (run: $0 build ...)"
      local sampled all
      sampled=$(report_of "$bin" sampled)
      paired=$(report_of "$bin" paired)
      local pop hints gomp native summary
      pop=$(jq '[.pop[] | (.parallel_regions, .whole_run)
                 | (.load_balance, .communication_efficiency, .parallel_efficiency)
                 | select(. < 0 or . > 1)] | length' "$sampled")
      hints=$(jq '[.regions[].series[] | (.points[-1].time_s) as $t
                   | .hints[]? | select(.gain_s > $t * 1.000001)] | length' "$sampled")
      gomp=$(jq '.runtime.gomp_abi' "$sampled")
      native=$(jq '.runtime.native | length' "$sampled")
      summary=$(jq -r '.runtime.summary' "$sampled")
      echo "== $bin: POP outside [0, 1]: $pop; hints above their region: $hints;" \
        "GOMP ABI: $gomp; native runs compared: $native"
      echo "   $summary" | cut -c1-200
      [ "$pop" = 0 ] && [ "$hints" = 0 ] && [[ "$summary" == Measured\ on\ libomp* ]] ||
        failures=$((failures + 1))
      if [ "$compiler" = gcc ] && { [ "$gomp" != true ] || [ "$native" = 0 ]; }; then
        failures=$((failures + 1))
      fi
      # Each region sampled by default against every execution measured, at 1 and 2 threads,
      # from one interleaved experiment (medians of the repetitions): its time, which sums every
      # execution in both (the default's is lower by what measuring each execution costs), and
      # what sampling estimates, its split: the share of its time the team spent not working
      # (the report's costs), in points of that time. The points sampled by default are the ones
      # the target is about; the points measured in full in both are the runs' own spread,
      # printed beside them. Points whose every repetition was time-shared (fewer CPUs free than
      # threads) are left out.
      local stats
      for measure in time split; do
        stats=$(jq -r --arg measure "$measure" '
          def points(input): [.regions[] | select(.kind == "parallel") | .key as $k
                              | .series[] | select(.input == input) | .points[]
                              | {key: ($k + "@" + (.threads | tostring)), time: .time_s,
                                 idle: (if .time_s > 0 then ([.cost[]?] | add // 0) / .time_s
                                        else 0 end),
                                 ratio: .sampling_ratio, shared: .time_shared}];
          def median: sort | if length == 0 then null else .[length / 2 | floor] end;
          def pct: if . == null then "-" else (. * 1000 | round / 10 | tostring) + "%" end;
          (points("all") | map({(.key): .}) | add // {}) as $full
          | [points("adaptive")[] | select($full[.key] != null and $full[.key].time > 0)
             | {sampled: (.ratio < 1), shared: (.shared or $full[.key].shared),
                d: (if $measure == "time" then (.time - $full[.key].time) / $full[.key].time
                    else .idle - $full[.key].idle end | fabs)}]
          | (map(select(.shared)) | length) as $left_out | map(select(.shared | not))
          | (map(select(.sampled)) | map(.d)) as $s | (map(select(.sampled | not)) | map(.d)) as $u
          | "\($s | length) sampled points: median \($s | median | pct), max \($s | max | pct);"
            + " \($u | length) measured in full in both: median \($u | median | pct),"
            + " max \($u | max | pct); \($left_out) left out (every repetition time-shared)"' \
          "$paired")
        if [ "$measure" = time ]; then
          echo "   time, |default - every execution| / every execution: $stats"
        else
          echo "   share not working, |default - every execution| in points: $stats"
        fi
      done
      # Within one run: the sampled estimates of the outermost regions and serial gaps, before
      # the report calibrates them, against the process time they tile.
      local coverage=""
      for file in "$(dirname "$sampled")"/t*-r0.json; do
        # Runs with the tool only (t2-r0.json), not those without it (t2-native-r0.json).
        [[ $(basename "$file") =~ ^t[0-9]+-r0\.json$ ]] || continue
        coverage+=" $(jq -r '.profile as $p | ([$p.regions[] | select(.nesting_level == 0 and
                      (.kind == "parallel" or .kind == "serial")) | .wall_ns] | add)
                      / $p.process_ns * 1000 | round / 10' "$file")%"
      done
      echo "   sampled totals over the process time (1, 2 threads):$coverage"
    done
  done
  echo "checks failed: $failures"
  [ "$failures" = 0 ]
}

# Wall seconds of one run, with or without the tool.
seconds() {
  local with=$1; shift
  local start end
  start=$(date +%s%N)
  if [ "$with" = tool ]; then
    OMP_TOOL_LIBRARIES="$tool" LD_PRELOAD="$tool" OMPSCAN_OUTPUT="$out/overhead.json" \
      OMPSCAN_LOCATIONS=raw OMPSCAN_TSC_HZ="$tsc_hz" LD_LIBRARY_PATH="$shim" "$@" > /dev/null 2>&1 || true
  else
    LD_LIBRARY_PATH="$shim" "$@" > /dev/null 2>&1 || true
  fi
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000 ))"
}

# "+a..+b": the 90% bootstrap interval, in percent above 1, of the median of the ratios on stdin
# (2000 resamples, seeded): how far the median may lie by the luck of the rounds.
median_interval() {
  awk 'function sort_median(a, n,   i, j, t) {
         for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
         return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
       }
       { v[NR] = $1 }
       END {
         srand(1)
         for (r = 1; r <= 2000; r++) {
           for (i = 1; i <= NR; i++) s[i] = v[int(rand() * NR) + 1]
           m[r] = sort_median(s, NR)
         }
         sort_median(m, 2000)
         printf "%+.1f..%+.1f", (m[100] - 1) * 100, (m[1900] - 1) * 100
       }'
}

overhead() {
  tool="$(dirname "$ompscan")/libompscan.so"
  [ -f "$tool" ] || die "no $tool next to $ompscan"
  shim="$out/gomp-shim"
  mkdir -p "$shim"
  ln -sf "$(ldconfig -p | awk '/libomp.so.5 / {print $NF; exit}')" "$shim/libgomp.so.1"
  export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores
  # ompscan run measures the TSC once per sweep and passes it to every run (OMPSCAN_TSC_HZ); a
  # first run with the tool, left out of the rounds, measures it here.
  # Only a TSC's rate: given one, the tool reads the TSC whatever it would have chosen.
  tsc_hz=""
  local expect_first args_first
  read -r expect_first args_first <<< "$(arguments lulesh)"
  [ -x "$out/bin/lulesh-clang" ] || die "$out/bin/lulesh-clang is not built (run: $0 build ...)"
  rm -f "$out/overhead.json"
  seconds tool "$out/bin/lulesh-clang" $args_first > /dev/null
  tsc_hz=$(python3 -c 'import json,sys
c = json.load(open(sys.argv[1]))["clock"]
print(c["ticks_per_second"] if c.get("source") == "tsc" else "")' "$out/overhead.json" 2>/dev/null || true)
  for bin in lulesh-gcc lulesh-clang xsbench-gcc xsbench-clang; do
    [ -x "$out/bin/$bin" ] || die "$out/bin/$bin is not built (run: $0 build ...)"
    local args expect ratios=() bases=() tooled=()
    read -r expect args <<< "$(arguments "${bin%-*}")"
    for r in $(seq 1 "$rounds"); do
      local a b
      if [ $((r % 2)) = 1 ]; then
        a=$(seconds none "$out/bin/$bin" $args); b=$(seconds tool "$out/bin/$bin" $args)
      else
        b=$(seconds tool "$out/bin/$bin" $args); a=$(seconds none "$out/bin/$bin" $args)
      fi
      bases+=("$a")
      tooled+=("$b")
      ratios+=("$(echo "scale=4; $b / $a" | bc)")
    done
    local median interval spread fastest
    median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{v[NR]=$1} END {print NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
    interval=$(printf '%s\n' "${ratios[@]}" | median_interval)
    spread=$(printf '%s\n' "${bases[@]}" | sort -n | awk '{v[NR]=$1} END {printf "%.2f", v[NR]/v[1]}')
    fastest=$(echo "scale=6; $(printf '%s\n' "${tooled[@]}" | sort -n | head -1) / $(printf '%s\n' "${bases[@]}" | sort -n | head -1)" | bc)
    printf '%-14s overhead %+.1f%% (fastest runs), %+.1f%% (median of %d rounds, 90%% interval %s%%; ratios %s); runs without the tool: %.3f-%.3f s, spread %sx\n' \
      "$bin" "$(echo "($fastest - 1) * 100" | bc -l)" "$(echo "($median - 1) * 100" | bc -l)" "$rounds" "$interval" "$(IFS=,; echo "${ratios[*]}")" \
      "$(printf '%s\n' "${bases[@]}" | sort -n | head -1 | awk '{print $1/1e6}')" \
      "$(printf '%s\n' "${bases[@]}" | sort -n | tail -1 | awk '{print $1/1e6}')" "$spread"
  done
  echo "(GCC builds run on libomp through the same shim with and without the tool: only the tool differs)"
}

case $action in
  build) build ;;
  check) check ;;
  overhead) overhead ;;
  all) build && check && overhead ;;
esac
