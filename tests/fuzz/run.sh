#!/usr/bin/env bash
# Build a libFuzzer target of tests/fuzz/ with clang's libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, and run it on its seeds:
#   tests/fuzz/run.sh TARGET SECONDS [WORK_DIR]
# TARGET: machine_file (the machine file's reader, fuzz_machine_file.c) or settings (the HLA_*
# variables' parser, fuzz_settings.c); seeds in tests/fuzz/corpus_TARGET/ (only read).
# WORK_DIR (default build/fuzz/TARGET): the binary, the corpus the run grows and the input of a
# crash (crash-*, leak-*, ...), to be copied into the seeds once fixed. HLA_FUZZ_CC: the compiler
# (clang); HLA_FUZZ_CFLAGS: MPI's include flags (the public headers include mpi.h; default:
# pkg-config mpi-c or mpich). Exits non-zero on a crash, a leak, undefined behaviour or a failed
# property; the last lines say how many inputs ran in how many seconds.
set -euo pipefail
target=${1:?usage: run.sh machine_file|settings SECONDS [WORK_DIR]}
secs=${2:?usage: run.sh machine_file|settings SECONDS [WORK_DIR]}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${3:-$src/build/fuzz/$target}
cc=${HLA_FUZZ_CC:-clang}
mpi=${HLA_FUZZ_CFLAGS:-$(pkg-config --cflags mpi-c 2>/dev/null || pkg-config --cflags mpich)}
mkdir -p "$work/corpus"
# shellcheck disable=SC2046,SC2086  # flag lists
case $target in
  machine_file) # the reader with what it calls (the model's check, the settings, cJSON)
    srcs=("$src/src/dist/plan/machine_file.c" "$src/src/dist/plan/model.c" "$src/src/dist/plan/model_mm.c"
      "$src/src/dist/plan/model_lu.c" "$src/src/dist/plan/torus.c" "$src/src/settings.c")
    libs=$(pkg-config --libs libcjson) ;;
  settings) srcs=("$src/src/settings.c") libs="" ;;
  *) echo "run.sh: unknown target $target" >&2; exit 2 ;;
esac
# shellcheck disable=SC2046,SC2086  # flag lists
"$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra \
  -Wno-unused-parameter -I"$src/include" -I"$src/src" $mpi $(pkg-config --cflags libcjson) \
  "$src/tests/fuzz/fuzz_$target.c" "${srcs[@]}" $libs -lm -o "$work/fuzz_$target"
set +e
"$work/fuzz_$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" \
  "$src/tests/fuzz/corpus_$target" >"$work/last_run.txt" 2>&1
rc=$?
set -e
# the verdict and the numbers (the whole log: WORK_DIR/last_run.txt)
grep -E 'ERROR|SUMMARY|abort|Test unit written|Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec' \
  "$work/last_run.txt" || true
[ $rc -eq 0 ] || { echo "fuzz_$target: failed (rc $rc); the log: $work/last_run.txt" >&2; tail -40 "$work/last_run.txt" >&2; }
exit $rc
