"""``ndarray``: an n-dimensional array in simulated device memory (as ``cupy._core.core.ndarray``).

An array is a block of the session's heap (``data``, a :class:`~gpusim.cupy.cuda.MemoryPointer`) seen with a
shape, a dtype and strides in bytes.  Its ``data.ptr`` is the device address a kernel receives, so arrays
passed to kernels, views of one allocation and pointer arithmetic behave as on the GPU.  Slicing, ``T``,
``reshape`` (when no copy is needed), ``view`` and the like give views of the same device memory.

What runs where: kernels (:class:`~gpusim.cupy.RawKernel`) are simulated.  Everything else an array does
(creation, ``fill``, copies, elementwise arithmetic, comparisons, reductions, indexing with arrays, every
numpy function applied to it) runs **in numpy on the host, directly on the device memory's bytes, and takes
no simulated time**; each such operation is counted (``gpusim.cupy.report()`` shows the counts) so a program
whose time goes there is visibly not measured.  The results are numpy's (CuPy's own kernels may round
reductions differently).

As in CuPy, an array does not turn into a numpy array implicitly (``numpy.asarray(a)`` raises: use
``a.get()``), and numpy arrays are not accepted as operands (use ``cupy.asarray``).
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from gpusim.cupy import _session
from gpusim.errors import GpusimError


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _norm_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _contiguous_strides(shape, itemsize: int, order: str) -> tuple[int, ...]:
    strides = []
    acc = itemsize
    dims = shape if order == "F" else tuple(reversed(shape))
    for s in dims:
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(strides) if order == "F" else tuple(reversed(strides))


class ndarray:
    """An array in simulated device memory (see the module docstring).

    ``ndarray(shape, dtype=float, memptr=None, strides=None, order='C')``: without ``memptr`` the memory
    comes from the default pool (uninitialised, as ``cupy.empty``); with one, the array views that memory
    (``cupy.ndarray(shape, dtype, module.get_global("M"))``)."""

    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype=float, memptr=None, strides=None, order="C"):
        from gpusim.cupy.cuda.memory import get_default_pool
        shape = _norm_shape(shape)
        dtype = np.dtype(dtype)
        if order not in ("C", "F"):
            raise ValueError(f"order must be 'C' or 'F', not {order!r}")
        if memptr is None:
            memptr = get_default_pool().malloc(_prod(shape) * dtype.itemsize)
        self.data = memptr
        self._shape = shape
        self.dtype = dtype
        self._strides = tuple(int(s) for s in strides) if strides is not None else \
            _contiguous_strides(shape, dtype.itemsize, order)
        self.base = None
        self._session = memptr.mem.session if memptr.mem is not None else _session.session()

    # -- the bytes on the host ------------------------------------------------------------------------
    def _host(self) -> np.ndarray:
        """A numpy view of the array's device bytes (writable; valid until the next allocation)."""
        if self.size == 0:
            return np.empty(self._shape, self.dtype)
        lo = sum(min(0, (n - 1) * st) for n, st in zip(self._shape, self._strides))
        hi = sum(max(0, (n - 1) * st) for n, st in zip(self._shape, self._strides)) + self.dtype.itemsize
        raw = (self.data + lo)._bytes(hi - lo)
        return np.ndarray(self._shape, self.dtype, buffer=raw, offset=-lo, strides=self._strides)

    # -- attributes ----------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @shape.setter
    def shape(self, new) -> None:
        h = self._host()
        h.shape = new            # numpy raises if that needs a copy
        self._shape, self._strides = h.shape, h.strides

    @property
    def strides(self) -> tuple[int, ...]:
        return self._strides

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return _prod(self._shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def flags(self):
        return _Flags(self)

    @property
    def device(self):
        from gpusim.cupy.cuda.device import Device
        return Device(0)

    @property
    def T(self) -> "ndarray":
        return self.transpose()

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": self._shape, "typestr": self.dtype.str, "data": (self.data.ptr, False),
                "strides": None if self.flags.c_contiguous else self._strides, "version": 3}

    # -- host <-> device -----------------------------------------------------------------------------
    def get(self, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
        """Copy to a new numpy array (``out``: into that one)."""
        h = self._host()
        self._session.transfer_bytes["device to host"] += self.nbytes
        if out is not None:
            if out.shape != self._shape:
                raise ValueError(f"out has shape {out.shape}, the array {self._shape}")
            out[...] = h
            return out
        return np.array(h, order=order, copy=True)

    def set(self, arr, stream=None) -> None:
        """Copy a numpy array of the same shape and dtype into this array."""
        arr = np.asarray(arr)
        if arr.shape != self._shape:
            raise ValueError(f"shape mismatch: the array is {self._shape}, the numpy array {arr.shape}")
        if arr.dtype != self.dtype:
            raise TypeError(f"dtype mismatch: the array is {self.dtype}, the numpy array {arr.dtype}")
        self._host()[...] = arr
        self._session.transfer_bytes["host to device"] += self.nbytes

    def __array__(self, dtype=None, copy=None):
        raise TypeError("a gpusim.cupy array is not converted to a numpy array implicitly (as in CuPy): use "
                        ".get() or gpusim.cupy.asnumpy()")

    # -- scalars -------------------------------------------------------------------------------------
    def item(self):
        if self.size != 1:
            raise ValueError(f"can only convert an array of size 1 to a Python scalar (size {self.size})")
        self._session.transfer_bytes["device to host"] += self.nbytes
        return self._host().item()

    def tolist(self):
        return self.get().tolist()

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError("the truth value of an array with more than one element is ambiguous")
        return bool(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self.size != 1 or self.dtype.kind not in "iub":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self._shape[0]):
            yield self[i]

    def __repr__(self) -> str:
        return repr(self._host())

    def __str__(self) -> str:
        return str(self._host())

    # -- indexing ------------------------------------------------------------------------------------
    def __getitem__(self, key):
        return _host_call("indexing", operator.getitem, self, key)

    def __setitem__(self, key, value) -> None:
        s = self._session
        v = _unwrap(value, [])
        s.note_host_op("indexing")
        self._host()[_unwrap(key, [])] = v

    # -- in place ------------------------------------------------------------------------------------
    def fill(self, value) -> None:
        self._session.note_host_op("fill")
        self._host().fill(value)

    def copy(self, order="C") -> "ndarray":
        """A new array with the same contents (a device-to-device copy, not simulated)."""
        out = ndarray(self._shape, self.dtype, order="F" if order == "F" else "C")
        out._host()[...] = self._host()
        self._session.transfer_bytes["device to device"] += self.nbytes
        return out

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # -- numpy protocols -----------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _host_call(f"ufunc {ufunc.__name__}", getattr(ufunc, method), *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _host_call(func.__name__, func, *args, **kwargs)


class _Flags:
    def __init__(self, a: ndarray):
        self._a = a

    @property
    def c_contiguous(self) -> bool:
        a = self._a
        return a.size <= 1 or a._strides == _contiguous_strides(a._shape, a.itemsize, "C") or \
            all(st == c for n, st, c in zip(a._shape, a._strides, _contiguous_strides(a._shape, a.itemsize, "C"))
                if n > 1)

    @property
    def f_contiguous(self) -> bool:
        a = self._a
        return a.size <= 1 or all(st == c for n, st, c in
                                  zip(a._shape, a._strides, _contiguous_strides(a._shape, a.itemsize, "F")) if n > 1)

    @property
    def owndata(self) -> bool:
        return self._a.base is None

    def __getitem__(self, name: str) -> bool:
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "OWNDATA": self.owndata}[name.upper()]


# -- running numpy on the device bytes ---------------------------------------------------------------
def _unwrap(x, arrays: list):
    """Arrays to numpy views of their device bytes (collected in ``arrays``), recursively in lists, tuples
    and dicts; numpy arrays are refused as CuPy refuses them."""
    if isinstance(x, ndarray):
        _session.check_same_session(x._session, "this array")
        arrays.append(x)
        return x._host()
    if isinstance(x, np.ndarray):
        raise TypeError("a numpy.ndarray cannot be mixed with gpusim.cupy arrays (as in CuPy): move it to the "
                        "device with gpusim.cupy.asarray() first")
    if isinstance(x, (list, tuple)):
        t = [_unwrap(v, arrays) for v in x]
        return t if isinstance(x, list) else tuple(t)
    if isinstance(x, dict):
        return {k: _unwrap(v, arrays) for k, v in x.items()}
    return x


def _heap_view(r: np.ndarray, arrays: list) -> ndarray | None:
    """If ``r`` is a view of the device bytes of one of ``arrays``, that view as a device array."""
    if r.size == 0 or not arrays:
        return None
    heap = arrays[0]._session.mem.buf
    base = heap.__array_interface__["data"][0]
    addr = r.__array_interface__["data"][0]
    if not base <= addr < base + heap.size:
        return None
    from gpusim.functional.memory import GLOBAL_BASE
    dev = GLOBAL_BASE + (addr - base)
    for a in arrays:
        alloc = a.data.mem.alloc if a.data.mem is not None else None
        if alloc is not None and alloc.address <= dev < alloc.end:
            v = ndarray(r.shape, r.dtype, memptr=a.data + (dev - a.data.ptr), strides=r.strides)
            v.base = a if a.base is None else a.base
            return v
    return None


def _wrap(r, arrays: list):
    if isinstance(r, np.ndarray):
        v = _heap_view(r, arrays)
        if v is not None:
            return v
        return _upload(r)
    if isinstance(r, np.generic):
        return _upload(np.asarray(r))
    if isinstance(r, (list, tuple)) and any(isinstance(v, (np.ndarray, np.generic)) for v in r):
        t = [_wrap(v, arrays) for v in r]
        return t if isinstance(r, list) else type(r)(t) if type(r) is tuple else type(r)(*t)
    return r


def _upload(h: np.ndarray) -> ndarray:
    """A new device array holding ``h`` (numpy's result of a host operation)."""
    out = ndarray(h.shape, h.dtype, order="F" if h.flags.f_contiguous and not h.flags.c_contiguous else "C")
    if h.size:
        out._host()[...] = h
    return out


def _host_call(what: str, func, *args, **kwargs):
    """Run ``func`` (numpy) on the device bytes of the array arguments; arrays in the result become device
    arrays (views where numpy gave a view).  Counted as one unsimulated host operation."""
    arrays: list = []
    hargs = _unwrap(args, arrays)
    hkw = _unwrap(kwargs, arrays)
    _session.session().note_host_op(what)
    with np.errstate(all="ignore"):
        r = func(*hargs, **hkw)
    return _wrap(r, arrays)


def _method(name: str):
    def m(self, *args, **kwargs):
        return _host_call(name, lambda h, *a, **k: getattr(h, name)(*a, **k), self, *args, **kwargs)
    m.__name__ = name
    m.__doc__ = f"numpy's ``ndarray.{name}`` on the host (not simulated; views stay views)."
    return m


_METHODS = ("sum", "prod", "max", "min", "mean", "std", "var", "argmax", "argmin", "any", "all", "cumsum",
            "cumprod", "dot", "clip", "round", "conj", "conjugate", "nonzero", "reshape", "ravel", "transpose",
            "swapaxes", "squeeze", "flatten", "astype", "view", "repeat", "take", "diagonal", "trace", "sort",
            "argsort", "ptp", "put", "choose", "compress", "searchsorted", "partition", "argpartition")
for _n in _METHODS:
    setattr(ndarray, _n, _method(_n))

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
           "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "matmul": operator.matmul,
           "and": operator.and_, "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift,
           "rshift": operator.rshift, "divmod": divmod}
_COMPARE = {"lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne, "gt": operator.gt,
            "ge": operator.ge}
_INPLACE = {"iadd": operator.iadd, "isub": operator.isub, "imul": operator.imul, "itruediv": operator.itruediv,
            "ifloordiv": operator.ifloordiv, "imod": operator.imod, "ipow": operator.ipow, "iand": operator.iand,
            "ior": operator.ior, "ixor": operator.ixor, "ilshift": operator.ilshift, "irshift": operator.irshift}


def _binary(name, op, reflected=False):
    def f(self, other):
        if not isinstance(other, (ndarray, np.ndarray, numbers.Number, np.generic)):
            return NotImplemented
        return _host_call(name, op, other, self) if reflected else _host_call(name, op, self, other)
    return f


def _inplace(name, op):
    def f(self, other):
        arrays: list = []
        o = _unwrap(other, arrays)
        h = self._host()
        self._session.note_host_op(name)
        with np.errstate(all="ignore"):
            op(h, o)
        return self
    return f


for _n, _op in _BINARY.items():
    setattr(ndarray, f"__{_n}__", _binary(_n, _op))
    setattr(ndarray, f"__r{_n}__", _binary(_n, _op, reflected=True))
for _n, _op in _COMPARE.items():
    setattr(ndarray, f"__{_n}__", _binary(_n, _op))
for _n, _op in _INPLACE.items():
    setattr(ndarray, f"__{_n}__", _inplace(_n, _op))
for _n, _op in {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert}.items():
    setattr(ndarray, f"__{_n}__", (lambda nm, o: lambda self: _host_call(nm, o, self))(_n, _op))


def check_array(a, what: str) -> ndarray:
    if not isinstance(a, ndarray):
        raise GpusimError(f"{what} must be a gpusim.cupy.ndarray, not {type(a).__name__}")
    return a
