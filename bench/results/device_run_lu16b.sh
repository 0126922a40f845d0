#!/usr/bin/env bash
# Run on the device from the repository root with .dev/ prepared as bench/device_scaling.sh says
# (the .debs and a git archive of the commit under test); results under $OUT.
cd "$(dirname "$0")/../.."  # the repository root (this file lives in bench/results)
export OUT=${OUT:-/tmp/o}
bash bench/device_scaling.sh setup > /dev/null 2>&1 || { tail -20 $OUT/log.txt; exit 1; }
B=/tmp/b
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 HLA_NUM_THREADS=1 HLA_PLAN=off
L=$OUT/lu16b.txt
run() { echo "== $*" | tee -a $L; timeout 100 "$@" 2>&1 | grep -v "^#\|^{\|run=" | sed 's/ratio_lapack.*threads/threads/; s/why=.*//' | tee -a $L; }
for g in 2x8 1x16 4x4 8x2; do
  run mpiexec -n 16 --bind-to core $B/bench_lu --n 16384 --grid $g --nb 128 --reps 2 --only hla-flat
done
HPL_GRIDS="4x4 2x8" LU_NBS=128 HPL_REPS=1 DEADLINE=200 bash bench/device_scaling.sh hpl 2>&1 | grep -i "hpl n=\|gflops" | tee -a $L
echo done
