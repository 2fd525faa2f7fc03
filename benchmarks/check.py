"""Cost of check mode: the checker's time against the plain emulator's, on the same launch.

    python benchmarks/check.py [--repeats 3] [--size default] [--programs matmul_tiled,reduce_sequential]

For each bundled program (default: all of them; its launch file's size, default ``default``), the same
launch is run alternately in emulate mode and in check mode with every tool on (racecheck, initcheck, synccheck, memcheck), after one warm-up of
each (parsing, compiling the handlers); the medians of the wall times and their ratio are printed.  The
target (issue 13): check mode at most 3x emulate mode.  The machine's load moves both figures alike, since
the runs alternate; the ratio is what to read.
"""
from __future__ import annotations

import argparse
import statistics
import time

import gpusim
import programs
from gpusim.check import check_launch
from gpusim.functional.emulator import Emulator

def measure(name: str, size: str, repeats: int) -> tuple[float, float, int]:
    """Median seconds (emulate, check) and warp instructions of one launch of ``name`` at ``size``."""
    spec = programs.get(name)
    size = size if size in spec.sizes else spec.default_size
    launch = spec.launch(size)
    args, syms = spec.make_args(size, 0), spec.make_symbols(size, 0)
    module, _ = gpusim.load_module(spec.ptx_path)
    emu = Emulator(module)
    kw = dict(symbols=syms, shared_mem=launch.shared_mem)
    plain, checked, n = [], [], 0
    for r in range(repeats + 1):
        t0 = time.perf_counter()
        out = emu.launch(launch.kernel, launch.grid, launch.block, args, **kw)
        t1 = time.perf_counter()
        _, report = check_launch(emu, launch.kernel, launch.grid, launch.block, args, **kw)
        t2 = time.perf_counter()
        if not report.ok:
            raise SystemExit(f"{name}: the checker reports findings:\n{report.format()}")
        n = out.stats.warp_instructions
        if r:            # the first round warms up
            plain.append(t1 - t0)
            checked.append(t2 - t1)
    return statistics.median(plain), statistics.median(checked), n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--size", default="default", help="the launch files' size (default: default)")
    ap.add_argument("--programs", default=",".join(programs.names()),
                    help="comma-separated bundled program names (default: all)")
    a = ap.parse_args()
    print(f"{'program':22s} {'size':8s} {'warp instr':>12s} {'emulate s':>10s} {'check s':>9s} {'ratio':>6s}")
    ratios = []
    for name in a.programs.split(","):
        plain, checked, n = measure(name, a.size, a.repeats)
        ratios.append(checked / plain)
        print(f"{name:22s} {a.size:8s} {n:12,d} {plain:10.3f} {checked:9.3f} {checked / plain:6.2f}")
    print(f"{'median ratio':22s} {'':8s} {'':12s} {'':10s} {'':9s} {statistics.median(ratios):6.2f}   "
          f"(max {max(ratios):.2f}; target <= 3)")


if __name__ == "__main__":
    main()
