#!/usr/bin/env python3
"""hla's fastest simulated LU against HPL's, per network, ranks, order and block.

    bench/sim/lu_best.py [--hpl] [FILES...]
                   (default: bench/results/sim/lu_P*.txt, u_chain/lu_P*.txt,
                    hier_ring/lu_P*.txt, u_first/lu_P*.txt, hpl_P*.txt,
                    hpl_probes_10us/hpl_P*.txt and hpl_wait/hpl_P*.txt)

Reads the results files of bench/sim/lu_flat_hier.sh and bench/sim/hpl.sh (their first line names
the library and the command, the second the platform) and prints one table row per network
(torus, fat tree, 4:1 tree; with a node's memory apart), P, n and nb: hla's fastest run (grid,
case, broadcasts, time, library), HPL's fastest (grid, time), the ratio of the two, and hla on
HPL's best grid where it ran there; with --hpl only the rows where HPL ran too. A markdown table,
so that a README quotes it as printed. HPL's runs made before 2026-11-30 paid SimGrid's 0.1 ms or
more for every MPI_Iprobe (bench/sim/common.sh, smpi/iprobe), which delayed each hop of its ring
broadcast: they are taken only where no later run of the same point exists (nor one that set
smpi/iprobe itself), marked "0.1 ms probes".
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
    m = re.match(r"# (\S+), (\w+):", first)
    date, lib = (m.group(1), m.group(2)) if m else ("?", "?")
    net = network(path, first, second)
    for ln in lines[2:]:
        if not ln.startswith("{"):
            continue
        r = json.loads(ln)
        if r.get("bench") not in ("sim_lu", "hpl_sim"):
            continue
        who = "hla" if r["bench"] == "sim_lu" else "HPL"
        what = r["grid"]
        stale = who == "HPL" and date < "2026-11-30" and "smpi/iprobe" not in "".join(lines[:4])
        if stale:
            what += ", 0.1 ms probes"
        if who == "hla":
            if r.get("case") != "flat":
                what += " " + r["case"] + (" " + r["groups"] if r.get("groups") != "1x1" else "")
            if r.get("bcast", "auto") != "auto":
                what += " " + r["bcast"]
            if r.get("swap") and r["swap"] != "auto":
                what += " " + r["swap"]
            if r.get("order", "R") != "R":
                what += " order " + r["order"]
        yield (net, r["P"], r["n"], r["nb"]), who, r["grid"], what, (stale, r["seconds"]), lib


def main():
    args = sys.argv[1:]
    with_hpl = "--hpl" in args
    args = [a for a in args if a != "--hpl"]
    files = args or sorted(
        glob.glob("bench/results/sim/lu_P*.txt") + glob.glob("bench/results/sim/u_chain/lu_P*.txt")
        + glob.glob("bench/results/sim/hier_ring/lu_P*.txt")
        + glob.glob("bench/results/sim/u_first/lu_P*.txt")
        + glob.glob("bench/results/sim/hpl_P*.txt")
        + glob.glob("bench/results/sim/hpl_probes_10us/hpl_P*.txt")
        + glob.glob("bench/results/sim/hpl_wait/hpl_P*.txt"))
    best = {}  # key -> who -> (seconds, what, lib)
    grid_best = {}  # key, who, grid -> seconds
    for path in files:
        for key, who, grid, what, sec, lib in runs(path):
            # (stale, seconds) orders a later HPL run before any made with 0.1 ms probes
            b = best.setdefault(key, {})
            if who not in b or sec < b[who][0]:
                b[who] = (sec, what, lib, grid)
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
        hs = f"{h[1]}: {h[0][1]:.4g} s ({h[2]})" if h else ""
        ps = f"{p[1]}: {p[0][1]:.4g} s ({p[2]})" if p else ""
        ratio = f"{p[0][1] / h[0][1]:.2f} ×" if h and p else ""
        same = ""
        if h and p:
            hg = grid_best.get((key, "hla", p[3]))
            if hg is not None:
                same = f"{hg[1]:.4g} s, {p[0][1] / hg[1]:.2f} ×"
        print(f"| {net} | {P:,} | {n} | {nb} | {hs} | {ps} | {ratio} | {same} |")


if __name__ == "__main__":
    main()
