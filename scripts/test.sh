#!/usr/bin/env bash
# Build hla and run the whole test suite (every test at its process counts), then the
# AddressSanitizer + UndefinedBehaviorSanitizer build at P = 2 and 4, then a build with MPICH
# instead of Open MPI at P = 1 and 2 (one test at a time: MPICH's ranks spin while they wait, so
# two tests at once would oversubscribe the cores); and, where SimGrid is installed, the tests under
# smpirun (scripts/sim.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/env.sh"
"$here/scripts/setup.sh" "$here/build"
(cd "$here/build" && ctest --output-on-failure -j 2)
"$here/scripts/setup.sh" "$here/build-asan" -DHLA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DHLA_BUILD_BENCH=OFF
(cd "$here/build-asan" && ctest --output-on-failure -j 2 -R '\.np(2|4)$|\.nompi$')
HLA_EXTRA_PKGS="mpich libmpich-dev" "$here/scripts/setup.sh" "$here/build-mpich" \
  -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich -DHLA_BUILD_BENCH=OFF
(cd "$here/build-mpich" && ctest --output-on-failure -R '\.np(1|2)$|\.nompi$|install_check')
if command -v smpicc > /dev/null; then bash "$here/scripts/sim.sh"; fi
