#!/usr/bin/env bash
# bench/paired_hpl.sh — hla_gesv against HPL in interleaved pairs, for machines whose speed drifts.
#
#   bench/paired_hpl.sh N NB P Q [pairs]      (from the repository root, after a build in build/)
#
# Runs `pairs` times (default 5): one bench_lu process (hla flat, 2 runs, the second kept) and one
# hpcc process (HPL, 2 runs of N inside it, the second kept), both on P x Q ranks with one BLAS
# thread each, and prints per pair both GFLOP/s and their ratio, then the median, lowest and highest
# ratio. A drift of the machine over minutes moves both members of a pair alike, so the ratios
# scatter less than ratios of medians taken minutes apart. Environment: BUILD (default build),
# HPCC, HPCC_INF, MPIEXEC_FLAGS as for bench/run_hpl.sh. GFLOP/s = (2/3 n^3 + 2 n^2) / t (HPL's
# own count, 1.5 n^2, differs by 0.01 % at n = 6000).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?N}; nb=${2:?NB}; p=${3:?P}; q=${4:?Q}; pairs=${5:-5}
build=${BUILD:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 HLA_NUM_THREADS=1
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
echo "# transparent huge pages: ${thp:-unknown} (hla asks for them; hpcc gets them only under always)"
ratios=()
for i in $(seq "$pairs"); do
  # shellcheck disable=SC2086
  h=$(mpiexec -n $((p * q)) ${MPIEXEC_FLAGS:---bind-to none} "$build/bench_lu" --n "$n" \
        --nb "$nb" --grid "${p}x${q}" --reps 2 --only hla-flat |
      sed -n 's/^hla-flat .* run=2 gflops=\([0-9.]*\).*/\1/p')
  l=$(HPCC_MEM_MB=${HPCC_MEM_MB:-64} HPL_INLINE=1 bash bench/run_hpl.sh "$n" "$nb" "$p" "$q" 2 |
      sed -n 's/^hpl .* run=2 gflops=\([0-9.]*\).*/\1/p')
  if [ -z "$h" ] || [ -z "$l" ]; then
    echo "pair $i: a run failed (hla '$h', HPL '$l')" >&2
    exit 1
  fi
  r=$(awk -v a="$h" -v b="$l" 'BEGIN{printf "%.3f", a / b}')
  ratios+=("$r")
  echo "pair $i n=$n nb=$nb grid=${p}x${q} hla_gflops=$h hpl_gflops=$l ratio=$r"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk -v n="$n" -v g="${p}x${q}" \
  '{v[NR]=$1} END{printf "paired n=%d grid=%s pairs=%d median_ratio=%.3f min=%.3f max=%.3f\n",
                   n, g, NR, v[int((NR+1)/2)], v[1], v[NR]}'
