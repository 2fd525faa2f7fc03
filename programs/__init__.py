"""The bundled programs: the seed lectures' kernels as CUDA C + PTX, with a manifest to run and check them.

    import programs
    programs.names()                      # sorted program names (file stems)
    spec = programs.get("matmul_tiled")   # a ProgramSpec; unknown names raise GpusimError
    launch = spec.launch("small")         # Launch(kernel, grid, block, shared_mem)
    args = spec.make_args("small", seed=0)
    syms = spec.make_symbols("small", seed=0)
    ref = spec.reference(args, syms, "small")
    ... run the kernel ..., then spec.check(result_args, ref).ok

See ``programs/README.md`` for the table of programs and :mod:`programs.spec` for the types.
"""
from __future__ import annotations

import os
from pathlib import Path

from gpusim.errors import GpusimError
from programs.catalog import SPECS
from programs.spec import CheckResult, Launch, ProgramSpec, Tolerance

__all__ = ["names", "get", "find", "all_specs", "ProgramSpec", "Launch", "Tolerance", "CheckResult"]


def names() -> list[str]:
    """Sorted names of the bundled programs (the file stems: ``programs/<name>.cu`` / ``.ptx``)."""
    return sorted(SPECS)


def all_specs() -> list[ProgramSpec]:
    """Every program's spec, sorted by name."""
    return [SPECS[n] for n in names()]


def get(name: str) -> ProgramSpec:
    """The spec of program ``name``; raises :class:`GpusimError` listing the known names if there is none."""
    try:
        return SPECS[name]
    except (KeyError, TypeError):
        raise GpusimError(f"unknown program {name!r}; bundled programs: {', '.join(names())}") from None


def find(path: str | os.PathLike) -> ProgramSpec | None:
    """The spec of a bundled program given a path to (or the stem of) its ``.cu`` or ``.ptx`` file, matched
    by file name: ``programs/matmul_tiled.cu``, ``matmul_tiled.ptx`` and ``matmul_tiled`` all find
    ``matmul_tiled``.  None for any other file."""
    p = Path(path)
    if p.suffix not in ("", ".cu", ".ptx"):
        return None
    return SPECS.get(p.stem)
