"""The program manifest's data types: :class:`ProgramSpec`, :class:`Launch`, :class:`Tolerance`,
:class:`CheckResult`.

A :class:`ProgramSpec` ties a bundled kernel (its CUDA C, its checked-in PTX) to everything needed to run
and verify it: named problem sizes, the launch configuration for a size, a seeded input generator, module
variables (``__constant__`` data) and an independent numpy reference.  The per-program definitions are in
:mod:`programs.catalog`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from math import prod
from pathlib import Path
from typing import Any, Callable

import numpy as np

from gpusim.errors import GpusimError

HERE = Path(__file__).resolve().parent
REGISTERS_JSON = HERE / "registers.json"

Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class Launch:
    """A kernel launch: the entry name, grid and block shapes (x, y, z) and dynamic shared memory in bytes
    (the third ``<<<...>>>`` argument; CuPy's ``shared_mem``)."""

    kernel: str
    grid: Dim3
    block: Dim3
    shared_mem: int = 0

    @property
    def threads(self) -> int:
        """Total threads in the grid."""
        return prod(self.grid) * prod(self.block)


@dataclass(frozen=True)
class Tolerance:
    """How a program's outputs are compared with the reference.

    ``exact``: bit for bit (the kernel's result is fully determined by IEEE round-to-nearest arithmetic or is
    integer).  Otherwise ``|actual - expected| <= atol + rtol * |expected|`` element-wise.  ``why`` is the
    one-line reason.
    """

    exact: bool
    why: str
    rtol: float = 0.0
    atol: float = 0.0

    def __str__(self) -> str:
        kind = "exact" if self.exact else f"rtol={self.rtol:g}, atol={self.atol:g}"
        return f"{kind} ({self.why})"


def exact(why: str) -> Tolerance:
    return Tolerance(exact=True, why=why)


def close(rtol: float, atol: float, why: str) -> Tolerance:
    return Tolerance(exact=False, why=why, rtol=rtol, atol=atol)


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :meth:`ProgramSpec.check`: ``outputs[arg_index] = (max_abs_err, max_rel_err, n_mismatch)``
    for every checked argument; ``message`` is one human-readable line per output."""

    ok: bool
    outputs: dict[int, tuple[float, float, int]]
    message: str

    def __bool__(self) -> bool:
        return self.ok


@lru_cache(maxsize=1)
def _registers() -> dict[str, dict]:
    return json.loads(REGISTERS_JSON.read_text()) if REGISTERS_JSON.exists() else {}


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bits of a float array (so that -0.0 != 0.0 and NaN payloads count), other arrays unchanged."""
    if a.dtype.kind == "f":
        return a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return a


@dataclass(frozen=True)
class ProgramSpec:
    """One bundled program: a kernel (or a few variants of it) with its manifest entry.

    The callables take the *parameters* of a size (``spec.sizes[size]``, a dict such as ``{"n": 10000}``)
    and, for inputs, a seeded ``numpy.random.Generator``:

    * ``launch_fn(p) -> Launch``
    * ``args_fn(p, rng) -> list``: one entry per ``.param`` of the kernel, in order: numpy arrays for
      pointers (outputs zero-filled), numpy scalars (``np.int32``, ``np.uint32``, ``np.float32``) for values
    * ``symbols_fn(p, rng) -> dict``: module variables to write before the launch (``{}`` if none)
    * ``reference_fn(args, symbols, p) -> {arg_index: expected array}``: numpy, from the *input* arguments
    """

    name: str
    description: str
    topic: str
    kernels: tuple[str, ...]
    sizes: dict[str, dict[str, Any]]
    default_size: str
    tolerance: Tolerance
    launch_fn: Callable[[dict], Launch]
    args_fn: Callable[[dict, np.random.Generator], list]
    reference_fn: Callable[[list, dict, dict], dict[int, np.ndarray]]
    symbols_fn: Callable[[dict, np.random.Generator], dict[str, np.ndarray]] | None = None
    hand_written: bool = False
    notes: str = ""
    _dir: Path = field(default=HERE, repr=False, compare=False)

    # -- files -------------------------------------------------------------------------------------------
    @property
    def ptx_path(self) -> Path:
        """The PTX the simulator runs (generated from ``cu_path`` or written by hand)."""
        return self._dir / f"{self.name}.ptx"

    @property
    def cu_path(self) -> Path | None:
        """The CUDA C source, or None for a hand-written PTX program."""
        return None if self.hand_written else self._dir / f"{self.name}.cu"

    # -- sizes -------------------------------------------------------------------------------------------
    def params(self, size: str | None = None) -> dict[str, Any]:
        """The parameters of a named size (``None``: the default size)."""
        size = self.default_size if size is None else size
        if size not in self.sizes and size.startswith("n=") and set(self.sizes[self.default_size]) == {"n"}:
            try:   # a derived size of an n-sized program (see size_for_launch)
                n = int(size[2:])
                if n > 0:
                    return {"n": n}
            except ValueError:
                pass
        try:
            return self.sizes[size]
        except KeyError:
            raise GpusimError(f"program {self.name!r} has no size {size!r}; sizes: "
                              f"{', '.join(self.sizes)}") from None

    def size_for_launch(self, grid, block) -> str | None:
        """The size whose launch is exactly ``grid`` x ``block``: a named size, or, for programs whose size is
        one problem size ``n``, a size derived by scaling ``n`` with the thread count (so that
        ``gpusim run prog --grid 64 --block 256 --check`` checks a problem that fits the launch).
        None if no size fits."""
        from gpusim.functional.emulator import dim3
        g, b = dim3(grid, "grid"), dim3(block, "block")
        for name in self.sizes:
            lnch = self.launch(name)
            if tuple(lnch.grid) == g and tuple(lnch.block) == b:
                return name
        p = self.params(self.default_size)
        l0 = self.launch(self.default_size)
        if set(p) != {"n"} or tuple(l0.block) != b:
            return None
        threads0 = l0.grid[0] * l0.grid[1] * l0.grid[2] * b[0] * b[1] * b[2]
        threads = g[0] * g[1] * g[2] * b[0] * b[1] * b[2]
        cand = {"n": max(1, round(p["n"] * threads / threads0))}
        if tuple(self.launch_fn(cand).grid) != g:
            return None
        return f"n={cand['n']}"

    def launch(self, size: str | None = None) -> Launch:
        """The launch configuration for ``size``."""
        return self.launch_fn(self.params(size))

    def make_args(self, size: str | None = None, seed: int = 0) -> list:
        """Seeded, deterministic kernel arguments for ``size`` (fresh arrays on every call)."""
        return self.args_fn(self.params(size), np.random.default_rng([seed, 0]))

    def make_symbols(self, size: str | None = None, seed: int = 0) -> dict[str, np.ndarray]:
        """Module variables (``__constant__``/``__device__``) to set before the launch, ``{}`` if none.
        Seeded independently of :meth:`make_args`."""
        if self.symbols_fn is None:
            return {}
        return self.symbols_fn(self.params(size), np.random.default_rng([seed, 1]))

    def reference(self, args: list, symbols: dict | None = None, size: str | None = None) -> dict[int, np.ndarray]:
        """Expected output arrays ``{arg_index: array}``, computed with numpy from the input ``args``."""
        return self.reference_fn(args, symbols or {}, self.params(size))

    # -- checking ----------------------------------------------------------------------------------------
    def check(self, args_after: list, reference: dict[int, np.ndarray]) -> CheckResult:
        """Compare the arguments after a launch with ``reference`` under :attr:`tolerance`."""
        outputs: dict[int, tuple[float, float, int]] = {}
        lines, ok = [], True
        for idx, expected in sorted(reference.items()):
            if idx >= len(args_after):
                return CheckResult(False, outputs, f"{self.name}: no argument {idx} in the results "
                                                   f"({len(args_after)} arguments)")
            actual = np.asarray(args_after[idx])
            expected = np.asarray(expected)
            if actual.shape != expected.shape or actual.dtype != expected.dtype:
                ok = False
                outputs[idx] = (float("inf"), float("inf"), int(expected.size))
                lines.append(f"arg {idx}: got {actual.dtype}{list(actual.shape)}, "
                             f"expected {expected.dtype}{list(expected.shape)}")
                continue
            a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                diff = np.abs(a64 - e64)
                rel = np.where(e64 != 0, diff / np.abs(e64), np.where(diff == 0, 0.0, np.inf))
            if self.tolerance.exact:
                bad = _bits(actual) != _bits(expected)
            else:
                bad = ~np.isclose(a64, e64, rtol=self.tolerance.rtol, atol=self.tolerance.atol, equal_nan=True)
            n_bad = int(np.count_nonzero(bad))
            max_abs = float(np.nanmax(diff)) if diff.size else 0.0
            max_rel = float(np.nanmax(rel)) if rel.size else 0.0
            outputs[idx] = (max_abs, max_rel, n_bad)
            if n_bad:
                ok = False
                first = np.unravel_index(int(np.argmax(bad)), bad.shape)
                lines.append(f"arg {idx}: {n_bad} of {bad.size} elements differ (max abs err {max_abs:.3g}, "
                             f"max rel err {max_rel:.3g}); first at index {tuple(int(i) for i in first)}: "
                             f"got {actual[first]!r}, expected {expected[first]!r}")
            else:
                lines.append(f"arg {idx}: ok ({bad.size} elements, max abs err {max_abs:.3g})")
        verdict = "PASS" if ok else "FAIL"
        message = f"{self.name}: {verdict} [{self.tolerance}]\n  " + "\n  ".join(lines)
        return CheckResult(ok, outputs, message)

    # -- resources ---------------------------------------------------------------------------------------
    def registers(self, kernel: str | None = None) -> int | None:
        """Registers per thread of ``kernel`` on sm_90 (``ptxas -v``, from ``registers.json``), or None."""
        entry = _registers().get(kernel or self.kernels[0])
        return None if entry is None else int(entry["registers"])

    def static_shared_bytes(self, kernel: str | None = None) -> int | None:
        """Static ``__shared__`` bytes per block of ``kernel`` (``ptxas -v``), or None if unknown."""
        entry = _registers().get(kernel or self.kernels[0])
        return None if entry is None else int(entry["shared_bytes"])
