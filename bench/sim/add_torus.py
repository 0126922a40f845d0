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
1 / (BW x 0.940694)], port_beta = 1 / (BW x 0.940694). A short message, as the probe's ping-pong
whose latency the probe fits (smpi/lat-factor below 257 bytes, 2.01467), pays LAT x 2.01467 a
torus hop (torus_hop_alpha) and, on a two-level fat tree (bench/platforms/fat_tree.sh), between
leaves 2 LAT x 2.01467 more than inside a leaf (spine_alpha: two more links). Messages of other
sizes get SMPI's factors for their size (size_factor: rate over 0.940694, latency over 2.01467):
the LU's pivot records of 0.5-2 KB move at 0.36-0.65 of the long messages' rate after 0.8-0.97
of the short ones' latency (bench/results/sim/README.md, "The pivot search at a record's size")."""
import json, sys

# SMPI's default smpi/bw-factor and smpi/lat-factor (SimGrid 3.32, src/simgrid/sg_config.cpp):
# (least bytes, bandwidth factor, latency factor)
FACTORS = [(0, 0.812084, 2.01467), (257, 0.338112, 1.95341), (732, 0.341987, 1.9503),
           (1426, 0.608902, 1.61075), (3484, 0.77493, 1.88101), (5776, 1.08739, 2.18796),
           (9376, 0.58729, 2.59299), (15424, 0.697866, 3.48845), (65472, 0.940694, 11.6436)]

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
        m["torus_hop_alpha"] = float(lat) * 2.01467
    m["size_factor"] = [v for b, fb, fl in FACTORS
                        for v in (b, round(fb / 0.940694, 6), round(fl / 2.01467, 6))]
with open(dst, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
