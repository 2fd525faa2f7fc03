"""Memory-system speed: MemorySystem.access() calls per second for a streaming pattern (median of repeats).

    python benchmarks/memory.py [--gpu h100] [--warps 20000] [--repeats 5]

The pattern is a vector-add-like stream: each warp instruction loads 32 consecutive floats (4 sectors,
one line) of a fresh address, issued from all SMs in turn, so every access misses L1 and L2 and reaches
DRAM (the most expensive path).  A second figure replays the same addresses (L1 hits).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from gpusim.config import load_gpu
from gpusim.functional.trace import KernelTrace, StaticInstr
from gpusim.memory.system import MemorySystem
from gpusim.timing.lsu import LsuFrontEnd


def streaming_trace(n_warps: int) -> KernelTrace:
    lanes = np.arange(32, dtype=np.int64)
    addresses = (np.arange(n_warps, dtype=np.int64)[:, None] * 128 + lanes[None, :] * 4)
    instr = StaticInstr(pc=0, opcode="ld.global.f32", unit="lsu", latency_class="global", mem_space="global",
                        access_bytes=4, is_load=True)
    return KernelTrace(
        kernel="stream", grid=(n_warps, 1, 1), block=(32, 1, 1), shared_bytes=0, regs_per_thread=None,
        instructions=[instr], warp_block=np.arange(n_warps, dtype=np.int32),
        warp_in_block=np.zeros(n_warps, np.int32), warp_start=np.arange(n_warps + 1, dtype=np.int64),
        pc=np.zeros(n_warps, np.int32), active_mask=np.full(n_warps, 0xFFFFFFFF, np.uint32),
        exec_mask=np.full(n_warps, 0xFFFFFFFF, np.uint32), mem_slot=np.arange(n_warps, dtype=np.int32),
        addresses=addresses, mem_space=np.zeros(n_warps, np.uint8))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--warps", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    gpu = load_gpu(args.gpu)
    trace = streaming_trace(args.warps)
    n_sm = gpu.sm.count
    miss_rates, hit_rates, miss_cpu, hit_cpu, prep = [], [], [], [], []
    for _ in range(args.repeats):
        ms = MemorySystem(gpu)
        t0 = time.perf_counter()
        requests = LsuFrontEnd(gpu).requests(trace)
        ms.begin(requests)
        prep.append(time.perf_counter() - t0)
        access = ms.access
        t0, c0 = time.perf_counter(), time.process_time()
        for slot in range(args.warps):
            access(slot // 8, slot % n_sm, requests[slot])
        miss_rates.append(args.warps / (time.perf_counter() - t0))
        miss_cpu.append(args.warps / (time.process_time() - c0))
        t0, c0 = time.perf_counter(), time.process_time()
        for slot in range(args.warps):
            access(10**7 + slot // 8, slot % n_sm, requests[slot])
        hit_rates.append(args.warps / (time.perf_counter() - t0))
        hit_cpu.append(args.warps / (time.process_time() - c0))
    c = ms.counters()
    med = statistics.median
    print(f"gpu {args.gpu}, {args.warps} warp loads of 4 sectors, median of {args.repeats} (wall / CPU time)")
    print(f"requests (LSU front end) and begin: {med(prep) * 1e3:.1f} ms")
    print(f"access() streaming to DRAM: {med(miss_rates):>10,.0f} calls/s wall {med(miss_cpu):>10,.0f} calls/s cpu")
    print(f"access() L1 hits (replay):  {med(hit_rates):>10,.0f} calls/s wall {med(hit_cpu):>10,.0f} calls/s cpu")
    print(f"  dram bytes read {c['dram__bytes_read.sum']:.0f}, L1 hit rate {c['l1tex__t_sector_hit_rate.pct']:.1f}%")


if __name__ == "__main__":
    main()
