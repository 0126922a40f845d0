#!/usr/bin/env bash
# The layer check, scripts/check_layers.sh: the real tree passes, and violations planted in
# temporary copies of it (never in the tree itself) are each caught at their file:line.
#   tests/check_layers_test.sh SOURCE_DIR BUILD_DIR MPICC      (BUILD_DIR: hla built there)
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 SOURCE_DIR BUILD_DIR MPICC" >&2; exit 2; }
src=$(cd "$1" && pwd) || exit 2
build=$2 mpicc=$3
check=$src/scripts/check_layers.sh
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; [ -z "${2:-}" ] || sed 's/^/    /' <<< "$2"; fail=$((fail + 1)); }

# copy NAME: a copy of src/ and include/ in $tmp/NAME.
copy() { mkdir -p "$tmp/$1" && cp -rp "$src/src" "$src/include" "$tmp/$1/"; }

# expect NAME WANT ARGS...: scripts/check_layers.sh ARGS exits 1 with a line that starts with WANT.
expect() {
  local name=$1 want=$2 out rc
  shift 2
  out=$("$check" "$@" 2>&1); rc=$?
  if [ $rc -eq 1 ] && [[ $'\n'$out == *$'\n'"$want"* ]]; then ok "$name"
  else ko "$name (exit $rc, wanted a line starting with: $want)" "$out"; fi
}

# plant NAME FILE: FILE (relative to the copy NAME, C text on stdin) compiled into $tmp/NAME.o/.
plant() {
  local o=$tmp/$1.o/$2.o
  mkdir -p "$(dirname "$tmp/$1/$2")" "$(dirname "$o")"
  cat > "$tmp/$1/$2"
  "$mpicc" -c -Wall -DHLA_BUILDING -I"$tmp/$1/include" -I"$tmp/$1/src" "$tmp/$1/$2" -o "$o" 2>&1
}

# (1) the real tree
out=$("$check" "$src" "$build" 2>&1); rc=$?
if [ $rc -eq 0 ]; then ok "the tree follows the layers: $out"; else ko "the tree follows the layers" "$out"; fi

# (2) plan including lu's private header
copy inc_plan_lu
sed -i '1i #include "dist/lu/lu_impl.h"' "$tmp/inc_plan_lu/src/dist/plan/model.c"
expect "plan/model.c including dist/lu/lu_impl.h" \
  "src/dist/plan/model.c:1: plan must not include dist/lu/lu_impl.h (lu)" "$tmp/inc_plan_lu"

# (3) MPI in kernels
copy inc_kernels_mpi
ks=("$src"/src/kernels/*.c); k=src/kernels/${ks[0]##*/}
sed -i '1i #include <mpi.h>' "$tmp/inc_kernels_mpi/$k"
expect "$k including <mpi.h>" "$k:1: kernels must not include <mpi.h> (" "$tmp/inc_kernels_mpi"

# (4) a public header including a private one
copy inc_public_private
sed -i '1i #include "hla_private.h"' "$tmp/inc_public_private/include/hla/ops.h"
expect "include/hla/ops.h including hla_private.h" \
  "include/hla/ops.h:1: public must not include hla_private.h (base)" "$tmp/inc_public_private"

# (5) a folder in no layer
copy unclassified
mkdir -p "$tmp/unclassified/src/dist/annex" && echo 'int annex_x;' > "$tmp/unclassified/src/dist/annex/x.c"
expect "a new folder src/dist/annex/" "src/dist/annex/x.c: in no layer" "$tmp/unclassified"

# (6) plan calling lu (through the public header)
copy call_plan_lu
if cc_out=$(plant call_plan_lu src/dist/plan/planted.c <<'EOF'
/* planted by tests/check_layers_test.sh: the plan layer calling into lu */
#include "hla/ops.h"

int planted_plan_calls_lu(hmat A, int64_t *ipiv);
int planted_plan_calls_lu(hmat A, int64_t *ipiv) {
  return hlu_factor(A, ipiv, NULL);
}
EOF
); then
  expect "plan/planted.c calling hlu_factor" "src/dist/plan/planted.c:6: plan must not call hlu_factor (lu: " \
    --objects "$tmp/call_plan_lu.o" "$tmp/call_plan_lu" "$build"
else ko "plan/planted.c calling hlu_factor (does not compile)" "$cc_out"; fi

# (7) lu calling matmul's internals
copy call_lu_matmul
if cc_out=$(plant call_lu_matmul src/dist/lu/planted.c <<'EOF'
/* planted by tests/check_layers_test.sh: lu reaching into matmul's internals */
#include "dist/matmul/matmul_impl.h"

int planted_lu_calls_matmul(const mm_ctx *x);
int planted_lu_calls_matmul(const mm_ctx *x) {
  return mm_summa(x);
}
EOF
); then
  expect "lu/planted.c calling mm_summa" "src/dist/lu/planted.c:6: lu must not call mm_summa (matmul: " \
    --objects "$tmp/call_lu_matmul.o" "$tmp/call_lu_matmul" "$build"
else ko "lu/planted.c calling mm_summa (does not compile)" "$cc_out"; fi

# (8) the top of hla reaching into libhla_scalapack, which nothing may use
copy inc_top_scalapack
sed -i '1i #include "scalapack/scalapack_impl.h"' "$tmp/inc_top_scalapack/src/dist/calibrate.c"
expect "dist/calibrate.c including scalapack/scalapack_impl.h" \
  "src/dist/calibrate.c:1: top must not include scalapack/scalapack_impl.h (scalapack)" \
  "$tmp/inc_top_scalapack"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
