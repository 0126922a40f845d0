#!/usr/bin/env python3
"""The summary of one standard sweep (bench/sim/sweep.sh), from the results files in its folder.

    bench/sim/sweep_summary.py DIR P PLATFORM MACHINE SECONDS

Prints, for experiment 1, every multiply's simulated time and the communication its computation
did not hide, SUMMA's against the best HSUMMA's; for experiment 3 the 3D runs beside them; the
planner's free pick of the multiply as simulated; for experiment 2 hla's fastest LU against HPL's
(bench/sim/lu_best.py) and every LU run; for experiment 4 the planner's predictions (how many
within the issue's 25 %) and its picks among the simulated runs (plan_check.py, plan_check_lu.py);
and what each simulation took."""
import glob
import json
import os
import subprocess
import sys

d, P, plat, machine, secs = sys.argv[1:6]


def lines(path, bench):
    return [json.loads(l) for l in open(path) if l.startswith('{"bench":"%s"' % bench)]


def first(path):
    with open(path) as f:
        return f.readline().rstrip()


head = first(sorted(glob.glob(os.path.join(d, "summa_hsumma_*.txt")))[0])
date, lib = head[2:].split(":")[0].split(", ")  # "# DATE, COMMIT: command"
print(f"# The standard sweep (bench/sim/sweep.sh {P}): {plat}, the library of {lib}, {date};")
print(f"# machine model {machine}; {secs} s in all")
print()

mm = []
for f in sorted(glob.glob(os.path.join(d, "summa_hsumma_*.txt"))):
    for r in lines(f, "sim_matmul"):
        r["file"] = os.path.basename(f)
        mm.append(r)
print("Experiment 1 (and 3): the multiply, b = %d, n = %d" % (mm[0]["b"], mm[0]["n"]))
print(f"  {'algorithm':<9} {'grid':<7} {'groups':<7} {'c':>2} {'blocks':>6} {'seconds':>9}"
      f" {'not hidden':>10}  file")
for r in mm:
    print(f"  {r['alg']:<9} {r['grid']:<7} {r['groups']:<7} {r['c']:>2} {r.get('nb', r['b']):>6}"
          f" {r['seconds']:9.4f} {r['comm']:10.4f}  {r['file']}")
summa = [r for r in mm if r["alg"] == "summa" and "_pick" not in r["file"]]
hs = [r for r in mm if r["alg"] == "hsumma" and "_pick" not in r["file"]]
if summa and hs:
    s, h = summa[0], min(hs, key=lambda r: r["seconds"])
    print(f"  best HSUMMA: G = {h['G']} ({h['groups']} groups): {s['seconds'] / h['seconds']:.2f} x"
          f" less time, {s['comm'] / h['comm']:.1f} x less communication not hidden than SUMMA")
pick = [r for r in mm if "_pick" in r["file"]]
if pick:
    p = pick[0]
    best = min(mm, key=lambda r: r["seconds"])
    print(f"  the planner's free pick: {p['alg']} on {p['grid']}, groups {p['groups']},"
          f" c = {p['c']}: {p['seconds']:.4f} s,"
          f" {p['seconds'] / best['seconds']:.3f} x the fastest simulated here")
print()

print("Experiment 2: the LU")
lu = sorted(glob.glob(os.path.join(d, "lu_P*.txt")))
hpl = sorted(glob.glob(os.path.join(d, "hpl_P*.txt")))
here = os.path.dirname(os.path.abspath(__file__))
print(subprocess.run([sys.executable, os.path.join(here, "lu_best.py")] + lu + hpl,
                     capture_output=True, text=True, check=True).stdout.rstrip())
for f in lu:
    for r in lines(f, "sim_lu"):
        print(f"  hla {r['grid']:<7} {r['case']:<4} {r['groups']:<5} {r['seconds']:9.4f} s"
              f"  {os.path.basename(f)}")
for f in hpl:
    for r in lines(f, "hpl_sim"):
        print(f"  HPL {r['grid']:<7} {'':<4} {'':<5} {r['seconds']:9.4f} s  {os.path.basename(f)}")
print()

print("Experiment 4: the planner")
for name, key in (("plan_check.txt", "predicted_cal"), ("plan_check_lu.txt", "predicted")):
    path = os.path.join(d, name)
    runs = [json.loads(l) for l in open(path) if l.startswith('{"bench": "plan_check')]
    ratio = [r[key] / r["simulated"] for r in runs if r.get(key) and r.get("simulated")]
    if ratio:
        ok = sum(1 for x in ratio if 0.75 <= x <= 1.25)
        print(f"  {name}: predicted / simulated {min(ratio):.2f}-{max(ratio):.2f} x,"
              f" {ok} of {len(ratio)} within 25 %")
    for l in open(path):
        if l.startswith("  P="):
            print("  " + l.strip())
print()

print("The simulator's own cost")
for f in sorted(glob.glob(os.path.join(d, "*.txt"))):
    for l in open(f):
        if l.startswith("{") and "_simulator" in l:
            r = json.loads(l)
            print(f"  {os.path.basename(f)}: {r['wall_seconds']} s, {r['memory_used_mib']} MiB")
