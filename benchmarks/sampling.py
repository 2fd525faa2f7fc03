"""Sampled timing against full detail: the error of the estimate, the stated bound, and the speed-up.

    nice python benchmarks/sampling.py                          # every bundled program, default and large sizes
    nice python benchmarks/sampling.py --only vector_add,matmul_tiled --sizes large --sms 4
    nice python benchmarks/sampling.py --max-full-s 120         # skip cases whose full run would take longer
    nice python benchmarks/sampling.py --layout time --sizes large --only vector_add,transpose_naive
    nice python benchmarks/sampling.py --layout time --sm-count 4 --sizes default   # many waves, cheaply

``--layout sms`` (default) samples on ``--sms`` SMs; ``--layout time`` samples in time on the whole GPU
(gpusim.timing.sampling.simulate_time_sampled: windows of whole waves, the waves between extrapolated); a
launch of too few waves for it is listed as timed in full and not compared.  ``--sm-count`` cuts the GPU to
that many SMs (the same per-SM memory system otherwise) so that the bundled default sizes make many waves.

For each program and size, the launch is timed on h100 in full detail and sampled (gpusim.timing.sampling,
``--sms`` SMs), each from its own emulator stream, in the same process one after the other; the table
gives cycles, the error of the sampled cycles and of the main counters (warp instructions, L2 read sectors,
DRAM bytes read, L1 global load sectors, achieved occupancy), the stated bound, whether the real error is
inside it, the waves of the launch, the wall-time ratio and the sample's warp-cycles waiting on global memory (mem%: at
50% or more the automatic default times the launch in full instead).  Sizes whose full run is estimated (from a first
quick sampled run's warp instructions at ``--full-rate`` per second) to exceed ``--max-full-s`` are skipped
and listed.  The last lines: the largest cycle and counter errors, the median speed-up on launches of 8+
waves.
"""
from __future__ import annotations

import argparse
import statistics
import time

import programs
from gpusim.api import load_module
from gpusim.config import load_gpu
from gpusim.functional.emulator import Emulator
from gpusim.timing import simulate

COUNTERS = [("smsp__inst_executed.sum", "inst"), ("lts__t_sectors_op_read.sum", "L2 rd"),
            ("dram__bytes_read.sum", "DRAM rd"), ("dram__bytes_write.sum", "DRAM wr"),
            ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "L1 ld"),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ"), ("stalls", "stalls")]


def counter(res, k):
    return float(sum(res.stalls.values())) if k == "stalls" else float(res.counters[k])


def stream(spec, module, size):
    lnch = spec.launch(size)
    kernel = module.kernel(lnch.kernel)
    return Emulator(module).stream(kernel.name, lnch.grid, lnch.block, spec.make_args(size, 0),
                                   symbols=spec.make_symbols(size, 0), shared_mem=int(lnch.shared_mem or 0),
                                   regs_per_thread=spec.registers(kernel.name))


def timed(spec, module, size, gpu, sample, memory=None):
    t0 = time.perf_counter()
    s = stream(spec, module, size)
    res = simulate(s, gpu, sample=sample, memory=memory)
    s.finish()
    return res, time.perf_counter() - t0


def err(a, b) -> float:
    return 100.0 * (b / a - 1.0) if a else (0.0 if not b else float("inf"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--sizes", default="default,large", help="comma-separated sizes (default: default,large)")
    ap.add_argument("--sms", type=int, default=4, help="SMs of the sampled machine (default 4)")
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--layout", choices=("sms", "time"), default="sms",
                    help="sampled on --sms SMs (default) or in time on the whole GPU")
    ap.add_argument("--sm-count", type=int, default=None, help="cut the GPU to this many SMs")
    ap.add_argument("--memory", choices=("full", "fixed"), default="full",
                    help="memory model: the full memory system (default) or fixed latencies (nothing shared)")
    ap.add_argument("--max-full-s", type=float, default=300.0, help="skip a case whose full run would take longer")
    ap.add_argument("--full-rate", type=float, default=60_000.0,
                    help="warp instructions/s assumed for the full run when deciding to skip (default 60,000)")
    a = ap.parse_args()
    gpu = load_gpu(a.gpu, overrides={"sm.count": a.sm_count} if a.sm_count else None)
    how = "time" if a.layout == "time" else a.sms
    names = a.only.split(",") if a.only else programs.names()
    sizes = a.sizes.split(",")
    head = f"{'program/size':32s} {'waves':>6s} {'full cyc':>9s} {'sampled':>9s} {'err%':>7s} {'bound%':>7s} in " + \
        " ".join(f"{lab:>8s}" for _, lab in COUNTERS) + f" {'full s':>7s} {'smp s':>6s} {'x':>5s} {'mem%':>5s} {'timed':>6s}"
    print(head)
    worst_cycles, worst_counter, speedups, skipped, by_waves = (0.0, ""), (0.0, ""), [], [], []
    for name in names:
        spec = programs.get(name)
        module, _ = load_module(name)
        for size in sizes:
            if size not in spec.sizes:
                continue
            label = f"{name}/{size}"
            memory = "fixed" if a.memory == "fixed" else None
            smp, ts = timed(spec, module, size, gpu, how, memory)
            info = smp.sampling
            if info is None:
                skipped.append(f"{label} (timed in full: {smp.sampling_declined})")
                continue
            est_full_s = info.warp_instructions / a.full_rate
            if est_full_s > a.max_full_s:
                skipped.append(f"{label} (full run too long: {info.warp_instructions:,} warp instr, "
                               f"~{est_full_s:,.0f} s)")
                continue
            full, tf = timed(spec, module, size, gpu, False, memory)
            e = err(full.cycles, smp.cycles)
            errs = [err(counter(full, k), counter(smp, k)) for k, _ in COUNTERS]
            waves = full.counters.get("launch__waves_per_multiprocessor", 0.0)
            inside = abs(e) <= info.error_bound_pct
            print(f"{label:32s} {waves:6.1f} {full.cycles:9,d} {smp.cycles:9,d} {e:+7.2f} {info.error_bound_pct:7.2f} "
                  f"{'y ' if inside else 'NO'} " + " ".join(f"{x:+8.2f}" for x in errs) +
                  f" {tf:7.1f} {ts:6.1f} {tf / ts:5.1f} {info.memory_stall_pct:5.0f} {info.waves_timed:6.2f}",
                  flush=True)
            if abs(e) > abs(worst_cycles[0]):
                worst_cycles = (e, label)
            for x, (k, _) in zip(errs, COUNTERS):
                if abs(x) > abs(worst_counter[0]):
                    worst_counter = (x, f"{label} {k}")
            if waves >= 8:
                speedups.append(tf / ts)
            by_waves.append((waves, tf / ts, e, info.error_bound_pct))
    print(f"largest cycle error: {worst_cycles[0]:+.2f}% ({worst_cycles[1]})")
    print(f"largest counter error: {worst_counter[0]:+.2f}% ({worst_counter[1]})")
    if speedups:
        print(f"speed-up on launches of 8+ waves: median {statistics.median(speedups):.1f}x "
              f"(min {min(speedups):.1f}x, {len(speedups)} cases)")
    for lo, hi in ((0, 8), (8, 16), (16, 32), (32, 64), (64, 1e9)):
        row = [x for x in by_waves if lo <= x[0] < hi]
        if row:
            print(f"waves {lo:g}..{hi:g}: speed-up median {statistics.median(x[1] for x in row):.1f}x, largest "
                  f"|error| {max(abs(x[2]) for x in row):.2f}%, bound median {statistics.median(x[3] for x in row):.1f}% "
                  f"({len(row)} cases)")
    for s in skipped:
        print(f"skipped: {s}")


if __name__ == "__main__":
    main()
