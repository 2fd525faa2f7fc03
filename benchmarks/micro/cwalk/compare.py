"""The model beside the H100 on the constant-memory walks (``tests/golden/h100/micro/cwalk.json``, cwalk.cu).

    python benchmarks/micro/cwalk/compare.py [--gpu my.toml]

Per stride: the launch's ``gpc__cycles_elapsed.max`` on the H100 under ncu (base clock, caches flushed: the
constant data comes from DRAM) and in the model (the same launch of ``cwalk.ptx``), the error, and the H100's
cycles per load outside ncu (clock64, L2 flushed, boost clock).  Seconds of CPU in all.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "cwalk.json"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    import gpusim
    rec = json.loads(RECORD.read_text())
    cold = {c["stride_bytes"]: c for c in rec["clock"] if c["l2"] == "cold"}
    print(f"{'stride B':>8s} {'loads':>5s} {'H100 gpc':>9s} {'model':>9s} {'err':>7s} {'H100 cyc/load':>13s}")
    errs = []
    for row in rec["ncu"]["rows"]:
        res = gpusim.run(str(HERE / "cwalk.ptx"), launch=str(HERE / "cwalk.toml"),
                         size=f"n={row['n']},stride={row['stride_bytes'] // 4}", mode="timing", gpu=a.gpu)
        hw = row["ncu"]["gpc__cycles_elapsed.max"]
        sim = res.timing.cycles
        errs.append(abs(sim / hw - 1))
        print(f"{row['stride_bytes']:8d} {row['n']:5d} {hw:9.0f} {sim:9d} {100 * (sim / hw - 1):+6.1f}% "
              f"{cold[row['stride_bytes']]['cycles_per_load']:13.1f}", flush=True)
    print(f"mean absolute error {100 * sum(errs) / len(errs):.1f}% ({len(errs)} strides)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
