"""Every bundled program on a real NVIDIA GPU (through CuPy) matches its numpy reference.

This checks the launch files themselves (launch shapes, argument lists, symbols, references, tolerances) against
hardware, independently of gpusim's emulator: the checked-in PTX is loaded with ``cupy.RawModule``.
Skipped without CuPy or a GPU.
"""
from __future__ import annotations

import numpy as np
import pytest

import programs

cp = pytest.importorskip("cupy")
try:
    HAVE_GPU = cp.cuda.runtime.getDeviceCount() > 0
except Exception:   # no driver / no device
    HAVE_GPU = False

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="no CUDA GPU")]

MAX_THREADS = 1 << 24   # every size up to "large" of most programs; the biggest are still < 1 s on a GPU


def run_on_gpu(spec: programs.ProgramSpec, size: str, seed: int = 0):
    """Launch ``spec`` at ``size`` on the GPU; return (args after the launch, reference)."""
    launch = spec.launch(size)
    args = spec.make_args(size, seed)
    syms = spec.make_symbols(size, seed)
    ref = spec.reference(args, syms, size)
    module = cp.RawModule(path=str(spec.ptx_path))
    for name, value in syms.items():
        ptr = module.get_global(name)
        cp.ndarray(value.shape, value.dtype, memptr=ptr).set(value)
    kernel = module.get_function(launch.kernel)
    dev_args = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel(launch.grid, launch.block, tuple(dev_args), shared_mem=launch.shared_mem)
    cp.cuda.Device().synchronize()
    after = [cp.asnumpy(a) if isinstance(a, cp.ndarray) else a for a in dev_args]
    return after, ref


CASES = [(s.name, size) for s in programs.all_specs() for size in s.sizes
         if s.launch(size).threads <= MAX_THREADS]


@pytest.mark.parametrize("name,size", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_program_matches_reference_on_gpu(name, size):
    spec = programs.get(name)
    after, ref = run_on_gpu(spec, size)
    result = spec.check(after, ref)
    assert result.ok, result.message
