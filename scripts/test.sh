#!/usr/bin/env bash
# Build hla and run the whole test suite (every test at its process counts), then the
# AddressSanitizer + UndefinedBehaviorSanitizer build at P = 2 and 4.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/env.sh"
"$here/scripts/setup.sh" "$here/build"
(cd "$here/build" && ctest --output-on-failure -j 2)
"$here/scripts/setup.sh" "$here/build-asan" -DHLA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DHLA_BUILD_BENCH=OFF
(cd "$here/build-asan" && ctest --output-on-failure -j 2 -R '\.np(2|4)$')
