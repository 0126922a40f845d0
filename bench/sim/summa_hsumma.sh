#!/usr/bin/env bash
# Experiment 1 of the scale issue, one machine size per run: SUMMA against HSUMMA over the number
# of groups G, in the simulation's model mode (HLA_SIM=model: kernels charge their flops at the
# platform's speed a core, matrices in SMPI's shared memory; src/kernels/sim.c).
#
#   [PLATFORM=bgp|fattree|slowtop] bench/sim/summa_hsumma.sh P N B G1,G2,.. [bcast]
#                                                         e.g. 256 16384 256 1,2,4,8,16,32,64,128
#
# PLATFORM (default bgp): bgp is the Blue Gene/P-like torus (bench/platforms/bgp_like.sh, 4 cores
# of 3.4 Gflop/s a node); fattree the full-bisection fat tree of 64-core nodes at 35 Gflop/s a
# core (bench/platforms/fat_tree.sh NODES 1); slowtop the same tree with 4:1 oversubscribed
# uplinks (fat_tree.sh NODES 4).
#
# Needs build-smpi (scripts/sim.sh, or BUILD). Writes bench/results/sim/summa_hsumma_P<P>_n<N>.txt
# (bgp; _fattree or _slowtop appended for the others)
# (one line and one JSON line per G, then the simulator's wall time and the memory it took) and, where
# gnuplot is installed, a .png of the time and the communication time against G (bench/sim/plot.sh).
# What it costs on a 2-core machine (SimGrid 3.32): P = 1,024 at n = 16384, five values of G, about
# 4 minutes and 0.9 GiB. At P = 4,096 SimGrid's network model (its max-min solver over the torus's
# shared links: 90 % of the time) kept one SUMMA at n = 16384 from finishing in 50 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
P=$1 n=$2 b=$3 groups=$4 bcast=${5:-native}
build=${BUILD:-build-smpi} platform=${PLATFORM:-bgp}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $platform in
  bgp)
    case $P in
      64) dims="4 4 1" ;; 256) dims="4 4 4" ;; 1024) dims="8 8 4" ;; 4096) dims="8 8 16" ;;
      16384) dims="16 16 16" ;; *) echo "summa_hsumma.sh: P = 64, 256, 1024, 4096 or 16384" >&2; exit 2 ;;
    esac
    gen="bench/platforms/bgp_like.sh $dims" what="P/4 nodes of 4 cores, 3-D torus" speed=3.4 suffix= ;;
  fattree | slowtop)
    if ((P < 128 || P % 64 != 0)); then echo "summa_hsumma.sh: P = 64 NODES, NODES >= 2" >&2; exit 2; fi
    over=1 what="P/64 nodes of 64 cores, full-bisection fat tree"
    if [ "$platform" = slowtop ]; then over=4 what="P/64 nodes of 64 cores, fat tree with 4:1 uplinks"; fi
    gen="bench/platforms/fat_tree.sh $((P / 64)) $over" speed=35 suffix=_$platform ;;
  *) echo "summa_hsumma.sh: PLATFORM = bgp, fattree or slowtop" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
bash $gen "$tmp/plat"
out=bench/results/sim/summa_hsumma_P${P}_n${n}${suffix}${5:+_$bcast}
mkdir -p bench/results/sim
# The memory the run really takes: SMPI maps its folded shared blocks many times, which getrusage's
# peak RSS counts once per mapping; MemAvailable's lowest point during the run does not.
avail() { awk '/MemAvailable/{print $2}' /proc/meminfo; }
before=$(avail) start=$(date +%s)
(while :; do avail; sleep 1; done > "$tmp/mem") &
sampler=$!
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): bench/sim/summa_hsumma.sh $*"
  echo "# platform: $gen ($what)"
  HLA_SIM=model HLA_PLAN=off smpirun -np "$P" -platform "$tmp/plat.xml" -hostfile "$tmp/plat.hosts" \
    --cfg=smpi/host-speed:${speed}Gf --cfg=smpi/simulate-computation:no \
    --cfg=smpi/shared-malloc:global --cfg=smpi/shared-malloc-blocksize:67108864 \
    "$build/sim_matmul" --n "$n" --b "$b" --groups "$groups" --bcast "$bcast" --speed "${speed}e9" 2>&1 |
    grep --line-buffered -E '^P=|^\{|rror' # a run stopped early keeps the points it finished
  kill $sampler
  echo "{\"bench\":\"sim_matmul_simulator\",\"P\":$P,\"wall_seconds\":$(( $(date +%s) - start )),\"memory_used_mib\":$(( (before - $(sort -n "$tmp/mem" | head -1)) / 1024 ))}"
} | tee "$out.txt"
if command -v gnuplot > /dev/null; then bash bench/sim/plot.sh "$out.txt"; fi
