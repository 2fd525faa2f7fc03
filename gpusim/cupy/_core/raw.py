"""``RawModule`` and ``RawKernel``: user kernels, simulated (as ``cupy._core.raw``).

Sources: ``RawModule(code=...)`` takes CUDA C, compiled to PTX for compute_90 with NVRTC (the ``[cuda]``
extra: ``pip install -e .[cuda]``; without it the error says so), or PTX text (recognised by its
``.version``/``.entry`` directives); ``RawModule(path=...)`` takes a ``.ptx`` file (CuPy also loads cubins:
a cubin holds SASS, which the simulator does not run, so it says to give the PTX).  ``options`` go to NVRTC;
``--fmad=false`` (or ``-fmad=false``) also turns off the emulator's FMA contraction, as it does for ptxas.

A call ``kernel(grid, block, args, shared_mem=0, stream=None)`` packs the arguments as CuPy does and runs
the launch on the session's device (:mod:`gpusim.cupy._session`): a device array passes its ``data.ptr``, a
:class:`~gpusim.cupy.cuda.MemoryPointer` its ``ptr``, a numpy scalar its bytes, and a Python ``int``,
``float``, ``bool`` or ``complex`` the bytes of an int64, float64, bool or complex128 (CuPy's rule), of
which the kernel reads as many as its parameter has: a Python float given to a ``float`` parameter is read
as the low half of a double (garbage, as on the GPU); the simulator warns
(:class:`~gpusim.functional.host.DtypeMismatchWarning`).  A numpy array is refused as CuPy refuses it.

Registers per thread (for occupancy): NVRTC's cubin for ``code=``; ``ptxas -v`` for PTX when ptxas is on
the PATH, else the timing model's estimate (``gpusim.timing.estimate_regs_per_thread``).
"""
from __future__ import annotations

import hashlib
import os
import re
import warnings
import weakref
from pathlib import Path

import numpy as np

from gpusim.cupy import _session
from gpusim.cupy._core.core import ndarray
from gpusim.errors import GpusimError, LaunchError, ToolMissingError
from gpusim.functional.host import DtypeMismatchWarning, ModuleImage
from gpusim.functional.operands import DT

_PTX = re.compile(r"^\s*\.(version|target|entry|visible)\b", re.MULTILINE)


class _Loaded:
    """A module in one session: its emulator (compiled kernels) and its variables in the session's heap."""

    def __init__(self, emulator, image):
        self.emulator = emulator
        self.image = image


class RawModule:
    """A CUDA module (see the module docstring).  ``get_function(name)`` gives a :class:`RawKernel`;
    ``get_global(name)`` a :class:`~gpusim.cupy.cuda.MemoryPointer` to a ``__device__`` or ``__constant__``
    variable (wrap it in ``cupy.ndarray(shape, dtype, ptr)`` to read or write it)."""

    def __init__(self, code: str | None = None, *, path: str | os.PathLike | None = None, options=(),
                 backend: str = "nvrtc", translate_cucomplex: bool = False, enable_cooperative_groups: bool = False,
                 name_expressions=None, log_stream=None, jitify: bool = False):
        from isa.parser import load_ptx, parse_ptx
        if (code is None) == (path is None):
            raise TypeError("RawModule takes exactly one of code= (CUDA C or PTX text) and path= (a .ptx file)")
        self.code, self.path = code, None if path is None else str(path)
        self.options = tuple(options)
        self.backend = backend
        self.name_expressions = tuple(name_expressions or ())
        self.fmad = not any(o.replace("--", "-") in ("-fmad=false", "-fmad=0") for o in self.options)
        self._registers: dict[str, int | None] = {}
        self._regs_source = "estimate"
        if path is not None:
            p = Path(path)
            if p.suffix in (".cubin", ".fatbin"):
                raise GpusimError(f"{p}: a {p.suffix} holds machine code (SASS), which gpusim does not run: load "
                                  f"the PTX instead (nvcc -ptx, or the .ptx NVRTC gives)")
            if p.suffix == ".cu":
                raise GpusimError(f"{p}: RawModule(path=) loads compiled modules (.ptx here); for CUDA C use "
                                  f"RawModule(code=open(path).read())")
            if not p.is_file():
                raise GpusimError(f"{p}: no such file")
            self.module = load_ptx(p, strict=False)
            self._ptxas(p)
        elif _PTX.search(code) and ".entry" in code:
            digest = hashlib.sha1(code.encode()).hexdigest()[:8]
            self.module = parse_ptx(code, f"<ptx {digest}>", strict=False)
            self._ptxas(code)
        else:
            self.module = self._compile_cuda(code)
        self._emulator = None
        self._sessions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _compile_cuda(self, code: str):
        from gpusim.cuda import compile_cuda
        from isa.parser import parse_ptx
        opts = tuple(o for o in self.options if o.replace("--", "-") not in ("-fmad=false", "-fmad=0")) + \
            (() if self.fmad else ("--fmad=false",))
        try:
            compiled = compile_cuda(code, options=list(opts))
        except ToolMissingError as e:
            raise ToolMissingError(f"RawModule(code=...) compiles CUDA C with NVRTC, which is not available: {e}. "
                                   f"Or compile it to PTX elsewhere (nvcc -arch=compute_90 -ptx) and load that "
                                   f"with RawModule(path='kernel.ptx')") from None
        self._registers = dict(compiled.kernels)
        self._regs_source = "nvrtc"
        return parse_ptx(compiled.ptx, "kernel.ptx", None, strict=False)

    def _ptxas(self, ptx) -> None:
        from gpusim.cuda.ptxas import find_ptxas, ptxas_resources
        if find_ptxas() is None:
            return
        try:
            res = ptxas_resources(ptx)
        except GpusimError:
            return                   # ptxas may reject what the emulator runs; the estimate then serves
        self._registers = {k: r.registers for k, r in res.items()}
        self._regs_source = "ptxas"

    # -- the module in a session ---------------------------------------------------------------------
    def _loaded(self) -> _Loaded:
        s = _session.session()
        ld = self._sessions.get(s)
        if ld is None:
            from gpusim.functional.emulator import Emulator
            if self._emulator is None:
                self._emulator = Emulator(self.module, fmad=self.fmad)
            ld = _Loaded(self._emulator, ModuleImage(self.module, s.mem, const_in_heap=True))
            self._sessions[s] = ld
        return ld

    def get_function(self, name: str) -> "RawKernel":
        from gpusim.launch import resolve_kernel
        k = resolve_kernel(self.module, name)
        return RawKernel._of_module(self, k)

    def get_global(self, name: str):
        """A pointer to module variable ``name`` in the session's device memory."""
        from gpusim.cupy.cuda.memory import MemoryPointer
        ld = self._loaded()
        addr, size = ld.image.symbol_address(name)
        return MemoryPointer(_Variable(ld, addr, size), 0)

    def get_texref(self, name):
        raise GpusimError("texture references are not modelled by gpusim")

    @property
    def kernels(self) -> list[str]:
        return list(self.module.kernels)


class _Variable:
    """A module variable as a memory object (what a MemoryPointer from ``get_global`` holds)."""

    def __init__(self, loaded: _Loaded, addr: int, size: int):
        self.loaded = loaded
        self.ptr = addr
        self.size = size
        self.session = _session.session()
        self.device_id = 0
        self.alloc = loaded.image.mem.find(addr)


class RawKernel:
    """A kernel (see the module docstring): ``RawKernel(code, name, options=())`` compiles ``code`` and takes
    its entry ``name``; :meth:`RawModule.get_function` gives one of a module."""

    def __init__(self, code: str, name: str, options=(), backend: str = "nvrtc", *, translate_cucomplex=False,
                 enable_cooperative_groups: bool = False, jitify: bool = False):
        mod = RawModule(code=code, options=options, backend=backend)
        self._init(mod, _resolve(mod, name))
        self.code = code

    @classmethod
    def _of_module(cls, mod: RawModule, k) -> "RawKernel":
        self = cls.__new__(cls)
        self._init(mod, k)
        self.code = mod.code
        return self

    def _init(self, mod: RawModule, k) -> None:
        self.module = mod
        self.kernel = k
        self.name = k.name
        self.options = mod.options
        self.max_dynamic_shared_size_bytes = 48 * 1024

    @property
    def num_regs(self) -> int | None:
        """Registers per thread as the compiler gave them; None when no compiler said (a launch then uses the
        timing model's estimate from the trace)."""
        r = self.module._registers.get(self.name)
        return None if r is None else int(r)

    @property
    def max_threads_per_block(self) -> int:
        return 1024

    @property
    def shared_size_bytes(self) -> int:
        return int(getattr(self.kernel, "shared_bytes", 0) or 0)

    @property
    def attributes(self) -> dict:
        return {"max_threads_per_block": self.max_threads_per_block, "num_regs": self.num_regs,
                "shared_size_bytes": self.shared_size_bytes,
                "max_dynamic_shared_size_bytes": self.max_dynamic_shared_size_bytes}

    def __call__(self, grid, block, args, *, shared_mem: int = 0, stream=None,
                 enable_cooperative_groups: bool = False):
        from gpusim.cupy.cuda.stream import get_current_stream
        if not isinstance(args, (tuple, list)):
            raise TypeError(f"kernel arguments must be a tuple, not {type(args).__name__}")
        s = _session.session()
        params = self.kernel.params
        if len(args) != len(params):
            raise LaunchError(f"kernel '{self.name}' takes {len(params)} arguments "
                              f"({', '.join(p.name + ':' + p.type for p in params)}), got {len(args)}")
        packed = [_pack(a, p, i, self.name, s) for i, (a, p) in enumerate(zip(args, params))]
        ld = self.module._loaded()
        stream = stream if stream is not None else get_current_stream()
        regs = self.module._registers.get(self.name)
        return s.launch(ld, self.kernel, grid, block, packed, int(shared_mem), stream.ptr, regs)

    def __repr__(self) -> str:
        return f"<gpusim.cupy.RawKernel {self.name}>"


def _resolve(mod: RawModule, name: str):
    from gpusim.launch import resolve_kernel
    return resolve_kernel(mod.module, name)


_PY_SCALARS = ((bool, np.bool_), (int, np.int64), (float, np.float64), (complex, np.complex128))


def _pack(a, p, i: int, kname: str, s):
    """One argument as a numpy scalar of exactly parameter ``p``'s width (CuPy's packing: see the module
    docstring), or raw bytes for a struct passed by value."""
    from gpusim.cupy.cuda.memory import MemoryPointer
    if isinstance(a, ndarray):
        _session.check_same_session(a._session, f"argument {i} of kernel '{kname}'")
        return np.uint64(a.data.ptr)
    if isinstance(a, MemoryPointer):
        return np.uint64(a.ptr)
    if isinstance(a, np.ndarray):
        raise TypeError(f"argument {i} ({p.name}) of kernel '{kname}' is a numpy.ndarray: kernels take device "
                        f"arrays (gpusim.cupy.asarray(x)), as in CuPy")
    if isinstance(a, (bytes, bytearray)) or (isinstance(a, np.void)):
        return a
    given = None
    for py, npt in _PY_SCALARS:
        if type(a) is py:
            given = npt(a)
            break
    if given is None:
        if not isinstance(a, np.generic):
            raise TypeError(f"argument {i} ({p.name}) of kernel '{kname}': unsupported type {type(a).__name__}")
        given = a
    dt = DT.get(p.type)
    raw = given.tobytes()
    if dt is None or np.dtype(dt).itemsize != p.size_bytes:
        return raw                              # a byte-array parameter: pack_scalar checks the size
    want = np.dtype(dt)
    fitted = (raw + bytes(want.itemsize))[: want.itemsize]
    value = np.frombuffer(fitted, dtype=want)[0]
    if want.kind == "f" or given.dtype.kind in "fc":
        bad = len(raw) != want.itemsize or (want.kind == "f") != (given.dtype.kind == "f")
    else:                                       # an int of another width: fine while its value survives
        bad = int(value) != int(given) and int(value) != int(given) % (1 << (8 * want.itemsize))
    if bad:
        warnings.warn(DtypeMismatchWarning(
            f"argument {i} ({p.name}) of kernel '{kname}' is .{p.type} ({want.itemsize} bytes) but a "
            f"{type(a).__name__} ({given.dtype}, {len(raw)} bytes) was passed: the kernel reads the first "
            f"{want.itemsize} bytes of it as .{p.type}, as on the GPU; pass numpy.{want.name}(...)"),
            stacklevel=4)
    return value
