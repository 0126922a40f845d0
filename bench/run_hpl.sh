#!/usr/bin/env bash
# HPL through Debian's hpcc, for side-by-side comparison with hla's LU benchmark.
#   bench/run_hpl.sh N NB P Q [repeats]
# Runs hpcc (the whole HPC Challenge suite; only its HPL numbers are read) with one BLAS thread per
# rank on P x Q ranks, `repeats` times (default 3), and prints one line per run and the median:
#   hpl n=N nb=NB grid=PxQ gflops=G seconds=T residual=R
#
# N and NB may be comma lists, and P and Q comma lists of the same length (paired: grids P1xQ1,
# P2xQ2, ...): HPL then runs every N x NB x grid in one hpcc run, and the lines above come per
# configuration. GFLOP/s and seconds are HPL's (seconds recomputed from its GFLOP/s and HPL's
# flop count, for more digits than its table prints). Optional environment:
#   HPCC=path            the hpcc binary (default: hpcc on PATH)
#   HPCC_INF=path        the input template (default: Debian's _hpccinf.txt)
#   HPCC_MEM_MB=M        write hpccmemf.txt "Total=M": the other HPCC tests (RandomAccess, STREAM,
#                        FFT, PTRANS, DGEMM) then size themselves by M MiB instead of by HPL's N,
#                        which keeps them short; HPL itself is unaffected
#   HPL_INLINE=1         make the repeats inside one hpcc run (each N listed `repeats` times)
#                        instead of one hpcc run per repeat (saves the other tests' time)
#   MPIEXEC_FLAGS="..."  extra mpiexec flags (e.g. --bind-to core)
set -euo pipefail
n=${1:?N}; nb=${2:?NB}; p=${3:?P}; q=${4:?Q}; reps=${5:-3}
hpcc=${HPCC:-hpcc}
inf=${HPCC_INF:-/usr/share/doc/hpcc/examples/_hpccinf.txt}
# hpcc allocates with malloc: it gets huge pages only under THP "always" (hla asks for them)
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || true)
echo "# transparent huge pages: ${thp:-unknown}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
IFS=, read -r -a ns <<<"$n"
IFS=, read -r -a nbs <<<"$nb"
IFS=, read -r -a ps <<<"$p"
IFS=, read -r -a qs <<<"$q"
if [ "${#ps[@]}" -ne "${#qs[@]}" ]; then
  echo "run_hpl.sh: P and Q lists differ in length" >&2
  exit 2
fi
np=0
for i in "${!ps[@]}"; do
  k=$((ps[i] * qs[i]))
  if [ "$np" -ne 0 ] && [ "$k" -ne "$np" ]; then
    echo "run_hpl.sh: all grids must have the same number of ranks" >&2
    exit 2
  fi
  np=$k
done
runs=$reps; inl=1
if [ "${HPL_INLINE:-0}" = 1 ]; then runs=1; inl=$reps; fi
nlist=()
for r in $(seq "$inl"); do nlist+=("${ns[@]}"); done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed -e "s/^1 .*# of problems sizes (N)/${#nlist[@]}            # of problems sizes (N)/" \
    -e "s/^1000 .*Ns/${nlist[*]}         Ns/" \
    -e "s/^1 .*# of NBs/${#nbs[@]}            # of NBs/" -e "s/^80 .*NBs/${nbs[*]}          NBs/" \
    -e "s/^1 .*# of process grids (P x Q)/${#ps[@]}            # of process grids (P x Q)/" \
    -e "s/^2  *Ps/${ps[*]}            Ps/" -e "s/^2  *Qs/${qs[*]}            Qs/" \
    "$inf" > "$dir/hpccinf.txt"
if [ -n "${HPCC_MEM_MB:-}" ]; then echo "Total=$HPCC_MEM_MB" > "$dir/hpccmemf.txt"; fi
# One line per HPL test: N NB P Q gflops residual (the residual line follows its WR line).
: > "$dir/all.txt"
for r in $(seq "$runs"); do
  # shellcheck disable=SC2086
  (cd "$dir" && rm -f hpccoutf.txt && mpiexec -n "$np" ${MPIEXEC_FLAGS:-} "$hpcc" >/dev/null 2>&1)
  awk '/^W[RC][0-9A-Z]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ /{w=$2" "$3" "$4" "$5" "$7; next}
       w != "" && /N\)=/{print w, $2; w=""}' "$dir/hpccoutf.txt" >> "$dir/all.txt"
done
# Per configuration, in the order HPL ran them: one line per run, then the median.
awk '{k=$1" "$2" "$3" "$4; if (!(k in c)) ord[++nk]=k; c[k]++;
      n=$1; f=2.0/3.0*n*n*n+1.5*n*n;
      printf "hpl n=%d nb=%d grid=%dx%d run=%d gflops=%.3f seconds=%.4f residual=%s\n",
             $1, $2, $3, $4, c[k], $5, f/($5*1e9), $6;
      g[k]=g[k]" "$5}
     END{for (i=1; i<=nk; i++) {k=ord[i]; m=split(substr(g[k],2), v, " ");
           for (a=1; a<=m; a++) for (b=a+1; b<=m; b++) if (v[b]+0 < v[a]+0) {t=v[a]; v[a]=v[b]; v[b]=t}
           split(k, x, " ");
           printf "hpl n=%d nb=%d grid=%dx%d median_gflops=%.3f\n", x[1], x[2], x[3], x[4],
                  v[int((m+1)/2)]}}' "$dir/all.txt"
