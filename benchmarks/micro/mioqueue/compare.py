"""The model beside the H100 on the memory-instruction queue (``tests/golden/h100/micro/mioqueue.json``,
mioqueue.cu).

    python benchmarks/micro/mioqueue/compare.py [--gpu h100]

Per case: the launch's ``gpc__cycles_elapsed.max`` on the H100 under ncu (base clock) and in the model (the
same launch of ``mioqueue.ptx``), the error, the H100's median cycles to issue all 16 loads (clock after each,
outside ncu), and the warp-cycles per issued instruction in the throttle and scoreboard states (ncu, model).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE.parent))
import onecall  # noqa: E402  (the records' clock and ncu sections side by side)
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "mioqueue.json"
PREFIX, SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
STATES = ("mio_throttle", "short_scoreboard", "lg_throttle", "long_scoreboard")


def simulate(case: dict, gpu: str = "h100"):
    """The model's timing result of ``case`` (a row of the record's clock section)."""
    import gpusim
    out, ts = np.zeros(1024, np.float32), np.zeros(32 * 18, np.uint32)
    args = [np.int32(case["stride"]), out, ts] if case["kernel"] == "q_lds" else \
        [np.int32(case["stride"]), np.arange(32 * 32 + 16, dtype=np.float32), out, ts]
    res = gpusim.run(str(HERE / "mioqueue.ptx"), kernel=case["kernel"], grid=(1,), block=(32 * case["warps"],),
                     args=args, mode="timing", gpu=gpu)
    return res.timing


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    rec = json.loads(RECORD.read_text())
    short = "/".join(s.split("_")[0][:3] + s.split("_")[1][:2] for s in STATES)
    print(f"{'kernel':6s} {'stride':>6s} {'warps':>5s} {'H100 gpc':>9s} {'model':>9s} {'err':>7s} {'issue 16':>8s}  "
          f"H100 {short:23s} model {short}")
    errs = []
    for case, ncu in onecall.clock_with_ncu(rec):
        t = simulate(case, a.gpu)
        hw = ncu["gpc__cycles_elapsed.max"]
        errs.append(abs(t.cycles / hw - 1))
        sim = dict(t.top_stalls(20))
        hw_s = " ".join(f"{ncu.get(PREFIX + s + SUFFIX) or 0:5.1f}" for s in STATES)
        sim_s = " ".join(f"{sim.get(s, 0.0):5.1f}" for s in STATES)
        issue16 = statistics.median(w[15] for w in case["issue_cycles"])
        print(f"{case['kernel']:6s} {case['stride']:6d} {case['warps']:5d} {hw:9.0f} {t.cycles:9.0f} "
              f"{100 * (t.cycles / hw - 1):+6.1f}% {issue16:8.0f}  {hw_s:28s} {sim_s}", flush=True)
    print(f"mean absolute error {100 * sum(errs) / len(errs):.1f}% ({len(errs)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
