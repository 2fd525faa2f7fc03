"""The model beside the H100 on bar.sync (``tests/golden/h100/micro/barrier.json``, barrier.cu).

    python benchmarks/micro/barrier/compare.py [--gpu h100]

Per case: the launch's ``gpc__cycles_elapsed.max`` on the H100 under ncu (base clock) and in the model (the same
launch of ``barrier.ptx``), the error, the H100's loop cycles per trip from clock64 (outside ncu), and the
dominant warp state of each (ncu's, the model's) with its warp-cycles per issued instruction.
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
sys.path.insert(0, str(HERE.parent))
import onecall  # noqa: E402  (the records' clock and ncu sections side by side)
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "barrier.json"
PREFIX, SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"


def simulate(case: dict, gpu: str = "h100"):
    """The model's timing result of ``case`` (a row of the record's clock section)."""
    import gpusim
    args = [np.int32(case["reps"]), np.zeros(1024, np.uint32), np.zeros(1, np.int64)]
    res = gpusim.run(str(HERE / "barrier.ptx"), kernel=case["kernel"], grid=(1,), block=(32 * case["warps"],),
                     args=args, mode="timing", gpu=gpu)
    return res.timing


def top_state(states: dict) -> str:
    k, v = max(((k, v) for k, v in states.items() if k != "selected" and v), key=lambda kv: kv[1],
               default=("-", 0.0))
    return f"{k} {v:.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    rec = json.loads(RECORD.read_text())
    print(f"{'kernel':9s} {'warps':>5s} {'H100 gpc':>9s} {'model':>9s} {'err':>7s} {'H100 cyc/trip':>13s}  "
          f"{'H100 state':24s} model state")
    errs = []
    for case, ncu in onecall.clock_with_ncu(rec):
        t = simulate(case, a.gpu)
        hw = ncu["gpc__cycles_elapsed.max"]
        errs.append(abs(t.cycles / hw - 1))
        hw_states = {k[len(PREFIX):-len(SUFFIX)]: v for k, v in ncu.items() if k.startswith(PREFIX)}
        sim_states = dict(t.top_stalls(20))
        print(f"{case['kernel']:9s} {case['warps']:5d} {hw:9.0f} {t.cycles:9.0f} {100 * (t.cycles / hw - 1):+6.1f}% "
              f"{case['cycles_per_request']:13.2f}  {top_state(hw_states):24s} {top_state(sim_states)}", flush=True)
    print(f"mean absolute error {100 * sum(errs) / len(errs):.1f}% ({len(errs)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
