#!/usr/bin/env python3
"""The network a machine file's probe ran on, added to its entries: what the probe cannot measure
and the platform says.

  bench/sim/add_torus.py IN.json OUT.json X Y Z BW LAT    a torus (hplan_machine.torus, torus_link)
  bench/sim/add_torus.py IN.json OUT.json port BW [LEAF LAT]
                                   a non-blocking network's node ports (hplan_machine.port_beta),
                                   with LEAF nodes a leaf switch (leaf_nodes, spine_alpha)

X x Y x Z nodes (the first varying fastest, as bench/platforms/bgp_like.sh), links (or a node's
port) of BW bytes/s and LAT seconds a hop, as the platform file gives them; SMPI's default factors
for messages of 64 KiB and more (smpi/bw-factor 0.940694, smpi/lat-factor 11.6436, the model the
experiments run) turn them into what a long message sees: torus_link = [LAT x 11.6436,
1 / (BW x 0.940694)], port_beta = 1 / (BW x 0.940694). A short message (the LU's pivot records,
0.5-2 KB) pays LAT a hop beyond the first, torus_hop_alpha = LAT: with it the LU's predictions at
4,096 ranks of the torus (8 x 8 x 16, columns 2-8 hops long) went from 0.71-0.90 x to 0.87-0.98 x
of the simulated; with LAT x 2.01 (the factor under 257 bytes) those at 1,024 ranks went to 1.12 x
(bench/results/sim/README.md, "The LU's panel without broadcasts"). On a two-level fat tree
(bench/platforms/fat_tree.sh) a message between leaves crosses two more links of LAT seconds than
one inside a leaf: spine_alpha = 2 LAT x 2.01467, the latency factor of the small messages whose
ping-pong the probe's latency fits (smpi/lat-factor below 257 bytes)."""
import json, sys

src, dst = sys.argv[1:3]
doc = json.load(open(src))
for m in doc["machines"]:
    if sys.argv[3] == "port":
        m["port_beta"] = 1.0 / (float(sys.argv[4]) * 0.940694)
        if len(sys.argv) > 6:
            m["leaf_nodes"] = int(sys.argv[5])
            m["spine_alpha"] = 2 * float(sys.argv[6]) * 2.01467
    else:
        x, y, z, bw, lat = sys.argv[3:8]
        m["torus"] = [int(x), int(y), int(z), 0]
        m["torus_link"] = [float(lat) * 11.6436, 1.0 / (float(bw) * 0.940694)]
        m["torus_hop_alpha"] = float(lat)
with open(dst, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
