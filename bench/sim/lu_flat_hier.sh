#!/usr/bin/env bash
# Experiment 2 of the scale issue, one machine size per run: flat against hierarchical LU
# (hlu_factor) in the simulation's model mode (HLA_SIM=model: the kernels charge their flops at
# the platform's speed, the pivots are pseudo-random rows below the diagonal so that the rows
# still travel; src/kernels/sim.c).
#
#   [PLATFORM=bgp|fattree|slowtop] bench/sim/lu_flat_hier.sh P N NB CASES [MxN [BCAST]]
#                                                      e.g. 1024 16384 128 flat,hier,4x4
#
# CASES: flat (HLA_LU_FLAT), hier (HLA_LU_HIER, groups by node: the library's choice) and IxJ
# (HLA_LU_HIER with I x J groups); the grid is the most square M x N unless given. BCAST
# (native, flat, binomial, pipeline, scatter_allgather) fixes the LU's broadcasts (hla_opts.bcast;
# default: the library's choice); scatter_allgather needs the SimGrid of bench/sim/build_simgrid.sh
# (3.32-shared.patch; sim_lu stops with a message on another). SWAP=rows|spread fixes the row
# interchanges (hla_opts.swap).
# ORDER=C places the ranks column-major on the grid (hgrid_create_order; default row-major).
# PLATFORM (default bgp): the machine, bench/sim/common.sh. Needs build-smpi (scripts/sim.sh, or
# BUILD). Writes bench/results/sim/lu_P<P>_n<N>[_MxN][_nb<NB> where NB is not 128][_BCAST][_SWAP]
# [_orderC][_fattree|_slowtop].txt: per case a line with the simulated time, the rate and the
# phases of the slowest rank, and a JSON line; then the simulator's wall time and the memory it
# took.
set -euo pipefail
cd "$(dirname "$0")/../.."
P=$1 n=$2 nb=$3 cases=$4 grid=${5:-} bcast=${6:-}
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
sim_platform "$P" "$tmp"
out=$sim_results/lu_P${P}_n${n}${grid:+_$grid}$([ "$nb" = 128 ] || echo "_nb$nb")${bcast:+_$bcast}${SWAP:+_$SWAP}${ORDER:+_order$ORDER}${plat_suffix}
mkdir -p "$sim_results"
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${PLATFORM:+PLATFORM=$PLATFORM }${NODE_MEMORY:+NODE_MEMORY=$NODE_MEMORY }${SWAP:+SWAP=$SWAP }${ORDER:+ORDER=$ORDER }${SIM_CFG:+SIM_CFG=\"$SIM_CFG\" }bench/sim/lu_flat_hier.sh $*"
  sim_run "$P" "$tmp" "$build/sim_lu" --n "$n" --nb "$nb" --cases "$cases" ${grid:+--grid "$grid"} ${bcast:+--bcast "$bcast"} ${SWAP:+--swap "$SWAP"} ${ORDER:+--order "$ORDER"} --speed "${plat_speed}e9"
} | tee "$out.txt"
