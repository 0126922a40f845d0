#!/usr/bin/env bash
# HPL through Debian's hpcc, for side-by-side comparison with hla's LU benchmark.
#   bench/run_hpl.sh N NB P Q [repeats]
# Runs hpcc (the whole HPC Challenge suite; only its HPL numbers are read) with one BLAS thread per
# rank on P x Q ranks, `repeats` times (default 3), and prints one line per run and the median:
#   hpl n=N nb=NB grid=PxQ gflops=G seconds=T residual=R
set -euo pipefail
n=${1:?N}; nb=${2:?NB}; p=${3:?P}; q=${4:?Q}; reps=${5:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed -e "s/^1000 .*Ns/$n         Ns/" -e "s/^80 .*NBs/$nb          NBs/" \
    -e "s/^2  *Ps/$p            Ps/" -e "s/^2  *Qs/$q            Qs/" \
    /usr/share/doc/hpcc/examples/_hpccinf.txt > "$dir/hpccinf.txt"
gf=()
for r in $(seq "$reps"); do
  (cd "$dir" && rm -f hpccoutf.txt && mpiexec -n $((p * q)) hpcc >/dev/null 2>&1)
  g=$(awk -F= '/^HPL_Tflops=/{printf "%.3f", $2 * 1000}' "$dir/hpccoutf.txt")
  t=$(awk -F= '/^HPL_time=/{print $2}' "$dir/hpccoutf.txt")
  res=$(awk '/N\)=/{print $2}' "$dir/hpccoutf.txt" | head -1)
  echo "hpl n=$n nb=$nb grid=${p}x${q} run=$r gflops=$g seconds=$t residual=$res"
  gf+=("$g")
done
med=$(printf '%s\n' "${gf[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
echo "hpl n=$n nb=$nb grid=${p}x${q} median_gflops=$med"
