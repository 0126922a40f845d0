#!/usr/bin/env bash
# The scale issue's probe round trip: hplan_probe (hla-plan --probe) run under smpirun in the
# model mode on a simulated platform must give the platform's own numbers back.
#
#   [PLATFORM=bgp|fattree|slowtop] bench/sim/probe_roundtrip.sh P [exact]
#
# exact: SMPI's latency and bandwidth factors set to 1, so that a message costs what the
# platform file says (the check against the file's numbers); without it SMPI's default factors
# (its model of a real MPI's protocols, which the experiments use), and the machine model is
# saved as bench/results/sim/machine_<platform>_P<P>.json for the planner's predictions
# (bench/sim/plan_check.sh). Writes bench/results/sim/probe_<platform>_P<P>[_exact].txt.
# Needs build-smpi (scripts/sim.sh, or BUILD).
set -euo pipefail
cd "$(dirname "$0")/../.."
P=$1 exact=${2:-}
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
sim_platform "$P" "$tmp"
mkdir -p "$sim_results"
name=${PLATFORM:-bgp}${NODE_MEMORY:+_mem}_P$P
args=(--probe --show --op mm --n 4096 --top 3)
if [ -n "$exact" ]; then
  export SIM_CFG="--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1" out=$sim_results/probe_${name}_exact
else
  export SIM_CFG= out=$sim_results/probe_$name
  args+=(--save --machine "$sim_results/machine_$name.json")
fi
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${PLATFORM:+PLATFORM=$PLATFORM }${NODE_MEMORY:+NODE_MEMORY=$NODE_MEMORY }bench/sim/probe_roundtrip.sh $*"
  HLA_MACHINE_FILE=none sim_run "$P" "$tmp" "$build/hla-plan" "${args[@]}"
} | tee "$out.txt"
