#!/usr/bin/env bash
# hla under SimGrid SMPI. Installs SimGrid if smpicc is missing (Debian, as root), configures and
# builds build-smpi with -DHLA_SMPI=ON (smpicc), then either
#
#   scripts/sim.sh [cmake args...]     runs the tests labelled smpi under smpirun on
#                                      bench/platforms/cluster_4x4.xml (4 simulated nodes of 4
#                                      cores), in real mode: the ranks compute for real, time and
#                                      network are simulated, one run at a time (two smpirun at once
#                                      clash over SimGrid's temporary copies of the libraries).
#                                      SMPI_TESTS (a ctest -R regex) picks a subset, default all;
#   scripts/sim.sh sweep [P]           builds the native build's planner too (scripts/setup.sh) and
#                                      runs the scale issue's standard sweep in the model mode at P
#                                      ranks (bench/sim/sweep.sh: 64, 256 by default, or 1024;
#                                      PLATFORM=fattree|slowtop for the trees).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v smpicc > /dev/null; then
  apt-get update -qq && apt-get install -y -qq libsimgrid-dev simgrid
fi
if [ "${1:-}" = sweep ]; then
  # the plots (gnuplot) and SimGrid's faster allocator (bench/sim/common.sh) where apt can get them
  command -v gnuplot > /dev/null || HLA_EXTRA_PKGS="gnuplot-nox ${HLA_EXTRA_PKGS:-}"
  [ -f /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 ] ||
    HLA_EXTRA_PKGS="libtcmalloc-minimal4 ${HLA_EXTRA_PKGS:-}"
  HLA_EXTRA_PKGS=${HLA_EXTRA_PKGS:-} "$here/scripts/setup.sh" "$here/build" > /dev/null
  cmake -S "$here" -B "$here/build-smpi" -DHLA_SMPI=ON > /dev/null
  cmake --build "$here/build-smpi" -j "${JOBS:-$(nproc)}" > /dev/null
  exec "$here/bench/sim/sweep.sh" "${2:-256}"
fi
cmake -S "$here" -B "$here/build-smpi" -DHLA_SMPI=ON "$@"
cmake --build "$here/build-smpi" -j "${JOBS:-$(nproc)}"
cd "$here/build-smpi" && ctest --output-on-failure -L smpi -R "${SMPI_TESTS:-.}"
