"""Launch overhead at two SM clocks: is it a number of SM cycles, or a time?

    python benchmarks/launch_clock.py --out tests/golden/h100/micro/launch_clock.json   # on the GPU
    python benchmarks/launch_clock.py --fit tests/golden/h100/micro/launch_clock.json   # anywhere

An empty kernel (one warp per block, ``ret`` only) is profiled under ncu at its default clock control
(``base``: the SM clock locked to 1590 MHz) and with ``--clock-control none`` (the boost clock, 1980 MHz),
at 1, 132 and 528 blocks (one wave), ``--repeats`` times each.  ``gpc__cycles_elapsed.max`` is the
whole launch in SM cycles.  If the fixed part were paid in SM cycles it would read the same at both
clocks; if it were paid in time it would grow with the clock.  ``--fit`` solves
``cycles = a + b_ns * f_SM`` over all runs at one block count: ``a`` is the SM-clock part (cycles),
``b_ns`` the part that takes a fixed time (ns).  The presets take the one-block split as
``kernel_launch_cycles`` (minus ``block_launch_cycles`` and the 1-cycle ``ret``) and ``kernel_launch_ns``.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

BLOCKS = (1, 132, 528)
METRICS = ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second", "gpu__time_duration.sum",
           "sm__cycles_active.avg")


def measure(repeats: int) -> dict:
    from gpusim.hw.ncu import profile
    from gpusim.hw.runner import provenance
    doc: dict = {"about": __doc__.splitlines()[0], "metrics": list(METRICS), "blocks": list(BLOCKS),
                 "runs": {}}
    for clock in ("base", "none"):
        runs = []
        for _ in range(repeats):
            rows = profile([("__empty__", n) for n in BLOCKS], metrics=METRICS, clock_control=clock)
            runs.append({str(n): {m: r.get(m) for m in METRICS} for n, r in zip(BLOCKS, rows)})
        doc["runs"][clock] = runs
    doc["provenance"] = provenance()
    return doc


def fit(doc: dict, blocks: int = 1) -> dict:
    """The split of the launch at ``blocks`` into SM cycles and fixed nanoseconds: ``cycles = a + b_ns *
    f_SM`` over every run of both clocks, each run at the SM clock ncu read for it (Theil-Sen: the median
    of the pairwise slopes between runs at different clocks, then the median intercept, so one slow
    replay does not move it)."""
    pts = [(r[str(blocks)]["gpc__cycles_elapsed.avg.per_second"] / 1e9, r[str(blocks)]["gpc__cycles_elapsed.max"])
           for runs in doc["runs"].values() for r in runs]
    slopes = [(y2 - y1) / (x2 - x1) for i, (x1, y1) in enumerate(pts) for (x2, y2) in pts[i + 1:]
              if abs(x2 - x1) > 0.1]
    b_ns = statistics.median(slopes)
    a = statistics.median(y - b_ns * x for x, y in pts)
    med = {clock: {"cycles_median": statistics.median(r[str(blocks)]["gpc__cycles_elapsed.max"] for r in runs),
                   "mhz_median": statistics.median(r[str(blocks)]["gpc__cycles_elapsed.avg.per_second"]
                                                   for r in runs) / 1e6}
           for clock, runs in doc["runs"].items()}
    return {"blocks": blocks, "by_clock": med, "sm_cycles_part": round(a, 1), "fixed_ns_part": round(b_ns, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="measure on the GPU and write the record here")
    ap.add_argument("--fit", type=Path, help="print the fit of a record")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    if a.out is None and a.fit is None:
        ap.error("give --out (measure) or --fit (analyse a record)")
    if a.out is not None:
        doc = measure(a.repeats)
        a.out.write_text(json.dumps(doc, indent=1))
        a.fit = a.out
    doc = json.loads(a.fit.read_text())
    for n in doc["blocks"]:
        print(json.dumps(fit(doc, n)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
