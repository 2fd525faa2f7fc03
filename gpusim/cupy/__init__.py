"""A CuPy-compatible host API on the simulator: change ``import cupy`` to ``import gpusim.cupy as cupy`` and
the program's kernels run on the simulated GPU.

    import gpusim.cupy as cupy
    mod = cupy.RawModule(path="kernels.ptx")          # or code= CUDA C (NVRTC), or PTX text
    step = mod.get_function("jacobi_step")
    a = cupy.asarray(a_host); b = cupy.empty_like(a)
    for t in range(steps):
        step((n // 16, n // 16), (16, 16), (a, b, numpy.int32(n)))
        a, b = b, a
    print(cupy.asnumpy(a)); cupy.report()

What is simulated: every kernel launch (:class:`RawKernel`, :meth:`RawModule.get_function`), functionally
and, in timing mode (the default), by the timing model and memory system, one after another on one program
clock.  Device memory is one address space for the whole session (arrays are allocations in it, a kernel's
pointer arguments are their addresses, module variables keep their values), and the L2 and DRAM keep their
state from one launch to the next (``set_mode(flush_caches=True)`` flushes them before every launch, as
Nsight Compute does).  ``cuda.Event`` times are simulated time at the GPU preset's clock.

What is not simulated, and runs in numpy on the host taking no simulated time: array creation, copies,
elementwise arithmetic, reductions and every other numpy function on arrays (counted, and shown by
:func:`report`); host-side launch overhead and PCIe transfers; concurrency between streams (they are in
order).  ``gpusim.cupy.random`` is numpy's generator, so its numbers differ from CuPy's.

Beyond CuPy: :func:`set_mode`, :func:`get_mode`, :func:`report`, :func:`launches`, :func:`reset`,
:func:`write_trace` (the launches on a Perfetto time line).  ``python -m gpusim.cupy script.py`` runs an
unchanged CuPy script with ``import cupy`` meaning this module, and prints the report at the end.

The layout follows CuPy's: :mod:`._core` (``ndarray``, ``RawKernel``, ``RawModule``), :mod:`._creation`,
:mod:`.cuda` (device, streams and events, memory and its pool, hooks, runtime), :mod:`.random`; the
simulated device itself is :mod:`._session` and the report :mod:`._report`.
"""
from __future__ import annotations

import numpy as _np

from gpusim.cupy import _session, cuda, random
from gpusim.cupy._core import RawKernel, RawModule, ndarray
from gpusim.cupy._core.core import _host_call
from gpusim.cupy._creation.basic import (empty, empty_like, eye, full, full_like, identity, ones, ones_like, zeros,
                                         zeros_like)
from gpusim.cupy._creation.from_data import array, asanyarray, asarray, ascontiguousarray, asnumpy, copy
from gpusim.cupy._creation.ranges import arange, linspace, logspace
from gpusim.cupy._report import ProgramReport, build_report

# dtypes and constants are numpy's
from numpy import (bool_, complex64, complex128, dtype, e, float16, float32, float64, inf, int8, int16, int32,
                   int64, intp, nan, newaxis, pi, uint8, uint16, uint32, uint64)

__all__ = ["ndarray", "RawKernel", "RawModule", "cuda", "random", "asarray", "asnumpy", "array", "empty", "zeros",
           "ones", "full", "arange", "linspace", "empty_like", "zeros_like", "ones_like", "full_like", "set_mode",
           "get_mode", "report", "launches", "reset", "write_trace", "get_default_memory_pool",
           "get_array_module"]


def set_mode(mode: str | None = None, *, gpu=None, flush_caches: bool | None = None,
             scheduler: str | None = None, sanitize=None) -> None:
    """Choose how launches are simulated from now on: ``mode`` "timing" (the default) or "emulate"; ``gpu``
    a preset name or config (default "h100"); ``flush_caches`` True to start every launch with cold caches
    (as ncu), False (the default) to keep L2 across launches; ``scheduler`` a warp-scheduler policy;
    ``sanitize`` "all", a tool or a list of tools (:mod:`gpusim.check`) to run every launch under the
    checker (False: no more)."""
    _session.session().configure(mode, gpu, flush_caches, scheduler, sanitize)


def get_mode() -> dict:
    s = _session.session()
    return {"mode": s.mode, "gpu": s.gpu.name, "flush_caches": s.flush_caches, "scheduler": s.scheduler,
            "sanitize": s.sanitize}


def reset(mode: str | None = None, *, gpu=None, flush_caches: bool | None = None, sanitize=None) -> None:
    """A fresh device: new memory (existing arrays stop being usable in launches), clock at 0, no launches,
    counters cleared; the mode, GPU, flag and sanitizer tools stay unless given (``sanitize=False``: off)."""
    _session.new_session(mode=mode, gpu_name=gpu, flush_caches=flush_caches,
                         sanitize=None if sanitize is None else (sanitize or ()))


def launches() -> list:
    """Every launch so far (:class:`gpusim.cupy._session.LaunchRecord`: kernel, grid, block, start cycle, and
    in timing mode ``timing``, the full :class:`gpusim.timing.TimingResult`)."""
    return list(_session.session().launches)


def report(file=None, *, quiet: bool = False) -> ProgramReport:
    """Print (to ``file``, default stdout; nothing with ``quiet=True``) and return the program's report
    (:mod:`gpusim.cupy._report`)."""
    rep = build_report(_session.session())
    if not quiet:
        print(rep, file=file)
    return rep


def write_trace(path) -> "object":
    """Write the launches as a Perfetto/Chrome trace (one slice per launch on its stream, one after another
    on the program clock; 1 trace microsecond = 1 SM cycle) and return the path."""
    from gpusim.analysis.chrome_trace import write_program_trace
    s = _session.session()
    return write_program_trace(s.launches, path, gpu=s.gpu.name, clock_mhz=s.clock_mhz)


def get_default_memory_pool():
    return cuda.get_default_pool()


def get_default_pinned_memory_pool():
    """Pinned host memory is not modelled: a pool object that holds nothing."""
    return _PinnedPool()


class _PinnedPool:
    def free_all_blocks(self):
        pass

    def n_free_blocks(self):
        return 0


def get_array_module(*args):
    """This module if any argument is a device array, else numpy."""
    import sys
    return sys.modules[__name__] if any(isinstance(a, ndarray) for a in args) else _np


def _numpy_function(name: str):
    f = getattr(_np, name)

    def g(*args, **kwargs):
        return _host_call(name, f, *args, **kwargs)
    g.__name__ = name
    g.__doc__ = f"numpy.{name} on the host (not simulated); device arrays in, device arrays out."
    return g


def __getattr__(name: str):
    # every other numpy function, run on the host (see the module docstring)
    f = getattr(_np, name, None)
    if callable(f) and not isinstance(f, type):
        g = _numpy_function(name)
        globals()[name] = g
        return g
    raise AttributeError(f"gpusim.cupy has no {name!r} (and numpy has no function of that name)")
