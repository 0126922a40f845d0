#!/usr/bin/env bash
# A modern cluster of multicore nodes on a two-level fat tree, for SimGrid:
#
#   bench/platforms/fat_tree.sh NODES OVERSUB OUT_PREFIX [MEMORY]   e.g. 64 1 /tmp/ft (4,096 cores)
#
# writes OUT_PREFIX.xml and OUT_PREFIX.hosts (node-i:64, so that ranks fill a node's 64 cores
# first, as `mpirun --map-by core` does; bench/platforms/cluster.sh). NODES is a power of two, at least 2. Leaf switches
# take 16 nodes each (fewer when NODES < 32, so that there are always at least 2 leaves); every
# leaf has 16/OVERSUB uplinks, one to each spine switch. OVERSUB = 1 is a full-bisection tree; OVERSUB = 4
# is the scale issue's "slow top level": 4 nodes share each uplink, so traffic that leaves a leaf
# gets a quarter of the bandwidth that traffic within a leaf gets.
# Where the numbers come from (nominal, not measured): a node of two 32-core x86 sockets at
# 2.45 GHz with two 256-bit FMA units per core, 16 flops a cycle, 39 Gflop/s peak a core, of which
# DGEMM reaches about 90 %: 35 Gflop/s; one InfiniBand HDR port a node (200 Gbit/s = 25 GB/s,
# about 1 us MPI latency, 40-port switches of 0.1 us, here counted into the links); within a node
# MPI's shared-memory path at 0.3 us and 20 GB/s a transfer (a fat pipe in SimGrid: transfers
# within a node do not share it, as the node's memory bandwidth is far above one transfer's).
# MEMORY (e.g. 160GBps; needs the patched SimGrid of bench/sim/build_simgrid.sh, 3.32-memory.patch)
# makes the node's memory a link that every transfer within the node and the node's port share
# (SimGrid's limiter link): 64 transfers at once then get far less than 20 GB/s each. 160 GB/s:
# two sockets of 8 DDR4-3200 channels, 410 GB/s peak, of which STREAM's copy reaches about 320
# GB/s counting each byte read and written; a transfer within a node is one copy (CMA), so about
# 160 GB/s of messages (bench/results/sim/node_memory_2026-11-29.txt).
set -euo pipefail
nodes=$1 oversub=$2 out=$3 memory=${4:-}
if ((nodes < 2 || (nodes & (nodes - 1)) != 0)); then
  echo "fat_tree.sh: NODES must be a power of two >= 2" >&2
  exit 2
fi
down=16
while ((down > 1 && nodes / down < 2)); do down=$((down / 2)); done
leaves=$((nodes / down))
up=$((down / oversub))
if ((up < 1 || up * oversub != down)); then
  echo "fat_tree.sh: OVERSUB must divide the $down nodes of a leaf" >&2
  exit 2
fi
. "$(dirname "$0")/cluster.sh"
write_cluster "$out" fattree "$nodes" 64 \
  "Fat-tree cluster: $nodes nodes of 64 cores, $leaves leaves of $down nodes, $up spines, oversubscription $oversub:1 (bench/platforms/fat_tree.sh)" \
  "speed=\"35Gf\" bw=\"25GBps\" lat=\"0.5us\" topology=\"FAT_TREE\" topo_parameters=\"2;$down,$leaves;1,$up;1,1\"
             loopback_bw=\"20GBps\" loopback_lat=\"0.3us\"${memory:+ limiter_link=\"$memory\"}"
