"""Reading a launch file: TOML parsed, every table and key checked, a :class:`~gpusim.launch.spec.LaunchSpec`
made.  Every error names the file, the table, the entry and the key (``gemm.toml: [[args]] #3 'A': 'shape' is
required for fill = "uniform"``); :func:`spec_check` then evaluates each size's expressions once, so that a
mistake in a size shows before anything runs.  The format is documented in ``programs/README.md``."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from gpusim.errors import LaunchFileError
from gpusim.launch.expr import FUNCTIONS, evaluate
from gpusim.launch.spec import (HOST_STATES, Entry, LaunchSpec, Tolerance, _scalar,
                                display_path)

TABLES = ("program", "sizes", "launch", "args", "symbols", "reference")
PROGRAM_KEYS = ("name", "kernel", "description", "suite", "topic", "default_size", "registers")
LAUNCH_KEYS = ("grid", "block", "shared_mem")
REFERENCE_KEYS = ("function", "tolerance", "why")
#: fill -> its own keys (with defaults; None: required)
FILLS: dict[str, dict[str, Any]] = {
    "uniform": {"low": 0.0, "high": 1.0}, "normal": {"mean": 0.0, "std": 1.0},
    "integers": {"low": 0, "high": None}, "zeros": {}, "ones": {}, "full": {"value": None},
    "range": {"start": 0, "step": 1}, "npy": {"file": None}, "python": {"function": None},
}
ARG_KEYS = ("name", "dtype", "value", "shape", "fill", "low", "high", "mean", "std", "start", "step", "file",
            "function", "host")
DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64")

def find(source: str | Path) -> Path | None:
    """The launch file beside a kernel: ``kernel.toml`` for ``kernel.cu`` / ``kernel.ptx``; None if absent."""
    p = Path(source)
    if p.suffix not in (".cu", ".ptx"):
        return None
    toml = p.with_suffix(".toml")
    return toml if toml.is_file() else None


def load(path: str | Path) -> LaunchSpec:
    """Read and check a launch file; :class:`LaunchFileError` names the file, the table and the key."""
    path = Path(path)
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise LaunchFileError(f"{display_path(path)}: no such launch file") from None
    return _load(str(path.absolute()), stat.st_mtime_ns, display_path(path))


@lru_cache(maxsize=256)
def _load(path: str, mtime_ns: int, label: str) -> LaunchSpec:
    raw = Path(path).read_bytes()
    try:
        table = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise LaunchFileError(f"{label}:{line}:{col}: not UTF-8 text (byte 0x{raw[e.start]:02x})") from None
    except tomllib.TOMLDecodeError as e:
        raise LaunchFileError(f"{label}: not valid TOML: {e}") from None
    return _Reader(Path(path), label, table).spec()


class _Reader:
    """Checks a parsed launch file table by table; every error names ``label`` and the key."""

    def __init__(self, path: Path, label: str, table: dict):
        self.path, self.label, self.t = path, label, table

    def err(self, where: str, msg: str) -> LaunchFileError:
        return LaunchFileError(f"{self.label}: {where}: {msg}")

    def keys(self, where: str, got: dict, known) -> None:
        for k in got:
            if k not in known:
                raise self.err(where, f"unknown key {k!r}; known: {', '.join(known)}")

    def table(self, key: str) -> dict:
        v = self.t.get(key, {})
        if not isinstance(v, dict):
            raise self.err(f"[{key}]", f"expected a table, got {v!r}")
        return v

    def string(self, where: str, v, *, allow_none=True):
        if v is None and allow_none:
            return None
        if not isinstance(v, str) or not v:
            raise self.err(where, f"expected a non-empty string, got {v!r}")
        return v

    def spec(self) -> LaunchSpec:
        for k in self.t:
            if k not in TABLES:
                raise self.err(f"[{k}]", f"unknown table; a launch file has {', '.join(f'[{t}]' for t in TABLES)}")
        prog = self.table("program")
        self.keys("[program]", prog, PROGRAM_KEYS)
        sizes = self.sizes()
        default_size = prog.get("default_size", "default" if "default" in sizes else next(iter(sizes)))
        if default_size not in sizes:
            raise self.err("[program] default_size", f"{default_size!r} is not one of the [sizes]: "
                                                     f"{', '.join(sizes)}")
        kernel = self.string("[program] kernel", prog.get("kernel"))
        registers = prog.get("registers")
        if registers is not None and not (_is_int(registers) or (isinstance(registers, dict) and registers
                                                                  and all(_is_int(v) for v in registers.values()))):
            raise self.err("[program] registers", f"expected registers per thread (an integer, or "
                                                   f"{{kernel = N, ...}}), got {registers!r}")
        launch = self.table("launch")
        self.keys("[launch]", launch, LAUNCH_KEYS)
        for key, example in (("grid", '["cdiv(n, 256)"]'), ("block", "[256]")):
            if key not in launch:
                raise self.err("[launch]", f"{key!r} is required (1-3 integers or expressions, e.g. "
                                           f"{key} = {example})")
        args = self.entries()
        symbols = self.symbols({e.name for e in args})
        ref_fn, tol = self.reference()
        spec = LaunchSpec(
            path=self.path, name=self.string("[program] name", prog.get("name")) or self.path.stem,
            description=self.text(prog, "description"), topic=self.text(prog, "topic"),
            suite=self.text(prog, "suite"), kernel=kernel, sizes=sizes, default_size=default_size,
            grid=self.dims("grid", launch["grid"]), block=self.dims("block", launch["block"]),
            shared_mem_expr=launch.get("shared_mem", 0), args=tuple(args), symbols=tuple(symbols),
            reference_function=ref_fn, tolerance=tol, registers_table=registers)
        spec_check(spec)
        return spec

    def text(self, table: dict, key: str) -> str:
        v = table.get(key, "")
        if not isinstance(v, str):
            raise self.err(f"[program] {key}", f"expected a string, got {v!r}")
        return v

    def sizes(self) -> dict[str, dict]:
        raw = self.table("sizes")
        if not raw:
            return {"default": {}}
        out = {}
        for name, params in raw.items():
            where = f"[sizes] {name}"
            if not isinstance(params, dict):
                raise self.err(where, f"expected a table of parameters ({name} = {{ n = 1024 }}), got {params!r}")
            for k, v in params.items():
                if not k.isidentifier() or k in FUNCTIONS:
                    raise self.err(f"{where}.{k}", "a parameter name must be an identifier other than "
                                                   f"{', '.join(FUNCTIONS)}")
                if not isinstance(v, (int, float, str, bool)):
                    raise self.err(f"{where}.{k}", f"expected a number or a string, got {v!r}")
            out[name] = dict(params)
        return out

    def dims(self, key: str, v) -> tuple:
        v = v if isinstance(v, list) else [v]
        if not 1 <= len(v) <= 3 or not all(_is_int(x) or isinstance(x, str) for x in v):
            raise self.err(f"[launch] {key}", f"expected 1-3 integers or expressions, got {v!r}")
        return tuple(v)

    def dtype(self, where: str, entry: dict) -> np.dtype:
        if "dtype" not in entry:
            raise self.err(where, f"'dtype' is required (one of {', '.join(DTYPES)})")
        if entry["dtype"] not in DTYPES:
            raise self.err(where, f"dtype = {entry['dtype']!r}: expected one of {', '.join(DTYPES)}")
        return np.dtype(entry["dtype"])

    def entry(self, where: str, name: str, raw: dict, *, symbol: bool) -> Entry:
        dt = self.dtype(where, raw)
        fill = raw.get("fill")
        if fill is None:
            if symbol or "shape" in raw:
                raise self.err(where, "'fill' is required for an array (" + " | ".join(FILLS) + ")")
            if "value" not in raw:
                raise self.err(where, "give 'value' (a scalar: a number or an expression) or 'fill' and "
                                      "'shape' (an array)")
            extra = [k for k in raw if k not in ("name", "dtype", "value")]
            if extra:
                raise self.err(where, f"{extra[0]!r} goes with 'fill'; a scalar has only 'value'")
            return Entry(name, f"{self.label}: {where}", dt, value=raw["value"])
        if fill not in FILLS:
            raise self.err(where, f"fill = \"{fill}\": expected one of {', '.join(FILLS)}")
        own = FILLS[fill]
        host = raw.get("host")
        if host is not None and (symbol or host not in HOST_STATES):
            raise self.err(where, f"host = {host!r}: " + ("a symbol has no host state" if symbol else
                                                          f"expected one of {', '.join(map(repr, HOST_STATES))}"))
        for k in raw:
            if k not in ("name", "dtype", "fill", "shape", "host") and k not in own:
                raise self.err(where, f"{k!r} does not go with fill = \"{fill}\""
                                      + (f" (it takes {', '.join(own)})" if own else ""))
        shape = raw.get("shape")
        if shape is None and fill not in ("npy", "python"):
            raise self.err(where, f"'shape' is required for fill = \"{fill}\"")
        if shape is not None:
            shape = shape if isinstance(shape, list) else [shape]
            if not all(_is_int(x) or isinstance(x, str) for x in shape):
                raise self.err(f"{where} shape", f"expected integers or expressions, got {shape!r}")
        options = []
        for k, default in own.items():
            if k not in raw and default is None:
                raise self.err(where, f"{k!r} is required for fill = \"{fill}\"")
            v = raw.get(k, default)
            if k in ("file", "function") and not isinstance(v, str):
                raise self.err(f"{where} {k}", f"expected a string, got {v!r}")
            options.append((k, v))
        if fill in ("integers",) and dt.kind not in "iu":
            raise self.err(where, f"fill = 'integers' needs an integer dtype, not {dt.name!r}")
        return Entry(name, f"{self.label}: {where}", dt, fill=fill,
                     shape=None if shape is None else tuple(shape), options=tuple(options), host=host)

    def entries(self) -> list[Entry]:
        raw = self.t.get("args", [])
        if not isinstance(raw, list):
            raise self.err("[[args]]", "expected [[args]] tables, one per kernel parameter")
        out, seen = [], set()
        for i, a in enumerate(raw, 1):
            if not isinstance(a, dict):
                raise self.err(f"[[args]] #{i}", f"expected a table, got {a!r}")
            name = a.get("name")
            if not isinstance(name, str) or not name.isidentifier():
                raise self.err(f"[[args]] #{i}", f"'name' is required: the kernel parameter's name, got {name!r}")
            where = f"[[args]] #{i} {name!r}"
            self.keys(where, a, ARG_KEYS)
            if name in seen:
                raise self.err(where, f"a second argument named {name!r}")
            seen.add(name)
            out.append(self.entry(where, name, a, symbol=False))
        return out

    def symbols(self, arg_names: set[str]) -> list[Entry]:
        out = []
        for name, raw in self.table("symbols").items():
            where = f"[symbols.{name}]"
            if not isinstance(raw, dict):
                raise self.err(where, f"expected a table (dtype, shape, fill), got {raw!r}")
            self.keys(where, raw, [k for k in ARG_KEYS if k != "name"])
            if name in arg_names:
                raise self.err(where, f"{name!r} is also an argument's name")
            out.append(self.entry(where, name, raw, symbol=True))
        return out

    def reference(self) -> tuple[str | None, Tolerance | None]:
        ref = self.table("reference")
        self.keys("[reference]", ref, REFERENCE_KEYS)
        if not ref:
            return None, None
        fn = ref.get("function")
        if not isinstance(fn, str):
            raise self.err("[reference]", "'function' is required: \"file.py:func\", called as func(inputs, "
                                          "params) -> {output name: expected array}")
        why = ref.get("why", "")
        if not isinstance(why, str):
            raise self.err("[reference] why", f"expected a string, got {why!r}")
        tol = ref.get("tolerance")
        if tol == "exact":
            return fn, Tolerance(True, why)
        if isinstance(tol, dict) and tol and set(tol) <= {"rtol", "atol"} and \
                all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in tol.values()):
            return fn, Tolerance(False, why, float(tol.get("rtol", 0.0)), float(tol.get("atol", 0.0)))
        raise self.err("[reference] tolerance", f"expected \"exact\" or {{ rtol = 1e-5, atol = 1e-6 }}, got "
                                                f"{tol!r}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def spec_check(spec: LaunchSpec) -> None:
    """Evaluate every size's launch and shapes, and name the python functions, so that a mistake in any of
    them is reported when the file is loaded, not when that size is first run."""
    for size in spec.sizes:
        spec.launch(size)
        p = spec.params(size)
        for e in spec.args + spec.symbols:
            if e.is_scalar:
                _scalar(evaluate(e.value, p, f"{e.where}: value"), e.dtype, f"{e.where}: value")
            elif e.shape is not None:
                spec._shape(e, p)
    for e in spec.args + spec.symbols:
        if e.fill == "python":
            spec.function(e.option("function"), f"{e.where}: function")
    if spec.reference_function is not None:
        spec.function(spec.reference_function, f"{spec.label}: [reference] function")
