#!/usr/bin/env bash
# bench/scaling_16core.sh — hla's scaling runs on one many-core node (written for a 16-core
# node; results in bench/results/history_16core.md).
#
#   bench/scaling_16core.sh PHASE...      phases, in the order given:
#     setup   unpack the .debs of .dev/ (ScaLAPACK and its testers, hpcc, CUnit, and cJSON
#             for an image without it) into $DEPS (never into /),
#             fix their pkg-config files, and build hla (Release, tests on) into $BUILD from
#             .dev/hla-src.tar.gz (a `git archive` of the commit under test) or, without it, from
#             this working tree; with TARGETS="t1 t2 ..." only those targets
#     info    the machine: CPU, memory, MPI, BLAS
#     tests   every tests/test_* binary once under mpiexec -n P for each P in $TEST_NPS (from the
#             smallest P its @procs names; a one-process test alone)
#     probe   hla-plan --probe --save at P = $NP (machine file $MACHINE), and its choices
#     mm      bench_matmul: 1 rank x all cores; P = $NP on each grid of $MM_GRIDS (bound to
#             cores); once unbound; HSUMMA/auto with HLA_VIRTUAL_NODES=$VN; n = $MM_N2 once
#     lu_node bench_lu: LAPACK dgetrf+dgetrs and hla on 1 rank x all cores
#     lu_nb:NB bench_lu at P = $NP, block size NB, each grid of $LU_GRIDS: ScaLAPACK and flat LU
#             bound to cores, hierarchical LU with HLA_VIRTUAL_NODES=$VN
#     lu_more the same on 1 x $NP, and flat LU unbound once
#     hpl     bench/run_hpl.sh with hpcc from $DEPS: every nb of $LU_NBS and grid of $HPL_GRIDS
#     scalapack bench/compare_scalapack.sh at P = $NP: dpb3tim and scalapack_timer with and
#             without libhla_scalapack.so, each n of $SP_NS, nb of $SP_NBS, grid of $SP_GRIDS
#     plan    bench_plan at P = $NP against the machine file of `probe`
#     simcheck the real runs that bench/sim/node_check.sh simulates from the machine file of
#             `probe`: flat LU (n = $SC_N, nb 128) on each grid of $SC_LU_GRIDS with each LU
#             broadcast of $SC_BCASTS (auto: the node's boards too, which SMPI has not; the
#             others only messages) and n = $SC_N2 on the first (SC_N2= skips it), and
#             SUMMA/HSUMMA (n = $SC_N, blocks 64) on each grid of $SC_MM_GRIDS
#
# Everything goes to stdout and to $OUT/log.txt; the tests' full output to $OUT/tests.txt.
# Every step runs under `timeout` so that the whole stays inside $DEADLINE seconds from the start;
# a step whose estimate (seconds) does not fit is skipped and says so. The estimates are the times
# seen on the 16-core node at the default sizes (bench/results/history_16core.md; LU at 2 runs). Sizes and lists come from
# the variables below (defaults for 16 cores); tiny values test the script on a laptop:
#   NP=2 TEST_NPS=2 MM_N=512 MM_N2=768 MM_GRIDS="1x2 2x1" LU_N=768 LU_GRIDS="1x2" \
#     HPL_GRIDS="1x2" VN=2 bench/scaling_16core.sh setup tests probe mm lu_node lu_nb:128 hpl plan
# Ranks at P = $NP get one BLAS thread each (OPENBLAS_NUM_THREADS = OMP_NUM_THREADS =
# HLA_NUM_THREADS = 1); the single-process cases get all cores. Run as root: Open MPI needs
# OMPI_ALLOW_RUN_AS_ROOT, set here.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-/tmp/hla-out}
DEPS=${DEPS:-/tmp/hladeps}
BUILD=${BUILD:-/tmp/b}
SRC=${SRC:-/tmp/hla-src}
DEADLINE=${DEADLINE:-540}
NCORES=${NCORES:-$(nproc)}
NP=${NP:-16}
TEST_NPS=${TEST_NPS:-"16 12"}
VN=${VN:-4}
MM_N=${MM_N:-8192}
MM_N2=${MM_N2:-16384}
MM_GRIDS=${MM_GRIDS:-"4x4 2x8 8x2 1x16"}
MM_VN_GRIDS=${MM_VN_GRIDS:-"4x4 2x8"}
MM_REPS=${MM_REPS:-3}
LU_N=${LU_N:-16384}
LU_NBS=${LU_NBS:-"128 256"}
LU_GRIDS=${LU_GRIDS:-"4x4 2x8"}
LU_WIDE=${LU_WIDE:-1x$NP}
LU_REPS=${LU_REPS:-3}
HPL_GRIDS=${HPL_GRIDS:-"4x4 2x8 1x16"}
HPL_REPS=${HPL_REPS:-2}
PLAN_N=${PLAN_N:-8192}
SP_NS=${SP_NS:-4096,6000}
SP_NBS=${SP_NBS:-64,128,16}
SP_GRIDS=${SP_GRIDS:-4x4,2x8}
SP_ROUNDS=${SP_ROUNDS:-2}
SP_NTIM=${SP_NTIM:-3000}
SP_EST=${SP_EST:-300}
SC_N=${SC_N:-8192}
SC_N2=${SC_N2-16384}
SC_BCASTS=${SC_BCASTS:-"auto binomial"}
SC_LU_GRIDS=${SC_LU_GRIDS:-"4x4 2x8 8x2 1x16"}
SC_MM_GRIDS=${SC_MM_GRIDS-"4x4 2x8"}
MACHINE=${MACHINE:-$OUT/machine.json}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
TEE=$!

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export HLA_MACHINE_FILE=$MACHINE
# P = NP ranks: one BLAS thread each.
ONE="OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 HLA_NUM_THREADS=1"
# One process with all cores.
ALL="OPENBLAS_NUM_THREADS=$NCORES OMP_NUM_THREADS=$NCORES HLA_NUM_THREADS=$NCORES"

# Open MPI counts cores as slots: where the CPUs are hardware threads of fewer cores, bind to those.
TPC=$(lscpu | awk -F: '/^Thread\(s\) per core/{gsub(/ /, "", $2); print $2}')
if [ "${TPC:-1}" -gt 1 ]; then HW=--use-hwthread-cpus BIND=hwthread; else HW="" BIND=core; fi

log() { printf '[%4ds] %s\n' "$SECONDS" "$*"; }

# step EST NAME CMD...: run CMD (through `env` so that VAR=value words work) unless fewer than
# EST seconds are left, killed at the deadline.
step() {
  local est=$1 name=$2
  shift 2
  local left=$((DEADLINE - SECONDS))
  if [ "$left" -lt "$est" ]; then
    log "SKIP $name (needs ~${est}s, ${left}s left)"
    return 0
  fi
  log "== $name: $*"
  local t0=$SECONDS rc=0
  timeout -k 5 $((left - 3)) env "$@" || rc=$?
  log "-- $name: rc=$rc, $((SECONDS - t0))s"
  return 0
}

phase_setup() {
  log "setup"
  if ls .dev/*.deb >/dev/null 2>&1; then
    rm -rf "$DEPS" && mkdir -p "$DEPS"
    for f in .dev/*.deb; do dpkg -x "$f" "$DEPS"; done
    local lib=$DEPS/usr/lib/x86_64-linux-gnu pc
    # Keep the system's own copy of a library where it has one: a .deb of cJSON is there for
    # an image that lacks it (Ubuntu's 'cuda' image has LAPACKE, not cJSON).
    for pc in "$lib"/pkgconfig/*.pc; do
      if PKG_CONFIG_PATH= pkg-config --exists "$(basename "$pc" .pc)"; then
        rm -f "$pc"
      else
        sed -i -E "s|^(prefix\|libdir\|includedir)=/usr|\1=$DEPS/usr|" "$pc"
      fi
    done
    # ScaLAPACK's .pc names /usr and requires mpi/lapack/blas .pc files that Ubuntu may lack
    # (hla links MPI, OpenBLAS and LAPACKE itself).
    printf 'prefix=%s/usr\nlibdir=%s\n\nName: scalapack\nDescription: ScaLAPACK (Debian, unpacked)\nVersion: 2.2.1\nLibs: -L%s -lscalapack-openmpi\nCflags:\n' \
      "$DEPS" "$lib" "$lib" > "$lib/pkgconfig/scalapack-openmpi.pc"
    # The runtime .deb has no unversioned name to link with (that is in the -dev package).
    [ -e "$lib/libscalapack-openmpi.so" ] ||
      ln -sf "$(cd "$lib" && ls libscalapack-openmpi.so.* | head -1)" "$lib/libscalapack-openmpi.so"
    # hpcc and ScaLAPACK need libblas.so.3 / liblapack.so.3: OpenBLAS's where the system has none.
    mkdir -p "$DEPS/blas"
    for l in libblas.so.3 liblapack.so.3; do
      if ! ldconfig -p | grep -q "$l "; then
        ln -sf "$(ldconfig -p | awk '/libopenblas.so.0 /{print $NF; exit}')" "$DEPS/blas/$l"
        log "no $l on this machine: using OpenBLAS's"
      fi
    done
  fi
  if [ -f .dev/hla-src.tar.gz ]; then
    rm -rf "$SRC" && mkdir -p "$SRC" && tar -xzf .dev/hla-src.tar.gz -C "$SRC"
    log "source: .dev/hla-src.tar.gz, commit $(cat .dev/hla-src.commit 2>/dev/null)"
  else
    SRC=$ROOT
    log "source: working tree $ROOT ($(git rev-parse --short HEAD 2>/dev/null) + local changes)"
  fi
  rm -f "$BUILD/CMakeCache.txt" # pkg-config's answers of an earlier setup are cached there
  cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.txt" 2>&1 ||
    { cat "$OUT/cmake.txt"; log "cmake failed"; return 1; }
  grep -iE "scalapack|cunit|skipping|openblas" "$OUT/cmake.txt"
  # shellcheck disable=SC2086
  cmake --build "$BUILD" -j"$NCORES" ${TARGETS:+--target $TARGETS} >> "$OUT/cmake.txt" 2>&1 ||
    { tail -40 "$OUT/cmake.txt"; log "build failed"; return 1; }
  log "built: $(cd "$BUILD" && ls bench_* hla-plan test_* scalapack_timer libhla_scalapack.so 2>/dev/null | tr '\n' ' ')"
}

phase_info() {
  log "info"
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(|MHz|L2|L3|Flags" |
    sed 's/^\(Flags:\).*\(avx512f\).*/\1 ... avx512f .../'
  free -g | head -2
  mpiexec --version | head -1
  ldconfig -p | grep -E "libopenblas|libblas.so.3|liblapack.so.3" | head -6
  readlink -f "$(ldconfig -p | awk '/libblas.so.3 /{print $NF; exit}')"
  uname -r
  echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  cat /etc/os-release | grep PRETTY
  ldd "$BUILD/bench_lu" | grep -E "scalapack|blas|lapack|mpi.so" || true
  ldd "$DEPS/usr/bin/hpcc" | grep -E "not found|blas" || true
  log "P = $NP bound: mpiexec $HW --bind-to $BIND"
  mpiexec $HW -n "$NP" --bind-to "$BIND" --report-bindings true 2>&1 | head -"$NP"
}

phase_tests() {
  log "tests"
  local t np rc t0 envs procs fails=0
  for np in $TEST_NPS; do
    for t in "$BUILD"/test_*; do
      local name
      name=$(basename "$t")
      envs=$(grep -ho "@env [A-Za-z_0-9]*=[^ ]*" "$SRC/tests/$name.c" | sed 's/@env //' | tr '\n' ' ')
      # from the smallest process count its @procs names (a one-process test only alone)
      read -r -a procs <<<"$(grep -ho "@procs [0-9 ]*" "$SRC/tests/$name.c" | sed 's/@procs //')"
      if [ "${#procs[@]}" -gt 0 ] && { [ "$np" -lt "${procs[0]}" ] ||
        { [ "${procs[-1]}" -eq 1 ] && [ "$np" -gt 1 ]; }; }; then
        continue
      fi
      # the fault injection's leak check needs its suppressions (CMakeLists.txt: fault_env)
      [ "$name" = test_fault_alloc ] && envs="$envs OMPI_MCA_mpi_yield_when_idle=1 LSAN_OPTIONS=suppressions=$SRC/tests/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
      t0=$SECONDS
      rc=0
      echo "===== $name np=$np $envs" >> "$OUT/tests.txt"
      # As CTest runs them (CMakeLists.txt: HLA_RUN_ENV, --oversubscribe --bind-to none).
      # shellcheck disable=SC2086
      timeout -k 5 60 env OMPI_MCA_rmaps_base_oversubscribe=1 $ONE HLA_PLAN=off $envs \
        mpiexec $HW -n "$np" --oversubscribe --bind-to none "$t" >> "$OUT/tests.txt" 2>&1 || rc=$?
      if [ $rc -eq 0 ]; then
        log "TEST $name np=$np: PASS ($((SECONDS - t0))s) $envs"
      else
        fails=$((fails + 1))
        log "TEST $name np=$np: FAIL rc=$rc ($((SECONDS - t0))s) $envs"
      fi
      if [ $((DEADLINE - SECONDS)) -lt 60 ]; then log "tests: out of time"; return 0; fi
    done
  done
  log "tests: $fails failure(s)"
}

phase_probe() {
  log "probe (machine file $MACHINE)"
  step 90 probe $ONE mpiexec $HW -n "$NP" --bind-to none "$BUILD/hla-plan" --probe --save \
    --machine "$MACHINE" --op mm --n "$MM_N" --top 6
  step 30 plan-lu $ONE mpiexec $HW -n "$NP" --bind-to none "$BUILD/hla-plan" --machine "$MACHINE" \
    --op lu --n "$LU_N" --top 6
}

phase_mm() {
  log "mm"
  local g
  step 70 "mm 1 rank x $NCORES threads n=$MM_N" $ALL mpiexec -n 1 --bind-to none \
    "$BUILD/bench_matmul" --n "$MM_N" --grid 1x1 --reps "$MM_REPS"
  for g in $MM_GRIDS; do
    step 90 "mm P=$NP $g core n=$MM_N" $ONE mpiexec $HW -n "$NP" --bind-to $BIND \
      "$BUILD/bench_matmul" --n "$MM_N" --grid "$g" --reps "$MM_REPS" --no-node
  done
  g=${MM_GRIDS%% *}
  step 100 "mm P=$NP $g unbound n=$MM_N" $ONE mpiexec $HW -n "$NP" --bind-to none \
    "$BUILD/bench_matmul" --n "$MM_N" --grid "$g" --reps "$MM_REPS"
  for g in $MM_VN_GRIDS; do
    step 70 "mm P=$NP $g core VN=$VN n=$MM_N" $ONE HLA_VIRTUAL_NODES=$VN mpiexec $HW -n "$NP" \
      --bind-to $BIND "$BUILD/bench_matmul" --n "$MM_N" --grid "$g" --reps "$MM_REPS" \
      --no-node --no-pdgemm
  done
  g=${MM_GRIDS%% *}
  step 300 "mm P=$NP $g unbound n=$MM_N2" $ONE mpiexec $HW -n "$NP" --bind-to none \
    "$BUILD/bench_matmul" --n "$MM_N2" --grid "$g" --reps 1 --no-check
}

lu_case() { # grid nb [extra label]
  step 55 "lu P=$NP $1 nb=$2 core (scalapack, flat)" $ONE mpiexec $HW -n "$NP" --bind-to $BIND \
    "$BUILD/bench_lu" --n "$LU_N" --grid "$1" --nb "$2" --reps "$LU_REPS" \
    --only scalapack,hla-flat
  step 25 "lu P=$NP $1 nb=$2 core VN=$VN (hier)" $ONE HLA_VIRTUAL_NODES=$VN mpiexec $HW -n "$NP" \
    --bind-to $BIND "$BUILD/bench_lu" --n "$LU_N" --grid "$1" --nb "$2" --reps "$LU_REPS" \
    --only hla-hier
}

phase_lu_node() {
  log "lu: one process"
  step 50 "lu 1 rank x $NCORES threads" $ALL mpiexec -n 1 --bind-to none "$BUILD/bench_lu" \
    --n "$LU_N" --grid 1x1 --nb "${LU_NBS%% *}" --reps "$LU_REPS" --only lapack,hla-flat
}

phase_lu_nb() { # nb: every grid of LU_GRIDS
  log "lu: nb = $1"
  local g
  for g in $LU_GRIDS; do lu_case "$g" "$1"; done
}

phase_lu_more() {
  log "lu: 1 x $NP and unbound"
  local nb0=${LU_NBS%% *}
  lu_case "$LU_WIDE" "$nb0"
  step 25 "lu P=$NP ${LU_GRIDS%% *} nb=$nb0 unbound (flat)" $ONE mpiexec $HW -n "$NP" \
    --bind-to none "$BUILD/bench_lu" --n "$LU_N" --grid "${LU_GRIDS%% *}" --nb "$nb0" \
    --reps "$LU_REPS" --only hla-flat
}

phase_hpl() {
  log "hpl"
  local ps="" qs="" g
  for g in $HPL_GRIDS; do ps+=${ps:+,}${g%x*}; qs+=${qs:+,}${g#*x}; done
  local hpcc=$DEPS/usr/bin/hpcc inf=$DEPS/usr/share/doc/hpcc/examples/_hpccinf.txt
  [ -x "$hpcc" ] || hpcc=hpcc
  [ -f "$inf" ] || inf=/usr/share/doc/hpcc/examples/_hpccinf.txt
  step 120 "hpl n=$LU_N nb=${LU_NBS// /,} grids=$HPL_GRIDS" $ONE HPCC="$hpcc" HPCC_INF="$inf" \
    HPCC_MEM_MB=256 HPL_INLINE=1 MPIEXEC_FLAGS="$HW --bind-to $BIND" \
    bench/run_hpl.sh "$LU_N" "${LU_NBS// /,}" "$ps" "$qs" "$HPL_REPS"
}

phase_scalapack() {
  log "scalapack: unchanged ScaLAPACK programs with and without libhla_scalapack.so"
  local tim=$DEPS/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/PBLAS/TIMING/dpb3tim
  [ -x "$tim" ] || tim=/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/PBLAS/TIMING/dpb3tim
  step "$SP_EST" "compare_scalapack P=$NP n=$SP_NS nb=$SP_NBS grids=$SP_GRIDS" BUILD="$BUILD" \
    DPB3TIM="$tim" MPIEXEC_FLAGS="$HW --bind-to $BIND" \
    bench/compare_scalapack.sh "$SP_NS" "$SP_NBS" "$SP_GRIDS" "$SP_ROUNDS" "$SP_NTIM"
}

phase_plan() {
  log "plan"
  step 90 "bench_plan n=$PLAN_N" $ONE mpiexec $HW -n "$NP" --bind-to none "$BUILD/bench_plan" \
    --machine "$MACHINE" --n "$PLAN_N" --op mm,lu --top 2 --max 4 --reps 2 --warm 1
}

phase_simcheck() {
  log "simcheck: the runs bench/sim/node_check.sh simulates"
  local g bc
  for bc in $SC_BCASTS; do
    for g in $SC_LU_GRIDS; do
      step 20 "lu P=$NP $g nb=128 core n=$SC_N bcast=$bc (flat)" $ONE mpiexec $HW -n "$NP" \
        --bind-to $BIND "$BUILD/bench_lu" --n "$SC_N" --grid "$g" --nb 128 --reps 3 \
        --only hla-flat --bcast "$bc"
    done
  done
  g=${SC_LU_GRIDS%% *}
  [ -z "$SC_N2" ] || step 60 "lu P=$NP $g nb=128 core n=$SC_N2 (flat)" $ONE mpiexec $HW -n "$NP" \
    --bind-to $BIND "$BUILD/bench_lu" --n "$SC_N2" --grid "$g" --nb 128 --reps 2 --only hla-flat
  for g in $SC_MM_GRIDS; do
    step 60 "mm P=$NP $g core n=$SC_N" $ONE mpiexec $HW -n "$NP" --bind-to $BIND \
      "$BUILD/bench_matmul" --n "$SC_N" --grid "$g" --reps 3 --no-node --no-pdgemm --no-check
  done
}

log "scaling_16core.sh $* (NP=$NP, cores=$NCORES, deadline ${DEADLINE}s, out $OUT)"
export PKG_CONFIG_PATH=$DEPS/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$DEPS/usr/lib/x86_64-linux-gnu:$DEPS/blas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -f .dev/hla-src.tar.gz ] || SRC=$ROOT
for ph in "$@"; do
  case $ph in
    setup) phase_setup || { log "setup failed: stopping"; exit 1; } ;;
    info | tests | probe | mm | lu_node | lu_more | hpl | scalapack | plan | simcheck) "phase_$ph" ;;
    lu_nb:*) phase_lu_nb "${ph#lu_nb:}" ;;
    *) log "unknown phase $ph" ;;
  esac
done
log "done"
exec >&- 2>&-
wait "$TEE" 2>/dev/null
