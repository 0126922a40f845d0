#!/usr/bin/env bash
# Run 5 of bench/results/history_16core.md (the planner at P = 16: probe, then bench_plan;
# log bench/results/16core/2026-11-22_05_planner.txt):   bench/results/plan_16core.sh
# Run on the 16-core node from the repository root with .dev/ prepared as bench/scaling_16core.sh says
# (the .debs and a git archive of the commit under test); results under $OUT.
cd "$(dirname "$0")/../.."  # the repository root (this file lives in bench/results)
export OUT=${OUT:-/tmp/o}
bash bench/scaling_16core.sh setup > /dev/null 2>&1 || { tail -20 $OUT/log.txt; exit 1; }
B=/tmp/b
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 HLA_NUM_THREADS=1
L=$OUT/plan16.txt
echo "== probe" | tee -a $L
timeout 60 mpiexec -n 16 --bind-to none $B/hla-plan --probe --save --machine $OUT/m16.json --op lu --n 8192 --top 4 2>&1 | tail -8 | tee -a $L
echo "== bench_plan" | tee -a $L
timeout 150 mpiexec -n 16 --bind-to none $B/bench_plan --machine $OUT/m16.json --n 8192 --op lu,mm --top 2 --max 4 --reps 2 --warm 1 2>&1 | grep -v "^{" | tee -a $L
echo done
