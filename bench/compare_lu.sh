#!/usr/bin/env bash
# bench/compare_lu.sh — the LU benchmark of the issue in one command: node LAPACK, ScaLAPACK pdgesv
# and hla_gesv flat and hierarchical (bench_lu), alternating with HPL (hpcc, bench/run_hpl.sh) on
# the same ranks, n, nb and grid; one table per n with hla's ratio to each.
#
#   bench/compare_lu.sh [N1,N2,..] [NB] [P] [Q] [reps]     (defaults: 4096,6000,8192 128 1 2 3)
#
# From the repository root after a build (BUILD, default build). Environment as for
# bench/run_hpl.sh (HPCC, HPCC_INF, HPCC_MEM_MB, MPIEXEC_FLAGS). One BLAS thread per rank for the
# distributed cases; bench_lu's LAPACK case uses all the node's cores on rank 0.
# The two programs alternate, `reps` rounds of one bench_lu process and one hpcc process, each
# running every case twice and keeping the second (the first pays for first-touch page faults):
# the speed of this kind of machine drifts by 5-10 % over minutes, and alternating lets the drift
# fall on both sides alike. Each line of the table is the median of the rounds; the residuals are
# HPL's scaled residual (passes below 16), the worst of the rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
ns=${1:-4096,6000,8192}; nb=${2:-128}; p=${3:-1}; q=${4:-2}; reps=${5:-3}
build=${BUILD:-build}
for f in "$build/bench_lu" bench/run_hpl.sh; do
  [ -e "$f" ] || { echo "compare_lu.sh: $f not found (build first, or set BUILD)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$reps"); do
  echo "# round $r of $reps"
  # shellcheck disable=SC2086
  mpiexec -n $((p * q)) ${MPIEXEC_FLAGS:---bind-to none} "$build/bench_lu" --n "$ns" --nb "$nb" \
    --grid "${p}x${q}" --reps 2 | tee -a "$out/runs.txt" | grep -E ' run=2 |phases' || true
  HPCC_MEM_MB=${HPCC_MEM_MB:-64} HPL_INLINE=1 bash bench/run_hpl.sh "$ns" "$nb" "$p" "$q" 2 |
    tee -a "$out/runs.txt" | grep -E ' run=2 |transparent' || true
done
# Per implementation and n: the median of the rounds' second runs, the worst residual, and hla's
# ratios to the others.
awk -v grid="${p}x${q}" -v nb="$nb" -f bench/rounds.awk -f <(cat <<'AWK'
  END {
    split("lapack scalapack hpl hla-flat hla-hier", im, " ")
    for (k = 1; k <= nn; k++) {
      n = order[k]
      printf "\nLU + solve, n = %d, nb = %d, grid %s (GFLOP/s, median of %d rounds; residual)\n", n, nb, grid, cnt["hpl", n]
      for (i = 1; i <= 5; i++) {
        y = im[i]; if (!has[y] || !cnt[y, n]) continue
        g[y, n] = median(y SUBSEP n)
        printf "  %-10s %9.2f   residual %s\n", y, g[y, n], worst[y, n] == "" ? "-" : worst[y, n]
      }
      for (h = 4; h <= 5; h++) {
        y = im[h]; if (!has[y] || g[y, n] == "") continue
        line = sprintf("  %s /", y)
        for (i = 1; i <= 3; i++)
          if (has[im[i]] && g[im[i], n] + 0 > 0)
            line = line sprintf(" %s %.3f", im[i], g[y, n] / g[im[i], n])
        print line
      }
    }
  }
AWK
) "$out/runs.txt"
