#!/usr/bin/env bash
# Runs 3-18 but 5 of bench/results/history_16core.md (case N is run N, log
# bench/results/16core/DATE_N_*.txt; run 9 ran case 6 again; case 19 has not run yet): build,
# then LU at P = 16 with bench_lu's phase line.   bench/results/lu_16core.sh 3|4|6|7|8|10|11|12|13|...|19
# (3, 4: see the file; 6 (also run 9): ScaLAPACK and hla flat on every grid, then HPL on the same grids, all in one run;
#  7: hla flat with --swap rows against --swap spread, alternating, on 4x4, 2x8 and 8x2;
#  8: hla flat with the early L broadcast (default on rows of <= 4) against a blocking binomial;
#  10: the broadcast algorithms (MPI's, hla's pipeline and scatter-allgather) on 1x16, 2x8, 4x4;
#  11: hla flat on every grid (pipelined L and U broadcasts by default), 8x2 also with MPI's
#      broadcast for U, then HPL on the same grids;
#  12: 4x4 and 8x2 with the default (pipelined U) against MPI's broadcast for U;
#  13-18 (2026-11-23): against older commits built from .dev/hla-NAME.tar.gz, see the cases;
#  19 (prepared on 2026-11-23, 12b9f68, not yet run): HEAD against .dev/hla-base.tar.gz = 9a6d95c (before
#      the pivot records went on the column's board), alternating on the tall grids first; the
#      phase lines also give the left-looking solve of 9a6d95c on 1x16 and 2x8.)
# Run on the 16-core node from the repository root with .dev/ prepared as bench/scaling_16core.sh says
# (the .debs and a git archive of the commit under test); results under $OUT.
cd "$(dirname "$0")/../.."  # the repository root (this file lives in bench/results)
export OUT=${OUT:-/tmp/o}
bash bench/scaling_16core.sh setup > /dev/null 2>&1 || { tail -20 $OUT/log.txt; exit 1; }
B=/tmp/b
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 HLA_NUM_THREADS=1 HLA_PLAN=off
L=$OUT/lu_16core_case${1:-3}.txt
run() { echo "== $*" | tee -a $L; timeout 120 "$@" 2>&1 | grep -v "^#\|^{\|run=" | sed 's/ratio_lapack.*threads/threads/; s/why=.*//' | tee -a $L; }
MPI="mpiexec -n 16 --bind-to core"
# lu LAUNCHER BENCH_LU_ARGS...: the launcher is one word-split string
lu() { local pre=$1; shift; run $pre $B/bench_lu --n 16384 --nb "${NB:-128}" --reps 2 "$@"; }
if [ "${1:-3}" = 3 ]; then
  cat /sys/kernel/mm/transparent_hugepage/enabled
  ompi_info --param btl vader --level 9 | grep single_copy_mechanism | head -1
  for g in 4x4 2x8; do
    lu "$MPI" --grid $g --only hla-flat
    lu "$MPI" --grid $g --only hla-flat --bcast binomial
    lu "env HLA_VIRTUAL_NODES=4 $MPI" --grid $g --only hla-hier
  done
  NB=256 lu "$MPI" --grid 4x4 --only hla-flat
  lu "$MPI" --grid 1x16 --only hla-flat
elif [ "$1" = 6 ]; then
  cat /sys/kernel/mm/transparent_hugepage/enabled
  for g in 4x4 2x8 8x2 1x16; do lu "$MPI" --grid $g --only scalapack,hla-flat; done
  HPL_GRIDS="4x4 2x8 8x2 1x16" LU_NBS=128 HPL_REPS=1 DEADLINE=200 bash bench/scaling_16core.sh hpl 2>&1 |
    grep -i "hpl n=\|gflops" | tee -a $L
elif [ "$1" = 7 ]; then
  for g in 4x4 2x8 4x4 2x8 8x2; do
    for s in rows spread; do lu "$MPI" --grid $g --only hla-flat --swap $s; done
  done
elif [ "$1" = 8 ]; then
  for g in 4x4 8x2 4x4 8x2; do
    for b in auto binomial; do lu "$MPI" --grid $g --only hla-flat --bcast $b; done
  done
elif [ "$1" = 10 ]; then
  for g in 1x16 2x8; do
    for b in auto pipeline sa binomial; do lu "$MPI" --grid $g --only hla-flat --bcast $b; done
  done
  for b in auto pipeline; do lu "$MPI" --grid 4x4 --only hla-flat --bcast $b; done
elif [ "$1" = 11 ]; then
  for g in 4x4 2x8 8x2 1x16; do lu "$MPI" --grid $g --only hla-flat; done
  lu "$MPI" --grid 8x2 --only hla-flat --bcast native
  HPL_GRIDS="4x4 2x8 8x2 1x16" LU_NBS=128 HPL_REPS=1 DEADLINE=200 bash bench/scaling_16core.sh hpl 2>&1 |
    grep -i "hpl n=\|gflops" | tee -a $L
elif { [ "$1" -ge 13 ] && [ "$1" -le 16 ]; } || [ "$1" = 19 ]; then
  # 13: HEAD (built by setup) and ScaLAPACK, then HPL on the same grids.
  # 14: HEAD against ad77357 (before the U12 stream) and db997ec (run 11's commit), alternating.
  # 15: HEAD against .dev/hla-base.tar.gz (the commit before the board carried the L panels).
  # 16: as 13, then 8x2 HEAD against base twice more, then the tests at P = 16.
  export PKG_CONFIG_PATH=/tmp/hladeps/usr/lib/x86_64-linux-gnu/pkgconfig
  old() { # old NAME: build .dev/hla-NAME.tar.gz's bench_lu into /tmp/b-NAME
    rm -rf /tmp/s-$1 && mkdir -p /tmp/s-$1 && tar -xzf .dev/hla-$1.tar.gz -C /tmp/s-$1 &&
      cmake -S /tmp/s-$1 -B /tmp/b-$1 -DCMAKE_BUILD_TYPE=Release -DHLA_BUILD_TESTS=OFF > /dev/null &&
      cmake --build /tmp/b-$1 -j16 --target bench_lu > /dev/null || echo "build of $1 failed"
  }
  if [ "$1" = 13 ] || [ "$1" = 16 ]; then
    for g in 1x16 2x8 4x4 8x2; do lu "$MPI" --grid $g --only scalapack,hla-flat; done
    HPL_GRIDS="1x16 2x8 4x4 8x2" LU_NBS=128 HPL_REPS=1 DEADLINE=150 bash bench/scaling_16core.sh hpl 2>&1 |
      grep -i "hpl n=\\|gflops" | tee -a $L
    if [ "$1" = 16 ]; then
      old base
      for g in 8x2 8x2; do
        lu "$MPI" --grid $g --only hla-flat
        echo "   (base)" | tee -a $L
        run $MPI /tmp/b-base/bench_lu --n 16384 --nb 128 --reps 2 --grid $g --only hla-flat
      done
      TEST_NPS=16 DEADLINE=200 bash bench/scaling_16core.sh tests 2>&1 | grep "TEST\\|failure" | tee -a $L
    fi
  elif [ "$1" = 19 ]; then # the pivot records on the column's board (HEAD) against base
    old base
    for g in 8x2 4x4 8x2 4x4 2x8 1x16; do
      lu "$MPI" --grid $g --only hla-flat
      echo "   (base)" | tee -a $L
      run $MPI /tmp/b-base/bench_lu --n 16384 --nb 128 --reps 2 --grid $g --only hla-flat
    done
  elif [ "$1" = 15 ]; then # the L panels on the row's board (HEAD) against messages (base)
    old base
    for g in 1x16 2x8 4x4 8x2 1x16 2x8 4x4 8x2; do
      lu "$MPI" --grid $g --only hla-flat
      echo "   (base)" | tee -a $L
      run $MPI /tmp/b-base/bench_lu --n 16384 --nb 128 --reps 2 --grid $g --only hla-flat
    done
  else
    old old & old mid & wait
    for g in 4x4 8x2 4x4 8x2 2x8 1x16; do
      lu "$MPI" --grid $g --only hla-flat
      for v in mid old; do
        echo "   ($v)" | tee -a $L
        run $MPI /tmp/b-$v/bench_lu --n 16384 --nb 128 --reps 2 --grid $g --only hla-flat
      done
    done
  fi
elif [ "$1" = 17 ] || [ "$1" = 18 ]; then # hla flat and HPL in pairs (17: HPL skipped, see md)
  for g in ${GRIDS:-1x16 2x8 4x4}; do
    lu "$MPI" --grid $g --only hla-flat
    HPL_GRIDS="$g" LU_NBS=128 HPL_REPS=1 DEADLINE=130 bash bench/scaling_16core.sh hpl 2>&1 |
      grep -i "hpl n=.*median" | tee -a $L
  done
elif [ "$1" = 12 ]; then
  lu "$MPI" --grid 4x4 --only hla-flat
  lu "$MPI" --grid 4x4 --only hla-flat --bcast native
  lu "$MPI" --grid 8x2 --only hla-flat --bcast native
  lu "$MPI" --grid 8x2 --only hla-flat
else
  for g in 2x8 1x16 4x4 8x2; do lu "$MPI" --grid $g --only hla-flat; done
  HPL_GRIDS="4x4 2x8" LU_NBS=128 HPL_REPS=1 DEADLINE=200 bash bench/scaling_16core.sh hpl 2>&1 |
    grep -i "hpl n=\|gflops" | tee -a $L
fi
echo done
