#!/usr/bin/env bash
# How far the panel broadcasts of successive steps run ahead of one another (the scale issue's
# experiment 4, the model's streaming depth): SUMMA's broadcasts alone (bench/sim/sim_bcast.c),
# built up one ingredient at a time, on one simulated machine; or HSUMMA's inner ones.
#
#   [PLATFORM=bgp|fattree|star] bench/sim/bcast_drift.sh P MxN BYTES STEPS FLOPS [Q:SPREAD ...]
#                                       e.g. 1024 32x32 1048576 64 134217728
#
# Cases: one step of the column broadcasts (what the model's step of one panel describes,
# src/dist/plan/torus.c); STEPS steps of them (each column's chain of broadcasts free to drift
# from the others); with the row broadcasts too (which couple the columns); with FLOPS flops of
# update a step, first without look-ahead, then with the next step's broadcasts posted once a
# step's panels have come, then before waiting for them (hla's SUMMA: summa.c; its whole pattern;
# FLOPS = 2 (n/M) (n/N) b for n x n matrices and panels of b). BYTES: one rank's panel, (n/M) b 8.
# Writes bench/results/sim/bcast_drift_P<P>[_fattree].txt: a line and a JSON line a case, then the
# simulator's wall time and memory. Needs build-smpi (scripts/sim.sh, or BUILD).
#
# With Q:SPREAD arguments the columns broadcast inside groups of Q process rows instead (sim_bcast
# --group Q --spread SPREAD: consecutive rows are HSUMMA's inner broadcasts), and each group shape
# runs two cases, one step in lockstep and STEPS steps in hla's order with FLOPS: what streaming
# buys against what the model routes for `depth` panels at once (src/dist/plan/model_mm.c: layer_mm).
# Those go to bench/results/sim/bcast_groups_P<P>[_platform].txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
P=$1 grid=$2 bytes=$3 steps=$4 flops=$5
shift 5
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
sim_platform "$P" "$tmp"
name=bcast_drift
if (($#)); then name=bcast_groups; fi
out=$sim_results/${name}_P${P}${plat_suffix}${TAG:+_$TAG}.txt
mkdir -p "$sim_results"
run() { # sim_bcast's options
  sim_run "$P" "$tmp" "$build/sim_bcast" --grid "$grid" --bytes "$bytes" "$@" | grep -v '^# platform' || true
}
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${PLATFORM:+PLATFORM=$PLATFORM }${NODE_MEMORY:+NODE_MEMORY=$NODE_MEMORY }${SIM_CFG:+SIM_CFG=\"$SIM_CFG\" }${TAG:+TAG=$TAG }bench/sim/bcast_drift.sh $P $grid $bytes $steps $flops${*:+ $*}"
  echo "# smpirun: $(command -v smpirun)"
  if (($#)); then
    echo "# platform: $plat_gen ($plat_what)"
    for c in "$@"; do
      run --steps 1 --group "${c%:*}" --spread "${c#*:}"
      run --steps "$steps" --lookahead 2 --flops "$flops" --group "${c%:*}" --spread "${c#*:}"
    done
  else
    for c in "1 0 0 0" "$steps 0 0 0" "$steps 0 1 0" "$steps 0 1 $flops" "$steps 1 1 $flops" "$steps 2 1 $flops"; do
      read -r s look rows f <<< "$c"
      run --steps "$s" --lookahead "$look" --rows "$rows" --flops "$f"
    done
  fi
} | tee "$out"
