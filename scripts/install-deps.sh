#!/usr/bin/env bash
# Installs every build and test dependency from Debian 12 packages. Idempotent, non-interactive.
set -euo pipefail
packages=(
  build-essential cmake ninja-build git pkg-config
  libeigen3-dev libceres-dev libboost-dev libboost-math-dev libfmt-dev
  libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev
  libhwloc-dev hwloc libsqlite3-dev libdw-dev libelf-dev
  clang libomp-dev libclang-rt-14-dev clang-format librsvg2-bin
  patchelf xz-utils
  zlib1g-dev tidy chromium slurm-wlm munge
  jq bc  # bench/real_apps.sh
  python3  # scripts/long_functions.py (a test checks the tree with it)
  python3-dev pybind11-dev python3-pytest python3-pandas python3-matplotlib  # the Python module
  help2man  # man pages from the tools' help
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
