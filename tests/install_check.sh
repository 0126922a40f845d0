#!/usr/bin/env bash
# Install hla from a build folder into a temporary prefix and build programs against it as a user
# would, nothing from the source tree but the programs' sources:
#   - examples/quickstart.c with the MPI compiler wrapper and pkg-config;
#   - the same program through examples/cmake/, a CMake project with find_package(hla)
#     (-DCMAKE_PREFIX_PATH=prefix);
# and run each at 2 ranks. Also checks that the shared library exports every declared function.
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
for f in hlaConfig.cmake hlaConfigVersion.cmake hlaTargets.cmake hla.pc; do
  [ -f "$prefix/lib/cmake/hla/$f" ] || [ -f "$prefix/lib/pkgconfig/$f" ] ||
    { echo "install_check: $f not installed" >&2; exit 1; }
done
# pkg-config, with the prefix found from the .pc file's place (installed with --prefix, not the
# configured CMAKE_INSTALL_PREFIX).
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
[ "$(pkg-config --variable=includedir hla)" -ef "$prefix/include" ] ||
  { echo "install_check: hla.pc names $(pkg-config --variable=includedir hla)" >&2; exit 1; }
mkdir -p "$prefix/user/cmake"
cp "$src/examples/quickstart.c" "$prefix/user/"
cp "$src/examples/cmake/CMakeLists.txt" "$prefix/user/cmake/"
# HLA_USER_CFLAGS: extra flags of the user's build (the sanitizer build passes its sanitizers).
cd "$prefix/user"
"$mpicc" -O2 ${HLA_USER_CFLAGS:-} quickstart.c $(pkg-config --cflags --libs hla) -lm \
  -Wl,-rpath,"$prefix/lib" -o quickstart
"$mpiexec" "$npflag" 2 "$@" ./quickstart 64
# CMake: find_package(hla) alone must bring the MPI hla was built with (MPICH or Open MPI).
cmake -S cmake -B build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="${HLA_USER_CFLAGS:-}" >cmake.log 2>&1 || { cat cmake.log >&2; exit 1; }
cmake --build build >>cmake.log 2>&1 || { cat cmake.log >&2; exit 1; }
"$mpiexec" "$npflag" 2 "$@" build/hla_example 100
echo "install_check: ok (quickstart by pkg-config and by CMake find_package(hla))"
