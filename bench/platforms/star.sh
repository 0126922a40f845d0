#!/usr/bin/env bash
# The fat tree's nodes on one switch, for SimGrid: the control for the fat tree, whose routes
# differ in length.
#
#   bench/platforms/star.sh NODES OUT_PREFIX [MEMORY]      e.g. 16 /tmp/star (1,024 cores)
#
# writes OUT_PREFIX.xml and OUT_PREFIX.hosts (node-i:64; bench/platforms/cluster.sh). Nodes, links
# and rates are fat_tree.sh's (64 cores at 35 Gflop/s, one 25 GB/s port of 0.5 us a node, 20 GB/s
# within a node), but every message between nodes takes the same two links: its source's port and
# its target's. Why: SimGrid divides a link among the messages that cross it in inverse proportion
# to their routes' latency (plus network/weight-S over each link's bandwidth: TCP's bias against
# long round trips), so on the fat tree the messages to a leaf's own nodes finish first. Here every
# message on a port gets the same share, and the ranks of a multiply stay in step
# (bench/results/sim/bcast_drift_star_2026-11-28.txt).
# MEMORY: as fat_tree.sh's.
set -euo pipefail
nodes=$1 out=$2 memory=${3:-}
if ((nodes < 2)); then
  echo "star.sh: NODES must be at least 2" >&2
  exit 2
fi
. "$(dirname "$0")/cluster.sh"
write_cluster "$out" star "$nodes" 64 \
  "Star: $nodes nodes of 64 cores on one switch (bench/platforms/star.sh)" \
  "speed=\"35Gf\" bw=\"25GBps\" lat=\"0.5us\" loopback_bw=\"20GBps\" loopback_lat=\"0.3us\"${memory:+ limiter_link=\"$memory\"}"
