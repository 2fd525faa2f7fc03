from pathlib import Path

import pytest

import gpusim.cupy as cp

KERNELS = Path(__file__).resolve().parents[1] / "fixtures" / "cupy_kernels.ptx"


@pytest.fixture
def cupy():
    """A fresh simulated device in emulate mode for each test (timing tests switch it on)."""
    cp.reset(mode="emulate", gpu="h100", flush_caches=False, sanitize=False)
    yield cp
    cp.reset(sanitize=False)


@pytest.fixture
def kernels(cupy):
    return cupy.RawModule(path=str(KERNELS))
