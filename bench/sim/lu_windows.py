#!/usr/bin/env python3
"""When each process column of an LU is busy with what, from the library's superstep profile
(HLA_PROFILE=FILE, the format of src/bsp/prof.c): per process column, the span of its first U
broadcast over all its ranks (first start to last end) and the span of its first panel's pivot
exchanges (the first unbroken run of allreduce supersteps of its rank 0: first start to last
start). Two profiles of
the same run side by side show which of them moved.

With --next-owner, the critical path instead: per process column c > 0, block step c - 1, in
which it owns the next panel: from the L panel's arrival (its first rank in the row swaps'
superstep) to the end of the swaps (its ranks' last), pr's trsm (up to its U broadcast), the U
broadcast (to its ranks' last end, and each rank's end after pr's start), the update of block c
(to its first pivot exchange) and that panel (its 128 exchanges or the block's width). It
reads the c-th swap superstep and U broadcast of the column as step c - 1's, which holds where
every process column owns one block column (n = N nb, as 8 x 32 at n = 4096 in panels of 128).

    bench/sim/lu_windows.py [--next-owner] PROFILE.json [PROFILE2.json ...]
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


def next_owner(path):
    """Per process column c > 0: the phases of block step c - 1 on it, in ms (see above)."""
    d = json.load(open(path))
    cols = sorted((e for e in d["envs"] if e["name"] == "world/grid/col"),
                  key=lambda e: e["world_ranks"][0])
    M, out = cols[0]["P"], []
    for c, e in enumerate(cols[1:], 1):
        k, rows = c - 1, []
        for r in e["ranks"]:
            ss = r["supersteps"]
            sw = [s for s in ss if s["kind"] == "sync_known"]
            bc = [s for s in ss if s["kind"] == "bcast"]
            if len(sw) <= k or len(bc) <= k:
                sys.exit("%s: column %d has fewer swap supersteps or U broadcasts than steps: "
                         "not one block column a process column" % (path, c))
            sw, bc = sw[k], bc[k]
            ar = [s for s in ss if s["kind"] == "allreduce" and s["t"] > bc["t"]]
            rows.append((sw["t"], sw["t"] + sw["comm"], bc["t"], bc["t"] + bc["comm"],
                         ar[0]["t"] if ar else None, ar))
        pr = k % M
        arrive, swapped = min(x[0] for x in rows), max(x[1] for x in rows)
        ustart, uend = rows[pr][2], max(x[3] for x in rows)
        if any(x[4] is None for x in rows):
            break  # the last block step: no panel after it
        p0 = max(x[4] for x in rows)
        width = min(len(x[5]) for x in rows)
        p1 = max(x[5][min(width, 128) - 1]["t"] + x[5][min(width, 128) - 1]["comm"] for x in rows)
        out.append((c, arrive, swapped - arrive, ustart - swapped, uend - ustart, p0 - uend,
                    p1 - p0, [x[3] - ustart for x in rows]))
    return d["wall"], out


def ms(x):
    return "-" if x is None else "%.1f" % (1e3 * x)


def main():
    args = sys.argv[1:]
    owner = bool(args) and args[0] == "--next-owner"
    if owner:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    for path in args:
        if owner:
            wall, steps = next_owner(path)
            print("# %s (wall %.4f s); ms of simulated time, block step c - 1 on column c" %
                  (path, wall))
            print("column  L_in_at  swaps  trsm  U_bcast  update  panel  U_end_per_rank")
            for s in steps:
                print("%6d %8.2f %6.2f %5.2f %8.2f %7.2f %6.2f  %s" %
                      (s[0], 1e3 * s[1], 1e3 * s[2], 1e3 * s[3], 1e3 * s[4], 1e3 * s[5],
                       1e3 * s[6], " ".join("%.2f" % (1e3 * x) for x in s[7])))
            if steps:
                mean = [1e3 * sum(s[i] for s in steps) / len(steps) for i in range(2, 7)]
                print("mean   %8s %6.2f %5.2f %8.2f %7.2f %6.2f" % ("", *mean))
            continue
        wall, cols = windows(path)
        print("# %s (wall %.4f s); times in ms of simulated time" % (path, wall))
        print("column(first rank)  U_bcast_from  U_bcast_to  panel_from  panel_to  exchanges")
        for c in cols:
            print("%-19d %12s %11s %11s %9s %10d" % (c[0], ms(c[1]), ms(c[2]), ms(c[3]), ms(c[4]),
                                                   c[5]))


if __name__ == "__main__":
    main()
