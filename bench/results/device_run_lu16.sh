#!/usr/bin/env bash
# Run on the device from the repository root with .dev/ prepared as bench/device_scaling.sh says
# (the .debs and a git archive of the commit under test); results under $OUT.
# one device call: build, then LU phases at P = 16 (see bench/results/device_16core.md)
cd "$(dirname "$0")/../.."  # the repository root (this file lives in bench/results)
export OUT=${OUT:-/tmp/o}
bash bench/device_scaling.sh setup > /dev/null 2>&1 || { tail -20 $OUT/log.txt; exit 1; }
B=/tmp/b
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 HLA_NUM_THREADS=1 HLA_PLAN=off
cat /sys/kernel/mm/transparent_hugepage/enabled
ompi_info --param btl vader --level 9 | grep single_copy_mechanism | head -1
L=$OUT/lu16.txt
run() { echo "== $*" | tee -a $L; timeout 120 "$@" 2>&1 | grep -v "^#\|^{\|run=" | sed 's/ratio_lapack.*threads/threads/; s/why=.*//' | tee -a $L; }
for g in 4x4 2x8; do
  run mpiexec -n 16 --bind-to core $B/bench_lu --n 16384 --grid $g --nb 128 --reps 2 --only hla-flat
  run mpiexec -n 16 --bind-to core $B/bench_lu --n 16384 --grid $g --nb 128 --reps 2 --only hla-flat --bcast binomial
  run env HLA_VIRTUAL_NODES=4 mpiexec -n 16 --bind-to core $B/bench_lu --n 16384 --grid $g --nb 128 --reps 2 --only hla-hier
done
run mpiexec -n 16 --bind-to core $B/bench_lu --n 16384 --grid 4x4 --nb 256 --reps 2 --only hla-flat
run mpiexec -n 16 --bind-to core $B/bench_lu --n 16384 --grid 1x16 --nb 128 --reps 2 --only hla-flat
echo done
