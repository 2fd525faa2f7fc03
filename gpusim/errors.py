"""The error types gpusim raises.

Every error a user can provoke with bad input is a subclass of :class:`GpusimError`, so a front end can catch
one type and print ``str(err)``, which always says where (file:line:col, kernel/block/thread, config field)
and what was expected.  ``isa`` defines the parser's error (:class:`isa.errors.PtxError`) as a subclass of
:class:`GpusimError` too, so this module has no dependencies and sits below every package.
"""
from __future__ import annotations


class GpusimError(Exception):
    """Base class of every error gpusim reports to a user."""


class ConfigError(GpusimError, ValueError):
    """A GPU configuration field is unknown, has the wrong type, or is inconsistent with another field.

    The message names the field with its dotted path (``sm.max_warps``) and the file it came from, if any.
    """


class LaunchError(GpusimError, ValueError):
    """A launch is invalid before it starts: bad grid/block shape, wrong argument count or type,
    too many threads per block, too much shared memory."""


class KernelError(GpusimError, RuntimeError):
    """A kernel failed while running (the emulator's equivalent of a CUDA launch failure)."""


class IllegalAddressError(KernelError):
    """An out-of-bounds or misaligned memory access: names the kernel, block, thread, PTX line, address and
    the nearest allocation (as CUDA's cudaErrorIllegalAddress, but with the detail)."""


class BarrierDeadlockError(KernelError):
    """A ``bar.sync`` that some threads of the block can never reach (e.g. ``__syncthreads()`` in divergent
    code): names the block, the warps waiting and their PCs, and the warps that exited or wait elsewhere."""


class BudgetExceededError(KernelError):
    """A runaway kernel hit the configured instruction budget."""


class UnsupportedError(GpusimError, NotImplementedError):
    """A feature of PTX or CUDA that gpusim does not model, reported at load time with its location."""


class ToolMissingError(GpusimError, RuntimeError):
    """An optional tool is not installed (NVRTC, CuPy, ncu, Dask): the message says how to install it."""


class LaunchFileError(LaunchError):
    """A launch file (``kernel.toml``) is missing, malformed or does not fit its kernel: the message starts
    with the file and names the table, the entry and the key (``gemm.toml: [[args]] #3 'A': ...``)."""
