#!/usr/bin/env bash
# Build hla and run the main demo on 2 ranks.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/env.sh"
"$here/scripts/setup.sh" "$here/build"
cd "$here/build"
echo "== inner product (BSP layer: puts and messages), 2 ranks"
mpiexec -n 2 ./inprod
echo
echo "== bspbench: r, g, l per level, 2 ranks"
mpiexec -n 2 ./bspbench
