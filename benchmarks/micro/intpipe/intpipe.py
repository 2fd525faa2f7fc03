"""Issue throughput of the H100's ALU and FMA pipes under integer and FP32 mixes (intpipe.cu): run on the GPU machine.

    python3 intpipe.py --cubin intpipe.cubin --out DIR        # DIR/intpipe.json

Build (CUDA 13.0; the cubin is a build product, not committed; the SASS listing is recorded beside the results):
``nvcc -cubin -arch=sm_90 -O3 -o intpipe.cubin intpipe.cu``.  Each kernel: one block on one SM, 8 independent
chains per thread, 64 PTX instructions a trip, 256 trips; thread 0 reads clock64 between two __syncthreads
around the loop.  Reported: SM cycles per trip (median of 5 launches) at 1024 and 512 threads, i.e. 8 and 4
warps per sub-partition.  With ``--ncu`` the same launches also run under Nsight Compute for the per-pipe
instruction counts (``ncu.csv`` beside the JSON).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "walk"))
from walk import provenance as device_provenance

KERNELS = ["tp_lop", "tp_iadd", "tp_imad", "tp_ffma", "tp_lop_imad", "tp_lop_iadd", "tp_lop_addi", "tp_ffma_imad",
           "tp_ffma_lop", "tp_ffma_iadd", "tp_ffma_addi"]
THREADS = (1024, 512)
TRIPS = 256


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "intpipe.cubin"))
    ap.add_argument("--out", default="/tmp/intpipe")
    ap.add_argument("--once", action="store_true", help="one launch per kernel and size (for ncu)")
    a = ap.parse_args()
    import cupy as cp
    import numpy as np
    mod = cp.RawModule(path=a.cubin)
    sink = cp.zeros(1024, dtype=cp.uint32)
    cycles = cp.zeros(1, dtype=cp.int64)
    rows = []
    for name in KERNELS:
        fn = mod.get_function(name)
        for threads in THREADS:
            runs = []
            for _ in range(1 if a.once else 5):
                fn((1,), (threads,), (np.uint32(0x9E3779B9), np.float32(0.999), sink, cycles))
                cp.cuda.Device().synchronize()
                runs.append(int(cycles.get()[0]))
            per_trip = statistics.median(runs) / TRIPS
            rows.append({"kernel": name, "threads": threads, "cycles_per_trip_median": per_trip, "runs": runs})
            print(f"{name:13s} {threads:5d} threads {per_trip:8.2f} cycles per trip", flush=True)
    if a.once:
        return 0
    prov = device_provenance()
    prov["cubin"] = "intpipe.cubin from intpipe.cu (nvcc 13.0 -cubin -arch=sm_90 -O3)"
    rec = {"what": "ALU/FMA pipe issue throughput, one block on one SM (intpipe.cu)",
           "provenance": prov, "trips": TRIPS,
           "cubin": "intpipe.cubin from intpipe.cu (nvcc 13.0 -cubin -arch=sm_90 -O3)", "rows": rows}
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "intpipe.json").write_text(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
