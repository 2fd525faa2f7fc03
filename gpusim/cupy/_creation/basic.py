"""empty, zeros, ones, full, eye, identity and their ``_like`` forms (values written on the host)."""
from __future__ import annotations

import numpy as np

from gpusim.cupy import _session
from gpusim.cupy._core.core import ndarray


def empty(shape, dtype=float, order="C") -> ndarray:
    """Uninitialised, as on the GPU: a reused pool block holds what was there before."""
    return ndarray(shape, dtype, order=order)


def full(shape, fill_value, dtype=None, order="C") -> ndarray:
    if dtype is None:
        dtype = np.array(fill_value).dtype
    a = ndarray(shape, dtype, order=order)
    _session.session().note_host_op("creation")
    a._host().fill(fill_value)
    return a


def zeros(shape, dtype=float, order="C") -> ndarray:
    return full(shape, 0, dtype, order)


def ones(shape, dtype=float, order="C") -> ndarray:
    return full(shape, 1, dtype, order)


def _like(a, dtype, shape):
    return (a.shape if shape is None else shape), (a.dtype if dtype is None else dtype)


def empty_like(a, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    shape, dtype = _like(a, dtype, shape)
    return empty(shape, dtype)


def zeros_like(a, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    shape, dtype = _like(a, dtype, shape)
    return zeros(shape, dtype)


def ones_like(a, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    shape, dtype = _like(a, dtype, shape)
    return ones(shape, dtype)


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None) -> ndarray:
    shape, dtype = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def eye(N, M=None, k=0, dtype=float, order="C") -> ndarray:
    from gpusim.cupy._creation.from_data import _to_device
    return _to_device(np.eye(N, M, k, dtype=dtype, order=order), "creation")


def identity(n, dtype=float) -> ndarray:
    return eye(n, dtype=dtype)
