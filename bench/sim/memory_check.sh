#!/usr/bin/env bash
# Whether the nodes' memory is shared by their transfers (NODE_MEMORY, bench/sim/common.sh; needs
# the patched SimGrid of bench/sim/build_simgrid.sh, 3.32-memory.patch): K transfers of 100 MB at
# once between ranks of one node of a two-node fat tree, without and with NODE_MEMORY.
#
#   [NODE_MEMORY=160GBps] bench/sim/memory_check.sh [K...]      (default K: 1 8 32)
#
# Each transfer alone takes about 100 MB / 20 GB/s = 5 ms (fat_tree.sh's loopback, SMPI's default
# bandwidth factors); with the memory, K at once about K x 100 MB / NODE_MEMORY where that is
# longer (32 at 160 GB/s: 20 ms). Needs a
# -DHLA_SMPI=ON build (BUILD, default build-smpi). Prints the times; writes nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
memory=${NODE_MEMORY:-160GBps} ks=("$@")
[ $# -gt 0 ] || ks=(1 8 32)
for mem in "" "$memory"; do
  NODE_MEMORY=$mem PLATFORM=fattree sim_platform 128 "$tmp"
  for k in "${ks[@]}"; do
    echo "memory=${mem:-none} $(sim_run 128 "$tmp" "$build/sim_copies" --pairs "$k" --half 32 |
      grep '^pairs=')"
  done
done
