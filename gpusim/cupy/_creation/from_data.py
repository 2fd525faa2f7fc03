"""array, asarray, ascontiguousarray, copy, asnumpy: moving data between host and device."""
from __future__ import annotations

import numpy as np

from gpusim.cupy import _session
from gpusim.cupy._core.core import _upload, ndarray


def _to_device(h: np.ndarray, what: str = "host to device") -> ndarray:
    s = _session.session()
    if what == "host to device":
        s.transfer_bytes[what] += h.nbytes
    else:
        s.note_host_op(what)
    return _upload(h)


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0) -> ndarray:
    """A new device array from a numpy array, a (nested) sequence, a scalar, or a device array."""
    if isinstance(obj, ndarray):
        if not copy and (dtype is None or np.dtype(dtype) == obj.dtype) and obj.ndim >= ndmin:
            return obj
        out = obj.copy() if dtype is None else obj.astype(dtype)
        return out.reshape((1,) * (ndmin - out.ndim) + out.shape) if out.ndim < ndmin else out
    h = np.array(obj, dtype=dtype, ndmin=ndmin)
    return _to_device(h)


def asarray(a, dtype=None, order=None) -> ndarray:
    """``a`` itself if it is a device array of that dtype, else a copy on the device."""
    return array(a, dtype, copy=False)


asanyarray = asarray


def ascontiguousarray(a, dtype=None) -> ndarray:
    if isinstance(a, ndarray) and a.flags.c_contiguous and (dtype is None or np.dtype(dtype) == a.dtype):
        return a
    if isinstance(a, ndarray):
        out = ndarray(a.shape, a.dtype if dtype is None else dtype)
        _session.session().note_host_op("copy")
        out._host()[...] = a._host()
        return out
    return array(a, dtype)


def copy(a, order="K") -> ndarray:
    return array(a, copy=True)


def asnumpy(a, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
    """A numpy array of ``a`` (a device array is copied to the host; anything else goes through numpy)."""
    if isinstance(a, ndarray):
        return a.get(out=out, order=order)
    r = np.asarray(a, order=order)
    if out is not None:
        out[...] = r
        return out
    return r
