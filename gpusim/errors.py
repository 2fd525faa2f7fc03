"""The error types gpusim raises.

Every error a user can provoke with bad input is a subclass of :class:`GpusimError`, or, for problems in
PTX text and kernel names, of the ISA's own base :class:`isa.errors.IsaError` (``isa`` sits below gpusim and
does not import it).  A front end catches both with one clause, ``except USER_ERRORS as err``, and prints
``str(err)``, which always says where (``file.cu:line`` with the source line, or ``file.ptx:line:col``;
kernel/block/thread; config field) and what was expected.
"""
from __future__ import annotations

from isa.errors import IsaError, KernelLookupError, PtxError


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
    """A kernel failed while running (the emulator's equivalent of a CUDA launch failure).

    ``location`` (an :class:`isa.location.SourceLocation`) is the instruction where it happened; the
    message starts with it (``file.cu:LINE`` and the source line when the kernel has line information)."""

    location = None


class IllegalAddressError(KernelError):
    """An out-of-bounds or misaligned memory access: names the kernel, block, thread, PTX line, address and
    the nearest allocation (as CUDA's cudaErrorIllegalAddress, but with the detail)."""


class BarrierDeadlockError(KernelError):
    """A ``bar.sync`` that some threads of the block can never reach (e.g. ``__syncthreads()`` in divergent
    code): names the block, the warps waiting and their PCs, and the warps that exited or wait elsewhere."""


class BudgetExceededError(KernelError):
    """A runaway kernel hit the configured instruction budget."""


class LivelockError(BudgetExceededError):
    """A kernel that can never finish: its warps came back to a state they had before with no global memory
    written in between (e.g. a spin on a flag that no running thread sets); names where the warps loop."""


class UnsupportedError(GpusimError, NotImplementedError):
    """A feature of PTX or CUDA that gpusim does not model, reported at load time with its ``location``."""

    location = None


class ToolMissingError(GpusimError, RuntimeError):
    """An optional tool is not installed (NVRTC, CuPy, ncu, Dask): the message says how to install it."""


class LaunchFileError(LaunchError):
    """A launch file (``kernel.toml``) is missing, malformed or does not fit its kernel: the message starts
    with the file and names the table, the entry and the key (``gemm.toml: [[args]] #3 'A': ...``)."""


USER_ERRORS = (GpusimError, IsaError)
"""Every error type a user can provoke: ``except USER_ERRORS`` in a front end, never a bare Exception."""

__all__ = ["GpusimError", "ConfigError", "LaunchError", "KernelError", "IllegalAddressError",
           "BarrierDeadlockError", "BudgetExceededError", "UnsupportedError", "ToolMissingError",
           "LaunchFileError", "IsaError", "PtxError", "KernelLookupError", "USER_ERRORS"]
