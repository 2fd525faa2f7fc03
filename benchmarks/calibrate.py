"""Microbenchmarks that calibrate a GPU preset's latencies and overheads on the real GPU (through CuPy).

    python benchmarks/calibrate.py --out tests/golden/h100/calibration.json      # on a machine with a GPU

Each benchmark is one CUDA C kernel (compiled with NVRTC through ``cupy.RawModule``) timed from inside
with ``clock64()`` (SM cycles) and ``%globaltimer`` (ns), so the figures are cycles of the SM clock the
card ran at; the clock itself (cycles / ns) is recorded too.

* **FMA latency** (``latency_cycles.fma``): one thread runs ``n x 64`` dependent ``fmaf(x, a, b)``;
  cycles / FMAs.
* **Shared-memory load latency** (``memory.shared.latency_cycles``): one thread chases a pointer chain
  through shared memory (each word holds the byte offset of the next, so no address arithmetic sits
  between two loads); cycles / loads.
* **L1 hit latency** (``memory.l1.hit_latency_cycles``): a pointer chain of 64 lines (8 KB, stride 128 B)
  in global memory with ``ld.global.ca``, walked once to warm L1, then timed.
* **L2 hit latency** (``memory.l2.hit_latency_near/far_cycles``): a chain over 4 MB (stride 128 B... 
  33 lines apart so successive loads hit different L2 slices) with ``ld.global.cg`` (bypasses L1), warmed
  once, then timed; the mean, and each load's own latency, which splits into a near and a far cluster
  (the two L2 partitions).
* **DRAM latency** (``memory.dram.latency_cycles``): a chain of 2048 loads 32 KB apart (64 MB) with
  ``ld.global.cg`` after a 256 MB write has evicted it from L2: every load misses L2.
* **Kernel launch overhead and block launch cost** (``kernel_launch_cycles``, ``block_launch_cycles``):
  an empty kernel (one warp per block) under ncu at 1 ... 67,584 blocks: ``gpc__cycles_elapsed.max`` at
  one block is the fixed launch cost the simulator's cycles include; the slope against full waves of
  resident blocks (32 per SM) is the per-block cost.  Also timed with CUDA events (back-to-back launches).
* **DRAM bandwidth**: a 1 GiB device-to-device copy kernel (bytes read + written) and a 1 GiB read-only
  sum, CUDA events, median of repeats.

No per-program factor is fitted: the preset takes these figures as they are (see the comments in
``gpusim/config/presets/h100.toml``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

KERNELS = r"""
typedef unsigned long long u64;

__device__ __forceinline__ u64 clk() { u64 t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t; }
__device__ __forceinline__ u64 gtime() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory"); return t; }
__device__ __forceinline__ u64 ld_ca(const u64* p) { u64 v; asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ u64 ld_cg(const u64* p) { u64 v; asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }

extern "C" __global__ void fma_chain(float* out, u64* res, int n, float a, float b) {
    float x = out[threadIdx.x];
    u64 t0 = clk(), g0 = gtime();
    for (int i = 0; i < n; i++) {
        #pragma unroll
        for (int j = 0; j < 64; j++) x = fmaf(x, a, b);
    }
    u64 t1 = clk(), g1 = gtime();
    out[threadIdx.x] = x;
    if (threadIdx.x == 0) { res[0] = t1 - t0; res[1] = g1 - g0; }
}

extern "C" __global__ void smem_chase(const unsigned* init, unsigned* out, u64* res, int n_words, int steps) {
    __shared__ unsigned s[4096];
    for (int i = threadIdx.x; i < n_words; i += blockDim.x) s[i] = init[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned j = 0;
        const char* base = (const char*)s;
        for (int i = 0; i < n_words; i++) j = *(volatile const unsigned*)(base + j);   // warm
        u64 t0 = clk();
        #pragma unroll 16
        for (int i = 0; i < steps; i++) j = *(volatile const unsigned*)(base + j);
        u64 t1 = clk();
        out[0] = j; res[0] = t1 - t0;
    }
}

// mode 0: .ca, 1: .cg. warm: walk the chain once first. Per-step latencies of the first `record` steps too.
extern "C" __global__ void gchase(const u64* start, u64* out, u64* res, unsigned* lat, int steps, int warm,
                                  int mode, int record) {
    __shared__ unsigned s_lat[1024];
    __shared__ unsigned s_sink[32];
    const u64* p = start;
    if (warm) {
        for (int i = 0; i < steps; i++) p = (const u64*)(mode ? ld_cg(p) : ld_ca(p));
        p = start;
    }
    u64 t0 = clk(), g0 = gtime();
    for (int i = 0; i < steps; i++) p = (const u64*)(mode ? ld_cg(p) : ld_ca(p));
    u64 t1 = clk(), g1 = gtime();
    out[0] = (u64)p;
    res[0] = t1 - t0; res[1] = g1 - g0;
    // per-load latencies (each includes a shared store and a clock read: the overhead is recorded apart)
    p = start;
    for (int i = 0; i < record; i++) {
        u64 a = clk();
        p = (const u64*)(mode ? ld_cg(p) : ld_ca(p));
        ((volatile unsigned*)s_sink)[i & 31] = (unsigned)(u64)p;
        u64 b = clk();
        s_lat[i] = (unsigned)(b - a);
    }
    for (int i = 0; i < record; i++) lat[i] = s_lat[i];
    out[1] = s_sink[0];
}

extern "C" __global__ void empty_kernel() {}

extern "C" __global__ void copy_f4(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

extern "C" __global__ void read_f4(const float4* __restrict__ a, float* out, size_t n) {
    float s = 0.f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = a[i]; s += v.x + v.y + v.z + v.w;
    }
    if (s == 12345.678f) out[0] = s;   // keeps the loads, almost never stores
}
"""


def _events(cp, fn, repeats=20, warmup=3):
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(repeats):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        ts.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(ts), ts


def _chain(cp, n_elems_region: int, stride_elems: int, steps: int):
    """A device buffer of u64 whose element k*stride holds the address of element (k+1)*stride (wrapping)."""
    buf = cp.zeros(n_elems_region, dtype=cp.uint64)
    base = int(buf.data.ptr)
    n_nodes = n_elems_region // stride_elems
    idx = np.arange(n_nodes, dtype=np.uint64) * np.uint64(stride_elems)
    nxt = np.roll(idx, -1)
    host = np.zeros(n_elems_region, dtype=np.uint64)
    host[idx.astype(np.int64)] = np.uint64(base) + nxt * np.uint64(8)
    buf.set(host)
    return buf, n_nodes


def _clusters(lat: np.ndarray) -> dict:
    """Split per-load latencies at the largest gap of the sorted values into a low and a high cluster."""
    v = np.sort(lat.astype(np.float64))
    if v.size < 4:
        return {}
    gaps = np.diff(v)
    k = int(np.argmax(gaps))
    lo, hi = v[:k + 1], v[k + 1:]
    return {"low_median": float(np.median(lo)), "low_n": int(lo.size), "high_median": float(np.median(hi)),
            "high_n": int(hi.size), "gap": float(gaps[k]), "p10": float(np.percentile(v, 10)),
            "p50": float(np.percentile(v, 50)), "p90": float(np.percentile(v, 90))}


def run(out: Path | None = None, use_ncu: bool = True) -> dict:
    import cupy as cp
    mod = cp.RawModule(code=KERNELS, backend="nvrtc", options=("-std=c++17",))
    f = mod.get_function
    res = cp.zeros(4, dtype=cp.uint64)
    doc: dict = {"units": "SM cycles (clock64) unless named otherwise"}

    # FMA chain
    n = 4096
    x = cp.ones(32, dtype=cp.float32)
    f("fma_chain")((1,), (1,), (x, res, np.int32(n), np.float32(0.999), np.float32(0.001)))
    f("fma_chain")((1,), (1,), (x, res, np.int32(n), np.float32(0.999), np.float32(0.001)))
    r = res.get()
    doc["fma_dependent_latency"] = {"cycles_per_fma": r[0] / (n * 64), "fmas": n * 64,
                                    "clock_mhz": r[0] / r[1] * 1000.0 if r[1] else None}

    # shared-memory chase: 1024 words, a random cycle of byte offsets
    rng = np.random.default_rng(1)
    n_words = 1024
    perm = rng.permutation(n_words)
    chain = np.zeros(n_words, dtype=np.uint32)
    chain[perm] = (np.roll(perm, -1) * 4).astype(np.uint32)
    init = cp.asarray(chain)
    o = cp.zeros(2, dtype=cp.uint32)
    steps = 16384
    for _ in range(2):
        f("smem_chase")((1,), (32,), (init, o, res, np.int32(n_words), np.int32(steps)))
    r = res.get()
    doc["shared_load_latency"] = {"cycles_per_load": r[0] / steps, "loads": steps}

    # global chases
    out_d = cp.zeros(2, dtype=cp.uint64)
    lat = cp.zeros(1024, dtype=cp.uint32)

    def chase(buf, steps, warm, mode, record):
        f("gchase")((1,), (1,), (buf, out_d, res, lat, np.int32(steps), np.int32(warm), np.int32(mode),
                                 np.int32(record)))
        cp.cuda.Device().synchronize()
        r = res.get()
        return r[0] / steps, (r[1] / steps if r[1] else None), lat.get()[:record].copy()

    # per-step overhead of the recording loop: the same loop on an L1-resident chain minus the plain mean
    l1buf, nodes = _chain(cp, 8192 // 8, 128 // 8, 0)
    c_ca, ns_ca, lat_ca = chase(l1buf, 64 * 16, 1, 0, 64)
    c_ca, ns_ca, lat_ca = chase(l1buf, 64 * 16, 1, 0, 64)
    rec_overhead = float(np.median(lat_ca)) - c_ca
    doc["l1_hit_latency"] = {"cycles_per_load": c_ca, "ns_per_load": ns_ca, "chain_bytes": 8192,
                             "stride_bytes": 128, "per_load_median": float(np.median(lat_ca)),
                             "recording_overhead_cycles": rec_overhead}

    l2buf, nodes = _chain(cp, (4 << 20) // 8, (33 * 128) // 8, 0)
    steps = min(nodes, 1000)
    c_cg, ns_cg, lat_cg = chase(l2buf, steps, 1, 1, min(steps, 1024))
    c_cg, ns_cg, lat_cg = chase(l2buf, steps, 1, 1, min(steps, 1024))
    cl = _clusters(lat_cg - rec_overhead)
    doc["l2_hit_latency"] = {"cycles_per_load": c_cg, "ns_per_load": ns_cg, "chain_bytes": 4 << 20,
                             "stride_bytes": 33 * 128, "loads": steps, "per_load_clusters": cl}
    # a 40 MB footprint (most of the 50 MB L2): far-partition hits show up once the near copy cannot hold it
    big, nodes = _chain(cp, (40 << 20) // 8, (33 * 128) // 8, 0)
    c_big, ns_big, lat_big = chase(big, nodes, 1, 1, 1024)
    doc["l2_hit_latency_40mb"] = {"cycles_per_load": c_big, "ns_per_load": ns_big, "chain_bytes": 40 << 20,
                                  "stride_bytes": 33 * 128, "loads": nodes,
                                  "per_load_clusters": _clusters(lat_big - rec_overhead)}
    del big

    dbuf, nodes = _chain(cp, (64 << 20) // 8, (32 << 10) // 8, 0)
    flush = cp.empty((256 << 20) // 4, dtype=cp.float32)
    vals = []
    for i in range(3):
        flush.fill(float(i))
        cp.cuda.Device().synchronize()
        c_d, ns_d, lat_d = chase(dbuf, nodes, 0, 1, 0)
        vals.append((c_d, ns_d))
    doc["dram_latency"] = {"cycles_per_load": statistics.median(v[0] for v in vals),
                           "ns_per_load": statistics.median(v[1] for v in vals if v[1]),
                           "runs": vals, "chain_bytes": 64 << 20, "stride_bytes": 32 << 10, "loads": nodes}

    # launch overhead, CUDA events
    empty = f("empty_kernel")
    t1, _ = _events(cp, lambda: empty((1,), (32,), ()), repeats=50)
    t_many, _ = _events(cp, lambda: [empty((1,), (32,), ()) for _ in range(100)], repeats=10)
    grid_times = {}
    for blocks in (1, 132, 4224, 16896, 67584, 270336):
        grid_times[blocks], _ = _events(cp, lambda b=blocks: empty((b,), (32,), ()), repeats=20)
    doc["launch_events"] = {"single_launch_ms": t1, "back_to_back_per_launch_ms": t_many / 100,
                            "empty_kernel_ms_by_blocks": grid_times}

    # DRAM bandwidth
    n4 = (1 << 30) // 16
    a = cp.ones(n4 * 4, dtype=cp.float32)
    b = cp.empty_like(a)
    sm = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    grid = (sm * 16,)
    t_copy, _ = _events(cp, lambda: f("copy_f4")(grid, (256,), (a, b, np.uint64(n4))), repeats=10)
    t_read, _ = _events(cp, lambda: f("read_f4")(grid, (256,), (a, b, np.uint64(n4))), repeats=10)
    doc["dram_bandwidth"] = {"copy_bytes_read_plus_written_per_s": 2 * (1 << 30) / (t_copy * 1e-3),
                             "read_only_bytes_per_s": (1 << 30) / (t_read * 1e-3),
                             "copy_ms": t_copy, "read_ms": t_read, "bytes": 1 << 30}
    del a, b, flush

    if use_ncu:
        try:
            from gpusim.hw.ncu import profile
            blocks = (1, 132, 528, 4224, 8448, 16896, 33792, 67584)
            rows = profile([("__empty__", n) for n in blocks],
                           metrics=("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second",
                                    "sm__cycles_active.avg", "gpu__time_duration.sum"))
            cyc = {n: r.get("gpc__cycles_elapsed.max") for n, r in zip(blocks, rows)}
            waves = np.array([n / (sm * 32) for n in blocks if n >= sm * 32])
            ys = np.array([cyc[n] for n in blocks if n >= sm * 32], dtype=np.float64)
            slope = float(np.polyfit(waves, ys, 1)[0]) if waves.size >= 2 else None
            doc["launch_ncu"] = {"gpc_cycles_elapsed_max_by_blocks": cyc,
                                 "clock_hz": rows[0].get("gpc__cycles_elapsed.avg.per_second"),
                                 "duration_ns_by_blocks": {n: r.get("gpu__time_duration.sum")
                                                           for n, r in zip(blocks, rows)},
                                 "cycles_per_wave_of_32_blocks_per_sm": slope,
                                 "cycles_per_block_per_sm": slope / 32 if slope else None}
        except Exception as e:  # noqa: BLE001
            doc["launch_ncu"] = {"error": f"{type(e).__name__}: {e}"}

    try:
        from gpusim.hw.runner import provenance
        doc["provenance"] = provenance()
    except Exception:  # noqa: BLE001
        pass
    if out is not None:
        Path(out).write_text(json.dumps(doc, indent=1, default=float))
    return doc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-ncu", action="store_true")
    a = ap.parse_args(argv)
    doc = run(Path(a.out) if a.out else None, use_ncu=not a.no_ncu)
    print(json.dumps(doc, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
