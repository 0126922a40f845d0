#!/usr/bin/env bash
# A Blue Gene/P-like partition for SimGrid: bench/platforms/bgp_like.sh X Y Z OUT_PREFIX [MEMORY]
# writes OUT_PREFIX.xml (X*Y*Z nodes on a 3-D torus) and OUT_PREFIX.hosts (node-i:4, so that ranks
# fill a node's 4 cores first, as BG/P's VN mode).
# Where the numbers come from (IBM's Blue Gene/P description, IBM J. Res. Dev. 52 (2008), and the
# HSUMMA source's platform, ../shared/reference/001_hsumma_hasanov.md section 2.8): 4 PowerPC 450
# cores at 850 MHz per node, 4 flops a cycle each (a double FMA unit): 3.4 Gflop/s a core; torus
# links of 425 MB/s per direction; an MPI latency of a few microseconds, here 1.5 us per hop and
# 1.5 us through a node's memory (SimGrid adds the hops' latencies). Within a node, 4 GB/s. These
# are nominal numbers, not measurements; the collective network and its hardware broadcast are
# left out (the source's multiplies ran on sub-communicators, which BG/P's MPI does not map to it).
# MEMORY (e.g. 6.8GBps; the patched SimGrid's 3.32-memory.patch) makes the node's memory a link
# that its transfers within and its torus traffic share, as fat_tree.sh's: BG/P's node memory has
# 13.6 GB/s at peak, and its DMA engine reads and writes each byte of a message once.
set -euo pipefail
x=$1 y=$2 z=$3 out=$4 memory=${5:-}
nodes=$((x * y * z))
. "$(dirname "$0")/cluster.sh"
write_cluster "$out" bgp "$nodes" 4 \
  "Blue Gene/P-like: $nodes nodes of 4 cores, ${x}x${y}x${z} torus (bench/platforms/bgp_like.sh)" \
  "speed=\"3.4Gf\" bw=\"425MBps\" lat=\"1.5us\" topology=\"TORUS\" topo_parameters=\"$x,$y,$z\"
             loopback_bw=\"4GBps\" loopback_lat=\"1.5us\"${memory:+ limiter_link=\"$memory\"}"
