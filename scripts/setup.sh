#!/usr/bin/env bash
# Install what hla needs on Debian (if missing), then configure and build.
#   scripts/setup.sh [build-dir] [extra cmake args...]     (HLA_EXTRA_PKGS: more Debian packages)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shift || true

pkgs="cmake make gcc pkg-config libopenmpi-dev openmpi-bin libopenblas-dev liblapacke-dev libcjson-dev libcunit1-dev clang libscalapack-openmpi-dev scalapack-mpi-test hpcc ${HLA_EXTRA_PKGS:-}"
missing=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "hla: installing$missing"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
