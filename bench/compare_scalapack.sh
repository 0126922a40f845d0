#!/usr/bin/env bash
# bench/compare_scalapack.sh — unchanged ScaLAPACK programs on ScaLAPACK and on hla side by side:
# ScaLAPACK's own PBLAS timer dpb3tim (PDGEMM only, an input file made here) and
# bench/scalapack_timer (pdgesv_ and pdgemm_), each run without and with
# LD_PRELOAD=libhla_scalapack.so, alternating, the same ranks, n, nb and grid; one line per case
# with hla's ratio to ScaLAPACK (time of ScaLAPACK / time of hla, medians of the rounds).
#
#   bench/compare_scalapack.sh [N1,N2,..] [NB1,NB2,..] [GRIDS] [rounds] [N_TIM]
#     defaults: 4096,6000 64,128,16 1x2,2x1 3 400
#
# dpb3tim's memory is fixed when ScaLAPACK is built (about 2.6 million words per rank: the order
# of three n x n matrices it holds is at most about 400 on 2 ranks), so it runs at N_TIM only.
# It times one call per test; its input asks for the same test twice, and both are printed: the
# program's first call (where hla also builds its grid over the BLACS context and reads the
# machine model, once per process) and a warm one.
#
# From the repository root after a build (BUILD, default build). One BLAS thread per rank;
# MPIEXEC_FLAGS (default --bind-to none) places the ranks, DPB3TIM names dpb3tim where
# scalapack-mpi-test is unpacked rather than installed.
# ALT="VAR=VALUE ..." adds a third side, hla under those variables (e.g. HLA_SCALAPACK_LU_GRID=wide),
# printed after hla's columns with its own ratio to ScaLAPACK; N_TIM = 0 leaves dpb3tim out.
# dpb3tim prints MFLOPS per test; its own checks are off in timing mode, scalapack_timer checks
# its results (HPL's residual for pdgesv, a product check for pdgemm) and prints PASSED/FAILED.
set -euo pipefail
cd "$(dirname "$0")/.."
ns=${1:-4096,6000}; nbs=${2:-64,128,16}; grids=${3:-1x2,2x1}; rounds=${4:-3}; ntim=${5:-400}
build=${BUILD:-build}
lib=$(ls "$build"/libhla_scalapack.so 2>/dev/null || true)
timer="$build/scalapack_timer"
flavor=openmpi
[ -n "${MPICH:-}" ] && flavor=mpich
tim=${DPB3TIM:-/usr/lib/x86_64-linux-gnu/scalapack/$flavor-tests/PBLAS/TIMING/dpb3tim}
read -r -a place <<<"${MPIEXEC_FLAGS:---bind-to none}"
for f in "$lib" "$timer" "$tim"; do
  [ -n "$f" ] && [ -e "$f" ] || { echo "compare_scalapack.sh: ${f:-libhla_scalapack.so} not found (build; apt-get install scalapack-mpi-test)" >&2; exit 2; }
done
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 HLA_NUM_THREADS=1
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $work" >&2 || rm -rf "$work"' EXIT

# PDBLAS3TIM.dat for one grid: PDGEMM ('N','N') of n x n x n in nb blocks, one column per n.
tim_input() { # grid p q, then "n nb" pairs
  local p=$1 q=$2; shift 2
  local cnt=$# row
  {
    echo "'Level 3 PBLAS, Timing input file'"; echo "'hla compare_scalapack.sh'"
    echo "'PDBLAS3TIM.SUMM'"; echo "6"; echo "${1#*:}"; echo "1"; echo "$p"; echo "$q"
    echo "1.0D0"; echo "0.0D0"; echo "$cnt"
    for key in DIAG SIDE TRANSA TRANSB UPLO; do
      row=""; for _ in "$@"; do case $key in DIAG|TRANSA|TRANSB) row="$row 'N'";; SIDE) row="$row 'L'";; UPLO) row="$row 'U'";; esac; done
      echo "$row"
    done
    row=""; for c in "$@"; do row="$row ${c%%:*}"; done
    echo "$row"; echo "$row"; echo "$row" # M N K
    for mat in A B C; do
      echo "$row"; echo "$row" # M_X N_X
      local nbrow=""; for c in "$@"; do nbrow="$nbrow ${c#*:}"; done
      echo "$nbrow"; echo "$nbrow"; echo "$nbrow"; echo "$nbrow" # IMB INB MB NB
      local z=""; for _ in "$@"; do z="$z 0"; done; echo "$z"; echo "$z" # RSRC CSRC
      local o=""; for _ in "$@"; do o="$o 1"; done; echo "$o"; echo "$o" # I J
    done
    echo "PDGEMM  T"; for r in PDSYMM PDSYRK PDSYR2K PDTRMM PDTRSM PDGEADD PDTRADD; do echo "$r F"; done
  } > "$work/PDBLAS3TIM.dat"
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
sides=(scalapack hla)
[ -n "${ALT:-}" ] && sides+=(alt)
read -r -a alt_env <<<"${ALT:-}"
# the command prefix of one side
prefix() {
  case $1 in
    scalapack) pre=() ;;
    hla) pre=(env LD_PRELOAD="$lib") ;;
    alt) pre=(env LD_PRELOAD="$lib" "${alt_env[@]}") ;;
  esac
}

if [ -n "${ALT:-}" ]; then
  echo "# alt: hla with $ALT"
  printf '%-7s %-5s %-5s %-4s %12s %12s %8s %12s %8s %s\n' op grid n nb scalapack hla ratio alt ratio check
else
  printf '%-7s %-5s %-5s %-4s %12s %12s %8s %s\n' op grid n nb scalapack hla ratio check
fi
IFS=, read -r -a NS <<<"$ns"; IFS=, read -r -a NBS <<<"$nbs"; IFS=, read -r -a GR <<<"$grids"
for g in "${GR[@]}"; do
  p=${g%x*}; q=${g#*x}
  for nb in "${NBS[@]}"; do # dpb3tim: PDGEMM's wall-clock MFLOPS at N_TIM, the same test twice
    [ "$ntim" = 0 ] && break
    tim_input "$p" "$q" "$ntim:$nb" "$ntim:$nb"
    rm -f "$work"/tim_*.txt
    for r in $(seq "$rounds"); do
      for side in "${sides[@]}"; do
        prefix $side
        (cd "$work" && "${pre[@]}" mpiexec -n $((p * q)) "${place[@]}" "$tim" >"tim_$side.$r.txt" 2>&1 || true)
      done
    done
    for call in 1 2; do # 1: the program's first call (hla sets up its grid), 2: a warm call
      declare -A mf=()
      for side in "${sides[@]}"; do
        mf[$side]=$(for f in "$work"/tim_$side.*.txt; do awk -v c=$call '$2 == "PDGEMM" && ++k == c {print $4}' "$f"; done | median)
      done
      what=warm; [ $call = 1 ] && what=first
      awk -v g="$g" -v n="$ntim" -v nb="$nb" -v s="${mf[scalapack]:-0}" -v h="${mf[hla]:-0}" -v w="$what" \
        -v a="${mf[alt]:-}" 'BEGIN {printf "%-7s %-5s %-5s %-4s %8.0f MF/s %8.0f MF/s %8.2f ", "pdgemm", g, n, nb, s, h, (s > 0 ? h / s : 0)
          if (a != "") printf "%8.0f MF/s %8.2f ", a, (s > 0 ? a / s : 0)
          printf "dpb3tim, %s call\n", w}'
    done
  done
  for n in "${NS[@]}"; do
    for nb in "${NBS[@]}"; do # scalapack_timer: pdgesv_ and pdgemm_
      rm -f "$work"/t_*.txt
      for r in $(seq "$rounds"); do
        for side in "${sides[@]}"; do
          prefix $side
          "${pre[@]}" mpiexec -n $((p * q)) "${place[@]}" "$timer" "$n" "$nb" "$p" "$q" 1 \
            >"$work/t_$side.$r.txt" 2>&1 || true
        done
      done
      for op in pdgesv pdgemm; do
        declare -A sec=()
        for side in "${sides[@]}"; do
          sec[$side]=$(cat "$work"/t_$side.*.txt | awk -v op=$op '$1 == op {for (i = 2; i <= NF; i++) if ($i ~ /^seconds=/) print substr($i, 9)}' | median)
        done
        chk=$(cat "$work"/t_*.txt | awk -v op=$op '$1 == op {print $NF}' | sort -u | tr '\n' ' ')
        awk -v op=$op -v g="$g" -v n="$n" -v nb="$nb" -v s="${sec[scalapack]:-0}" -v h="${sec[hla]:-0}" -v c="$chk" \
          -v a="${sec[alt]:-}" 'BEGIN {printf "%-7s %-5s %-5s %-4s %10.4f s %10.4f s %8.2f ", op, g, n, nb, s, h, (h > 0 ? s / h : 0)
            if (a != "") printf "%10.4f s %8.2f ", a, (a > 0 ? s / a : 0)
            printf "%s\n", c}'
      done
    done
  done
done
