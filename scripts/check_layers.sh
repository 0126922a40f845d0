#!/usr/bin/env bash
# The layering arrows of hla, checked on the #include lines of src/ and include/ and on the calls
# between the library's objects (nm on the CMake object library hla_obj, and on libhla_scalapack's
# own objects where they were built).
#
#   scripts/check_layers.sh [--objects DIR]... SOURCE_DIR [BUILD_DIR]
#
# Without BUILD_DIR (and no --objects) only the includes are checked. --objects DIR adds the
# objects under DIR, laid out like BUILD_DIR/CMakeFiles/hla_obj.dir: DIR/src/x/y.c.o is compiled
# from SOURCE_DIR/src/x/y.c. Prints each violation as file:line and the rule it breaks and exits 1;
# on a clean tree prints one summary line and exits 0 (2: usage error, nothing built).
#
# "Use" = include a project header from, or call/reference a global symbol defined in. A layer
# always uses itself; "*" uses every layer. scalapack (libhla_scalapack, src/scalapack) sits on
# top of everything and no other layer may use it: no row but its own names it. Every .c/.h under src/ and include/ must belong to a layer; the first row
# that matches a file wins. Files: "dir/" = everything below dir; otherwise a glob matched within
# its own folder (src/dist/*.h: the headers directly in src/dist, not those of its subfolders).
LAYERS='
# layer    | files                                | may use
public     | include/hla.h include/hla/*.h        | public
base       | src/*.c src/*.h                      | public
kernels    | src/kernels/                         | public base
bsp        | src/bsp/                             | public base
dist-base  | src/dist/*.h                         | public base
plan       | src/dist/plan/                       | public base bsp kernels dist-base
layout     | src/dist/layout/                     | public base bsp kernels dist-base plan
matmul     | src/dist/matmul/                     | public base bsp kernels dist-base plan layout
lu         | src/dist/lu/                         | public base bsp kernels dist-base plan layout
top        | src/dist/*.c                         | public base kernels bsp dist-base plan layout matmul lu
scalapack  | src/scalapack/                       | *
'
# Further rules for some files, on top of their layer's. Headers: as written (<mpi.h>) or by the
# folder they resolve under (src/bsp/). Symbols: an extended regex on the undefined symbols.
PURE='
# rule              | files                                           | must not include                      | must not reference
no MPI in kernels   | src/kernels/                                    | <mpi.h> "mpi.h"                       | ^(MPI|PMPI|ompi)_
pure part of plan   | src/dist/plan/model.c src/dist/plan/model_mm.c src/dist/plan/model_lu.c src/dist/plan/planner.c src/dist/plan/relabel.c src/dist/plan/machine_file.c | <mpi.h> "mpi.h" src/bsp/ src/kernels/ | ^(MPI|PMPI|ompi|hbsp|hkern)_
'
set -uo pipefail

usage() { echo "usage: $0 [--objects DIR]... SOURCE_DIR [BUILD_DIR]" >&2; exit 2; }
objdirs=() args=()
while [ $# -gt 0 ]; do
  case $1 in
    --objects) [ $# -ge 2 ] || usage; objdirs+=("$2"); shift 2 ;;
    --objects=*) objdirs+=("${1#--objects=}"); shift ;;
    -h|--help) usage ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ ${#args[@]} -lt 1 ] || [ ${#args[@]} -gt 2 ]; then usage; fi
src=$(cd "${args[0]}" 2>/dev/null && pwd) || { echo "check_layers: no folder ${args[0]}" >&2; exit 2; }
if [ ${#args[@]} -eq 2 ]; then
  objdirs=("${args[1]}/CMakeFiles/hla_obj.dir" "${objdirs[@]}")
  [ -d "${objdirs[0]}" ] || { echo "check_layers: no ${objdirs[0]} (build hla first)" >&2; exit 2; }
  # the element files' single-precision copies (src/prec.h), laid out as hla_obj's
  [ -d "${args[1]}/CMakeFiles/hla_single_obj.dir" ] && objdirs+=("${args[1]}/CMakeFiles/hla_single_obj.dir")
  # libhla_scalapack's own objects (the library links hla_obj's besides), where it was built
  [ -d "${args[1]}/CMakeFiles/hla_scalapack.dir" ] && objdirs+=("${args[1]}/CMakeFiles/hla_scalapack.dir")
fi

# ---------------------------------------------------------------- the tables, parsed
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; printf '%s' "${s%"${s##*[![:space:]]}"}"; }
L_name=() L_files=() L_uses=()
while IFS='|' read -r n f u; do
  n=$(trim "$n"); [ -z "$n" ] || [ "${n:0:1}" = "#" ] && continue
  L_name+=("$n") L_files+=("$(trim "$f")") L_uses+=("$(trim "$u")")
done <<< "$LAYERS"
P_name=() P_files=() P_incl=() P_sym=()
while IFS='|' read -r n f i s; do
  n=$(trim "$n"); [ -z "$n" ] || [ "${n:0:1}" = "#" ] && continue
  P_name+=("$n") P_files+=("$(trim "$f")") P_incl+=("$(trim "$i")") P_sym+=("$(trim "$s")")
done <<< "$PURE"

# in_files PATH PATTERN...: whether PATH (relative to SOURCE_DIR) is one of the files.
in_files() {
  local path=$1 pat; shift
  for pat in "$@"; do
    # shellcheck disable=SC2053  # the file name part is a glob
    case $pat in
      */) [[ $path == "$pat"* ]] && return 0 ;;
      *) [[ ${path%/*} == "${pat%/*}" && ${path##*/} == ${pat##*/} ]] && return 0 ;;
    esac
  done
  return 1
}
declare -A layer_cache
# layer_of PATH: sets $layer to PATH's layer ("" if none).
layer_of() {
  local i
  if [ -z "${layer_cache[$1]+x}" ]; then
    layer_cache[$1]=""
    for i in "${!L_name[@]}"; do
      # shellcheck disable=SC2086  # the file patterns are words
      if in_files "$1" ${L_files[$i]}; then layer_cache[$1]=${L_name[$i]}; break; fi
    done
  fi
  layer=${layer_cache[$1]}
}
may_use() { # may_use FROM TO
  local i
  [ "$1" = "$2" ] && return 0
  for i in "${!L_name[@]}"; do
    [ "${L_name[$i]}" = "$1" ] || continue
    [[ " ${L_uses[$i]} " == *" $2 "* || ${L_uses[$i]} == "*" ]]; return
  done
  return 1
}

nviol=0
report() { echo "$1"; nviol=$((nviol + 1)); }

# ---------------------------------------------------------------- every file in a layer
mapfile -t files < <(cd "$src" && find src include -type f -name '*.[ch]' | LC_ALL=C sort)
for f in "${files[@]}"; do
  layer_of "$f"
  [ -n "$layer" ] || report "$f: in no layer (add its folder to the table in scripts/check_layers.sh)"
done

# ---------------------------------------------------------------- includes
# resolve FILE NAME: sets $resolved to where the quoted include NAME of FILE is found, the way the
# compiler looks (FILE's folder, then include/, then src/), relative to SOURCE_DIR ("" if not).
resolve() {
  local d r
  resolved=""
  for d in "${1%/*}" include src; do
    if [ -f "$src/$d/$2" ]; then
      r="$d/$2"
      [[ $r == *./* ]] && r=$(realpath -m --relative-to="$src" "$src/$r")
      [[ $r == ../* ]] || resolved=$r
      return
    fi
  done
}
nincl=0
while IFS=$'\t' read -r f line inc; do
  nincl=$((nincl + 1))
  layer_of "$f"; from=$layer
  [ -n "$from" ] || continue
  resolved=""
  if [ "${inc:0:1}" = '"' ]; then
    resolve "$f" "${inc:1:${#inc}-2}"
    if [ -z "$resolved" ]; then
      report "$f:$line: includes $inc, found neither beside it nor under include/ or src/"
      continue
    fi
    layer_of "$resolved"
    if [ -z "$layer" ]; then
      report "$f:$line: $from must not include ${inc:1:${#inc}-2} (in no layer)"
    elif ! may_use "$from" "$layer"; then
      report "$f:$line: $from must not include ${inc:1:${#inc}-2} ($layer)"
    fi
  fi
  for i in "${!P_name[@]}"; do
    # shellcheck disable=SC2086
    in_files "$f" ${P_files[$i]} || continue
    for pat in ${P_incl[$i]}; do
      if [ "$inc" = "$pat" ] || { [ -n "$resolved" ] && in_files "$resolved" "$pat"; }; then
        report "$f:$line: $from must not include ${inc//\"/} (${P_name[$i]})"
        break
      fi
    done
  done
done < <(cd "$src" && awk '
  /^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    s = $0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s)
    if (match(s, /^(<[^>]*>|"[^"]*")/)) print FILENAME "\t" FNR "\t" substr(s, 1, RLENGTH)
  }' "${files[@]}")

# ---------------------------------------------------------------- calls
if [ ${#objdirs[@]} -eq 0 ]; then
  if [ $nviol -gt 0 ]; then echo "check_layers: $nviol violations"; exit 1; fi
  echo "check_layers: OK: ${#files[@]} files, $nincl includes follow the layers (calls not checked: no BUILD_DIR)"
  exit 0
fi
# Each object as SOURCE<TAB>OBJECT; an object whose source is gone (a stale one) is left out, one
# older than its source is counted (its calls may have changed since: rebuild).
objs=() nstale=0 nold=0
for d in "${objdirs[@]}"; do
  [ -d "$d" ] || { echo "check_layers: no folder $d" >&2; exit 2; }
  while IFS= read -r o; do
    s=${o#"$d"/}; s=${s%.o}; [[ $s == *.c ]] || s=$s.c
    if [ -f "$src/$s" ]; then objs+=("$s"$'\t'"$o"); else nstale=$((nstale + 1)); fi
    [ "$src/$s" -nt "$o" ] && nold=$((nold + 1))
  done < <(find "$d" -name '*.o' | LC_ALL=C sort)
done
[ ${#objs[@]} -gt 0 ] || { echo "check_layers: no objects under ${objdirs[*]} (build hla first)" >&2; exit 2; }

# nm -P: "name type [value size]"; upper case types are global, U undefined.
declare -A def_src def_type
syms=$(for so in "${objs[@]}"; do
  nm -P "${so#*$'\t'}" | awk -v s="${so%%$'\t'*}" '$2 ~ /^[A-Z]$/ { print s "\t" $2 "\t" $1 }'
done) || { echo "check_layers: nm failed" >&2; exit 2; }
while IFS=$'\t' read -r s t sym; do
  [ "$t" != U ] && [ -z "${def_src[$sym]+x}" ] && def_src[$sym]=$s def_type[$sym]=$t
done <<< "$syms"

# where: sets $line to the first line of $src/$s naming $sym as an identifier outside comments
# ("?" if none: the reference comes from a macro or inline function of a header).
where() {
  line=$(awk -v sym="$sym" '{
    s = $0; code = ""
    while (s != "") {
      if (incomment) { i = index(s, "*/"); if (!i) break; s = substr(s, i + 2); incomment = 0; continue }
      i = index(s, "/*"); j = index(s, "//")
      if (j && (!i || j < i)) { code = code substr(s, 1, j - 1); break }
      if (!i) { code = code s; break }
      code = code substr(s, 1, i - 1) " "; s = substr(s, i + 2); incomment = 1
    }
    if (match(code, "(^|[^A-Za-z0-9_])" sym "([^A-Za-z0-9_]|$)")) { print FNR; exit }
  }' "$src/$s")
  line=${line:-?}
}
nref=0
while IFS=$'\t' read -r s t sym; do
  [ "$t" = U ] || continue
  nref=$((nref + 1))
  layer_of "$s"; from=$layer
  [ -n "$from" ] || continue
  verb=use
  if [ -n "${def_src[$sym]+x}" ]; then
    [[ ${def_type[$sym]} == [TW] ]] && verb=call
    layer_of "${def_src[$sym]}"
    if ! may_use "$from" "$layer"; then
      where; report "$s:$line: $from must not $verb $sym ($layer: ${def_src[$sym]})"
    fi
  fi
  for i in "${!P_name[@]}"; do
    # shellcheck disable=SC2086
    in_files "$s" ${P_files[$i]} || continue
    if [[ $sym =~ ${P_sym[$i]} ]]; then
      where; report "$s:$line: $from must not $verb $sym (${P_name[$i]})"
    fi
  done
done <<< "$syms"

stale=""
[ $nstale -eq 0 ] || stale=", $nstale stale objects left out"
[ $nold -eq 0 ] || stale="$stale, $nold objects older than their source"
if [ $nviol -gt 0 ]; then echo "check_layers: $nviol violations$stale"; exit 1; fi
echo "check_layers: OK: ${#files[@]} files, $nincl includes, ${#objs[@]} objects ($nref references) follow the layers$stale"
