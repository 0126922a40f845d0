#!/usr/bin/env bash
# hla under SimGrid SMPI: installs SimGrid if smpicc is missing (Debian, as root), configures and
# builds build-smpi with -DHLA_SMPI=ON (smpicc), and runs the tests labelled smpi under smpirun on
# bench/platforms/cluster_4x4.xml (4 simulated nodes of 4 cores), in real mode: the ranks compute
# for real, time and network are simulated, one run at a time (two smpirun at once clash over
# SimGrid's temporary copies of the libraries). SMPI_TESTS (a ctest -R regex) picks a subset,
# default all. Extra arguments go to cmake.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v smpicc > /dev/null; then
  apt-get update -qq && apt-get install -y -qq libsimgrid-dev simgrid
fi
cmake -S "$here" -B "$here/build-smpi" -DHLA_SMPI=ON "$@"
cmake --build "$here/build-smpi" -j "${JOBS:-$(nproc)}"
cd "$here/build-smpi" && ctest --output-on-failure -L smpi -R "${SMPI_TESTS:-.}"
