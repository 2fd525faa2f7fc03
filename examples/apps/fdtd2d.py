"""fdtd2d: 2-D FDTD electromagnetics, three field-update kernels per time step driven by a source signal.

The fields stay on the device across all steps; only the final fields come back.
Run:  python examples/apps/fdtd2d.py [--size small|medium|large] [--sim]
"""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import HERE, KernelTimer, backend_name, finish, parser, want_sim  # noqa: E402

if want_sim():
    import gpusim.cupy as cupy
else:
    import cupy

import numpy as np  # noqa: E402

SIZES = {"small": {"nx": 40, "ny": 48, "steps": 6},
         "medium": {"nx": 256, "ny": 256, "steps": 20},
         "large": {"nx": 2000, "ny": 2600, "steps": 100}}
BLOCK = (32, 8)


def initial(nx: int, ny: int, steps: int):
    """Fields and source as deterministic functions of the indices (float32)."""
    i, j = np.meshgrid(np.arange(nx, dtype=np.float64), np.arange(ny, dtype=np.float64), indexing="ij")
    ex = (i * (j + 1) / nx).astype(np.float32)
    ey = (i * (j + 2) / ny).astype(np.float32)
    hz = (i * (j + 3) / nx).astype(np.float32)
    source = np.arange(steps, dtype=np.float32)
    return ex, ey, hz, source


def run(nx: int, ny: int, steps: int, timer=None):
    mod = cupy.RawModule(path=str(HERE / "fdtd2d.ptx"))
    update_ey, update_ex, update_hz = (mod.get_function(k) for k in ("update_ey", "update_ex", "update_hz"))
    timer = timer or KernelTimer(cupy)
    ex, ey, hz, source = (cupy.asarray(x) for x in initial(nx, ny, steps))
    grid = ((ny + BLOCK[0] - 1) // BLOCK[0], (nx + BLOCK[1] - 1) // BLOCK[1])
    nx32, ny32 = np.int32(nx), np.int32(ny)
    for t in range(steps):
        timer.launch("update_ey", update_ey, grid, BLOCK, (ey, hz, source, np.int32(t), nx32, ny32))
        timer.launch("update_ex", update_ex, grid, BLOCK, (ex, hz, nx32, ny32))
        timer.launch("update_hz", update_hz, grid, BLOCK, (hz, ex, ey, nx32, ny32))
    return {"ex": cupy.asnumpy(ex), "ey": cupy.asnumpy(ey), "hz": cupy.asnumpy(hz)}, timer


def reference(nx: int, ny: int, steps: int) -> dict:
    """The same updates in numpy.  The kernels' ``x - c * d`` is one fused multiply-add (nvcc contracts it):
    rounded once, which float64 arithmetic rounded to float32 reproduces (the product of two floats is
    exact in a double); the differences are float32 operations as in the kernel."""
    ex, ey, hz, source = initial(nx, ny, steps)
    f64, f32 = np.float64, np.float32

    def fma_update(x, c, d):                 # x - c * d with one rounding
        return (x.astype(f64) - f64(f32(c)) * d.astype(f64)).astype(f32)
    for t in range(steps):
        ey[0, :] = source[t]
        ey[1:, :] = fma_update(ey[1:, :], 0.5, hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = fma_update(ex[:, 1:], 0.5, hz[:, 1:] - hz[:, :-1])
        d = ((ex[:-1, 1:] - ex[:-1, :-1]) + ey[1:, :-1]) - ey[:-1, :-1]      # C order: left to right
        hz[:-1, :-1] = fma_update(hz[:-1, :-1], 0.7, d)
    return {"ex": ex, "ey": ey, "hz": hz}


def main(argv=None) -> int:
    args = parser(__doc__, SIZES).parse_args(argv)
    params = SIZES[args.size]
    outputs, timer = run(**params)
    finish("fdtd2d", args.size, params, outputs, timer, backend_name(cupy), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
