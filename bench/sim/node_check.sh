#!/usr/bin/env bash
# The simulator against a real machine: the runs of bench/scaling_16core.sh's `simcheck` phase,
# simulated in the model mode on the platform of the same machine's machine file
# (PLATFORM=machine, bench/platforms/from_machine.py), once with the kernels priced from the
# file's rates (src/kernels/sim.c) and once by their operation counts at its dgemm rate (the
# host properties removed), side by side with the real times.
#
#   MACHINE=FILE bench/sim/node_check.sh REAL_LOG...     e.g. (the 16-core node, 2026-11-28)
#     MACHINE=bench/results/machine_16core_2026-11-28.json bench/sim/node_check.sh \
#       bench/results/16core/2026-11-28_24_simcheck.txt bench/results/16core/2026-11-28_25_simcheck_bcasts.txt
#
# Every bench_lu line (flat LU, any grid, n, nb and broadcast) and bench_matmul line (summa and
# hsumma with their b and groups) of the logs is simulated once each way; the LU's real time is
# hla_gesv's less its solve phase (sim_lu times the factorization). Needs a -DHLA_SMPI=ON build
# (BUILD, default build-smpi). Writes bench/results/sim/node_check_<machine file's name>.txt
# (_mem.txt with NODE_MEMORY=probe: the node's memory shared by its transfers, bench/sim/common.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-smpi}
[ $# -gt 0 ] && [ -f "${MACHINE:-}" ] || { sed -n '2,18p' "$0"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sim/common.sh
mkdir -p "$sim_results"
P=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["machines"][0]["P"])' "$MACHINE")
PLATFORM=machine sim_platform "$P" "$tmp"
cp "$tmp/plat.xml" "$tmp/rates.xml"
sed '/<prop id="hla_/d' "$tmp/rates.xml" > "$tmp/count.xml"
# the runs: "lu GRID N NB BCAST REAL" and "mm GRID N B NB GROUPS ALG REAL" from the real logs
python3 - "$@" > "$tmp/runs" <<'PY'
import re, sys
for path in sys.argv[1:]:
    lines = open(path).read().splitlines()
    bc, nb = "auto", 64
    for i, l in enumerate(lines):
        m = re.search(r"bench_lu .*--bcast (\w+)", l)
        if "bench_lu" in l and "== lu" in l: bc = m.group(1) if m else "auto"
        m = re.search(r"blocks (\d+)", l)
        if l.startswith("# bench_matmul"): nb = int(m.group(1))
        m = re.match(r"hla-flat n=(\d+) nb=(\d+) grid=(\S+) median_gflops=\S+ median_seconds=(\S+)", l)
        if m:
            solve = float(re.search(r"solve (\S+)", lines[i + 1]).group(1))
            print("lu", m.group(3), m.group(1), m.group(2), bc, "%.4f" % (float(m.group(4)) - solve))
        m = re.match(r"n=(\d+)\s+(summa|hsumma)\s.*t=\s*(\S+)s.*ran=\w+ b=(\d+) Mo=\d+ groups=(\S+)", l)
        if m:
            grid = re.search(r"grid (\S+),", [x for x in lines[:i] if x.startswith("# bench_matmul")][-1]).group(1)
            print("mm", grid, m.group(1), m.group(4), nb, m.group(5), m.group(2), m.group(3))
PY
{
  echo "# $(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo '?'): ${NODE_MEMORY:+NODE_MEMORY=$NODE_MEMORY }MACHINE=$MACHINE bench/sim/node_check.sh $*"
  while read -r op grid n a b c d e; do
    for how in rates count; do
      cp "$tmp/$how.xml" "$tmp/plat.xml"
      if [ "$op" = lu ]; then
        t=$(sim_run "$P" "$tmp" "$build/sim_lu" --n "$n" --nb "$a" --cases flat --grid "$grid" \
          --bcast "$b" --speed "${plat_speed}e9" | sed -n 's/^P=.* seconds=\([0-9.]*\) .*/\1/p')
        echo "lu grid=$grid n=$n nb=$a bcast=$b priced=$how real=$c sim=$t"
      else
        g=1 && [ "$d" = hsumma ] && g=$c
        t=$(sim_run "$P" "$tmp" "$build/sim_matmul" --n "$n" --b "$a" --nb "$b" --grid "$grid" \
          --groups "$g" --speed "${plat_speed}e9" | sed -n 's/^P=.* seconds=\([0-9.]*\) .*/\1/p')
        echo "mm grid=$grid n=$n b=$a nb=$b alg=$d groups=$c priced=$how real=$e sim=$t"
      fi
    done
  done < "$tmp/runs"
} | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(real|sim)=/) { split($i, kv, "="); v[kv[1]] = kv[2] }
           if (v["real"] > 0 && v["sim"] > 0) $0 = $0 sprintf(" sim/real=%.2f", v["sim"] / v["real"]); print }' |
  tee "$sim_results/node_check_$(basename "$MACHINE" .json)${plat_suffix#_machine}.txt"
