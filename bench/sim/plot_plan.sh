#!/usr/bin/env bash
# bench/sim/plot_plan.sh OUT.png LABEL=FILE[@SECTION][,FILE[@SECTION]...]...: experiment 4's plot,
# the planner's predicted time over the simulated one for every run the FILEs check (outputs of
# bench/sim/plan_check.py and plan_check_lu.py: their JSON lines), against the simulated time, one
# series per LABEL, with the issue's band of 25 % (gnuplot; Debian gnuplot-nox). @SECTION keeps only
# the lines under the file's "## SECTION..." headings (files that check several platforms). A run
# checked in two files of one series counts once. Prints each series' count and range.
set -euo pipefail
out=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$@" <<'PY'
import json, sys
out, series = sys.argv[1], sys.argv[2:]
for i, spec in enumerate(series):
    label, files = spec.split("=", 1)
    seen, pts = set(), []
    for f in files.split(","):
        path, _, section = f.partition("@")
        keep = not section
        for line in open(path):
            if line.startswith("## "):
                keep = not section or line[3:].startswith(section)
            if not keep or not line.startswith('{"bench": "plan_check'):
                continue
            r = json.loads(line)
            pred = r.get("predicted_cal", r.get("predicted"))
            if pred is None or not r.get("simulated"):
                continue
            key = tuple(sorted((k, str(v)) for k, v in r.items() if not k.startswith("predicted")))
            if key in seen:
                continue
            seen.add(key)
            pts.append((r["simulated"], pred / r["simulated"]))
    with open(f"{out}/{i}.dat", "w") as d:
        for s, q in pts:
            d.write(f"{s} {q}\n")
    with open(f"{out}/labels", "a") as d:
        d.write(label + "\n")
    q = [p[1] for p in pts]
    inside = sum(0.75 <= x <= 1.25 for x in q)
    print(f"{label}: {len(q)} runs, {min(q):.2f}-{max(q):.2f} x, {inside} within 25 %")
PY
plots=""
i=0
while IFS= read -r label; do
  plots+="${plots:+, }\"$dir/$i.dat\" using 1:2 with points pt $((i + 5)) ps 1.2 title \"$label\""
  i=$((i + 1))
done < "$dir/labels"
gnuplot <<GP
set terminal pngcairo size 900,560
set output "$out"
set title "${TITLE:-The planner under simulation: predicted / simulated time of every checked run}"
set xlabel "simulated seconds"
set ylabel "predicted / simulated"
set logscale x
set xrange [0.03:50]
set yrange [0.5:1.5]
set grid
set key outside right
set arrow from graph 0, first 1.25 to graph 1, first 1.25 nohead dt 2
set arrow from graph 0, first 0.75 to graph 1, first 0.75 nohead dt 2
plot $plots
GP
