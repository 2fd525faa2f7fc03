"""Register and shared-memory usage per kernel from NVIDIA's ``ptxas -v``, when ``ptxas`` is on the PATH.

``ptxas -arch=sm_90 -v`` prints, for each entry function, a line ``Compiling entry function 'NAME' for
'sm_90'`` followed by ``Used N registers, ... S bytes smem ...``; this module runs it and parses those lines.
It is what ``programs/regenerate.py`` uses to fill the ``registers`` of the programs' launch files (the
numbers a real build would get); :func:`gpusim.cuda.compile_cuda` reads the same figures from an NVRTC cubin
instead, so it needs no CUDA toolkit.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gpusim.cuda.cubin import KernelResources
from gpusim.errors import GpusimError, ToolMissingError

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_RELEASE = re.compile(r"release (\d+\.\d+)")


def find_ptxas() -> str | None:
    """Path of ``ptxas`` on the PATH, or None."""
    return shutil.which("ptxas")


def ptxas_version(ptxas: str | None = None) -> str:
    """The CUDA release of ``ptxas`` (e.g. ``"13.0"``)."""
    exe = ptxas or find_ptxas()
    if exe is None:
        raise ToolMissingError("ptxas is not on the PATH (it comes with the CUDA toolkit)")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    m = _RELEASE.search(out)
    if not m:
        raise GpusimError(f"cannot read the release number from `ptxas --version`: {out!r}")
    return m.group(1)


def parse_ptxas_verbose(text: str) -> dict[str, KernelResources]:
    """Parse the output of ``ptxas -v`` into ``{kernel: KernelResources}``."""
    result: dict[str, KernelResources] = {}
    current = None
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = m.group(1)
            continue
        m = _USED.search(line)
        if m and current is not None:
            s = _SMEM.search(line)
            result[current] = KernelResources(registers=int(m.group(1)), shared_bytes=int(s.group(1)) if s else 0)
            current = None
    return result


def ptxas_resources(ptx: str | Path, arch: str = "sm_90") -> dict[str, KernelResources]:
    """Assemble ``ptx`` (a path to a ``.ptx`` file, or PTX text) with ``ptxas -arch=ARCH -v`` and return the
    resources of each kernel.  Raises :class:`ToolMissingError` without ptxas and :class:`GpusimError` with
    ptxas's messages when it rejects the PTX."""
    exe = find_ptxas()
    if exe is None:
        raise ToolMissingError("ptxas is not on the PATH (it comes with the CUDA toolkit)")
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(ptx, Path):
            src = ptx
        else:
            src = Path(tmp) / "module.ptx"
            src.write_text(ptx)
        proc = subprocess.run([exe, f"-arch={arch}", "-v", str(src), "-o", str(Path(tmp) / "out.cubin")],
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise GpusimError(f"ptxas rejected {src.name if isinstance(ptx, Path) else 'the PTX'}:\n{proc.stderr}")
    return parse_ptxas_verbose(proc.stdout + proc.stderr)
