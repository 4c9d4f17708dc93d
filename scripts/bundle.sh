#!/usr/bin/env bash
# Builds the relocatable bundle ompscale-VERSION-linux-x86_64.tar.gz: the programs, the shared
# libraries they load (down to the C library) and the dynamic loader, so that it runs on an x86-64
# Linux machine with none of ompscale's dependencies and any C library version.
#
#   scripts/bundle.sh [--build-dir DIR] [--out DIR] [--no-build]
#
# Layout of the unpacked ompscale-VERSION/:
#   bin/                links to bin/ompscale-launcher, one per program: run these
#   libexec/ompscale/   the programs themselves (ompbench, both workers, modeler, ompscan, ompdash,
#                       lstopo)
#   lib/                every shared library they load, libompscan.so, the loader
#   share/ompscale/     platform descriptions, README, the licences of what is bundled
# The launcher runs ROOT/lib/ld-linux-x86-64.so.2 --library-path ROOT/lib on the program
# (bundle/launcher.cc), so nothing outside the bundle is loaded.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
out_dir=.
build=1
while (($#)); do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bundle.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

programs=(microbench/ompbench microbench/ompbench-worker-gnu microbench/ompbench-worker-llvm
          modeler/modeler regions/ompscan regions/ompscan-probe dashboard/ompdash)
libraries=(regions/libompscan.so regions/libompscan_symbolize.so)

if ((build)); then
  [ -f "$build_dir/CMakeCache.txt" ] ||
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" --target ompbench modeler ompscan ompscan_tool \
    ompscan_symbolizer ompscan_probe ompscale-launcher ompdash
fi
for f in "${programs[@]}" "${libraries[@]}" bundle/ompscale-launcher; do
  [ -f "$build_dir/$f" ] || {
    [ "$f" = microbench/ompbench-worker-llvm ] && continue
    echo "bundle.sh: $build_dir/$f is missing; build first (or drop --no-build)" >&2
    exit 2
  }
done

version=$("$build_dir/modeler/modeler" --version | awk '{print $1}')
name=ompscale-$version
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root"/{bin,lib,libexec/ompscale,share/ompscale/licenses}

# The programs; lstopo comes along so that a node's topology can be recorded where hwloc's tools
# are not installed.
for f in "${programs[@]}"; do
  [ -f "$build_dir/$f" ] && install -m 755 "$build_dir/$f" "$root/libexec/ompscale/"
done
lstopo=$(command -v lstopo-no-graphics || true)
[ -n "$lstopo" ] && install -m 755 "$lstopo" "$root/libexec/ompscale/lstopo-no-graphics"
for f in "${libraries[@]}"; do install -m 755 "$build_dir/$f" "$root/lib/"; done
install -m 755 "$build_dir/bundle/ompscale-launcher" "$root/bin/"
for program in "$root"/libexec/ompscale/*; do
  ln -s ompscale-launcher "$root/bin/$(basename "$program")"
done

# Every shared library any of them needs, under the name it is asked for (ldd's first column),
# followed through symbolic links; then the loader itself.
sources=$stage/sources  # "file path-it-came-from", for the licences
copy_library() {
  install -m 755 "$(readlink -f "$2")" "$root/lib/$1"
  echo "$1 $2" >>"$sources"
}
copy_dependencies() {
  ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
    while read -r soname path; do
      [ -e "$root/lib/$soname" ] && continue
      copy_library "$soname" "$path"
      copy_dependencies "$root/lib/$soname"
    done
}
for f in "$root"/libexec/ompscale/* "$root"/lib/*.so*; do copy_dependencies "$f"; done
copy_library ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2

# Build-tree run paths would make the programs look outside the bundle; the symbolizer, which the
# tool loads into applications, finds libdw beside it.
for f in "$root"/libexec/ompscale/* "$root"/lib/*.so*; do
  case "$(basename "$f")" in ld-linux*) continue ;; esac
  patchelf --remove-rpath "$f"
  strip --strip-unneeded "$f" 2>/dev/null || true
done
patchelf --set-rpath '$ORIGIN' "$root/lib/libompscan_symbolize.so"

cp -r platforms/descriptions "$root/share/ompscale/platforms"
cp README.md "$root/share/ompscale/"
# The licence of every Debian package a bundled file comes from. After the /usr merge dpkg knows
# a file under one of /lib and /usr/lib, not always the one the loader reports; BLAS and LAPACK
# are links through /etc/alternatives.
package_of() {
  local candidate
  local resolved
  resolved=$(readlink -f "$1")
  for candidate in "$1" "/usr$1" "${1#/usr}" "$resolved" "/usr$resolved" "${resolved#/usr}"; do
    dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1 | grep . && return
  done
  return 0
}
[ -n "$lstopo" ] && echo "lstopo-no-graphics $lstopo" >>"$sources"
while read -r file path; do
  package=$(package_of "$path")
  if [ -z "$package" ] || [ ! -f "/usr/share/doc/$package/copyright" ]; then
    echo "bundle.sh: no licence found for $file ($path)" >&2
    exit 1
  fi
  cp "/usr/share/doc/$package/copyright" "$root/share/ompscale/licenses/$package"
done <"$sources"

mkdir -p "$out_dir"
archive=$(cd "$out_dir" && pwd)/$name-linux-x86_64.tar.gz
tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$archive" "$name"
size=$(du -m "$archive" | cut -f1)
echo "bundle: $archive ($(du -h "$archive" | cut -f1) compressed, $(du -sh "$root" | cut -f1) unpacked)"
if ((size > 60)); then
  echo "bundle.sh: the bundle is larger than 60 MiB" >&2
  exit 1
fi
