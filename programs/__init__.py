"""The bundled programs: the seed lectures' kernels as CUDA C + PTX, each with a launch file beside it
(``programs/<name>.toml``), and the validation suites (``programs/suites/<suite>/<name>.toml``).

    import programs
    programs.names()                      # sorted bundled program names (file stems)
    spec = programs.get("matmul_tiled")   # a LaunchSpec (gpusim.launch); unknown names raise GpusimError
    launch = spec.launch("small")         # Launch(kernel, grid, block, shared_mem)
    args = spec.make_args("small", seed=0)
    syms = spec.make_symbols("small", seed=0)
    ref = spec.reference(args, syms, "small")
    ... run the kernel ..., then spec.check(result_args, ref).ok
    programs.suite_specs()                # [(suite folder, LaunchSpec)] of programs/suites/*/*.toml

The format of a launch file: ``programs/README.md`` ("Launch files"); the loader: :mod:`gpusim.launch`.
"""
from __future__ import annotations

import os
from pathlib import Path

from gpusim.errors import GpusimError
from gpusim.launch import CheckResult, Launch, LaunchSpec, Tolerance, load

HERE = Path(__file__).resolve().parent
SUITES = HERE / "suites"
ProgramSpec = LaunchSpec

__all__ = ["names", "get", "find", "all_specs", "suite_specs", "suite_names", "program_id", "ProgramSpec", "LaunchSpec", "Launch", "Tolerance",
           "CheckResult", "HERE", "SUITES"]


def names() -> list[str]:
    """Sorted names of the bundled programs (the stems of ``programs/<name>.toml``)."""
    return sorted(p.stem for p in HERE.glob("*.toml"))


def all_specs() -> list[LaunchSpec]:
    """Every bundled program's spec, sorted by name."""
    return [get(n) for n in names()]


def get(name: str) -> LaunchSpec:
    """The spec of bundled program ``name``, or of a validation-suite program named ``<suite>/<name>``
    (``polybench/gemm``: ``programs/suites/polybench/gemm.toml``); raises :class:`GpusimError` listing the
    known names if there is none."""
    path = None
    if isinstance(name, str):
        parts = name.split("/")
        if len(parts) == 1 and name.isidentifier():
            path = HERE / f"{name}.toml"
        elif len(parts) == 2 and all(p.replace("_", "a").isalnum() for p in parts):
            path = SUITES / parts[0] / f"{parts[1]}.toml"
    if path is None or not path.is_file():
        raise GpusimError(f"unknown program {name!r}; bundled programs: {', '.join(names())}; suite programs "
                          f"are named <suite>/<name> (`gpusim programs` lists them)")
    return load(path)


def suite_names() -> list[str]:
    """``<suite>/<name>`` of every validation-suite program, sorted (each one :func:`get` accepts)."""
    return [f"{p.parent.name}/{p.stem}" for p in sorted(SUITES.glob("*/*.toml"))]


def program_id(spec: LaunchSpec) -> str:
    """The name :func:`get` finds ``spec`` by: ``matmul_tiled``, or ``polybench/gemm`` for a suite program."""
    path = Path(spec.path)
    return f"{path.parent.name}/{path.stem}" if path.parent.parent == SUITES else path.stem


def find(path: str | os.PathLike) -> LaunchSpec | None:
    """The spec of a bundled program given a path to (or the stem of) its ``.cu`` or ``.ptx`` file, matched
    by file name: ``programs/matmul_tiled.cu``, ``matmul_tiled.ptx`` and ``matmul_tiled`` all find
    ``matmul_tiled``; a suite program's name ``polybench/gemm`` finds it.  None for any other file."""
    p = Path(path)
    if p.suffix == "" and len(p.parts) == 2 and (SUITES / p.parts[0] / f"{p.parts[1]}.toml").is_file():
        return get(f"{p.parts[0]}/{p.parts[1]}")      # a suite program's name: polybench/gemm
    if p.suffix not in ("", ".cu", ".ptx") or not (HERE / f"{p.stem}.toml").is_file():
        return None
    return get(p.stem)


def suite_specs() -> list[tuple[str, LaunchSpec]]:
    """``[(suite folder name, spec)]`` of every ``programs/suites/<suite>/*.toml``, sorted."""
    return [(p.parent.name, load(p)) for p in sorted(SUITES.glob("*/*.toml"))]
