"""jacobi2d: 5-point Jacobi relaxation of a heated plate in time steps, checking convergence on the device.

Each step is two sweeps (A -> B, B -> A, the arrays stay on the device); every `check_every` steps a
reduction kernel gives the largest change of the last sweep, which the host reads to decide whether to stop.
Run:  python examples/apps/jacobi2d.py [--size small|medium|large] [--sim]
"""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import HERE, KernelTimer, backend_name, finish, parser, want_sim  # noqa: E402

if want_sim():
    import gpusim.cupy as cupy
else:
    import cupy

import numpy as np  # noqa: E402

SIZES = {"small": {"n": 48, "steps": 10, "check_every": 5, "tolerance": 0.0},
         "medium": {"n": 256, "steps": 40, "check_every": 10, "tolerance": 0.0},
         "large": {"n": 2048, "steps": 100, "check_every": 25, "tolerance": 1e-4}}
BLOCK = (16, 16)
REDUCE_THREADS, REDUCE_BLOCKS = 256, 32


def initial(n: int) -> np.ndarray:
    """A plate at 0 with its top edge at 1 and a warm spot inside (deterministic)."""
    a = np.zeros((n, n), dtype=np.float32)
    a[0, :] = 1.0
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a[(i - n // 3) ** 2 + (j - n // 2) ** 2 < (n // 8) ** 2] = 0.5
    return a


def run(n: int, steps: int, check_every: int, tolerance: float, timer=None):
    mod = cupy.RawModule(path=str(HERE / "jacobi2d.ptx"))
    sweep = mod.get_function("jacobi_sweep")
    max_change = mod.get_function("max_change")
    timer = timer or KernelTimer(cupy)
    a = cupy.asarray(initial(n))
    b = a.copy()                          # the boundary must be in both arrays
    worst = cupy.zeros(1, dtype=cupy.int32)
    grid = ((n + BLOCK[0] - 1) // BLOCK[0], (n + BLOCK[1] - 1) // BLOCK[1])
    changes = []
    for step in range(1, steps + 1):
        timer.launch("jacobi_sweep", sweep, grid, BLOCK, (a, b, np.int32(n)))
        timer.launch("jacobi_sweep", sweep, grid, BLOCK, (b, a, np.int32(n)))
        if step % check_every == 0:
            worst.fill(0)
            timer.launch("max_change", max_change, (REDUCE_BLOCKS,), (REDUCE_THREADS,),
                         (a, b, np.int32(n * n), worst))
            change = float(worst.get().view(np.float32)[0])
            changes.append(change)
            if change <= tolerance:
                break
    return {"grid": cupy.asnumpy(a), "changes": np.array(changes, dtype=np.float32)}, timer


def reference(n: int, steps: int, check_every: int, tolerance: float) -> dict:
    """The same computation in numpy (float32, the kernel's order of additions)."""
    a = initial(n)
    b = a.copy()
    changes = []

    def sweep(src, dst):
        c = src[1:-1, 1:-1]
        dst[1:-1, 1:-1] = np.float32(0.2) * ((((c + src[1:-1, :-2]) + src[1:-1, 2:]) + src[:-2, 1:-1])
                                             + src[2:, 1:-1])
    for step in range(1, steps + 1):
        sweep(a, b)
        sweep(b, a)
        if step % check_every == 0:
            changes.append(np.abs(a - b).max())
            if changes[-1] <= tolerance:
                break
    return {"grid": a, "changes": np.array(changes, dtype=np.float32)}


def main(argv=None) -> int:
    args = parser(__doc__, SIZES).parse_args(argv)
    params = SIZES[args.size]
    outputs, timer = run(**params)
    finish("jacobi2d", args.size, params, outputs, timer, backend_name(cupy), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
