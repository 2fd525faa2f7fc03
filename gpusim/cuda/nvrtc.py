"""CUDA C -> PTX through NVRTC (NVIDIA's runtime compiler), with an on-disk cache.

:func:`compile_cuda` is the front end behind ``gpusim compile`` and behind ``gpusim.run`` on a ``.cu`` file.
It uses the PyPI packages ``cuda-bindings`` (the Python API) and ``nvidia-cuda-nvrtc`` (the library); both
work on a machine without a GPU.  Install them with ``pip install -e .[cuda]``.

Each compilation runs NVRTC twice: once for PTX (``-arch=compute_90`` by default, optimised as NVRTC's
default ``-O3``, with ``-lineinfo`` so the PTX's ``.loc`` directives carry CUDA source lines), and once for an
sm_XX cubin, from which :mod:`gpusim.cuda.cubin` reads the registers per thread of every kernel
(``EIATTR_REGCOUNT``): the figure the occupancy calculator needs.  ptxas is not used here, so these are
NVRTC's numbers; they can differ by a register or two from a different CUDA release's ``ptxas``.

The cache key is a SHA-256 of (source text, source name, options, NVRTC version); entries are JSON files
under ``$GPUSIM_CACHE`` or ``~/.cache/gpusim/nvrtc``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from gpusim.cuda.cubin import kernel_resources
from gpusim.errors import GpusimError, ToolMissingError

INSTALL_HINT = "install the CUDA extra: pip install -e .[cuda]  (cuda-bindings and nvidia-cuda-nvrtc)"
_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)", re.MULTILINE)
CACHE_FORMAT = 1


class CompileError(GpusimError):
    """NVRTC rejected the source; ``log`` holds NVRTC's messages (file(line): error: ...)."""

    def __init__(self, name: str, log: str):
        super().__init__(f"NVRTC could not compile {name}:\n{log.strip()}")
        self.log = log


@dataclass(frozen=True)
class CompiledModule:
    """The result of compiling one CUDA C translation unit.

    ``kernels`` maps each ``.entry`` name of the PTX to its registers per thread on the cubin architecture
    (None when the cubin could not be built, e.g. for a virtual-only ``arch``).  ``shared_bytes`` gives the
    static shared memory per block of each kernel from the same cubin.
    """

    ptx: str
    kernels: dict[str, int | None]
    log: str
    cached: bool
    shared_bytes: dict[str, int] = field(default_factory=dict)


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        raise ToolMissingError(f"NVRTC is not available ({exc}); {INSTALL_HINT}") from None
    try:
        nvrtc.nvrtcVersion()
    except Exception as exc:  # the bindings are there but the library is not found
        why = " ".join(str(exc).split())
        raise ToolMissingError(f"the NVRTC library could not be loaded ({why}); {INSTALL_HINT}") from None
    return nvrtc


def nvrtc_version() -> tuple[int, int]:
    """(major, minor) of the NVRTC library in use."""
    nvrtc = _nvrtc()
    err, major, minor = nvrtc.nvrtcVersion()
    _check(nvrtc, err, "nvrtcVersion")
    return major, minor


def _check(nvrtc, err, what: str) -> None:
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, msg = nvrtc.nvrtcGetErrorString(err)
        raise GpusimError(f"{what} failed: {msg.decode() if isinstance(msg, bytes) else msg}")


def _run_nvrtc(source: str, name: str, options: list[str], want: str) -> tuple[bytes, str, bool]:
    """Compile once; return (PTX or cubin bytes, log, ok)."""
    nvrtc = _nvrtc()
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _check(nvrtc, err, "nvrtcCreateProgram")
    try:
        opts = [o.encode() for o in options]
        err_compile, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        err, log_size = nvrtc.nvrtcGetProgramLogSize(prog)
        _check(nvrtc, err, "nvrtcGetProgramLogSize")
        log_buf = b" " * log_size
        nvrtc.nvrtcGetProgramLog(prog, log_buf)
        log = log_buf.rstrip(b"\0 ").decode(errors="replace")
        if err_compile != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return b"", log, False
        get_size, get = ((nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX) if want == "ptx"
                         else (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN))
        err, size = get_size(prog)
        _check(nvrtc, err, "nvrtcGet" + want.upper() + "Size")
        buf = b" " * size
        err, = get(prog, buf)
        _check(nvrtc, err, "nvrtcGet" + want.upper())
        return buf, log, True
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def cache_dir() -> Path:
    """Where compiled modules are cached: ``$GPUSIM_CACHE`` if set, else ``~/.cache/gpusim/nvrtc``."""
    env = os.environ.get("GPUSIM_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "gpusim" / "nvrtc"


def _read_source(source: str | os.PathLike) -> tuple[str, str]:
    """(text, name) of a source given as a path or as CUDA C text."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                           and source.endswith((".cu", ".cuh"))):
        path = Path(source)
        if not path.is_file():
            raise GpusimError(f"CUDA source file not found: {path}")
        from isa.errors import read_text
        return read_text(path), path.name
    if not isinstance(source, str):
        raise GpusimError(f"compile_cuda expects a path or CUDA C text, not {type(source).__name__}")
    return source, "kernel.cu"


def _cubin_arch(arch: str) -> str:
    """The real architecture a cubin is built for: compute_90 -> sm_90 (sm_XX stays)."""
    m = re.fullmatch(r"(?:compute|sm)_(\d+[a-z]?)", arch)
    if not m:
        raise GpusimError(f"unknown GPU architecture {arch!r}: expected compute_NN or sm_NN, e.g. compute_90")
    return "sm_" + m.group(1)


def compile_cuda(source: str | os.PathLike, *, arch: str = "compute_90", line_info: bool = True,
                 options: tuple[str, ...] | list[str] = ()) -> CompiledModule:
    """Compile CUDA C (a ``.cu`` path or the source text) to PTX with NVRTC.

    ``arch`` is the virtual architecture of the PTX (``compute_90``: Hopper); register counts come from a
    cubin for the matching real architecture (``sm_90``).  ``options`` are extra NVRTC options (``-D...``,
    ``-I...``, ``--use_fast_math``); note NVRTC does not search the CUDA headers unless told with ``-I``.
    Kernels should be ``extern "C"`` so their PTX names are the CUDA names.

    Raises :class:`ToolMissingError` without the ``[cuda]`` extra and :class:`CompileError` (a
    :class:`GpusimError`) carrying NVRTC's log when the source does not compile.
    """
    text, name = _read_source(source)
    sm = _cubin_arch(arch)
    base = list(options) + (["-lineinfo"] if line_info else [])
    ptx_opts = [f"-arch={arch}"] + base
    key = hashlib.sha256(json.dumps([CACHE_FORMAT, text, name, ptx_opts, sm, nvrtc_version()]).encode())
    entry = cache_dir() / f"{key.hexdigest()}.json"
    if entry.is_file():
        try:
            data = json.loads(entry.read_text())
            return CompiledModule(ptx=data["ptx"], kernels=data["kernels"], log=data["log"], cached=True,
                                  shared_bytes=data.get("shared_bytes", {}))
        except (ValueError, KeyError):
            pass  # a damaged cache entry is rebuilt below

    ptx_bytes, log, ok = _run_nvrtc(text, name, ptx_opts, "ptx")
    if not ok:
        raise CompileError(name, log)
    ptx = ptx_bytes.rstrip(b"\0").decode()
    cubin, _cubin_log, cubin_ok = _run_nvrtc(text, name, [f"-arch={sm}"] + list(options), "cubin")
    resources = kernel_resources(cubin) if cubin_ok else {}
    kernels = {k: (resources[k].registers if k in resources else None) for k in _ENTRY.findall(ptx)}
    shared = {k: resources[k].shared_bytes for k in kernels if k in resources}

    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"ptx": ptx, "kernels": kernels, "log": log, "shared_bytes": shared}))
        tmp.replace(entry)   # atomic, so a concurrent reader never sees half a file
    except OSError:
        pass  # an unwritable cache only costs a recompile next time
    return CompiledModule(ptx=ptx, kernels=kernels, log=log, cached=False, shared_bytes=shared)
