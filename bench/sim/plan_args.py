"""What plan_check.py and plan_check_lu.py share: their command line and a results file's torus."""
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


def torus_of(results):
    """The torus ("XxYxZ") of the BG/P-like platform a results file names on its "# platform:"
    line; None for the other platforms."""
    plat = [l.split() for l in open(results)
            if l.startswith("# platform: bench/platforms/bgp_like.sh")]
    return "x".join(plat[0][3:6]) if plat else None
