"""Latency of the H100's XU instructions and of integer division (xulat.cu), one thread: run on the GPU machine.

    python3 xulat.py --cubin xulat.cubin --out DIR        # DIR/xulat.json

Build (CUDA 13.0; the cubin is a build product, not committed; the SASS listing is recorded beside the
results): ``nvcc -cubin -arch=sm_90 -O3 -o xulat.cubin xulat.cu``.  Each kernel: one block of one thread,
a loop of 64 dependent steps per trip, SM cycles per step from clock64 over 16 trips (median of 5 launches).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "walk"))
sys.path.insert(0, str(HERE))
from walk import provenance as device_provenance

KERNELS = ["lat_i2f_f2i", "lat_rcp", "lat_fadd", "lat_iadd", "lat_imad", "lat_imadhi", "lat_udiv", "lat_urem",
           "lat_setp_selp", "lat_setp_padd"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "xulat.cubin"))
    ap.add_argument("--out", default="/tmp/xulat")
    a = ap.parse_args()
    import cupy as cp
    import numpy as np
    mod = cp.RawModule(path=a.cubin)
    sink = cp.zeros(4, dtype=cp.uint32)
    out = cp.zeros(4, dtype=cp.float32)
    rows = []
    for name in KERNELS:
        fn = mod.get_function(name)
        runs = []
        for _ in range(5):
            fn((1,), (1,), (np.uint32(12345), np.uint32(7919), sink, out))
            cp.cuda.Device().synchronize()
            runs.append(float(out.get()[0]))
        rows.append({"kernel": name, "cycles_per_step_median": statistics.median(runs), "runs": runs})
        print(f"{name:12s} {statistics.median(runs):7.2f} cycles per step", flush=True)
    rec = {"what": "XU and integer-division latency, one thread (xulat.cu)", "provenance": device_provenance(),
           "cubin": "xulat.cubin from xulat.cu (nvcc 13.0 -cubin -arch=sm_90 -O3)", "rows": rows}
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "xulat.json").write_text(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
