"""arange, linspace, logspace (values made on the host)."""
from __future__ import annotations

import numpy as np

from gpusim.cupy._creation.from_data import _to_device


def arange(start, stop=None, step=1, dtype=None):
    return _to_device(np.arange(start, stop, step, dtype=dtype) if stop is not None else
                      np.arange(start, step=step, dtype=dtype), "creation")


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    r = np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=axis)
    if retstep:
        return _to_device(r[0], "creation"), r[1]
    return _to_device(r, "creation")


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    return _to_device(np.logspace(start, stop, num, endpoint=endpoint, base=base, dtype=dtype, axis=axis),
                      "creation")
