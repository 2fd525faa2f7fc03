"""The model beside the GH100 on store merging (``tests/golden/h100/micro/stmerge.json``): L2 write requests
per store.

    python benchmarks/micro/stmerge/compare.py              # every case, preset h100
    python benchmarks/micro/stmerge/compare.py --gpu a100   # another preset (no store merging there)

The device's kernels (stmerge.cu) time their stores against clock64, which a trace-driven model cannot
follow, so the model runs ``merge.ptx`` (written for this comparison): lane 0 of each warp of 132 blocks
(one an SM) stores back to back (st_tight), ~50 cycles apart (st_pad) or with an L2 load of a fresh line
after each store (st_ldo), to the SM's line or to one address for the GPU; or all warps' lanes 0..m-1 store to
the block's m lines (st_tr8, st_tr32: a naive transpose's stores; requests per line written).  Each case names the device rows
it stands for; the measured figure is their requests per store (or, on the one address, the L2 write
requests per L2 cycle, which the busy slice pins).  The model's figures come from
``lts__t_requests_srcunit_tex_op_write.sum`` over two launches of n and 4n stores a warp (their difference:
no start-up or drain).  Seconds of CPU for the lot.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "stmerge.json"
BLOCKS = 132

# name: (model kernel, warps a block, lsel, n, what is compared, device rows {group, kernel, W, lsel, gap or,
# for c9_tr, lines a store})
CASES = {
    "idle, stores ~50 cycles apart": ("st_pad", 1, 1, 64, "req/store",
                                      [("c1_own", "stm_tight_p1", 1, 1, 0), ("c1_own", "stm_tight_p8", 1, 1, 0)]),
    "idle, one warp back to back": ("st_tight", 1, 1, 64, "req/store", [("c1_own", "stm_tight", 1, 1, 0)]),
    "one address, one warp ~50 cycles apart": ("st_pad", 1, 0, 64, "req/L2 cycle",
                                               [("c1_shared", "stm_gap", 1, 0, g) for g in (8, 16, 32, 64)]),
    "one address, 8 warps back to back": ("st_tight", 8, 0, 32, "req/store", [("c5_8w", "stm_tight", 8, 0, 0)]),
    "one address, an L2 load after each store": ("st_ldo", 1, 0, 32, "req/store",
                                                 [("c7_ldo", "stm_x_ldo", 1, 0, 0)]),
    "own line, an L2 load after each store": ("st_ldo", 1, 1, 32, "req/store", [("c7_ldo", "stm_x_ldo", 1, 1, 0)]),
    "8 warps, stores of 8 lines, the same lines": ("st_tr8", 8, 1, 32, "req/line", [("c9_tr", "stm_tr", 8, 1, 8)]),
    "8 warps, stores of 32 lines, the same lines": ("st_tr32", 8, 1, 16, "req/line",
                                                     [("c9_tr", "stm_tr", 8, 1, 32)]),
}
LINES = {"st_tr8": 8, "st_tr32": 32}      # lines a store of these kernels writes (1 for the others)


def measured(name: str, record: dict | None = None) -> float:
    """The device's figure for a case: the mean over its rows."""
    record = record or json.loads(RECORD.read_text())
    kernel, w, lsel, n, what, keys = CASES[name]
    rates = record["ncu"]["clock_rates"]        # [min, max] over the rows: SM and L2 cycles a second
    sm_per_l2 = sum(rates["sm__cycles_elapsed.avg.per_second"]) / sum(rates["lts__cycles_elapsed.avg.per_second"])
    vals = []
    for g, k, W, ls, gap in keys:
        row = next(r for r in record["rows"] if (r["group"], r["kernel"], r["W"], r["lsel"]) == (g, k, W, ls)
                   and (r["wsel"] if g == "c9_tr" else r["gap"]) == gap)
        if what == "req/store":
            vals.append(row["derived"]["l2_write_requests_per_store"])
        elif what == "req/line":
            vals.append(row["derived"]["requests_per_line_store"])
        else:
            ncu = row["ncu"]
            vals.append(ncu["lts__t_requests_srcunit_tex_op_write.sum"] / (ncu["gpc__cycles_elapsed.max"] / sm_per_l2))
    return sum(vals) / len(vals)


def _run(kernel: str, warps: int, lsel: int, n: int, gpu: str) -> tuple[int, float]:
    import gpusim
    buf = np.zeros(32 * 65536, np.int32)
    res = gpusim.run(str(HERE / "merge.ptx"), kernel=kernel, grid=(BLOCKS,), block=(32 * warps,),
                     args=[np.uint32(n), np.uint32(lsel), buf], mode="timing", gpu=gpu, sample=False)
    return res.timing.cycles, res.timing.counters["lts__t_requests_srcunit_tex_op_write.sum"]


def simulate(name: str, gpu: str = "h100") -> float:
    """The model's figure for a case (see the module docstring)."""
    from gpusim.config import load_gpu
    kernel, warps, lsel, n, what, _ = CASES[name]
    c1, r1 = _run(kernel, warps, lsel, n, gpu)
    c2, r2 = _run(kernel, warps, lsel, 4 * n, gpu)
    if what in ("req/store", "req/line"):
        return (r2 - r1) / (BLOCKS * warps * 3 * n * LINES.get(kernel, 1))
    g = load_gpu(gpu)
    return (r2 - r1) / ((c2 - c1) * g.memory.l2.clock_mhz / g.clock_mhz)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    print(f"{'case':42s} {'figure':12s} {'GH100':>8s} {'model':>8s}")
    for name, case in CASES.items():
        print(f"{name:42s} {case[4]:12s} {measured(name):8.4f} {simulate(name, a.gpu):8.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
