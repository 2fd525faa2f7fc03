"""The model's stream bandwidth beside the H100's, curve by curve (``tests/golden/h100/micro/sweep*.json``).

    python benchmarks/micro/model_curves.py                               # every 4-byte ILP 1/4 point of the chip and one-SM groups
    python benchmarks/micro/model_curves.py --group chip_dram_v4 --op read --ilp 1 4 8
    python benchmarks/micro/model_curves.py --target-bytes 3e6             # shorter runs (the first latency weighs more)

Prints, per point: the configuration, the H100's GB/s, the model's (preset ``h100-boost``: the sweeps ran at
1980 MHz), the error, and the CPU seconds; then the mean absolute error per group.  Each point is one
synthetic trace (:mod:`gpusim.hw.micro_model`); a chip-wide point at the DRAM ceiling takes ~1 minute of CPU.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gpusim.hw.micro_model import StreamPoint, simulate_stream  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", default=str(ROOT / "tests/golden/h100/micro/sweep.json"))
    ap.add_argument("--group", nargs="*", default=["chip_dram_v4", "chip_l2_v4", "sm1_dram_v4", "sm1_l2_v4"])
    ap.add_argument("--op", nargs="*", default=["read", "copy", "scale", "gather"])
    ap.add_argument("--ilp", nargs="*", type=int, default=[1, 4])
    ap.add_argument("--warps", nargs="*", type=int, default=[1, 4, 16, 32])
    ap.add_argument("--target-bytes", type=float, default=8e6)
    ap.add_argument("--gpu", default="h100-boost")
    a = ap.parse_args(argv)
    rows = [r for r in json.loads(Path(a.record).read_text())["rows"]
            if r["group"] in a.group and r["op"] in a.op and r["ilp"] in a.ilp
            and r["warps_per_active_sm"] in a.warps]
    errs: dict[str, list[float]] = {}
    print(f"{'group':14s} {'op':6s} {'B':>3s} {'ILP':>3s} {'warps':>5s} {'H100 GB/s':>10s} {'model':>9s} {'err':>7s}")
    for r in rows:
        t0 = time.process_time()
        sim = simulate_stream(StreamPoint.of_row(r), a.gpu, target_bytes=a.target_bytes)["gbps"]
        err = sim / r["gbps"] - 1
        errs.setdefault(f"{r['group']} {r['op']}", []).append(abs(err))
        print(f"{r['group']:14s} {r['op']:6s} {r['vec']:>3d} {r['ilp']:>3d} {r['warps_per_active_sm']:>5d} "
              f"{r['gbps']:>10.1f} {sim:>9.1f} {100 * err:>+6.1f}%  ({time.process_time() - t0:.0f} s)", flush=True)
    print("\nmean absolute error per curve:")
    for k, v in errs.items():
        print(f"  {k:24s} {100 * sum(v) / len(v):5.1f}%  ({len(v)} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
