#!/usr/bin/env bash
# Experiment 1 of the scale issue, one machine size per run: SUMMA against HSUMMA over the number
# of groups G on the Blue Gene/P-like platform (bench/platforms/bgp_like.sh), in the simulation's
# model mode (HLA_SIM=model: kernels charge their flops at the platform's 3.4 Gflop/s a core,
# matrices in SMPI's shared memory; src/kernels/sim.c).
#
#   bench/sim/summa_hsumma.sh P N B G1,G2,.. [bcast]      e.g. 256 16384 256 1,2,4,8,16,32,64,128
#
# Needs build-smpi (scripts/sim.sh, or BUILD). Writes bench/results/sim/summa_hsumma_P<P>_n<N>.txt
# (one line and one JSON line per G, then the simulator's wall time and the memory it took) and, where
# gnuplot is installed, a .png of the time and the communication time against G (bench/sim/plot.sh).
# What it costs on a 2-core machine (SimGrid 3.32): P = 1,024 at n = 16384, five values of G, about
# 4 minutes and 0.9 GiB. At P = 4,096 SimGrid's network model (its max-min solver over the torus's
# shared links: 90 % of the time) kept one SUMMA at n = 16384 from finishing in 50 minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
P=$1 n=$2 b=$3 groups=$4 bcast=${5:-native}
build=${BUILD:-build-smpi}
case $P in
  64) dims="4 4 1" ;; 256) dims="4 4 4" ;; 1024) dims="8 8 4" ;; 4096) dims="8 8 16" ;;
  16384) dims="16 16 16" ;; *) echo "summa_hsumma.sh: P = 64, 256, 1024, 4096 or 16384" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
bash bench/platforms/bgp_like.sh $dims "$tmp/bgp"
out=bench/results/sim/summa_hsumma_P${P}_n${n}${5:+_$bcast}
mkdir -p bench/results/sim
# The memory the run really takes: SMPI maps its folded shared blocks many times, which getrusage's
# peak RSS counts once per mapping; MemAvailable's lowest point during the run does not.
avail() { awk '/MemAvailable/{print $2}' /proc/meminfo; }
before=$(avail) start=$(date +%s)
(while :; do avail; sleep 1; done > "$tmp/mem") &
sampler=$!
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): bench/sim/summa_hsumma.sh $*"
  echo "# platform: bench/platforms/bgp_like.sh $dims (P/4 nodes of 4 cores, 3-D torus)"
  HLA_SIM=model HLA_PLAN=off smpirun -np "$P" -platform "$tmp/bgp.xml" -hostfile "$tmp/bgp.hosts" \
    --cfg=smpi/host-speed:3.4Gf --cfg=smpi/simulate-computation:no \
    --cfg=smpi/shared-malloc:global --cfg=smpi/shared-malloc-blocksize:67108864 \
    "$build/sim_matmul" --n "$n" --b "$b" --groups "$groups" --bcast "$bcast" 2>&1 |
    grep --line-buffered -E '^P=|^\{|rror' # a run stopped early keeps the points it finished
  kill $sampler
  echo "{\"bench\":\"sim_matmul_simulator\",\"P\":$P,\"wall_seconds\":$(( $(date +%s) - start )),\"memory_used_mib\":$(( (before - $(sort -n "$tmp/mem" | head -1)) / 1024 ))}"
} | tee "$out.txt"
if command -v gnuplot > /dev/null; then bash bench/sim/plot.sh "$out.txt"; fi
