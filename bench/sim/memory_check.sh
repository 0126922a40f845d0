#!/usr/bin/env bash
# Whether the nodes' memory is shared by their transfers (NODE_MEMORY, bench/sim/common.sh; needs
# the patched SimGrid of bench/sim/build_simgrid.sh, 3.32-memory.patch): K transfers at once
# between ranks of one node, without and with NODE_MEMORY.
#
#   [PLATFORM=fattree|star|bgp] [NODE_MEMORY=BW] bench/sim/memory_check.sh [K...]
#
# fattree and star (default fattree; NODE_MEMORY default 160GBps): two nodes of 64 cores,
# transfers of 100 MB, K = 1 8 32 by default; each alone takes about 100 MB / 20 GB/s = 5 ms (the
# loopback, SMPI's default bandwidth factors), K at once with the memory about K x 100 MB / BW
# where that is longer (32 at 160 GB/s: 20 ms). bgp (NODE_MEMORY default 6.8GBps): 16 nodes of 4
# cores, transfers of 10 MB, K = 1 2: 2.5 ms alone at 4 GB/s, 2 at once 2.9 ms at 6.8 GB/s.
# Needs a -DHLA_SMPI=ON build (BUILD, default build-smpi). Prints the times; writes nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
export PLATFORM=${PLATFORM:-fattree}
if [ "$PLATFORM" = bgp ]; then
  P=64 half=2 bytes=10000000 memory=${NODE_MEMORY:-6.8GBps} ks=(1 2)
else
  P=128 half=32 bytes=100000000 memory=${NODE_MEMORY:-160GBps} ks=(1 8 32)
fi
[ $# -eq 0 ] || ks=("$@")
for mem in "" "$memory"; do
  NODE_MEMORY=$mem sim_platform "$P" "$tmp"
  for k in "${ks[@]}"; do
    echo "$PLATFORM memory=${mem:-none} $(sim_run "$P" "$tmp" "$build/sim_copies" --pairs "$k" \
      --half "$half" --bytes "$bytes" | grep '^pairs=')"
  done
done
