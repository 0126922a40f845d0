#!/usr/bin/env python3
"""hla's fastest simulated LU against HPL's, per network, ranks, order and block.

    bench/sim/lu_best.py [--hpl] [FILES...]   (default: bench/results/sim/lu_P*.txt hpl_P*.txt)

Reads the results files of bench/sim/lu_flat_hier.sh and bench/sim/hpl.sh (their first line names
the library and the command, the second the platform) and prints one table row per network
(torus, fat tree, 4:1 tree; with a node's memory apart), P, n and nb: hla's fastest run (grid,
case, broadcasts, time, library), HPL's fastest (grid, time), the ratio of the two, and hla on
HPL's best grid where it ran there; with --hpl only the rows where HPL ran too. A markdown table,
so that a README quotes it as printed.
"""
import glob
import json
import re
import sys


def network(path, first, second):
    m = re.search(r"platforms/(\w+)\.sh (\d+) (\d+)", second)
    if not m:
        sys.exit(f"{path}: no platform line")
    kind = {"bgp_like": "torus"}.get(m.group(1))
    if kind is None:
        kind = "4:1 tree" if m.group(3) != "1" else "fat tree"
    if "NODE_MEMORY=" in first:
        kind += ", nodes' memory"
    return kind


def runs(path):
    with open(path) as f:
        lines = f.read().splitlines()
    if len(lines) < 2:
        return
    first, second = lines[0], lines[1]
    lib = re.match(r"# \S+ (\w+):", first)
    lib = lib.group(1) if lib else "?"
    net = network(path, first, second)
    for ln in lines[2:]:
        if not ln.startswith("{"):
            continue
        r = json.loads(ln)
        if r.get("bench") not in ("sim_lu", "hpl_sim"):
            continue
        who = "hla" if r["bench"] == "sim_lu" else "HPL"
        what = r["grid"]
        if who == "hla":
            if r.get("case") != "flat":
                what += " " + r["case"] + (" " + r["groups"] if r.get("groups") != "1x1" else "")
            if r.get("bcast", "auto") != "auto":
                what += " " + r["bcast"]
            if r.get("swap") and r["swap"] != "auto":
                what += " " + r["swap"]
            if r.get("order", "R") != "R":
                what += " order " + r["order"]
        yield (net, r["P"], r["n"], r["nb"]), who, r["grid"], what, r["seconds"], lib


def main():
    args = sys.argv[1:]
    with_hpl = "--hpl" in args
    args = [a for a in args if a != "--hpl"]
    files = args or sorted(
        glob.glob("bench/results/sim/lu_P*.txt") + glob.glob("bench/results/sim/hpl_P*.txt"))
    best = {}  # key -> who -> (seconds, what, lib)
    grid_best = {}  # key, who, grid -> seconds
    for path in files:
        for key, who, grid, what, sec, lib in runs(path):
            b = best.setdefault(key, {})
            if who not in b or sec < b[who][0]:
                b[who] = (sec, what, lib)
            g = (key, who, grid)
            grid_best[g] = min(sec, grid_best.get(g, sec))
    order = {"torus": 0, "fat tree": 1, "4:1 tree": 2}
    print("| network | ranks | n | nb | hla's fastest | HPL's fastest | HPL / hla "
          "| hla on HPL's grid |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(best, key=lambda k: (order.get(k[0].split(",")[0], 9), k[0], k[1:])):
        b = best[key]
        net, P, n, nb = key
        h = b.get("hla")
        p = b.get("HPL")
        if with_hpl and not (h and p):
            continue
        hs = f"{h[1]}: {h[0]:.4g} s ({h[2]})" if h else ""
        ps = f"{p[1]}: {p[0]:.4g} s ({p[2]})" if p else ""
        ratio = f"{p[0] / h[0]:.2f} ×" if h and p else ""
        same = ""
        if h and p:
            hg = grid_best.get((key, "hla", p[1]))
            if hg is not None:
                same = f"{hg:.4g} s, {p[0] / hg:.2f} ×"
        print(f"| {net} | {P:,} | {n} | {nb} | {hs} | {ps} | {ratio} | {same} |")


if __name__ == "__main__":
    main()
