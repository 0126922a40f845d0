#!/usr/bin/env bash
# The scale issue's standard sweep: its four experiments at one machine size of one platform, each
# made by the script that made the checked-in results, into a folder of their own; then the
# planner's checks, the plots and a summary.
#
#   [PLATFORM=bgp|fattree|slowtop] [MACHINE=FILE] [SIM_RESULTS=DIR] bench/sim/sweep.sh [P]
#
# P: 64 (the torus only), 256 (the default; not on slowtop, whose leaves need 8 nodes) or 1024
# ranks. The results go to SIM_RESULTS (default
# BUILD/sweep_<platform>_P<P>, BUILD the SMPI build folder, default build-smpi; the checked-in
# bench/results/sim stays as it is), the summary to summary.txt there, printed at the end.
#   0. The machine model: hplan_probe under smpirun (bench/sim/probe_roundtrip.sh) on 64 ranks of
#      the torus or 128 of the trees, with the platform's network added (bench/sim/add_torus.py:
#      the probe cannot measure it). MACHINE=FILE takes a machine file with its network instead
#      (e.g. bench/results/sim/machine_bgp_P64_tests_torus.json) and skips the probe.
#   1. SUMMA against HSUMMA over the groups G, b = M = 256 (summa_hsumma.sh P N 256 1,G,...).
#   2. hla's LU, flat and by node, on two grids and on the planner's pick, and HPL on the two
#      grids (lu_flat_hier.sh, hpl.sh); hla's fastest against HPL's (lu_best.py).
#   3. The 3D multiply with 2 and 4 layers (summa_hsumma.sh P N 256 c2,c4).
#   4. The planner: the multiply it picks left free, simulated (TAG=pick); its prediction of every
#      run above and its pick among them against the best simulated (plan_check.py,
#      plan_check_lu.py), drawn by plot_plan.sh.
# Needs build-smpi (smpicc, SimGrid 3.32; BUILD another) and the native planner (HLA_PLAN_TOOL,
# default build/hla-plan): scripts/sim.sh sweep installs and builds both first. gnuplot
# (gnuplot-nox) for the plots, where installed. What it took on a 2-core machine (2026-11-30, with
# the patched SimGrid of build_simgrid.sh): bench/results/sim/README.md, "The standard sweep".
set -euo pipefail
cd "$(dirname "$0")/../.."
P=${1:-256}
plat=${PLATFORM:-bgp}
export SIM_RESULTS=${SIM_RESULTS:-${BUILD:-build-smpi}/sweep_${plat}_P$P}
plan=${HLA_PLAN_TOOL:-build/hla-plan}
. bench/sim/common.sh
# the sizes of the checked-in runs: the multiply's order, its groups, the LU's order and grids
case $plat:$P in
  bgp:64) mm_n=8192 gs=1,4,16 lu_n=4096 grids="8x8 4x16" ;;
  bgp:256 | fattree:256)
    mm_n=16384 gs=1,4,16,64 lu_n=4096 grids="16x16 8x32" ;;
  bgp:1024 | fattree:1024 | slowtop:1024)
    mm_n=16384 gs=1,4,16,32,64 lu_n=8192 grids="16x64 8x128" ;;
  *) echo "bench/sim/sweep.sh: P = 64, 256 or 1024 on bgp; 256 or 1024 on fattree; 1024 on slowtop" >&2
     exit 2 ;;
esac
if [ ! -x "$plan" ]; then
  echo "bench/sim/sweep.sh: no $plan (scripts/sim.sh sweep builds it)" >&2
  exit 2
fi
mkdir -p "$sim_results"
R=$sim_results
start=$(date +%s)

# 0. the machine model and its network
if [ -z "${MACHINE:-}" ]; then
  if [ "$plat" = bgp ]; then
    bench/sim/probe_roundtrip.sh 64 > /dev/null
    MACHINE=$R/machine_bgp_P64_net.json
    python3 bench/sim/add_torus.py "$R/machine_bgp_P64.json" "$MACHINE" 4 4 1 425e6 1.5e-6
  else # the trees: the full tree's model (the probe's 2 nodes, a leaf each), as the checks use
    PLATFORM=fattree bench/sim/probe_roundtrip.sh 128 > /dev/null
    MACHINE=$R/machine_fattree_P128_net.json
    python3 bench/sim/add_torus.py "$R/machine_fattree_P128.json" "$MACHINE" port 25e9 1 0.5e-6
  fi
fi
# the platform's network for hla-plan, from a results file's platform line (plan_args.network_of)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sim_platform "$P" "$tmp"
net=$(cd bench/sim && python3 -c 'import sys; from plan_args import network_of
print(" ".join(network_of(sys.argv[1])))' <(echo "# platform: $plat_gen"))
rpn=4 && [ "$plat" != bgp ] && rpn=64
ask() { # hla-plan's first plan for the arguments given
  # shellcheck disable=SC2086
  "$plan" --machine "$MACHINE" --P "$P" --nodes $((P / rpn)) --rpn $rpn --threads 1 $net --top 1 \
    "$@" | awk '$1 == 1 { $1 = $2 = $3 = $4 = $5 = $6 = $7 = ""; print; exit }'
}

# 1. SUMMA against HSUMMA; 3. the 3D multiply
bench/sim/summa_hsumma.sh "$P" $mm_n 256 $gs > /dev/null
bench/sim/summa_hsumma.sh "$P" $mm_n 256 c2,c4 > /dev/null

# 4. the multiply the planner picks left free, e.g. "HSUMMA 16x16 groups 4x4 Mo=256 b=256 blocks
# 128", "SUMMA 16x16 blocks 64 b=256" or "3D 16x64 c=4 (...) b=256 blocks 64"
read -r alg grid rest < <(ask --op mm --n $mm_n)
b=$(grep -o 'b=[0-9]*' <<< "$rest" | head -1 | cut -d= -f2)
nb=$(grep -o 'blocks [0-9]*' <<< "$rest" | cut -d' ' -f2)
mo=$(grep -o 'Mo=[0-9]*' <<< "$rest" | cut -d= -f2 || true)
case $alg in
  SUMMA) g=1 ;;
  HSUMMA) g=$(grep -o 'groups [0-9]*x[0-9]*' <<< "$rest" | cut -d' ' -f2) ;;
  3D) g=c$(grep -o 'c=[0-9]*' <<< "$rest" | cut -d= -f2) ;;
  *) echo "bench/sim/sweep.sh: the planner's pick not understood: $alg $grid $rest" >&2; exit 1 ;;
esac
MO=$([ -n "$mo" ] && [ "$mo" != "$b" ] && echo "$mo" || true) TAG=pick GRID=$grid NB=$nb \
  bench/sim/summa_hsumma.sh "$P" $mm_n "$b" "$g" > /dev/null

# 2. the LU: two grids and the planner's pick in panels of 128, and HPL on the two grids
read -r _ kind pick _ < <(ask --op lu --n $lu_n --nb 128)
for grid in $grids; do
  bench/sim/lu_flat_hier.sh "$P" $lu_n 128 flat,hier "$grid" > /dev/null
done
case " $grids " in
  *" $pick "*) ;;
  *) bench/sim/lu_flat_hier.sh "$P" $lu_n 128 "$([ "$kind" = flat ] && echo flat || echo hier)" \
       "$pick" > /dev/null ;;
esac
bench/sim/hpl.sh "$P" $lu_n 128 "$(tr ' ' , <<< "$grids")" > /dev/null

# 4. the planner's checks, the plots, the summary
sfx=$plat_suffix
mm=("$R/summa_hsumma_P${P}_n${mm_n}${sfx}.txt" "$R/summa_hsumma_P${P}_n${mm_n}${sfx}_3d.txt")
mm+=("$(ls "$R"/summa_hsumma_P"${P}"_n${mm_n}*_pick.txt)")
mapfile -t lu < <(ls "$R"/lu_P"${P}"_n${lu_n}_*.txt)
bench/sim/plan_check.py "$MACHINE" "${mm[@]}" --hla-plan "$plan" > "$R/plan_check.txt"
bench/sim/plan_check_lu.py "$MACHINE" "${lu[@]}" --hla-plan "$plan" > "$R/plan_check_lu.txt"
if command -v gnuplot > /dev/null; then
  bench/sim/plot_lu.sh "$R/lu_vs_hpl.png" "${lu[@]}" "$R"/hpl_P"${P}"_n${lu_n}*.txt
  bench/sim/plot_plan.sh "$R/plan_check.png" "multiply=$R/plan_check.txt" \
    "LU=$R/plan_check_lu.txt" > /dev/null
fi
python3 bench/sim/sweep_summary.py "$R" "$P" "$plat" "$MACHINE" $(($(date +%s) - start)) |
  tee "$R/summary.txt"
