#!/usr/bin/env python3
"""The LU's step between two panels, from a profile of a simulated LU (HLA_PROFILE=FILE
bench/sim/lu_flat_hier.sh P N NB flat MxN): per panel k, on the process column that factors it,
when its first pivot search can complete (the last rank of the column to reach it) after panel
k - 1 ended (the last rank out of its last pivot search), and how long the panel then takes.

  bench/sim/lu_gaps.py PROFILE.json N NB [K...]

N: the grid's process columns; NB: the panels' width (one pivot search a column, the profile's
"allreduce" supersteps of the column's environment). With steps K, also when each rank of the
column reached panel K's first pivot search after panel K - 1 ended (in process-row order), which
tells the U block's chain down the column from its root. Prints one line a panel, then the
medians."""
import json, statistics, sys

prof, N, nb = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
cols = sorted((e for e in prof["envs"] if e["name"].endswith("/col")),
              key=lambda e: e["world_ranks"][0])[:N]
searches = [[[s for s in r["supersteps"] if s["kind"] == "allreduce"] for r in e["ranks"]]
            for e in cols]
span = {}  # panel -> (last rank in, last rank out, every rank's arrival)
for c, ranks in enumerate(searches):
    for i in range(len(ranks[0]) // nb):
        first = [r[i * nb]["t"] for r in ranks]
        last = max(r[i * nb + nb - 1]["t"] + r[i * nb + nb - 1]["comm"] for r in ranks)
        span[c + N * i] = (max(first), last, first)
gaps, panels = [], []
for k in sorted(span):
    start, end, _ = span[k]
    gap = start - span[k - 1][1] if k - 1 in span else float("nan")
    print(f"panel {k:4d}: gap before {gap * 1e6:9.1f} us, panel {(end - start) * 1e6:9.1f} us")
    if k > 0:
        gaps.append(gap)
    panels.append(end - start)
print(f"median: gap {statistics.median(gaps) * 1e6:.1f} us, panel "
      f"{statistics.median(panels) * 1e6:.1f} us over {len(panels)} panels")
for k in map(int, sys.argv[4:]):
    prev = span[k - 1][1]
    print(f"panel {k}, each process row's arrival after panel {k - 1} ended (us):",
          " ".join(f"{(t - prev) * 1e6:.0f}" for t in span[k][2]))
