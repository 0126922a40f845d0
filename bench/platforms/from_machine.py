#!/usr/bin/env python3
"""A SimGrid platform of the machine a machine file describes, so that the model mode simulates it.

    bench/platforms/from_machine.py MACHINE OUT [NODES] [--memory]

MACHINE is a machine file of `hla-plan --probe --save` (its first entry); OUT.xml and OUT.hosts are
written: one cluster of NODES hosts (default: the entry's nodes) of its cores_per_node cores, each
host computing as the probe measured (src/kernels/sim.c prices every kernel from the host
properties written here: the dgemm rate and its half sizes, the recursive panel's and LAPACK's LU
rates, the copy rate), a core's speed the dgemm rate. Messages within a node go over the host's
loopback at the probe's intra-node ping-pong latency and bandwidth (a fat pipe: transfers do not
share it), across nodes over one private link a node at the inter-node ones (where the file has
none, the intra-node ones: say so), through one switch. Run the model mode on it with SMPI's
piecewise bandwidth and latency factors off (smpi/bw-factor:0:1, smpi/lat-factor:0:1): the probe's
numbers are already what messages get (bench/sim/node_check.sh does).
--memory adds the node's memory as a link that its transfers share (SimGrid's limiter link; the
patched SimGrid of bench/sim/build_simgrid.sh routes a node's transfers within through it): the
probe's copy rate, measured with every rank copying at once, times the cores.
"""
import json
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "--memory"]
    memory = len(args) < len(sys.argv) - 1
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    path, out = args[0], args[1]
    doc = json.load(open(path))
    if doc.get("format") != "hla-machine" or not doc.get("machines"):
        sys.exit(f"from_machine.py: {path} is not an hla machine file")
    m = doc["machines"][0]
    nodes = int(args[2]) if len(args) == 3 else int(m["nodes"])
    cores = int(m["cores_per_node"])
    if nodes < 1 or cores < 1:
        sys.exit("from_machine.py: NODES and the file's cores_per_node must be positive")
    a0, b0, a1, b1 = m["link"]
    if not m.get("have_inter"):
        a1, b1 = a0, b0
        if nodes > 1:
            print(f"from_machine.py: {path} measured no inter-node link; using the intra-node one",
                  file=sys.stderr)
    props = {
        "hla_gemm_rate": m["gemm_rate"], "hla_gemm_khalf": m["gemm_khalf"],
        "hla_gemm_mhalf": m["gemm_mhalf"], "hla_panel_rate": m["panel_rate"],
        "hla_panel_half": m["panel_half"], "hla_getrf_rate": m["getrf_rate"],
        "hla_getrf_half": m["getrf_half"], "hla_copy_rate": m["copy_rate"],
    }
    limiter = f' limiter_link="{cores * m["copy_rate"]:.9g}Bps"' if memory else ""
    lines = "\n".join(f'      <prop id="{k}" value="{v:.9g}"/>' for k, v in props.items())
    with open(out + ".xml", "w") as f:
        f.write(f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- {nodes} node(s) of {cores} cores as probed in {path} (host {m.get('host', '?')}, probed at
     P = {m['P']}): bench/platforms/from_machine.py -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="probed" prefix="node-" radical="0-{nodes - 1}" suffix="" core="{cores}"
             speed="{m['gemm_rate']:.9g}f" bw="{1 / b1:.9g}Bps" lat="{a1:.9g}s"
             loopback_bw="{1 / b0:.9g}Bps" loopback_lat="{a0:.9g}s"{limiter}>
{lines}
    </cluster>
  </zone>
</platform>
""")
    with open(out + ".hosts", "w") as f:
        f.writelines(f"node-{i}:{cores}\n" for i in range(nodes))


if __name__ == "__main__":
    main()
