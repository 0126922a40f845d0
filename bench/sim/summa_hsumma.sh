#!/usr/bin/env bash
# Experiment 1 of the scale issue, one machine size per run: SUMMA against HSUMMA over the number
# of groups G, in the simulation's model mode (HLA_SIM=model: kernels charge their flops at the
# platform's speed a core, matrices in SMPI's shared memory; src/kernels/sim.c).
#
#   [PLATFORM=bgp|fattree|slowtop] bench/sim/summa_hsumma.sh P N B G1,G2,.. [bcast]
#                                                         e.g. 256 16384 256 1,2,4,8,16,32,64,128
#
# A G of the form cK runs the 3D / 2.5D multiply with K layers instead (experiment 3; the results
# file then ends in _3d); one of the form IxJ runs HSUMMA on exactly I x J groups (the default
# shape for G is as square as the grid allows). TAG=word adds _word to the results file's name;
# GRID=MxN runs on that process grid instead of the square one (and adds _MxN to the name).
# NB=nb keeps the matrices in nb x nb blocks, the panels still of B (_nb<nb> in the name): a grid
# with more process columns than N / B leaves columns idle with blocks of B.
# MO=Mo gives HSUMMA outer panels of Mo (a multiple of B; default B, the source's b = M; _mo<Mo>).
# K=k runs k / B of the N / B steps (A is N x k, B k x N: the same panels; _k<k> in the name), for
# points whose whole run would take the simulator hours. Scaled by N / k such a sample overstates
# the whole run (the pipeline's fill and drain); a fit over two values of k comes closer
# (bench/results/sim/simulator_cost_2026-11-27.txt).
#
# PLATFORM (default bgp; fattree, slowtop): the machine, bench/sim/common.sh.
#
# Needs build-smpi (scripts/sim.sh, or BUILD). Writes bench/results/sim/summa_hsumma_P<P>_n<N>.txt
# (_fattree or _slowtop before .txt for those platforms): one line and one JSON line per G, then
# the simulator's wall time and the memory it took; and, where gnuplot is installed, a .png of the
# time and the communication time against G (bench/sim/plot.sh). What it costs on a 2-core
# machine (SimGrid 3.32): P = 1,024 at n = 16384, five values of G, 4-5 minutes and 0.8-0.9 GiB
# on each platform; P = 4,096 at n = 16384, 4-6 minutes and 1.5 GiB for HSUMMA with G = 16 to 256
# (43 minutes with G = 1024), while SUMMA there (flat MPI_Ibcast over 64 ranks) did not finish in
# 88 minutes: SimGrid's max-min solver over the torus's shared links takes the time; with the
# patched SimGrid of bench/sim/build_simgrid.sh and SIM_CFG=--cfg=network/crosstraffic:0 it takes
# 386 s (72 s on the fat tree; at 16,384 ranks its 16-step sample had not ended after 45 minutes).
# P = 16,384 needs the patched SimGrid: at n = 65536 with K=2048 or 4096, 3-19 minutes and 11-12
# GiB a point; the whole run (no K) of HSUMMA with 16 x 16 groups 818 s and 11 GiB (SUMMA over
# binomial broadcasts 512 s) with SIM_CFG=--cfg=network/crosstraffic:0 (over an hour by the samples
# with SimGrid's TCP acknowledgement flows; they move the simulated time on the torus by 0.3-0.5 %).
#
# SIM_CFG: further SimGrid options for smpirun (bench/sim/common.sh), named in the results' header.
set -euo pipefail
cd "$(dirname "$0")/../.."
P=$1 n=$2 b=$3 groups=$4 bcast=${5:-native}
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
sim_platform "$P" "$tmp"
three_d=
case ,$groups, in *,c[0-9]*) three_d=_3d ;; esac # cK: the 3D multiply with K layers (experiment 3)
shapes=
case $groups in *x*) shapes=1 ;; esac # IxJ: several points may share a G, so no plot over G
out=$sim_results/summa_hsumma_P${P}_n${n}${K:+_k$K}${plat_suffix}${three_d}${5:+_$bcast}${GRID:+_$GRID}${NB:+_nb$NB}${MO:+_mo$MO}${TAG:+_$TAG}
mkdir -p "$sim_results"
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${PLATFORM:+PLATFORM=$PLATFORM }${NODE_MEMORY:+NODE_MEMORY=$NODE_MEMORY }${SIM_CFG:+SIM_CFG=\"$SIM_CFG\" }${TORUS:+TORUS=\"$TORUS\" }${TAG:+TAG=$TAG }${GRID:+GRID=$GRID }${NB:+NB=$NB }${MO:+MO=$MO }${K:+K=$K }bench/sim/summa_hsumma.sh $*"
  echo "# smpirun: $(command -v smpirun)" # Debian's SimGrid or a patched one (build_simgrid.sh)
  sim_run "$P" "$tmp" "$build/sim_matmul" --n "$n" ${K:+--k "$K"} --b "$b" ${NB:+--nb "$NB"} ${MO:+--mo "$MO"} --groups "$groups" ${GRID:+--grid "$GRID"} --bcast "$bcast" --speed "${plat_speed}e9"
} | tee "$out.txt"
if [ -z "$three_d$shapes" ] && command -v gnuplot > /dev/null; then bash bench/sim/plot.sh "$out.txt"; fi
