"""DRAM bandwidth by the stride between the lines consecutive warps touch (dramstride.cu): one call on the GPU.

    python3 dramstride.py --cubin dramstride.cubin --out DIR      # DIR/dramstride.json

Build: ``nvcc -cubin -arch=sm_90 -O3 -o dramstride.cubin dramstride.cu``.  A 256 MiB buffer (2^21 lines), each
line read (or written) once per launch by one warp, 256 threads a block; CUDA-event time, median of 5 after a
warm-up; GB/s = 256 MiB / time.  The L2 (50 MB) cannot hold the buffer, so each launch streams it from DRAM.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from walk import provenance as device_provenance
import onecall

LINES = 1 << 21
STRIDES = (1, 2, 8, 32, 128, 160, 1024, 8192)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "dramstride.cubin"))
    ap.add_argument("--out", default="/tmp/dramstride")
    a = ap.parse_args()
    import cupy as cp
    import numpy as np
    mod = cp.RawModule(path=a.cubin)
    buf = cp.zeros(LINES * 32, dtype=cp.float32)
    out = cp.zeros(4, dtype=cp.float32)
    blocks = LINES * 32 // 256
    rows = []
    for kernel in ("stride_read", "stride_write"):
        fn = mod.get_function(kernel)
        for s in STRIDES:
            args = (buf, np.int64(LINES), np.int64(s), out)
            onecall.launch_us(cp, fn, (blocks,), (256,), args)
            runs = [onecall.launch_us(cp, fn, (blocks,), (256,), args) for _ in range(5)]
            us = statistics.median(runs)
            gbs = LINES * 128 / us / 1e3
            rows.append({"kernel": kernel, "stride_lines": s, "us_median": us, "us_runs": runs, "GB_per_s": gbs})
            print(f"{kernel:12s} stride {s:5d} lines: {us:8.1f} us  {gbs:7.0f} GB/s", flush=True)
    rec = {"what": __doc__.splitlines()[0], "provenance": {**device_provenance(),
           "cubin": "dramstride.cubin from dramstride.cu (nvcc 13.0 -cubin -arch=sm_90 -O3)"}, "rows": rows}
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "dramstride.json").write_text(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
