"""Launch-path probes on a real GPU (issue 6): block dispatch rate and the cost of a kernel's first
parameter / ``__constant__`` read.

Run under ncu (``ncu --csv --page raw --metrics gpc__cycles_elapsed.max,... python dispatch_probe.py ...``)
for the gpc-cycle figures, and as is (``--timeline``) for per-block start times from ``%globaltimer``.

Kernels:
  empty          ``{}`` (SASS: EXIT)
  param_cmp      ``if (threadIdx.x > n) out[threadIdx.x] = 0`` with n = 2^30: S2R + ISETP on a c[0x0] operand +
                 EXIT; minus ``empty`` = the first parameter read (constant bank 0) and S2R
  const_cmp      the same with n a module ``__constant__`` (c[0x3]): the first touch of a __constant__
  spin           each block spins ``cycles`` SM clocks (clock64) and exits; thread 0 writes its start
                 %globaltimer and %smid: the spread of start times over a one-wave grid is the dispatch rate
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

SRC = r"""
typedef unsigned long long u64;
__constant__ int cn;
extern "C" __global__ void empty() {}
extern "C" __global__ void param_cmp(int n, int* out) { if ((int)threadIdx.x > n) out[threadIdx.x] = 0; }
extern "C" __global__ void const_cmp(int* out) { if ((int)threadIdx.x > cn) out[threadIdx.x] = 0; }
extern "C" __global__ void spin(long long cycles, u64* t, unsigned* sm) {
    u64 g; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    long long c0 = clock64();
    while (clock64() - c0 < cycles) {}
    if (threadIdx.x == 0) {
        unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
        t[blockIdx.x] = g; sm[blockIdx.x] = s;
    }
}
"""


def main(argv=None) -> int:
    import cupy as cp
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeline", metavar="OUT_JSON")
    a = ap.parse_args(argv)
    mod = cp.RawModule(code=SRC, backend="nvrtc", options=("-std=c++17",))
    f = {k: mod.get_function(k) for k in ("empty", "param_cmp", "const_cmp", "spin")}
    cn = mod.get_global("cn")
    cp.asarray(np.array([1 << 30], dtype=np.int32)).data  # noqa: B018
    cn_view = cp.ndarray((1,), dtype=cp.int32, memptr=cn)
    cn_view[...] = 1 << 30
    out = cp.zeros(1 << 16, dtype=cp.int32)
    n_big = np.int32(1 << 30)
    nsm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    t = cp.zeros(1 << 20, dtype=cp.uint64)
    sm = cp.zeros(1 << 20, dtype=cp.uint32)
    if a.timeline:
        res = {}
        for blocks, threads, cycles in ((nsm, 32, 20000), (nsm * 4, 32, 20000), (nsm * 32, 32, 40000),
                                        (nsm * 8, 256, 40000), (nsm * 64, 32, 20000)):
            for _ in range(3):
                f["spin"]((blocks,), (threads,), (np.int64(cycles), t, sm))
            cp.cuda.runtime.deviceSynchronize()
            g = cp.asnumpy(t[:blocks]).astype(np.int64)
            g -= g.min()
            s = cp.asnumpy(sm[:blocks])
            res[f"{blocks}x{threads}_spin{cycles}"] = {
                "start_ns_sorted_percentiles": {p: float(np.percentile(g, p)) for p in (0, 10, 25, 50, 75, 90, 100)},
                "start_ns_by_block_first64": g[:64].tolist(), "start_ns_by_block_every64": g[::64].tolist(),
                "distinct_sms": int(np.unique(s).size)}
        json.dump(res, open(a.timeline, "w"), indent=1)
        print(json.dumps({k: v["start_ns_sorted_percentiles"] for k, v in res.items()}, indent=1))
        return 0
    # under ncu: each launch is one profiled kernel, in this order
    for blocks in (1, nsm, nsm * 2, nsm * 4, nsm * 8, nsm * 16, nsm * 32):
        f["empty"]((blocks,), (32,), ())
    for blocks in (1, nsm, nsm * 4):
        f["param_cmp"]((blocks,), (32,), (n_big, out))
        f["const_cmp"]((blocks,), (32,), (out,))
    for blocks in (nsm, nsm * 4, nsm * 32):
        f["spin"]((blocks,), (32,), (np.int64(20000), t, sm))
    cp.cuda.runtime.deviceSynchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
