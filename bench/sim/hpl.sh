#!/usr/bin/env bash
# Experiment 2's peer: HPL itself (the HPL of hpcc 1.5.0, Debian's source package) built with
# smpicc and run in the simulation's model mode on the same platforms as bench/sim/lu_flat_hier.sh:
# its BLAS charge their operation counts to the simulated clock as hla's kernels do
# (bench/sim/hpl/fake_blas.c says how), its matrix is real memory; a probe costs a real one's
# microsecond, and a rank that only waits for its panel waits in MPI_Recv, not in SimGrid's loop
# of probes (bench/sim/hpl/probe_wait.c; HPL_SPIN=probe: the loop).
#
#   [PLATFORM=bgp|fattree|slowtop] [TAG=word] [HPL_SPIN=probe] bench/sim/hpl.sh P N NB PxQ[,PxQ...]
#
# HPL's parameters are Debian's template's (/usr/share/doc/hpcc/examples/_hpccinf.txt, else the
# same values written here): right-looking panel factorisation with Crout recursion (NBMIN 4,
# NDIV 2), the 1-ring modified broadcast, look-ahead depth 1, the mixed swap (threshold 64),
# row-major process mapping. Builds once into HPL_BUILD (default BUILD/hpl) from the orig
# tarball HPCC_ORIG, else from `apt-get source --download-only hpcc` (as root it adds a deb-src
# line to apt's sources where there is none). Writes bench/results/sim/hpl_P<P>_n<N>[_platform]
# [_TAG].txt (SIM_RESULTS: another folder, bench/sim/common.sh): per grid one line and one JSON
# line (HPL's own time and Gflop/s), then the simulator's wall time and memory.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
P=$1 n=$2 nb=$3 grids=$4
hb=${HPL_BUILD:-${BUILD:-build-smpi}/hpl}
. bench/sim/common.sh
mkdir -p "$hb"
hb=$(cd "$hb" && pwd)
if ! ls "$hb"/src/hpcc-*/hpl/lib/smpi/libhpl.a > /dev/null 2>&1; then
  orig=${HPCC_ORIG:-}
  if [ -z "$orig" ]; then
    [ "$(id -u)" -ne 0 ] || sim_deb_src
    (cd "$hb" && apt-get source --download-only hpcc > /dev/null 2>&1 || true)
    orig=$(ls "$hb"/hpcc_*.orig.tar.gz 2>/dev/null | head -1)
    [ -n "$orig" ] || { echo "bench/sim/hpl.sh: no hpcc source (add a deb-src line, or HPCC_ORIG=)" >&2; exit 2; }
  fi
  rm -rf "$hb/src" && mkdir -p "$hb/src" && tar xzf "$orig" -C "$hb/src"
  top=$(ls -d "$hb"/src/hpcc-*/hpl)
  cp bench/sim/hpl/Make.smpi "$top/"
  make -C "$top" arch=smpi TOPdir="$top" > "$hb/make.log" 2>&1 || { tail -20 "$hb/make.log"; exit 1; }
fi
# the harness (bench/sim/hpl/*.c) linked each run (a second; never older than its sources), and
# renamed into place, so that a run already started keeps its program
top=$(ls -d "$hb"/src/hpcc-*/hpl)
smpicc -O2 -w -DHPL_CALL_CBLAS -I"$top/include" -I"$top/include/smpi" bench/sim/hpl/main.c \
  bench/sim/hpl/fake_blas.c bench/sim/hpl/probe_wait.c "$top/lib/smpi/libhpl.a" -lm \
  -o "$hb/xhpl.$$" && mv -f "$hb/xhpl.$$" "$hb/xhpl"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sim_platform "$P" "$tmp"
ps=() qs=()
IFS=, read -r -a gl <<<"$grids"
for g in "${gl[@]}"; do ps+=("${g%x*}") qs+=("${g#*x}"); done
{
  printf 'HPLinpack benchmark input file\nbench/sim/hpl.sh\nHPL.out      output file name\n8            device out\n'
  printf '1            # of problems sizes (N)\n%s         Ns\n1            # of NBs\n%s           NBs\n' "$n" "$nb"
  printf '0            PMAP process mapping (0=Row-,1=Column-major)\n%s            # of process grids (P x Q)\n' "${#gl[@]}"
  printf '%s            Ps\n%s            Qs\n' "${ps[*]}" "${qs[*]}"
  printf '16.0         threshold\n1            # of panel fact\n2            PFACTs\n1            # of recursive stopping criterium\n4            NBMINs\n'
  printf '1            # of panels in recursion\n2            NDIVs\n1            # of recursive panel fact.\n1            RFACTs\n'
  printf '1            # of broadcast\n1            BCASTs\n1            # of lookahead depth\n1            DEPTHs\n'
  printf '2            SWAP\n64           swapping threshold\n0            L1\n0            U\n1            Equilibration\n8            memory alignment\n'
} > "$tmp/hpccinf.txt"
out=$sim_results/hpl_P${P}_n${n}${plat_suffix}${TAG:+_$TAG}
mkdir -p "$sim_results"
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${PLATFORM:+PLATFORM=$PLATFORM }${NODE_MEMORY:+NODE_MEMORY=$NODE_MEMORY }${SIM_CFG:+SIM_CFG=\"$SIM_CFG\" }${HPL_SPIN:+HPL_SPIN=$HPL_SPIN }${TAG:+TAG=$TAG }bench/sim/hpl.sh $*"
  # HPL keeps state in globals (its random generator's), so each rank needs its own copy of them
  # a failed probe costs a real one's microsecond: HPL's loops of them cost the simulator little
  # since it waits in MPI_Recv instead (hpl/probe_wait.c)
  probe=--cfg=smpi/iprobe:1e-6
  [[ "${SIM_CFG:-}" =~ smpi/iprobe: || "${HPL_SPIN:-}" == probe ]] && probe=
  (cd "$tmp" && SIM_CFG="--cfg=smpi/privatization:yes $probe ${SIM_CFG:-}" sim_run "$P" "$tmp" "$hb/xhpl")
  # seconds from HPL's Gflop/s and its flop count: more digits than its table's time
  awk -v P="$P" '/^W[RC][0-9A-Z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ /{
      n = $2; s = (2.0 / 3.0 * n * n * n + 1.5 * n * n) / ($7 * 1e9)
      printf "hpl_sim P=%d n=%d nb=%d grid=%dx%d seconds=%.4f gflops=%.3f\n", P, n, $3, $4, $5, s, $7
      printf "{\"bench\":\"hpl_sim\",\"P\":%d,\"n\":%d,\"nb\":%d,\"grid\":\"%dx%d\",\"seconds\":%.6g,\"gflops\":%.6g}\n", P, n, $3, $4, $5, s, $7
    }' "$tmp/hpccoutf.txt"
} | tee "$out.txt"
