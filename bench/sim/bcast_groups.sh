#!/usr/bin/env bash
# How much streaming relieves the panel broadcasts of groups of process rows: the column
# broadcasts alone (bench/sim/sim_bcast.c) inside groups of Q rows, once in lockstep (one step,
# nothing else) and then STEPS steps in hla's order (look-ahead 2: step s + 1 posted before step s
# is waited for, FLOPS flops of update a step). Q = M is SUMMA's column broadcast, consecutive rows
# HSUMMA's inner ones, rows M / Q apart (spread 1) its outer ones. The model streams `depth`
# panels' broadcasts at once (src/dist/plan/model.c: layer_mm); the ratio of the two times here is
# what streaming bought, per group shape and network.
#
#   [PLATFORM=bgp|fattree|star] bench/sim/bcast_groups.sh P MxN BYTES STEPS FLOPS Q:SPREAD...
#                                  e.g. 4096 64x64 524288 32 33554432 64:0 16:0 16:1
#
# Writes bench/results/sim/bcast_groups_P<P>[_platform].txt: a line and a JSON line a case, then
# the simulator's wall time and memory. Needs build-smpi (scripts/sim.sh, or BUILD).
set -euo pipefail
cd "$(dirname "$0")/../.."
P=$1 grid=$2 bytes=$3 steps=$4 flops=$5
shift 5
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
sim_platform "$P" "$tmp"
out=bench/results/sim/bcast_groups_P${P}${plat_suffix}${TAG:+_$TAG}.txt
mkdir -p bench/results/sim
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${PLATFORM:+PLATFORM=$PLATFORM }${SIM_CFG:+SIM_CFG=\"$SIM_CFG\" }bench/sim/bcast_groups.sh $P $grid $bytes $steps $flops $*"
  echo "# smpirun: $(command -v smpirun)"
  echo "# platform: $plat_gen ($plat_what)"
  for c in "$@"; do
    q=${c%:*} spread=${c#*:}
    for run in "1 0 0" "$steps 2 $flops"; do
      read -r s look f <<< "$run"
      sim_run "$P" "$tmp" "$build/sim_bcast" --grid "$grid" --bytes "$bytes" --steps "$s" \
        --lookahead "$look" --flops "$f" --group "$q" --spread "$spread" | grep -v '^# platform' || true
    done
  done
} | tee "$out"
