"""What plan_check.py and plan_check_lu.py share: their command line and a results file's network."""
import sys


def command_line():
    """(hla-plan's path, the machine file, the results files) from
    MACHINE.json RESULTS.txt... [--hla-plan PATH]."""
    args = sys.argv[1:]
    tool = "build/hla-plan"
    if "--hla-plan" in args:
        i = args.index("--hla-plan")
        tool = args[i + 1]
        del args[i:i + 2]
    return tool, args[0], args[1:]


def network_of(results):
    """hla-plan's arguments for the network a results file names on its "# platform:" line: the
    torus ("--torus XxYxZ") of the BG/P-like platform, the leaves ("--leaf L") of the fat trees
    (bench/platforms/fat_tree.sh NODES OVERSUB: leaves of 16 nodes, halved until there are two), the
    star's one leaf of all its nodes (bench/platforms/star.sh NODES);
    [] for the others."""
    for l in open(results):
        w = l.split()
        if l.startswith("# platform: bench/platforms/bgp_like.sh"):
            return ["--torus", "x".join(w[3:6])]
        if l.startswith("# platform: bench/platforms/star.sh"):
            return ["--leaf", w[3]]  # one switch: every node in one leaf
        if l.startswith("# platform: bench/platforms/fat_tree.sh"):
            nodes, down = int(w[3]), 16
            while down > 1 and nodes // down < 2:
                down //= 2
            return ["--leaf", str(down)]
    return []
