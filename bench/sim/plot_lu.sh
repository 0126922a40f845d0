#!/usr/bin/env bash
# [TITLE=text] bench/sim/plot_lu.sh OUT.png FILE.txt...: experiment 2's plot, hla's simulated LU
# beside HPL's. FILEs are outputs of bench/sim/lu_flat_hier.sh and bench/sim/hpl.sh on one platform,
# one order n per process count; per process count and grid the plot shows HPL's Gflop/s and hla's
# best over the cases and broadcasts the files hold (gnuplot; Debian gnuplot-nox). TITLE: the
# plot's title (default: the BG/P-like torus's runs).
set -euo pipefail
out=$1
shift
data=$(mktemp)
trap 'rm -f "$data"' EXIT
python3 - "$@" > "$data" <<'PY'
import json, sys
hla, hpl = {}, {}
for f in sys.argv[1:]:
    for line in open(f):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        key = (r.get("P"), r.get("grid"))
        if r.get("bench") == "sim_lu":
            hla[key] = max(hla.get(key, 0.0), r["gflops"])
        elif r.get("bench") == "hpl_sim":
            hpl[key] = max(hpl.get(key, 0.0), r["gflops"])
for P, grid in sorted(set(hla) | set(hpl)):
    a, b = hla.get((P, grid), 0.0), hpl.get((P, grid), 0.0)
    print(f'"{P}, {grid.replace("x", " x ")}" {a:.1f} {b:.1f}')
PY
gnuplot <<GP
set terminal pngcairo size 900,520
set output "$out"
set title "${TITLE:-LU of order n under simulation (BG/P-like torus; n = 4096 at P = 256, else 8192): hla against HPL}"
set ylabel "Gflop/s (simulated)"
set xlabel "ranks, grid"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -30
set key top left
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set rmargin 8
plot "$data" using 2:xtic(1) title "hla (best of its runs)", "" using 3 title "HPL (0: not run)"
GP
