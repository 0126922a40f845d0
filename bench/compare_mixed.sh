#!/usr/bin/env bash
# bench/compare_mixed.sh — the mixed-precision solve's benchmark in one command: hla_gesv_mixed
# against hla_gesv, LAPACK dsgesv and dgetrf + dgetrs on the node (bench_mixed), alternating with
# HPL (hpcc, bench/run_hpl.sh) on the same ranks, n, nb and grid; one table per n with the mixed
# solve's ratios (time of the other / time of mixed: above 1 means mixed is faster).
#
#   bench/compare_mixed.sh [N1,N2,..] [NB] [P] [Q] [reps]     (defaults: 4096,8192 128 1 2 3)
#
# From the repository root after a build (BUILD, default build). As bench/compare_lu.sh: the two
# programs alternate for `reps` rounds, each running every case twice and keeping the second (the
# first pays for first-touch page faults), and each line is the median of the rounds; GFLOP/s are
# (2/3 n^3 + 2 n^2) / t for all, so they compare as inverse times.
set -euo pipefail
cd "$(dirname "$0")/.."
ns=${1:-4096,8192}; nb=${2:-128}; p=${3:-1}; q=${4:-2}; reps=${5:-3}
build=${BUILD:-build}
for f in "$build/bench_mixed" bench/run_hpl.sh; do
  [ -e "$f" ] || { echo "compare_mixed.sh: $f not found (build first, or set BUILD)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$reps"); do
  echo "# round $r of $reps"
  # shellcheck disable=SC2086
  mpiexec -n $((p * q)) ${MPIEXEC_FLAGS:---bind-to none} "$build/bench_mixed" --n "$ns" --nb "$nb" \
    --grid "${p}x${q}" --reps 2 --only lapack,dsgesv,hla,mixed | tee -a "$out/runs.txt" |
    grep -E ' run=2 ' || true
  HPCC_MEM_MB=${HPCC_MEM_MB:-64} HPL_INLINE=1 bash bench/run_hpl.sh "$ns" "$nb" "$p" "$q" 2 |
    tee -a "$out/runs.txt" | grep -E ' run=2 |transparent' || true
done
awk -v grid="${p}x${q}" -v nb="$nb" -f bench/rounds.awk -f <(cat <<'AWK'
  END {
    split("lapack dsgesv hpl hla mixed", im, " ")
    for (k = 1; k <= nn; k++) {
      n = order[k]
      printf "\nAx = b to double accuracy, n = %d, nb = %d, grid %s (GFLOP/s as 2/3 n^3 + 2 n^2 over the time, median of %d rounds; HPL scaled residual, worst)\n", n, nb, grid, cnt["hpl", n]
      for (i = 1; i <= 5; i++) {
        y = im[i]; if (!has[y] || !cnt[y, n]) continue
        g[y, n] = median(y SUBSEP n)
        printf "  %-8s %9.2f   residual %s\n", y, g[y, n], worst[y, n] == "" ? "-" : worst[y, n]
      }
      if (g["mixed", n] == "") continue
      line = "  mixed /"
      for (i = 1; i <= 4; i++)
        if (has[im[i]] && g[im[i], n] + 0 > 0) line = line sprintf(" %s %.3f", im[i], g["mixed", n] / g[im[i], n])
      print line
    }
  }
AWK
) "$out/runs.txt"
