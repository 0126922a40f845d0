#!/usr/bin/env bash
# Builds Debian 12's SimGrid 3.32 from its source package with the patches in bench/sim/simgrid/
# into PREFIX (default /opt/simgrid-3.32-hla), for simulations past a few thousand ranks:
#
#   bash bench/sim/build_simgrid.sh [PREFIX]
#   export PATH=PREFIX/bin:$PATH    # smpicc, smpirun; then a new -DHLA_SMPI=ON build folder
#
# 3.32-scale.patch removes three costs that grow faster than the ranks:
# - SimGrid 3.32 keeps every communication that MPI_Test found complete in its actor's list until
#   the actor ends. hla's multiply tests its posted broadcasts between dgemm slices, so the
#   simulator's time and memory grew faster than the steps (1,024 ranks, 128 steps: 82 s and
#   1,050 MiB; 46 s and 195 MiB patched). The patch takes such a communication off the list, as a
#   wait does.
# - The maestro's list holds every detached (small) message in flight over all ranks, and each one
#   that ends was taken out by a linear scan: quadratic in the number of ranks (16,384 ranks: 94 %
#   of the simulator's time, in the first allgathers). The patch makes the list a set.
# - An SMPI group maps actor ids to its ranks through a vector as long as the largest id in it, so
#   a group over a process column of P ranks took O(P) memory at every rank: O(P^2) in all, 1 GiB
#   for each such communicator at 16,384 ranks. The patch keeps the ids beyond 4 x the group's
#   size in a hash map.
# Nothing simulated changes: the lists only serve to cancel, suspend, resume or migrate an actor's
# activities, which no MPI program asks for, and the map gives the same ranks.
# 3.32-speed.patch takes two costs off every message: SMPI counted the messages between each pair
# of ranks in a map keyed by a string it built for every send and every matching attempt (now three
# ints), looking each rank up in its group up to six times; and the engine found an actor by its
# id in a tree (now also an array by id). The 16,384-rank sample of
# bench/results/sim/simulator_cost_2026-11-27.txt 11: 136 s against 151 s, the same simulated time.
# 3.32-memory.patch gives a node of a cluster a memory that its transfers share: a transfer
# between two ranks of one node goes over the node's loopback, a fat pipe (every transfer gets its
# whole bandwidth, however many run at once), and now also over the cluster's limiter link where
# the platform has one (limiter_link=, the node's bound, which its network traffic crosses too).
# On a fat tree SimGrid also gave every switch a limiter of that bandwidth, capping all it routes,
# with names that clash with the nodes' on small trees: the patch gives switches none. No platform
# of hla had a limiter before, so nothing simulated before changes (NODE_MEMORY in common.sh).
# 3.32-shared.patch: where a message starts inside a private part of a partly shared buffer
# (SMPI_PARTIAL_SHARED_MALLOC, the model mode's workspaces), SimGrid shifted that part's start by
# the message's offset in unsigned arithmetic, wrapped round and copied none of it. The LU's L
# panels keep their header (the pivots) private there; the scatter-allgather broadcast cuts a short
# panel, mostly header, into pieces that start inside it, so the ranks' pivots differed and the run
# ended in MPI_ERR_TRUNCATE or a deadlock (bench/sim/sim_lu.c checks for it). No other message of
# hla starts inside a private part: the standard LU's simulated times are the same to the digit.
# bench/sim/common.sh also runs the simulator on tcmalloc (libtcmalloc-minimal4, installed here).
# Needs root for apt (a deb-src entry for bookworm is added if there is none) and about 11 minutes
# of 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-/opt/simgrid-3.32-hla}
work=${WORK:-/tmp/simgrid-3.32-src}

. "$here/common.sh" # sim_deb_src
sim_deb_src
apt-get update -qq
apt-get install -y -qq cmake ninja-build g++ libboost-dev python3 libtcmalloc-minimal4 > /dev/null

mkdir -p "$work"
cd "$work"
apt-get source --download-only -qq simgrid=3.32-2
rm -rf simgrid-3.32 build
tar -xf simgrid_3.32.orig.tar.xz
for p in "$here"/simgrid/3.32-*.patch; do
  patch -d simgrid-3.32 -p1 < "$p"
done
# No LTO, Java, Python or Fortran: the SMPI library and its C wrappers are all hla uses.
cmake -G Ninja -S simgrid-3.32 -B build -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE= \
  -Denable_lto=OFF -Denable_python=OFF -Denable_java=OFF -Denable_msg=OFF -Denable_fortran=OFF \
  -Denable_documentation=OFF -Denable_smpi=ON > build.log 2>&1 &&
  ninja -C build -j "${JOBS:-$(nproc)}" install >> build.log 2>&1 ||
  { tail -20 build.log; echo "SimGrid's build failed: $work/build.log" >&2; exit 1; }
echo "SimGrid 3.32 with hla's patches in $prefix; use it with: export PATH=$prefix/bin:\$PATH"
