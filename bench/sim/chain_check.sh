#!/usr/bin/env bash
# The model's pipelined broadcast (the LU's U blocks down its process columns) against the
# simulated one, alone (bench/sim/sim_chain.c): one column, a node's columns, every column at once.
#
#   [PLATFORM=bgp|fattree] bench/sim/chain_check.sh MACHINE P MxN BYTES COLS...
#     e.g. bench/sim/chain_check.sh bench/results/sim/machine_bgp_P64_tests_torus.json 1024 32x32 131072 1 4 32
#
# MACHINE is the machine file the model reads (the probe's on the same platform, with its network:
# bench/sim/add_torus.py); it is given the platform's torus (bgp) or leaves (fattree: of 16 nodes,
# halved until there are two, as bench/sim/plan_args.py) for P ranks. Appends one line and one JSON
# line a COLS value to bench/results/sim/chain_check[_fattree].txt, then the simulator's wall time
# and memory. Needs build-smpi (scripts/sim.sh, or BUILD).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 5 ] || { sed -n '2,13p' "$0"; exit 2; }
machine=$1 P=$2 grid=$3 bytes=$4
shift 4
build=${BUILD:-build-smpi}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
sim_platform "$P" "$tmp" > /dev/null
net=()
case ${PLATFORM:-bgp} in
  bgp) net=(--torus "$(echo "$plat_gen" | awk '{print $2 "x" $3 "x" $4}')") ;;
  fattree | slowtop)
    leaf=16
    while ((leaf > 1 && P / 64 / leaf < 2)); do leaf=$((leaf / 2)); done
    net=(--leaf "$leaf") ;;
esac
rpn=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["machines"][0]["ranks_per_node"])' "$machine")
out=$sim_results/chain_check${plat_suffix}.txt
mkdir -p "$sim_results"
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${PLATFORM:+PLATFORM=$PLATFORM }${NODE_MEMORY:+NODE_MEMORY=$NODE_MEMORY }bench/sim/chain_check.sh $machine $P $grid $bytes $*"
  echo "# platform: $plat_gen ($plat_what); model: ${net[*]} --rpn $rpn"
  for c in "$@"; do
    sim_run "$P" "$tmp" "$build/sim_chain" --grid "$grid" --bytes "$bytes" --cols "$c" \
      --machine "$machine" --rpn "$rpn" "${net[@]}" | grep -v '^# platform' || true
  done
} | tee -a "$out"
