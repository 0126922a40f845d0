#!/usr/bin/env bash
# Install hla from a build folder into a temporary prefix and build examples/quickstart.c against
# it as a user would: the MPI compiler wrapper and pkg-config, nothing from the source tree.
#   install_check.sh BUILD_DIR MPICC MPIEXEC NP_FLAG [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 mpicc=$2 mpiexec=$3 npflag=$4
shift 4
src=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
# Every function the installed headers declare is exported by the shared library.
declared=$(grep -hE '^(HLA_API )?(const )?[a-z_0-9]+ \**[a-z_0-9]+\(' "$prefix"/include/hla.h \
  "$prefix"/include/hla/*.h | sed -E 's/\(.*//; s/.*[ *]//' | sort -u)
exported=$(nm -D --defined-only "$prefix/lib/libhla.so" | awk '{print $3}' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -n "$missing" ] || [ "$(echo "$declared" | wc -l)" -lt 50 ]; then
  echo "install_check: not exported by libhla.so: ${missing:-(the header scan found too few)}" >&2
  exit 1
fi
# The installed pkg-config file must name the prefix it was installed to.
sed -i "s|^prefix=.*|prefix=$prefix|" "$prefix/lib/pkgconfig/hla.pc"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cp "$src/examples/quickstart.c" "$prefix/"
# HLA_USER_CFLAGS: extra flags of the user's build (the sanitizer build passes its sanitizers).
(cd "$prefix" && "$mpicc" -O2 ${HLA_USER_CFLAGS:-} quickstart.c $(pkg-config --cflags --libs hla) \
  -Wl,-rpath,"$prefix/lib" -o quickstart)
"$mpiexec" "$npflag" 2 "$@" "$prefix/quickstart" 64
