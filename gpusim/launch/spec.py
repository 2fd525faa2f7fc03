"""Launch files: how to launch a kernel, with which inputs, and how to check its result.

A launch file is TOML beside a kernel (``gemm.toml`` next to ``gemm.cu`` / ``gemm.ptx``) or any file given
with ``--launch``; the format is documented in ``programs/README.md`` ("Launch files").  :func:`load` reads
one into a :class:`LaunchSpec`, checking every table and key first, so that a mistake is reported with the
file, the table, the entry and the key (``gemm.toml: [[args]] #3 'A': 'shape' is required for fill =
"uniform"``) before anything runs; the reading and checking live in :mod:`gpusim.launch.reader`.

    spec = load("gemm.toml")
    launch = spec.launch("small")              # Launch(kernel, grid, block, shared_mem)
    args = spec.make_args("small", seed=0)     # numpy arrays and numpy scalars, in parameter order
    syms = spec.make_symbols("small", seed=0)  # {"M": array} for __constant__ / __device__ variables
    ref = spec.reference(args, syms, "small")  # {arg index: expected array}
    spec.check(args_after_the_launch, ref).ok

Random inputs: the ``[[args]]`` draw from ``numpy.random.default_rng([seed, 0])`` in file order, the
``[symbols]`` from ``default_rng([seed, 1])`` in file order (two streams, so adding a symbol never changes
the arguments' data).  ``uniform``/``normal`` draw float64 and cast to the dtype, ``integers`` draw in the
dtype; a ``python`` fill function is called once per (size, seed) with the stream at the turn of the first
entry that names it.
"""
from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from math import prod
from pathlib import Path
from typing import Any, Callable

import numpy as np

from gpusim.errors import GpusimError, LaunchFileError
from gpusim.launch.expr import evaluate, evaluate_int

Dim3 = tuple[int, int, int]

#: host-side states of an argument buffer (``host = ...``): what the checker (``gpusim check``) assumes of it
HOST_STATES = ("uninitialised", "freed")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


# -- the result types -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Launch:
    """A kernel launch: the entry name (None: the module's only entry), grid and block shapes (x, y, z) and
    dynamic shared memory in bytes (the third ``<<<...>>>`` argument; CuPy's ``shared_mem``)."""

    kernel: str | None
    grid: Dim3
    block: Dim3
    shared_mem: int = 0

    @property
    def threads(self) -> int:
        """Total threads in the grid."""
        return prod(self.grid) * prod(self.block)


@dataclass(frozen=True)
class Tolerance:
    """How outputs are compared with the reference: ``exact`` bit for bit, otherwise element-wise
    ``|actual - expected| <= atol + rtol * |expected|``.  ``why`` is the one-line reason."""

    exact: bool
    why: str
    rtol: float = 0.0
    atol: float = 0.0

    def __str__(self) -> str:
        kind = "exact" if self.exact else f"rtol={self.rtol:g}, atol={self.atol:g}"
        return f"{kind} ({self.why})" if self.why else kind


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :meth:`LaunchSpec.check`: ``outputs[key] = (max_abs_err, max_rel_err, n_mismatch)`` for
    every checked output (an argument index, or a symbol name); ``message`` is one line per output."""

    ok: bool
    outputs: dict
    message: str

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class Entry:
    """One ``[[args]]`` entry or ``[symbols.NAME]`` table, checked."""

    name: str
    where: str                     # "gemm.toml: [[args]] #3 'A'"
    dtype: np.dtype
    value: Any = None              # a scalar: number or expression
    fill: str | None = None        # an array: how to fill it
    shape: tuple | None = None     # ints or expressions
    options: tuple = ()            # (key, value) of the fill's own keys, defaults applied
    host: str | None = None        # an argument buffer's host-side state: "uninitialised" or "freed"

    @property
    def is_scalar(self) -> bool:
        return self.fill is None

    def option(self, key: str):
        return dict(self.options)[key]


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bits of a float array (so that -0.0 != 0.0 and NaN payloads count), other arrays unchanged."""
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" else a


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is below it, else as it is."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


# -- the spec ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LaunchSpec:
    """A checked launch file (see the module docstring).  ``sizes`` maps each named size to its parameters;
    ``args`` and ``symbols`` are the checked entries, in file order."""

    path: Path
    name: str
    description: str
    topic: str
    suite: str
    kernel: str | None                         # may hold {param} placeholders
    sizes: dict[str, dict[str, Any]]
    default_size: str
    grid: tuple
    block: tuple
    shared_mem_expr: Any
    args: tuple[Entry, ...]
    symbols: tuple[Entry, ...]
    reference_function: str | None
    tolerance: Tolerance | None
    registers_table: Any = None                # int, {kernel: int} or None
    _functions: dict = field(default_factory=dict, repr=False, compare=False)

    # -- files ---------------------------------------------------------------------------------------
    @property
    def label(self) -> str:
        return display_path(self.path)

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def ptx_path(self) -> Path:
        """``<stem>.ptx`` beside the launch file (the PTX the simulator runs for a bundled program)."""
        return self.path.with_suffix(".ptx")

    @property
    def cu_path(self) -> Path | None:
        """``<stem>.cu`` beside the launch file, or None where there is none (a hand-written PTX program)."""
        cu = self.path.with_suffix(".cu")
        return cu if cu.exists() else None

    @property
    def hand_written(self) -> bool:
        return self.cu_path is None

    @property
    def kernels(self) -> tuple[str, ...]:
        """The entries the sizes launch (the expansions of ``kernel``), or the entries of the PTX beside the
        launch file when ``kernel`` is not given."""
        if self.kernel is not None:
            return tuple(dict.fromkeys(self._kernel_for(self.sizes[s], s) for s in self.sizes))
        if self.ptx_path.exists():
            return tuple(re.findall(r"\.entry\s+([\w$]+)", self.ptx_path.read_text(errors="replace")))
        return ()

    # -- sizes ---------------------------------------------------------------------------------------
    def params(self, size: str | None = None) -> dict[str, Any]:
        """The parameters of a named size (``None``: the default size), or of ``"key=value,..."``: the default
        size with those parameters changed (``n=5000``)."""
        size = self.default_size if size is None else size
        if size in self.sizes:
            return self.sizes[size]
        if isinstance(size, str) and "=" in size:
            return self._overridden(size)
        raise GpusimError(f"program {self.name!r} has no size {size!r}; sizes: {', '.join(self.sizes)}"
                          + (" (or key=value, e.g. " + f"{next(iter(self.sizes[self.default_size]))}=...)"
                             if self.sizes[self.default_size] else ""))

    def _overridden(self, text: str) -> dict[str, Any]:
        base = dict(self.sizes[self.default_size])
        for part in text.split(","):
            key, eq, raw = part.partition("=")
            key, raw = key.strip(), raw.strip()
            if not eq or key not in base:
                raise GpusimError(f"size {text!r}: {key!r} is not a parameter of {self.name} "
                                  f"(parameters: {', '.join(base) or 'none'})")
            base[key] = _parse_value(raw)
        return base

    def size_for_launch(self, grid, block) -> str | None:
        """The size whose launch is exactly ``grid`` x ``block``: a named size, or, for programs whose size is
        one problem size ``n``, ``n=...`` scaled with the thread count (so that ``gpusim run prog --grid 64
        --block 256 --check`` checks a problem that fits the launch).  None if no size fits."""
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
        threads0, threads = prod(l0.grid) * prod(b), prod(g) * prod(b)
        cand = f"n={max(1, round(p['n'] * threads / threads0))}"
        return cand if tuple(self.launch(cand).grid) == g else None

    # -- launch --------------------------------------------------------------------------------------
    def _kernel_for(self, p: dict, size: str) -> str | None:
        if self.kernel is None:
            return None

        def sub(m):
            if m.group(1) not in p:
                raise LaunchFileError(f"{self.label}: [program] kernel {self.kernel!r}: size {size!r} has no "
                                      f"parameter {m.group(1)!r}")
            return str(p[m.group(1)])
        return _PLACEHOLDER.sub(sub, self.kernel)

    def _dims(self, key: str, values: tuple, p: dict) -> Dim3:
        dims = [evaluate_int(v, p, f"{self.label}: [launch] {key}[{i}]", minimum=1) for i, v in enumerate(values)]
        return tuple(dims + [1] * (3 - len(dims)))  # type: ignore[return-value]

    def launch(self, size: str | None = None) -> Launch:
        """The launch configuration for ``size``."""
        p = self.params(size)
        return Launch(self._kernel_for(p, size or self.default_size), self._dims("grid", self.grid, p),
                      self._dims("block", self.block, p),
                      evaluate_int(self.shared_mem_expr, p, f"{self.label}: [launch] shared_mem", minimum=0))

    def host_states(self) -> dict[str, list[int]]:
        """``{"uninitialised": [argument indices], "freed": [...]}`` from the ``host`` keys of the
        ``[[args]]``: buffers the host allocated and never wrote, or freed before the launch (the checker
        reports reads of the first and any access to the second; a plain run uses their fill)."""
        out: dict[str, list[int]] = {}
        for i, e in enumerate(self.args):
            if e.host is not None:
                out.setdefault(e.host, []).append(i)
        return out

    # -- inputs --------------------------------------------------------------------------------------
    def make_args(self, size: str | None = None, seed: int = 0) -> list:
        """Seeded, deterministic kernel arguments for ``size``: numpy arrays and numpy scalars in parameter
        order (fresh arrays on every call)."""
        p = self.params(size)
        rng, calls = np.random.default_rng([seed, 0]), {}
        return [self._make(e, p, rng, calls) for e in self.args]

    def make_symbols(self, size: str | None = None, seed: int = 0) -> dict[str, np.ndarray]:
        """Module variables (``__constant__``/``__device__``) to write before the launch, ``{}`` if none."""
        if not self.symbols:
            return {}
        p = self.params(size)
        rng, calls = np.random.default_rng([seed, 1]), {}
        return {e.name: self._make(e, p, rng, calls) for e in self.symbols}

    def _shape(self, e: Entry, p: dict) -> tuple[int, ...]:
        return tuple(evaluate_int(v, p, f"{e.where}: shape[{i}]", minimum=0) for i, v in enumerate(e.shape))

    def _number(self, e: Entry, key: str, p: dict):
        return evaluate(e.option(key), p, f"{e.where}: {key}")

    def _make(self, e: Entry, p: dict, rng: np.random.Generator, calls: dict):
        dt = e.dtype
        if e.is_scalar:
            return _scalar(evaluate(e.value, p, f"{e.where}: value"), dt, f"{e.where}: value")
        if e.fill == "python":
            return self._from_python(e, p, rng, calls)
        if e.fill == "npy":
            return self._from_npy(e, p)
        shape = self._shape(e, p)
        try:
            if e.fill == "uniform":
                return rng.uniform(self._number(e, "low", p), self._number(e, "high", p), size=shape).astype(dt)
            if e.fill == "normal":
                return rng.normal(self._number(e, "mean", p), self._number(e, "std", p), size=shape).astype(dt)
            if e.fill == "integers":
                return rng.integers(self._number(e, "low", p), self._number(e, "high", p), size=shape, dtype=dt)
            if e.fill == "zeros":
                return np.zeros(shape, dtype=dt)
            if e.fill == "ones":
                return np.ones(shape, dtype=dt)
            if e.fill == "full":
                return np.full(shape, _scalar(self._number(e, "value", p), dt, f"{e.where}: value"), dtype=dt)
            start, step = self._number(e, "start", p), self._number(e, "step", p)
            kind = np.int64 if isinstance(start, int) and isinstance(step, int) else np.float64
            return (start + step * np.arange(prod(shape), dtype=kind)).astype(dt).reshape(shape)
        except (ValueError, TypeError, OverflowError) as err:
            raise LaunchFileError(f"{e.where}: fill = \"{e.fill}\": {err}") from None

    def _from_npy(self, e: Entry, p: dict) -> np.ndarray:
        path = self.folder / e.option("file")
        try:
            a = np.load(path, allow_pickle=False)
        except FileNotFoundError:
            raise LaunchFileError(f"{e.where}: file = {e.option('file')!r}: no such file "
                                  f"({display_path(path)})") from None
        except (ValueError, OSError) as err:
            raise LaunchFileError(f"{e.where}: file = {e.option('file')!r}: not a .npy array ({err})") from None
        if not isinstance(a, np.ndarray):
            raise LaunchFileError(f"{e.where}: file = {e.option('file')!r} holds several arrays (an .npz); "
                                  f"save one array with numpy.save")
        return self._conform(e, p, a, f"{display_path(path)}")

    def _conform(self, e: Entry, p: dict, a: np.ndarray, source: str) -> np.ndarray:
        if a.dtype != e.dtype:
            if not np.can_cast(a.dtype, e.dtype, "safe"):
                raise LaunchFileError(f"{e.where}: {source} gives {a.dtype}, and dtype = {e.dtype.name!r}; "
                                      f"{a.dtype} does not convert to {e.dtype.name} without loss")
            a = a.astype(e.dtype)
        if e.shape is not None and tuple(a.shape) != self._shape(e, p):
            raise LaunchFileError(f"{e.where}: {source} has shape {list(a.shape)}, the launch file says "
                                  f"{list(self._shape(e, p))}")
        return np.array(a, copy=True)

    def _from_python(self, e: Entry, p: dict, rng, calls: dict):
        ref = e.option("function")
        if ref not in calls:
            fn = self.function(ref, f"{e.where}: function")
            try:
                out = fn(dict(p), rng)
            except Exception as err:  # noqa: BLE001 - the user's code: report it in one line
                raise LaunchFileError(f"{e.where}: {ref} raised {type(err).__name__}: {err}") from None
            if not isinstance(out, dict):
                raise LaunchFileError(f"{e.where}: {ref} returned {type(out).__name__}; it must return a dict "
                                      f"{{arg name: numpy array}}")
            calls[ref] = out
        out = calls[ref]
        if e.name not in out:
            raise LaunchFileError(f"{e.where}: {ref} returned no entry {e.name!r} (it returned: "
                                  f"{', '.join(map(str, out)) or 'nothing'})")
        v = out[e.name]
        if np.ndim(v) == 0 and e.shape is None:
            return _scalar(v.item() if isinstance(v, np.generic) else v, e.dtype, f"{e.where}: {ref}")
        return self._conform(e, p, np.asarray(v), ref)

    def function(self, ref: str, where: str) -> Callable:
        """The python function ``"file.py:func"`` names (the file relative to the launch file)."""
        if ref in self._functions:
            return self._functions[ref]
        file, _, name = ref.partition(":")
        if not file.endswith(".py") or not name.isidentifier():
            raise LaunchFileError(f"{where}: {ref!r}: expected 'file.py:function'")
        path = self.folder / file
        if not path.is_file():
            raise LaunchFileError(f"{where}: {ref!r}: no such file {display_path(path)}")
        module, problem = _python_module(str(path.resolve()), path.stat().st_mtime_ns)
        if problem:
            raise LaunchFileError(f"{where}: loading {file} failed: {problem}")
        fn = getattr(module, name, None)
        if not callable(fn):
            have = [n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                    and getattr(v, "__module__", None) == module.__name__]
            raise LaunchFileError(f"{where}: {file} has no function {name!r} (it has: {', '.join(have) or 'none'})")
        self._functions[ref] = fn
        return fn

    # -- reference and check -------------------------------------------------------------------------
    def inputs_by_name(self, args: list, symbols: dict | None = None) -> dict[str, Any]:
        """``{name: value}`` of the arguments (and symbols) in the order of the launch file."""
        out = {e.name: a for e, a in zip(self.args, args)}
        out.update(symbols or {})
        return out

    def reference_by_name(self, inputs: dict[str, Any], params: dict) -> dict[str, np.ndarray]:
        """Call the reference function: ``{output name: expected array}`` from the input values by name."""
        where = f"{self.label}: [reference] function"
        if self.reference_function is None:
            raise LaunchFileError(f"{self.label}: no [reference]: add one (function = \"file.py:func\", "
                                  f"tolerance) to check the outputs")
        fn = self.function(self.reference_function, where)
        try:
            out = fn({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}, dict(params))
        except Exception as err:  # noqa: BLE001 - the user's code: report it in one line
            raise LaunchFileError(f"{where}: {self.reference_function} raised {type(err).__name__}: {err}") \
                from None
        if not isinstance(out, dict):
            raise LaunchFileError(f"{where}: {self.reference_function} returned {type(out).__name__}; it must "
                                  f"return a dict {{output name: expected numpy array}}")
        return out

    def reference(self, args: list, symbols: dict | None = None, size: str | None = None) -> dict:
        """Expected outputs ``{arg index: array}`` (``{symbol name: array}`` for module variables), computed by
        the reference function from the *input* arguments."""
        named = self.reference_by_name(self.inputs_by_name(args, symbols), self.params(size))
        index = {e.name: i for i, e in enumerate(self.args)}
        symbol_names = {e.name for e in self.symbols}
        out = {}
        for name, expected in named.items():
            if name in index:
                out[index[name]] = np.asarray(expected)
            elif name in symbol_names:
                out[name] = np.asarray(expected)
            else:
                raise LaunchFileError(f"{self.label}: [reference] {self.reference_function} returned {name!r}, "
                                      f"which is no argument or symbol (arguments: "
                                      f"{', '.join(index)})")
        return out

    def _output_label(self, key) -> str:
        if isinstance(key, str):
            return f"symbol {key}"
        return f"{self.args[key].name} (arg {key})" if key < len(self.args) else f"arg {key}"

    def check(self, args_after: list, reference: dict, symbols_after: dict | None = None) -> CheckResult:
        """Compare the outputs after a launch with ``reference`` under :attr:`tolerance`."""
        tol = self.tolerance or Tolerance(True, "")
        outputs: dict = {}
        lines, ok = [], True
        for key, expected in sorted(reference.items(), key=lambda kv: (isinstance(kv[0], str), kv[0])):
            label = self._output_label(key)
            if isinstance(key, str):
                if symbols_after is None or key not in symbols_after:
                    return CheckResult(False, outputs, f"{self.name}: no symbol {key!r} in the results")
                actual = np.asarray(symbols_after[key])
            elif key >= len(args_after):
                return CheckResult(False, outputs, f"{self.name}: no argument {key} in the results "
                                                   f"({len(args_after)} arguments)")
            else:
                actual = np.asarray(args_after[key])
            expected = np.asarray(expected)
            if actual.shape != expected.shape or actual.dtype != expected.dtype:
                ok = False
                outputs[key] = (float("inf"), float("inf"), int(expected.size))
                lines.append(f"{label}: got {actual.dtype}{list(actual.shape)}, "
                             f"expected {expected.dtype}{list(expected.shape)}")
                continue
            a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                diff = np.abs(a64 - e64)
                rel = np.where(e64 != 0, diff / np.abs(e64), np.where(diff == 0, 0.0, np.inf))
            if tol.exact:
                bad = _bits(actual) != _bits(expected)
            else:
                bad = ~np.isclose(a64, e64, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
            n_bad = int(np.count_nonzero(bad))
            max_abs = float(np.nanmax(diff)) if diff.size else 0.0
            max_rel = float(np.nanmax(rel)) if rel.size else 0.0
            outputs[key] = (max_abs, max_rel, n_bad)
            if n_bad:
                ok = False
                first = np.unravel_index(int(np.argmax(bad)), bad.shape)
                lines.append(f"{label}: {n_bad} of {bad.size} elements differ (max abs err {max_abs:.3g}, "
                             f"max rel err {max_rel:.3g}); first at index {tuple(int(i) for i in first)}: "
                             f"got {actual[first]!r}, expected {expected[first]!r}")
            else:
                lines.append(f"{label}: ok ({bad.size} elements, max abs err {max_abs:.3g})")
        verdict = "PASS" if ok else "FAIL"
        return CheckResult(ok, outputs, f"{self.name}: {verdict} [{tol}]\n  " + "\n  ".join(lines))

    # -- resources -----------------------------------------------------------------------------------
    def registers(self, kernel: str | None = None) -> int | None:
        """Registers per thread of ``kernel`` (``[program] registers``, from ``ptxas -arch=sm_90 -v``), or
        None where the launch file does not say."""
        r = self.registers_table
        if kernel is not None and kernel.startswith("_Z"):      # a C++ entry: its CUDA name
            kernel = next((k for k in self.kernels if kernel.startswith(f"_Z{len(k)}{k}")), kernel)
        if isinstance(r, dict):
            if kernel is None:
                kernel = self.launch().kernel
            return r.get(kernel)
        if r is None or (kernel is not None and self.kernel is not None and kernel not in self.kernels):
            return None
        return r


def _parse_value(raw: str):
    for conv in (int, float):
        try:
            return conv(raw)
        except ValueError:
            pass
    return raw


def _scalar(v, dt: np.dtype, where: str):
    """``v`` as a numpy scalar of ``dt``; an error names ``where`` when it does not fit."""
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise LaunchFileError(f"{where}: {v!r} is not a number")
    if dt.kind in "iu":
        if isinstance(v, (float, np.floating)):
            if not float(v).is_integer():
                raise LaunchFileError(f"{where}: {v!r} is not an integer, and dtype = {dt.name!r}")
            v = int(v)
        info = np.iinfo(dt)
        if not info.min <= int(v) <= info.max:
            raise LaunchFileError(f"{where}: {v} does not fit in {dt.name} ({info.min}..{info.max})")
    return dt.type(v)


@lru_cache(maxsize=None)
def _python_module(path: str, mtime_ns: int):
    """Execute a launch file's python file once (per modification) as a module of its own: (module, None),
    or (None, what went wrong).  Its folder is on ``sys.path`` while it loads, so it can import a
    neighbour."""
    name = "gpusim_launch_" + re.sub(r"\W", "_", path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    folder = str(Path(path).parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # noqa: BLE001 - the user's code: report it in one line
        return None, f"{type(err).__name__}: {err}"
    finally:
        sys.path.remove(folder)
    return module, None
