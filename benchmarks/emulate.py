"""Emulate-mode throughput: simulated warp instructions per second of the functional emulator.

    python benchmarks/emulate.py [--repeats 3]

Prints the median over repeats (after one warm-up run that parses and compiles the kernel) for the tiled
matmul (width 256) and the sequential-addressing reduction (2^20 elements), as issue 2 asks.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import gpusim
import programs


def measure(name: str, size: str | None, repeats: int, **params) -> tuple[float, int, float]:
    spec = programs.get(name)
    size = size or spec.default_size
    launch = spec.launch(size)
    args = spec.make_args(size, 0)
    syms = spec.make_symbols(size, 0)
    module, _ = gpusim.load_module(spec.ptx_path)
    from gpusim.functional.emulator import Emulator
    emu = Emulator(module)
    rates, secs = [], []
    n = 0
    for r in range(repeats + 1):
        t0 = time.perf_counter()
        out = emu.launch(launch.kernel, launch.grid, launch.block, args, symbols=syms,
                         shared_mem=launch.shared_mem)
        dt = time.perf_counter() - t0
        n = out.stats.warp_instructions
        if r:  # the first run warms up (handler compilation)
            rates.append(n / dt)
            secs.append(dt)
    return statistics.median(rates), n, statistics.median(secs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    cases = [("matmul_tiled", "default", "tiled matmul, width 256 (TILE 16)"),
             ("reduce_sequential", "default", "sequential reduction, 2^20 elements")]
    print(f"{'case':42s} {'warp instr':>12s} {'median s':>9s} {'M warp-instr/s':>15s}")
    for name, size, label in cases:
        spec = programs.get(name)
        if size not in spec.sizes:
            size = spec.default_size
        rate, n, sec = measure(name, size, a.repeats)
        print(f"{label:42s} {n:12,d} {sec:9.2f} {rate / 1e6:15.2f}")


if __name__ == "__main__":
    main()
