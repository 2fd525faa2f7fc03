"""The model beside the H100 on how much read data the L2 keeps (``tests/golden/h100/micro/l2cap.json``, l2cap.cu).

    python benchmarks/micro/l2cap/compare.py                    # a subset of the cases, preset h100
    python benchmarks/micro/l2cap/compare.py --all              # all 21 (slower: up to ~7 M warp instructions each)
    python benchmarks/micro/l2cap/compare.py --set memory.l2.size_bytes=52428800 --set memory.l2.associativity=16

Per case: the share of the second pass that misses the L2 (DRAM bytes read, ``dram__bytes_read.sum``, less the
buffer's size, over the buffer's size; ncu flushes the caches before each launch), on the H100 and in the model,
and the launch's ``gpc__cycles_elapsed.max`` on both with the error.  Seconds of CPU per case.
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

RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "l2cap.json"
SUBSET = {(24, 0), (32, 0), (40, 0), (48, 0), (32, 1), (40, 1)}
MIB = 2 ** 20


def simulate(mb: int, shift: int, gpu) -> dict:
    """The model's counters for one case (the launch of l2cap.ptx the H100 case made)."""
    import gpusim
    res = gpusim.run(str(HERE / "l2cap.ptx"), kernel="cap_reread", launch=str(HERE / "l2cap.toml"),
                     size=f"mb={mb},shift={shift}", mode="timing", gpu=gpu, sample=False)
    c = res.timing.counters
    return {"cycles": float(res.timing.cycles), "dram_read": c["dram__bytes_read.sum"]}


def second_pass_miss_pct(dram_read_bytes: float, mb: int) -> float:
    return 100 * (dram_read_bytes - mb * MIB) / (mb * MIB)


def main(argv=None) -> int:
    a, gpu = compare_args(argv, __doc__, 6, "memory.l2.associativity=16")
    rec = json.loads(RECORD.read_text())
    print(f"{'shift':>5s} {'MiB':>3s} {'H100 miss':>9s} {'model miss':>10s} {'H100 gpc':>9s} {'model':>9s} "
          f"{'err':>7s} {'cpu s':>6s}")
    errs = []
    for row in rec["ncu"]["rows"]:
        if not a.all and (row["mb"], row["shift"]) not in SUBSET:
            continue
        t0 = time.process_time()
        sim = simulate(row["mb"], row["shift"], gpu)
        hw = row["ncu"]
        err = sim["cycles"] / hw["gpc__cycles_elapsed.max"] - 1
        errs.append(abs(err))
        print(f"{row['shift']:5d} {row['mb']:3d} {second_pass_miss_pct(hw['dram__bytes_read.sum'], row['mb']):8.1f}% "
              f"{second_pass_miss_pct(sim['dram_read'], row['mb']):9.1f}% {hw['gpc__cycles_elapsed.max']:9.0f} "
              f"{sim['cycles']:9.0f} {100 * err:+6.1f}% {time.process_time() - t0:6.1f}", flush=True)
    print_mean_error(errs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
