#!/usr/bin/env python3
"""When each process column of an LU is busy with what, from the library's superstep profile
(HLA_PROFILE=FILE, the format of src/bsp/prof.c): per process column, the span of its first U
broadcast over all its ranks (first start to last end) and the span of its first panel's pivot
exchanges (the first unbroken run of allreduce supersteps of its rank 0: first start to last
start). Two profiles of
the same run side by side show which of them moved.

    bench/sim/lu_windows.py PROFILE.json [PROFILE2.json ...]
"""
import json
import sys


def windows(path):
    d = json.load(open(path))
    out = []
    for e in d["envs"]:
        if e["name"] != "world/grid/col":
            continue
        starts, ends = [], []
        for r in e["ranks"]:
            b = [s for s in r["supersteps"] if s["kind"] == "bcast"]
            if b:
                starts.append(b[0]["t"])
                ends.append(b[0]["t"] + b[0]["comm"])
        ar = []
        for s in e["ranks"][0]["supersteps"]:
            if s["kind"] == "allreduce":
                ar.append(s["t"])
            elif ar:
                break
        out.append((e["world_ranks"][0], min(starts) if starts else None,
                    max(ends) if ends else None, ar[0] if ar else None,
                    ar[-1] if ar else None, len(ar)))
    return d["wall"], out


def ms(x):
    return "-" if x is None else "%.1f" % (1e3 * x)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        wall, cols = windows(path)
        print("# %s (wall %.4f s); times in ms of simulated time" % (path, wall))
        print("column(first rank)  U_bcast_from  U_bcast_to  panel_from  panel_to  exchanges")
        for c in cols:
            print("%-19d %12s %11s %11s %9s %10d" % (c[0], ms(c[1]), ms(c[2]), ms(c[3]), ms(c[4]),
                                                   c[5]))


if __name__ == "__main__":
    main()
