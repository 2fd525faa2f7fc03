"""The model beside the H100 on random accesses over L2- to DRAM-sized tables (``tests/golden/h100/micro/dramrand.json``).

    python benchmarks/micro/dramrand/compare.py                                # RED, load, store at 32 MB, 256 MB, 1 GB
    python benchmarks/micro/dramrand/compare.py --kernel dr_red --table-mb 1024 --blocks 4224   # the H100's launch in full
    python benchmarks/micro/dramrand/compare.py --gpu my.toml

Per case: the H100's accesses per SM cycle under ncu (base clock: the launch's 4224 x 256 threads x 16
accesses over ``gpc__cycles_elapsed.max``) and its DRAM sectors read and written per access, beside the
model's for the same loop of ``dramrand.ptx`` (the PTX the device's cubin came from), by default a shorter
launch of it (``--blocks 1056``: one wave of 8 blocks per SM, 16 accesses per thread, 4.3M accesses; ~40 s of
CPU a case), L2 cold at the start in both (ncu flushes it).  A shorter launch starts with an empty L2 for a
larger share of its time: fewer write-backs per access than the H100's steady state.
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
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "dramrand.json"


def simulate(kernel: str, table_mb: int, blocks: int, iters: int, gpu: str = "h100") -> dict:
    """The model's {cycles, ops, dram sectors read and written} of one launch of ``kernel``."""
    import gpusim
    wordbytes = 8 if kernel == "dr_xor64" else 4
    size = f"table_mb={table_mb},blocks={blocks},iters={iters},wordbytes={wordbytes}"
    launch = HERE / ("dramrand64.toml" if kernel == "dr_xor64" else "dramrand.toml")
    res = gpusim.run(str(HERE / "dramrand.ptx"), kernel=kernel, launch=str(launch), size=size,
                     mode="timing", gpu=gpu, sample=False)
    c = res.timing.counters
    return {"cycles": float(res.timing.cycles), "ops": blocks * 256 * iters,
            "dram_read": c["dram__sectors_read.sum"], "dram_write": c["dram__sectors_write.sum"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", nargs="*", default=["dr_red", "dr_load", "dr_store"])
    ap.add_argument("--table-mb", nargs="*", type=int, default=[32, 256, 1024])
    ap.add_argument("--blocks", type=int, default=1056)
    ap.add_argument("--iters", type=int, default=16)
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args(argv)
    rec = json.loads(RECORD.read_text())
    print(f"{'kernel':9s} {'MB':>5s} {'H100 /cyc':>9s} {'model':>7s} {'err':>7s}   {'H100 rd,wr/op':>13s} {'model rd,wr/op':>14s}")
    for row in rec["ncu"]["rows"]:
        if row["kernel"] not in a.kernel or row["table_mb"] not in a.table_mb:
            continue
        g = row["ncu"]
        ops = row["blocks"] * row["threads"] * row["iters"]
        hw = ops / g["gpc__cycles_elapsed.max"]
        t0 = time.process_time()
        m = simulate(row["kernel"], row["table_mb"], a.blocks, a.iters, a.gpu)
        sim = m["ops"] / m["cycles"]
        print(f"{row['kernel']:9s} {row['table_mb']:5d} {hw:9.2f} {sim:7.2f} {100 * (sim / hw - 1):+6.1f}%   "
              f"{g['dram__sectors_read.sum'] / ops:6.2f},{g['dram__sectors_write.sum'] / ops:5.2f}  "
              f"{m['dram_read'] / m['ops']:7.2f},{m['dram_write'] / m['ops']:5.2f}  ({time.process_time() - t0:.0f} s)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
