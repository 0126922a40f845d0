#!/usr/bin/env bash
# One of ScaLAPACK's own testers (Debian's scalapack-mpi-test) run twice on one input file: with
# ScaLAPACK alone, and under LD_PRELOAD of libhla_scalapack.so, whose report must show that hla
# took the calls. Fails unless, with hla, every test PASSED, none FAILED, none was skipped that
# ScaLAPACK itself runs, nothing else went wrong (memory overwrites, error-exit checks, residual
# messages), and each routine named had calls.
#
#   tests/scalapack/run_tester.sh TESTER DATFILE LIB ROUTINES [--only NAME] -- MPIEXEC [ARGS...]
#
# TESTER: xdlu (input LU.dat) or PBLAS/dpb3tst (input PDBLAS3TST.dat), by path. DATFILE: the
# input, copied into a temporary directory under the name the tester reads; --only NAME keeps only
# routine NAME switched on in a PBLAS input (the list at its end). The process count is the
# largest P x Q of the grids the input asks for. LIB: the built libhla_scalapack.so. ROUTINES:
# the routines hla must have taken calls of, comma-separated (PDGETRF,PDGETRS); NAME:K[:T] also
# asks that K of NAME's calls ran in place and T on the grid's transpose (the report's counts).
# MPIEXEC and its arguments: how to start the tester (the -n flag and the count are added).
set -uo pipefail
[ $# -ge 6 ] || { echo "usage: $0 TESTER DATFILE LIB ROUTINES [--only NAME] -- MPIEXEC [ARGS...]" >&2; exit 2; }
tester=$1 dat=$2 lib=$3 routines=$4
shift 4
only=""
if [ "$1" = --only ]; then only=$2; shift 2; fi
[ "$1" = -- ] || { echo "run_tester: expected -- before the MPI launcher" >&2; exit 2; }
shift
launcher=("$@")
for f in "$tester" "$dat" "$lib"; do [ -e "$f" ] || { echo "run_tester: no $f" >&2; exit 2; }; done
tester=$(realpath "$tester") lib=$(realpath "$lib") # the runs start in a temporary directory

case $(basename "$tester") in
  xdlu) input=LU.dat kind=lu ;;
  dpb3tst) input=PDBLAS3TST.dat kind=pblas ;;
  *) echo "run_tester: unknown tester $tester" >&2; exit 2 ;;
esac
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if [ -n "$only" ]; then # the routines' flags are the last lines: "PDGEMM  T ..."
  awk -v only="$only" '$1 ~ /^P[SDCZ][A-Z0-9]+$/ && ($2 == "T" || $2 == "F") {
      $2 = ($1 == only) ? "T" : "F" } { print }' "$dat" > "$tmp/$input"
else
  cp "$dat" "$tmp/$input"
fi

# The process count: the largest P x Q among the grids the input uses.
np=$(awk '/number of process grids/ { n = $1; getline; split($0, p); getline; split($0, q)
            for (i = 1; i <= n; i++) if (p[i] * q[i] > best) best = p[i] * q[i]
            print best; exit }' "$tmp/$input")
[ -n "$np" ] && [ "$np" -ge 1 ] || { echo "run_tester: no process grids in $dat" >&2; exit 2; }

# run NAME [LAUNCHER ARGS...]: the tester in $tmp, output in $tmp/NAME.out, seconds in
# $tmp/NAME.sec.
run() {
  local name=$1 t0 t1 rc
  shift
  t0=$(date +%s.%N)
  (cd "$tmp" && "${launcher[@]}" "$@" -n "$np" "$tester" > "$tmp/$name.out" 2>&1)
  rc=$?
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }' > "$tmp/$name.sec"
  return $rc
}

fail=0
bad() { echo "run_tester: FAIL: $*"; fail=1; }

# The library goes into the ranks only, not into the launcher: Open MPI's -x, MPICH's -genv.
if "${launcher[0]}" --version 2>&1 | grep -q -E "Open MPI|OpenRTE"; then
  preload=(-x "LD_PRELOAD=$lib" -x HLA_SCALAPACK_REPORT=1)
else
  preload=(-genv LD_PRELOAD "$lib" -genv HLA_SCALAPACK_REPORT 1)
fi
run scalapack || bad "ScaLAPACK alone exited with an error"
run hla "${preload[@]}" || bad "the run under hla exited with an error"

# counts FILE: "total passed failed skipped" as the tester summarised them.
counts() {
  if [ $kind = lu ]; then
    awk '/^Finished/ { t = $2 } / tests completed and passed/ { p = $1 }
         / tests completed and failed/ { f = $1 } / tests skipped/ { s = $1 }
         END { print t + 0, p + 0, f + 0, s + 0 }' "$1"
  else # the summary's rows of the routines switched on: "|  PDGEMM  16  16  0  0"
    awk '$1 == "|" && NF == 6 { t += $3; p += $4; f += $5; s += $6 } END { print t + 0, p + 0, f + 0, s + 0 }' "$1"
  fi
}
read -r bt bp bf bs < <(counts "$tmp/scalapack.out")
read -r ht hp hf hs < <(counts "$tmp/hla.out")
[ "$ht" -gt 0 ] || bad "no test ran under hla"
[ "$ht" -eq "$bt" ] || bad "$ht tests under hla, $bt with ScaLAPACK alone"
[ "$hp" -eq "$ht" ] || bad "$hp of $ht tests PASSED under hla"
[ "$hf" -eq 0 ] || bad "$hf tests FAILED under hla"
[ "$hs" -le "$bs" ] || bad "$hs tests skipped under hla, $bs with ScaLAPACK alone"
# anything else the testers say only when something is wrong (the summary's header aside)
if grep -n -E "FAILED|ERROR|overwrite|INFO=|\|\|Ax-b\|\|/|\|\|A - P\*L\*U\|\||Bad |ILLEGAL|Unable|not supported|hla_scalapack: P" \
  "$tmp/hla.out" | grep -v -E "SUBROUTINE +TOTAL TESTS" > "$tmp/wrong"; then
  bad "the output under hla says:"; head -20 "$tmp/wrong"
fi
if [ $kind = pblas ] && [ "$(awk '/to test error exits/ { print $1; exit }' "$tmp/$input")" = T ] &&
  ! grep -q "Error-exit tests completed" "$tmp/hla.out"; then
  bad "the error-exit tests did not complete"
fi

# the report: hla took calls of every routine named
report=$(grep "^hla_scalapack P" "$tmp/hla.out")
[ -n "$report" ] || bad "no HLA_SCALAPACK_REPORT in the output (was the library preloaded?)"
for item in ${routines//,/ }; do
  r=${item%%:*}
  calls=$(awk -v r="$r" '$1 == "hla_scalapack" && $2 == r { print $4 }' <<< "$report")
  [ "${calls:-0}" -gt 0 ] || bad "hla took no call of $r"
  if [ "$item" != "$r" ]; then # NAME:K:T: K of its calls ran in place, T on the transpose
    IFS=: read -r _ want_k want_t <<< "$item"
    read -r got_k got_t < <(awk -v r="$r" '$1 == "hla_scalapack" && $2 == r { print $6, $10 }' <<< "$report")
    [ "${got_k:-x}" = "$want_k" ] || bad "$r ran ${got_k:-?} calls in place, not $want_k"
    [ -z "$want_t" ] || [ "${got_t:-x}" = "$want_t" ] ||
      bad "$r ran ${got_t:-?} calls on the grid's transpose, not $want_t"
  fi
done

echo "run_tester: $(basename "$tester") on $(basename "$dat")${only:+ ($only only)}, $np processes:" \
  "hla $hp of $ht PASSED, $hf FAILED, $hs skipped (ScaLAPACK alone: $bp of $bt, $bf, $bs);" \
  "$(cat "$tmp/hla.sec") s under hla, $(cat "$tmp/scalapack.sec") s alone"
sed 's/^/  /' <<< "$report"
if [ $fail -ne 0 ]; then
  echo "---- output under hla (last 60 lines) ----"
  tail -60 "$tmp/hla.out"
  exit 1
fi
