#!/usr/bin/env bash
# Build hla and run the main demo on 2 ranks: multiply and solve Ax = b against the node's limit,
# then the BSP layer's inner product and bspbench.
#   scripts/demo.sh [n]      (n = 4096 by default)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/env.sh"
"$here/scripts/setup.sh" "$here/build"
cd "$here/build"
echo "== multiply and solve (examples/solve.c), 2 ranks"
mpiexec -n 2 --bind-to none ./solve "${1:-4096}"
echo
echo "== inner product (BSP layer: puts and messages), 2 ranks"
mpiexec -n 2 ./inprod
echo
echo "== bspbench: r, g, l per level, 2 ranks"
mpiexec -n 2 ./bspbench
