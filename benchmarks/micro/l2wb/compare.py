"""The model beside the H100 on the L2's write-backs (``tests/golden/h100/micro/l2wb.json``, l2wb.cu).

    python benchmarks/micro/l2wb/compare.py                     # a subset of the cases, preset h100
    python benchmarks/micro/l2wb/compare.py --all               # all 27 (slower: ~5 M warp instructions each)
    python benchmarks/micro/l2wb/compare.py --set memory.l2.dirty_limit_bytes=0   # the model without the limit

Per case: the MB the kernel writes to DRAM during the launch (``dram__bytes_write.sum``; ncu flushes the
caches before each launch, so nothing is dirty at the start), on the H100 and in the model, and the launch's
``gpc__cycles_elapsed.max`` on both with the error.  Seconds of CPU per case.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))
from model import compare_args, print_mean_error  # noqa: E402

RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "l2wb.json"
SUBSET = {("wb_store", 16), ("wb_store", 24), ("wb_store", 32), ("wb_store", 48), ("wb_store", 64),
          ("wb_copy", 16), ("wb_copy", 32), ("wb_copy", 64), ("wb_rmw", 32), ("wb_rmw", 64)}


def simulate(kernel: str, mb: int, gpu) -> dict:
    """The model's counters for one case (the launch of l2wb.ptx the H100 case made)."""
    import gpusim
    launch = HERE / ("l2wb_copy.toml" if kernel == "wb_copy" else "l2wb_store.toml")
    res = gpusim.run(str(HERE / "l2wb.ptx"), kernel=kernel, launch=str(launch), size=f"mb={mb}", mode="timing",
                     gpu=gpu, sample=False)
    c = res.timing.counters
    return {"cycles": float(res.timing.cycles), "dram_write": c["dram__bytes_write.sum"],
            "dram_read": c["dram__bytes_read.sum"]}


def main(argv=None) -> int:
    a, gpu = compare_args(argv, __doc__, 10, "memory.l2.dirty_limit_bytes=0")
    rec = json.loads(RECORD.read_text())
    print(f"{'kernel':9s} {'MB':>3s} {'H100 wb MB':>10s} {'model wb MB':>11s} {'H100 gpc':>9s} {'model':>9s} "
          f"{'err':>7s} {'cpu s':>6s}")
    errs = []
    for row in rec["ncu"]["rows"]:
        if not a.all and (row["kernel"], row["mb"]) not in SUBSET:
            continue
        t0 = time.process_time()
        sim = simulate(row["kernel"], row["mb"], gpu)
        hw = row["ncu"]
        err = sim["cycles"] / hw["gpc__cycles_elapsed.max"] - 1
        errs.append(abs(err))
        print(f"{row['kernel']:9s} {row['mb']:3d} {hw['dram__bytes_write.sum'] / 1e6:10.2f} "
              f"{sim['dram_write'] / 1e6:11.2f} {hw['gpc__cycles_elapsed.max']:9.0f} {sim['cycles']:9.0f} "
              f"{100 * err:+6.1f}% {time.process_time() - t0:6.1f}", flush=True)
    print_mean_error(errs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
