#!/usr/bin/env python3
"""Experiment 4 of the scale issue: the planner's predictions against the simulated times.

  bench/sim/plan_check.py MACHINE.json RESULTS.txt... [--hla-plan PATH]

MACHINE.json is a machine model that hplan_probe measured under smpirun on the simulated platform
(bench/sim/probe_roundtrip.sh); RESULTS.txt are outputs of bench/sim/summa_hsumma.sh on that
platform. For every simulated multiply (P, n, b, G as I x J groups, and the panel broadcast: MPI's,
or the library's algorithm that the results file names) it asks hla-plan for the prediction of that
same configuration (the results' grid, else sqrt P x sqrt P; panels b, outer block b, blocks b or
the results' nb, 4 ranks a node as the BG/P-like platform places them) twice: with the model's
end-to-end calibration (mm_cal, measured by the probe at order 2048; not applied where the model
routes on a network) and without it (mm_cal = 0), and prints predicted / simulated. Per result file
it then compares the configuration the planner ranks first among the simulated ones with the best
simulated one. Runs of k < n (sampled steps) are predicted for that k, 3D runs (experiment 3) on
their grid with their c; a machine model with a torus or leaves (bench/sim/add_torus.py) is given
the results' network (their "# platform:" line). Prints a table and JSON lines."""
import json, math, os, re, subprocess, tempfile
from plan_args import command_line, network_of

tool, machine, results = command_line()
model = json.load(open(machine))
uncal = json.loads(json.dumps(model))
for m in uncal["machines"]:
    m["mm_cal"] = 0.0
tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
json.dump(uncal, tmp)
tmp.close()
rpn = model["machines"][0]["ranks_per_node"]


def predict(path, P, n, k, b, nb, bcast, net, groups, grid):
    """hla-plan's predictions on the fixed grid ("MxN"; None: the square one), panels of b and
    blocks of nb: SUMMA's,
    and HSUMMA's with each of groups ((I, J) pairs, hplan_target.groups) as {(I, J): seconds},
    (1, 1) for SUMMA. net: hla-plan's arguments for the platform's network (plan_args.network_of;
    hla-plan ignores a torus the machine model has no links for)."""
    s = int(math.isqrt(P))
    grid = grid or f"{s}x{s}"
    out = ""
    for alg, g in [("summa", None)] + [("hsumma", g) for g in groups if g != (1, 1)]:
        out += subprocess.run([tool, "--machine", path, "--op", "mm", "--n", str(n), "--k", str(k),
                               "--P", str(P), "--nodes", str(P // rpn), "--grid", grid,
                               "--nb", str(nb), "--algs", alg, "--top", "100000"] +
                              (["--groups", f"{g[0]}x{g[1]}"] if g else []) +
                              (["--bcast", bcast] if bcast != "native" else []) +
                              net,
                              capture_output=True, text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 9 or not f[0].isdigit():
            continue
        if f[7] == "SUMMA":
            if not line.rstrip().endswith(f"blocks {nb} b={b}"):
                continue
            key = (1, 1)
        else:
            if not line.rstrip().endswith(f"blocks {nb}"):
                continue
            m = re.search(r"groups (\d+)x(\d+) Mo=(\d+) b=(\d+)", line)
            if not m or int(m.group(3)) != b or int(m.group(4)) != b:
                continue
            key = (int(m.group(1)), int(m.group(2)))
        got.setdefault(key, float(f[1]))
    return got


def predict3d(path, r, net):
    """hla-plan's prediction of the simulated 3D multiply r (its grid, c layers, panels b)."""
    out = subprocess.run([tool, "--machine", path, "--op", "mm", "--n", str(r["n"]), "--P",
                          str(r["P"]), "--nodes", str(r["P"] // rpn), "--grid", r["grid"], "--nb",
                          str(r.get("nb", r["b"])), "--algs", "3d", "--top", "100000"] +
                         net,
                         capture_output=True, text=True, check=True).stdout
    want = f"3D {r['grid']} c={r['c']} "
    for line in out.splitlines():
        if want in line and line.rstrip().endswith(f"b={r['b']} blocks {r.get('nb', r['b'])}"):
            return float(line.split()[1])
    return None


print("P      n      G  groups  simulated  predicted(cal)  ratio  predicted(no cal)  ratio")
for res in results:
    sims = [json.loads(l) for l in open(res) if l.startswith('{"bench":"sim_matmul"')]
    net = network_of(res)
    for r in (r for r in sims if r.get("alg") == "3d"):
        pc, pn = predict3d(machine, r, net), predict3d(tmp.name, r, net)
        print(f"{r['P']:<6} {r['n']:<6} 3D c={r['c']:<2} {r['grid']:<7} {r['seconds']:9.3f}  "
              f"{pc if pc else float('nan'):14.3f}  {pc / r['seconds'] if pc else float('nan'):5.2f}  "
              f"{pn if pn else float('nan'):17.3f}  {pn / r['seconds'] if pn else float('nan'):5.2f}")
        print(json.dumps({"bench": "plan_check", "P": r["P"], "n": r["n"], "alg": "3d",
                          "c": r["c"], "grid": r["grid"], "simulated": r["seconds"],
                          "predicted_cal": pc, "predicted_nocal": pn}))
    sims = [r for r in sims if r.get("alg") != "3d"]
    if not sims:
        continue
    P, n, b, bc = sims[0]["P"], sims[0]["n"], sims[0]["b"], sims[0].get("bcast", "native")
    nb = sims[0].get("nb", b)  # the matrices' blocks (sim_matmul --nb), else the panels' b
    k = sims[0].get("k", n)
    groups = [tuple(int(v) for v in r["groups"].split("x")) for r in sims]
    grid = sims[0].get("grid")
    cal = predict(machine, P, n, k, b, nb, bc, net, groups, grid)
    nocal = predict(tmp.name, P, n, k, b, nb, bc, net, groups, grid)
    rows = []
    for r in sims:
        I, J = (int(x) for x in r["groups"].split("x"))
        key = (I, J)
        pc, pn = cal.get(key), nocal.get(key)
        rows.append((r, pc, pn))
        print(f"{P:<6} {n:<6} {r['G']:<3} {r['groups']:<7} {r['seconds']:9.3f}  "
              f"{pc if pc else float('nan'):14.3f}  {pc / r['seconds'] if pc else float('nan'):5.2f}  "
              f"{pn if pn else float('nan'):17.3f}  {pn / r['seconds'] if pn else float('nan'):5.2f}")
        print(json.dumps({"bench": "plan_check", "P": P, "n": n, "k": k, "b": b, "G": r["G"],
                          "groups": r["groups"], "simulated": r["seconds"], "predicted_cal": pc,
                          "predicted_nocal": pn}))
    best = min(rows, key=lambda t: t[0]["seconds"])[0]
    for label, col in (("cal", 1), ("no cal", 2)):
        ranked = [t for t in rows if t[col]]
        if len(ranked) < len(rows):
            print(f"  P={P} n={n}: the rankings keep {len(ranked)} of the {len(rows)} simulated "
                  f"configurations; the planner's pick among them says little")
        if len(ranked) > 1:
            pick = min(ranked, key=lambda t: t[col])[0]
            print(f"  P={P} n={n} planner ({label}) picks G={pick['G']} ({pick['groups']}): "
                  f"simulated {pick['seconds']:.3f} s against the best simulated G={best['G']} "
                  f"({best['groups']}) {best['seconds']:.3f} s: {pick['seconds'] / best['seconds']:.3f}")
os.unlink(tmp.name)
