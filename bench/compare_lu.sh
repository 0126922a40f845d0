#!/usr/bin/env bash
# bench/compare_lu.sh — the LU benchmark of the issue in one command: node LAPACK, ScaLAPACK pdgesv
# and hla_gesv flat and hierarchical (bench_lu, one mpiexec), then HPL (hpcc, bench/run_hpl.sh) on
# the same ranks, n, nb and grid; one table per n with hla's ratio to each.
#
#   bench/compare_lu.sh [N1,N2,..] [NB] [P] [Q] [reps]     (defaults: 4096,6000,8192 128 1 2 3)
#
# From the repository root after a build (BUILD, default build). Environment as for
# bench/run_hpl.sh (HPCC, HPCC_INF, HPCC_MEM_MB, MPIEXEC_FLAGS). One BLAS thread per rank for the
# distributed cases; bench_lu's LAPACK case uses all the node's cores on rank 0. Each line of the
# table is a median of `reps` runs; the residuals are HPL's scaled residual (passes below 16).
# The two programs run minutes apart: on a machine whose speed drifts, bench/paired_hpl.sh gives
# the steadier hla / HPL ratio.
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
# shellcheck disable=SC2086
mpiexec -n $((p * q)) ${MPIEXEC_FLAGS:---bind-to none} "$build/bench_lu" --n "$ns" --nb "$nb" \
  --grid "${p}x${q}" --reps "$reps" | tee "$out/hla.txt" | grep -E 'median|phases' || true
HPCC_MEM_MB=${HPCC_MEM_MB:-64} HPL_INLINE=1 bash bench/run_hpl.sh "$ns" "$nb" "$p" "$q" "$reps" |
  tee "$out/hpl.txt" | grep -E 'median|transparent' || true
# Join on n: every implementation's median and residual, and hla's ratios to the others.
awk -v grid="${p}x${q}" -v nb="$nb" '
  function val(s, k,   i, a, m) { m = split(s, a, " ");
    for (i = 1; i <= m; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2);
    return "" }
  FNR == 1 { file++ }
  / median_gflops=/ {
    impl = $1; n = val($0, "n") + 0
    if (!(n in seen)) { seen[n] = 1; order[++nn] = n }
    g[impl, n] = val($0, "median_gflops"); has[impl] = 1
    if (impl != "hpl") res[impl, n] = val($0, "residual")
  }
  / run=[0-9]+ / && $1 == "hpl" { r = val($0, "residual"); n = val($0, "n") + 0
    if (r + 0 > worst[n] + 0 || worst[n] == "") worst[n] = r }
  END {
    split("lapack scalapack hpl hla-flat hla-hier", im, " ")
    for (k = 1; k <= nn; k++) {
      n = order[k]
      printf "\nLU + solve, n = %d, nb = %d, grid %s (GFLOP/s, median; residual)\n", n, nb, grid
      for (i = 1; i <= 5; i++) {
        x = im[i]; if (!has[x] || g[x, n] == "") continue
        rr = x == "hpl" ? worst[n] : res[x, n]
        printf "  %-10s %9.2f   residual %s\n", x, g[x, n], rr == "" ? "-" : rr
      }
      for (h = 4; h <= 5; h++) {
        x = im[h]; if (!has[x] || g[x, n] == "") continue
        line = sprintf("  %s /", x)
        for (i = 1; i <= 3; i++)
          if (has[im[i]] && g[im[i], n] + 0 > 0)
            line = line sprintf(" %s %.3f", im[i], g[x, n] / g[im[i], n])
        print line
      }
    }
  }' "$out/hla.txt" "$out/hpl.txt"
