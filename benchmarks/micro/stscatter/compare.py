"""The model beside the H100 on the scattered stores (``tests/golden/h100/micro/stscatter.json``, stscatter.cu).

    python benchmarks/micro/stscatter/compare.py                 # the one-SM cases, preset h100
    python benchmarks/micro/stscatter/compare.py --chip          # also the 132-block cases (slower)

Per case: the launch's ``gpc__cycles_elapsed.max`` on the H100 under ncu (base clock) and in the model (the
same launch of ``stscatter.ptx``), the error, and the H100's loop cycles per store request from clock64
(outside ncu).  Seconds of CPU per case.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))
import onecall  # noqa: E402  (the records' clock and ncu sections side by side)
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "stscatter.json"


def simulate(case: dict, gpu: str = "h100") -> float:
    """The model's gpc cycles of ``case`` (a row of the record's clock section)."""
    import gpusim
    size = ",".join(f"{k}={case[k]}" for k in ("reps", "stride", "warps", "blocks"))
    res = gpusim.run(str(HERE / "stscatter.ptx"), kernel=case["kernel"], launch=str(HERE / "stscatter.toml"),
                     size=size, mode="timing", gpu=gpu)
    return float(res.timing.cycles)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chip", action="store_true", help="also the 132-block cases")
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    rec = json.loads(RECORD.read_text())
    print(f"{'kernel':11s} {'stride':>6s} {'warps':>5s} {'blocks':>6s} {'H100 gpc':>9s} {'model':>9s} {'err':>7s} "
          f"{'H100 cyc/req':>12s} {'cpu s':>6s}")
    errs = []
    for case, ncu in onecall.clock_with_ncu(rec):
        if case["blocks"] > 1 and not a.chip:
            continue
        t0 = time.process_time()
        sim = simulate(case, a.gpu)
        hw = ncu["gpc__cycles_elapsed.max"]
        errs.append(abs(sim / hw - 1))
        print(f"{case['kernel']:11s} {case['stride']:6d} {case['warps']:5d} {case['blocks']:6d} {hw:9.0f} {sim:9.0f} "
              f"{100 * (sim / hw - 1):+6.1f}% {case['cycles_per_request']:12.2f} {time.process_time() - t0:6.1f}",
              flush=True)
    print(f"mean absolute error {100 * sum(errs) / len(errs):.1f}% ({len(errs)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
