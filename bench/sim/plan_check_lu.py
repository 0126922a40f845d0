#!/usr/bin/env python3
"""Experiment 4 of the scale issue for the LU: the planner's predictions against the simulated
times, and its pick against the best simulated grid.

  bench/sim/plan_check_lu.py MACHINE.json RESULTS.txt... [--hla-plan PATH]

MACHINE.json is a machine model that hplan_probe measured under smpirun on the simulated platform
(bench/sim/probe_roundtrip.sh, with bench/sim/add_torus.py for its network); RESULTS.txt are outputs
of bench/sim/lu_flat_hier.sh on that platform (a run in two of them counts from the first). For
every simulated LU (P, n, nb, grid, flat or hierarchical by node, the broadcasts) it asks hla-plan
for the prediction of that configuration (4 ranks a node, one thread, look-ahead on, as
lu_flat_hier.sh runs it; a machine model with a torus or leaves is given the results' network, from
their "# platform:" line) and prints predicted / simulated, with the commit the run was made at (its
results file's first line). Per machine size it then asks hla-plan for its pick among all grids, in
the panels (nb) of the best simulated run with the library's own broadcasts, and compares the two.
Prints a table and JSON lines."""
import json, re, subprocess
from plan_args import command_line, network_of

tool, machine, results = command_line()
rpn = json.load(open(machine))["machines"][0]["ranks_per_node"]
PLAN = re.compile(r"LU (flat|hierarchical) (\d+x\d+) nb=(\d+) look-ahead on")


def plans(P, n, nb, net, grid=None, bcast="auto"):
    """hla-plan's LU candidates with look-ahead: [(seconds, alg, grid)], best first."""
    cmd = [tool, "--machine", machine, "--op", "lu", "--n", str(n), "--P", str(P), "--nodes",
           str(P // rpn), "--rpn", str(rpn), "--threads", "1", "--nb", str(nb), "--top", "100000"]
    cmd += (["--grid", grid] if grid else []) + (["--bcast", bcast] if bcast != "auto" else [])
    cmd += net
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    got = []
    for line in out.splitlines():
        m = PLAN.search(line)
        if m and int(m.group(3)) == nb:
            got.append((float(line.split()[1]), "flat" if m.group(1) == "flat" else "hier",
                        m.group(2)))
    return got


def library_of(results):
    """The commit a results file's runs were made with, from its first line ("# DATE, COMMIT: ...")."""
    first = open(results).readline()
    return first.split(",")[1].split(":")[0].strip() if first.startswith("# 20") else "?"


sims = {}  # P -> [(run, net)]; a run in two results files counts from the first one given
seen = set()
for res in results:
    net = network_of(res)
    lib = library_of(res)
    for l in open(res):
        if l.startswith('{"bench":"sim_lu"'):
            r = json.loads(l)
            # a hierarchical run in groups of 1 x 1 (rows and columns each on one node) ran flat
            if r.get("order", "R") != "R":  # the model places ranks row-major only
                continue
            key = (r["P"], r["n"], r["grid"], r["nb"], r["case"], r["bcast"])
            if key in seen:
                continue
            if r["case"] == "flat" or (r["case"] == "hier" and r["groups"] != "1x1"):
                seen.add(key)
                r["library"] = lib
                sims.setdefault(r["P"], []).append((r, net))

print("P      n      grid     nb   alg   bcast     simulated  predicted  ratio  library")
for P in sorted(sims):
    for r, net in sims[P]:
        got = [p for p in plans(P, r["n"], r["nb"], net, r["grid"], r["bcast"])
               if p[1] == r["case"]]
        pred = got[0][0] if got else None
        print(f"{P:<6} {r['n']:<6} {r['grid']:<8} {r['nb']:<4} {r['case']:<5} {r['bcast']:<9} "
              f"{r['seconds']:9.3f}  {pred if pred else float('nan'):9.3f}  "
              f"{pred / r['seconds'] if pred else float('nan'):5.2f}  {r['library']}")
        print(json.dumps({"bench": "plan_check_lu", "P": P, "n": r["n"], "nb": r["nb"],
                          "grid": r["grid"], "alg": r["case"], "bcast": r["bcast"],
                          "simulated": r["seconds"], "predicted": pred,
                          "library": r["library"]}))
    for n in sorted({r["n"] for r, _ in sims[P]}):
        own = [(r, t) for r, t in sims[P] if r["n"] == n and r["bcast"] == "auto"]
        if not own:
            continue
        best = min(own, key=lambda rt: rt[0]["seconds"])[0]
        top = plans(P, n, best["nb"], own[0][1])[0]
        hit = [r for r, _ in own
               if r["grid"] == top[2] and r["case"] == top[1] and r["nb"] == best["nb"]]
        said = (f"simulated {hit[0]['seconds']:.3f} s, {hit[0]['seconds'] / best['seconds']:.3f} x"
                if hit else "not simulated")
        print(f"  P={P} n={n}: the planner picks {top[1]} {top[2]} ({top[0]:.3f} s predicted; "
              f"{said}); the best simulated is {best['case']} {best['grid']} "
              f"{best['seconds']:.3f} s")
