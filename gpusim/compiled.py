"""Which modules of the timing model and memory system run compiled, and the switch back to plain Python.

The timing model's and the memory system's hot modules are plain Python (the readable reference model).
Beside each one, a Cython "augmenting" ``.pxd`` file declares which attributes and locals are C numbers
(and which classes are extension types); when Cython and a C compiler are there at install time
(``pip install -e .``, see ``setup.py``), the same ``.py`` file is compiled to an extension module next
to it, which Python imports in its place.  Without a compiler the
install still succeeds and everything runs as plain Python; both paths give the same numbers
(``tests/timing/test_compiled.py`` runs both and compares).

``GPUSIM_PURE_PYTHON=1`` in the environment makes a process import the ``.py`` files even where compiled
modules exist (for debugging, profiling with cProfile, or comparing); so does a compiled module that is
older than its ``.py`` or ``.pxd`` (a source edited since the last build: it would run stale code), with a
warning saying how to rebuild.  The switch is read once, when ``gpusim`` is first imported.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from pathlib import Path

# Modules compiled when possible (setup.py builds exactly these; a test checks they agree).
COMPILED_MODULES: tuple[str, ...] = (
    "gpusim.timing.sm", "gpusim.timing.schedulers", "gpusim.memory.request", "gpusim.memory.cycle_heap",
    "gpusim.memory.cycle_table", "gpusim.memory.cache", "gpusim.memory.const_cache", "gpusim.memory.interconnect",
    "gpusim.memory.dram.mapping", "gpusim.memory.dram.controller", "gpusim.memory.system")

PURE_ENV = "GPUSIM_PURE_PYTHON"
_ROOT = Path(__file__).resolve().parent.parent


def pure_requested() -> bool:
    """Whether the environment asks for the plain-Python path (``GPUSIM_PURE_PYTHON`` set, not 0/empty)."""
    return os.environ.get(PURE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _source(name: str) -> Path:
    return _ROOT.joinpath(*name.split(".")).with_suffix(".py")


def _extensions(name: str) -> list[Path]:
    src = _source(name)
    return [src.with_name(src.stem + suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if src.with_name(src.stem + suffix).exists()]


def _stale(name: str) -> bool:
    src = _source(name)
    built = [p.stat().st_mtime for p in _extensions(name)]
    if not built:
        return False
    newest_source = max(p.stat().st_mtime for p in (src, src.with_suffix(".pxd")) if p.exists())
    return max(built) < newest_source


class _PlainPythonFinder(importlib.abc.MetaPathFinder):
    """Finds the listed modules' ``.py`` files, ahead of the extension modules beside them."""

    def __init__(self, names) -> None:
        self.names = frozenset(names)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, _source(fullname))


def select_implementation() -> None:
    """Called once by ``gpusim/__init__.py``, before any compiled module is imported."""
    if any(isinstance(f, _PlainPythonFinder) for f in sys.meta_path):
        return
    # All or none: the compiled modules share C types (schedulers.pxd uses sm.pxd's Warp, system.pxd the
    # caches' and the DRAM controller's classes).
    stale = [] if pure_requested() else [n for n in COMPILED_MODULES if _stale(n)]
    if stale:
        warnings.warn(f"gpusim: {', '.join(stale)} changed since it was compiled; running the timing model as "
                      f"plain Python (rebuild with `pip install -e .`)", stacklevel=3)
    if stale or pure_requested():
        sys.meta_path.insert(0, _PlainPythonFinder(COMPILED_MODULES))


def status() -> dict[str, bool]:
    """``{module: runs compiled}`` for every module in :data:`COMPILED_MODULES` (imports them)."""
    out = {}
    for name in COMPILED_MODULES:
        mod = importlib.import_module(name)
        out[name] = not str(getattr(mod, "__file__", "")).endswith(".py")
    return out


def _grouped(names) -> str:
    """``timing: sm, schedulers; memory: cache, dram.controller`` for those module names."""
    groups: dict[str, list[str]] = {}
    for name in names:
        package, _, rest = name.removeprefix("gpusim.").partition(".")
        groups.setdefault(package, []).append(rest)
    return "; ".join(f"{package}: {', '.join(mods)}" for package, mods in groups.items())


def describe() -> str:
    """One line for benchmarks and bug reports: which path this process runs, module by module."""
    st = status()
    done = [n for n, c in st.items() if c]
    if len(done) == len(st):
        return f"compiled ({_grouped(done)})"
    if not done:
        if pure_requested():
            why = f"{PURE_ENV} set"
        elif any(_stale(n) for n in st):
            why = (f"the compiled build of {_grouped(n for n in st if _stale(n))} is older than its source: "
                   f"pip install -e . rebuilds it")
        else:
            why = "not compiled"
        return f"plain Python ({why})"
    return f"partly compiled ({_grouped(done)}; plain Python: {_grouped(n for n in st if n not in done)})"
