"""``cupy.random`` on the host: numpy's generator, so the numbers differ from CuPy's (make inputs with numpy
and copy them with ``cupy.asarray`` where a program must give the same results on both)."""
from __future__ import annotations

import numpy as np

from gpusim.cupy._creation.from_data import _to_device

_rng = np.random.RandomState()


def seed(seed=None) -> None:
    _rng.seed(seed)


def rand(*shape):
    return _to_device(_rng.rand(*shape), "random")


def randn(*shape):
    return _to_device(_rng.randn(*shape), "random")


def random(size=None, dtype=float):
    return _to_device(np.asarray(_rng.random_sample(size), dtype=dtype), "random")


random_sample = random


def randint(low, high=None, size=None, dtype=int):
    return _to_device(np.asarray(_rng.randint(low, high, size, dtype=dtype)), "random")


def uniform(low=0.0, high=1.0, size=None, dtype=float):
    return _to_device(np.asarray(_rng.uniform(low, high, size), dtype=dtype), "random")


def normal(loc=0.0, scale=1.0, size=None, dtype=float):
    return _to_device(np.asarray(_rng.normal(loc, scale, size), dtype=dtype), "random")
