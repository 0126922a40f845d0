#!/usr/bin/env bash
# Build the machine-file fuzzer (tests/fuzz/fuzz_machine_file.c with the reader's sources) with
# clang's libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer, and run it on the seeds.
#   tests/fuzz/run.sh SECONDS [WORK_DIR]
# WORK_DIR (default build/fuzz): the binary, the corpus the run grows (the seeds in
# tests/fuzz/corpus_machine_file/ are only read) and the input of a crash (crash-*, leak-*, ...),
# to be copied into the seeds once fixed. HLA_FUZZ_CC: the compiler (clang); HLA_FUZZ_CFLAGS: MPI's
# include flags (the public headers include mpi.h; default: pkg-config mpi-c or mpich). Exits
# non-zero on a crash, a leak, undefined behaviour or a failed property; the last lines say how
# many inputs ran in how many seconds.
set -euo pipefail
secs=${1:?usage: run.sh SECONDS [WORK_DIR]}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${2:-$src/build/fuzz}
cc=${HLA_FUZZ_CC:-clang}
mpi=${HLA_FUZZ_CFLAGS:-$(pkg-config --cflags mpi-c 2>/dev/null || pkg-config --cflags mpich)}
mkdir -p "$work/corpus"
# shellcheck disable=SC2046,SC2086  # flag lists
"$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra \
  -Wno-unused-parameter -I"$src/include" -I"$src/src" $mpi $(pkg-config --cflags libcjson) \
  "$src/tests/fuzz/fuzz_machine_file.c" "$src/src/dist/plan/machine_file.c" \
  "$src/src/dist/plan/model.c" $(pkg-config --libs libcjson) -lm -o "$work/fuzz_machine_file"
set +e
"$work/fuzz_machine_file" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" \
  "$src/tests/fuzz/corpus_machine_file" >"$work/last_run.txt" 2>&1
rc=$?
set -e
# the verdict and the numbers (the whole log: WORK_DIR/last_run.txt)
grep -E 'ERROR|SUMMARY|abort|Test unit written|Done [0-9]+ runs|stat::number_of_executed_units|stat::average_exec_per_sec' \
  "$work/last_run.txt" || true
[ $rc -eq 0 ] || { echo "fuzz_machine_file: failed (rc $rc); the log: $work/last_run.txt" >&2; tail -40 "$work/last_run.txt" >&2; }
exit $rc
