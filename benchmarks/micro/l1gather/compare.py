"""The model beside the H100 on the L1 gathers (``tests/golden/h100/micro/l1gather.json``, l1gather.cu).

    python benchmarks/micro/l1gather/compare.py                  # every case, preset h100
    python benchmarks/micro/l1gather/compare.py --gpu my.toml --kernel l1_chain

Per case: the launch's ``gpc__cycles_elapsed.max`` on the H100 under ncu (base clock) and in the model (the
same launch of ``l1gather.ptx``, the PTX the device's cubin came from), the error, and the H100's loop cycles
per request from clock64 (outside ncu; the loop is most of the launch).  The gathers under load (8 and 32 warps) measure the L1's throughput per request, the chains
(one warp, one dependent load at a time) a request's latency.  Seconds of CPU per case.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))
import onecall  # noqa: E402  (the records' clock and ncu sections side by side)
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "l1gather.json"


def simulate(case: dict, gpu: str = "h100") -> float:
    """The model's cycles per request of ``case`` (a row of the record's clock section)."""
    import gpusim
    size = f"reps={case['reps']},stride={case['stride']},warps={case['warps']}"
    launch = HERE / ("l1chain.toml" if case["kernel"] == "l1_chain" else "l1gather.toml")
    res = gpusim.run(str(HERE / "l1gather.ptx"), kernel=case["kernel"], launch=str(launch), size=size,
                     mode="timing", gpu=gpu)
    return float(res.timing.cycles)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", nargs="*", help="only these kernels (default: all)")
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    rec = json.loads(RECORD.read_text())
    print(f"{'kernel':10s} {'stride':>6s} {'warps':>5s} {'lines':>5s} {'H100 gpc':>9s} {'model':>9s} {'err':>7s} "
          f"{'H100 cyc/req':>12s}")
    errs = []
    for case, ncu in onecall.clock_with_ncu(rec):
        if a.kernel and case["kernel"] not in a.kernel:
            continue
        lines = 4 if case["kernel"] == "l1_gather4" else min(32, max(1, case["stride"] * 4 * 32 // 128))
        sim = simulate(case, a.gpu)
        hw = ncu["gpc__cycles_elapsed.max"]
        errs.append(abs(sim / hw - 1))
        print(f"{case['kernel']:10s} {case['stride']:6d} {case['warps']:5d} {lines:5d} {hw:9.0f} {sim:9.0f} "
              f"{100 * (sim / hw - 1):+6.1f}% {case['cycles_per_request']:12.2f}", flush=True)
    print(f"mean absolute error {100 * sum(errs) / len(errs):.1f}% ({len(errs)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
