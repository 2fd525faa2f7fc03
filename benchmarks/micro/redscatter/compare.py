"""The model beside the H100 on the scattered float atomics (``tests/golden/h100/micro/redscatter.json``,
redscatter.cu).

    python benchmarks/micro/redscatter/compare.py                 # the one-SM and 8-SM cases, preset h100
    python benchmarks/micro/redscatter/compare.py --chip          # also the 132-block cases (slower)

Per case: the launch's ``gpc__cycles_elapsed.max`` on the H100 under ncu (base clock) and in the model (the
same launch of ``redscatter.ptx``), the error, and the H100's loop cycles per RED from clock64 (outside ncu).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))
import onecall  # noqa: E402  (the records' clock and ncu sections side by side)
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "redscatter.json"


def simulate(case: dict, gpu: str = "h100") -> float:
    """The model's gpc cycles of ``case`` (a row of the record's clock section)."""
    import gpusim
    n = case["blocks"] * case["warps"] * 8 * 32 * max(1, case["stride"]) + 64
    args = [np.int32(case["reps"]), np.int32(case["stride"]), np.zeros(n, np.float32), np.zeros(256, np.float32),
            np.zeros(case["blocks"], np.int64), np.int32(1)]
    res = gpusim.run(str(HERE / "redscatter.ptx"), kernel=case["kernel"], grid=(case["blocks"],),
                     block=(32 * case["warps"],), args=args, mode="timing", gpu=gpu)
    return float(res.timing.cycles)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chip", action="store_true", help="also the 132-block cases")
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    rec = json.loads(RECORD.read_text())
    print(f"{'kernel':14s} {'stride':>6s} {'warps':>5s} {'blocks':>6s} {'H100 gpc':>9s} {'model':>9s} {'err':>7s} "
          f"{'H100 cyc/red':>12s} {'cpu s':>6s}")
    errs = []
    for case, ncu in onecall.clock_with_ncu(rec):
        if case["blocks"] > 8 and not a.chip:
            continue
        t0 = time.process_time()
        sim = simulate(case, a.gpu)
        hw = ncu["gpc__cycles_elapsed.max"]
        errs.append(abs(sim / hw - 1))
        print(f"{case['kernel']:14s} {case['stride']:6d} {case['warps']:5d} {case['blocks']:6d} {hw:9.0f} {sim:9.0f} "
              f"{100 * (sim / hw - 1):+6.1f}% {case['cycles_per_request']:12.2f} {time.process_time() - t0:6.1f}",
              flush=True)
    print(f"mean absolute error {100 * sum(errs) / len(errs):.1f}% ({len(errs)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
