"""Timing-model speed: simulated warp-instructions and cycles per wall-clock second.

    python benchmarks/timing.py                    # tiled matmul, width 256, on h100 (real trace if possible)
    python benchmarks/timing.py --synthetic        # a synthetic trace of the same shape
    python benchmarks/timing.py --memory fixed     # unloaded-latency memory instead of the memory system
    python -m cProfile -s tottime benchmarks/timing.py --synthetic | head -40

The real trace comes from the functional emulator (``gpusim.run(..., mode="emulate").trace`` on
``programs/matmul_tiled``); until that is available, or with ``--synthetic``, a trace of the same shape is
built by hand: 256 blocks x 8 warps, 10 tile phases of ~50 instructions (2 global loads, 2 shared stores,
2 barriers, 8 shared loads, FMAs and integer work), ~500 instructions per warp, ~24% memory.
Target (issue 3): at least 100,000 warp-instructions per second on a 2-core machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpusim.timing import simulate  # noqa: E402
from gpusim.timing.synthetic import ins, make_trace  # noqa: E402


def synthetic_matmul_trace(width: int = 256, tile: int = 16, phases: int = 10):
    """The instruction mix of one thread of a tiled matmul, ``phases`` tile iterations."""
    acc, a_s, b_s, addr = 1, 2, 3, 4
    prog = [ins("imad", dst=[addr], src=[5, 6]), ins("alu", dst=[7], src=[addr])]
    for _ in range(phases):
        prog += [ins("imad", dst=[8], src=[addr, 9]), ins("alu", dst=[10], src=[8]),
                 ins("ld.global", dst=[11], src=[8]), ins("ld.global", dst=[12], src=[10]),
                 ins("st.shared", src=[7, 11]), ins("st.shared", src=[7, 12]), ins("bar")]
        for k in range(8):
            prog += [ins("ld.shared", dst=[a_s + 20 * (k % 2)], src=[7]),
                     ins("fma", dst=[acc], src=[acc, a_s + 20 * (k % 2), b_s]),
                     ins("fma", dst=[30], src=[a_s + 20 * (k % 2), b_s]),
                     ins("fma", dst=[31], src=[30, b_s]),
                     ins("alu", dst=[7], src=[7])]
        prog += [ins("bar"), ins("alu", dst=[addr], src=[addr]), ins("bra", src=[addr])]
    prog += [ins("imad", dst=[13], src=[5, 6]), ins("st.global", src=[13, acc]), ins("exit")]
    n_blocks = (width // tile) ** 2
    return make_trace(prog, n_blocks=n_blocks, warps_per_block=tile * tile // 32, kernel="matmul_tiled_synthetic",
                      regs_per_thread=32, shared_bytes=2 * tile * tile * 4)


def real_matmul_trace(size: str = "default"):
    """The emulator's trace of programs/matmul_tiled (size "default": width 256, 16x16 tiles); raises if
    the emulator (``gpusim.run``) is not available."""
    import gpusim
    import programs

    spec = programs.get("matmul_tiled")
    launch = spec.launch(size)
    res = gpusim.run(str(spec.ptx_path), kernel=launch.kernel, grid=launch.grid, block=launch.block,
                     args=spec.make_args(size), mode="emulate")
    return res.trace


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--size", default="default", help="matmul_tiled size name (default: width 256)")
    ap.add_argument("--scheduler", default=None)
    ap.add_argument("--memory", choices=["default", "fixed"], default="default")
    ap.add_argument("--synthetic", action="store_true", help="use the hand-built trace even if the emulator works")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args(argv)

    source = "synthetic"
    trace = None
    if not a.synthetic:
        try:
            trace = real_matmul_trace(a.size)
            source = "emulator"
        except Exception as e:  # noqa: BLE001 - any failure: say why and use the synthetic trace
            print(f"(real trace unavailable: {type(e).__name__}: {e}; using the synthetic trace)")
    if trace is None:
        trace = synthetic_matmul_trace()
    memory = "fixed" if a.memory == "fixed" else None
    print(f"trace: {source}, {trace.kernel}, {trace.n_blocks} blocks x {trace.warps_per_block} warps, "
          f"{trace.n_instructions:,} warp-instructions")
    best = None
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        res = simulate(trace, a.gpu, scheduler=a.scheduler, memory=memory)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    print(res.summary())
    print(f"wall {best:.2f} s: {trace.n_instructions / best:,.0f} warp-instructions/s, "
          f"{res.cycles / best:,.0f} simulated cycles/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
