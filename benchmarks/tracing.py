"""Cost of tracing: the timing model with no observer, with a do-nothing observer, and with the timeline collector
(collection only, then also building the Timeline), on the tiled matmul trace.

    python benchmarks/tracing.py                       # matmul_tiled size "small", 5 repeats
    python benchmarks/tracing.py --size default --repeats 3

Prints the median wall time of each, and the ratios to "off". Issue 5's targets: off costs nothing
measurable (the hot path pays one ``is not None`` test per event, there with or without this package),
on stays within 2x of off.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gpusim  # noqa: E402
from gpusim.analysis.timeline import TimelineCollector  # noqa: E402
from gpusim.config import load_gpu  # noqa: E402
from gpusim.timing import TimingObserver, simulate  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="small")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args()
    trace = gpusim.run("matmul_tiled", size=a.size, mode="emulate", record_trace=True).trace
    gpu = load_gpu(a.gpu)
    print(f"matmul_tiled size {a.size}: {trace.n_instructions:,} warp instructions, {trace.n_warps:,} warps, "
          f"on {gpu.name}; median of {a.repeats}")

    def off():
        simulate(trace, gpu)

    def null():
        simulate(trace, gpu, observer=TimingObserver())

    def collect():
        simulate(trace, gpu, observer=TimelineCollector())

    def full():
        col = TimelineCollector()
        t = simulate(trace, gpu, observer=col)
        tl = col.finish(trace, t, gpu)
        tl.states_smsp, tl.issued, tl.active_warps, tl.resident_blocks, tl.shared_conflicts, tl.dram_bytes  # noqa: B018

    cases = [("tracing off (observer=None)", off), ("no-op TimingObserver", null), ("timeline collector", collect),
             ("collector + build + bin", full)]
    off()                                   # warm-up: imports, caches
    times = {name: [] for name, _ in cases}
    for _ in range(a.repeats):
        for name, f in cases:               # interleaved, so drift hits every case alike
            t = time.perf_counter()
            f()
            times[name].append(time.perf_counter() - t)
    base = statistics.median(times[cases[0][0]])
    for name, _ in cases:
        m = statistics.median(times[name])
        print(f"  {name:28s} {m:8.3f} s   x{m / base:5.2f}   ({trace.n_instructions / m / 1e3:,.0f} k warp-instr/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
