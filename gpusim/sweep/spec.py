"""``sweep.toml``: what a design-space study runs, read and checked before anything is simulated.

    [sweep]
    name = "matmul_tile_regs"          # optional; default: the file's stem
    gpu = "pmpp-device-d"              # base preset name or a .toml path (relative to this file)
    combine = "grid"                   # "grid" (every combination of [vary]) or "zip" (lists side by side)
    seeds = [0]                        # input seeds (one trace per program x size x seed)
    output = "results.csv"             # optional; default <name>.csv; relative to the current directory
    budget = 50_000_000                # optional: emulator budget in warp instructions per trace

    [[programs]]                       # the workloads: every size of every program
    name = "matmul_tiled"
    sizes = ["small", "small_tile32"]

    [gpu_overrides]                    # fixed changes to the base preset
    "sm.count" = 4

    [vary]                             # the parameters of the study: lists or ranges
    regs_per_thread = [16, 21, 24, 32] #   special: registers per thread given to the timing model
    memory_model = ["full", "fixed"]   #   special: the memory system, or the unloaded-latency one
    "sm.count" = { from = 2, to = 8, step = 2 }        # inclusive range: 2, 4, 6, 8
    "memory.dram.channels" = { from = 1, to = 8, times = 2 }   # geometric: 1, 2, 4, 8
    scheduler = ["gto", "lrr"]         #   any dotted GpuConfig field (as in ``load_gpu(overrides=)``); a
                                       #   table's short form too (scheduler = policy name)

    [metrics]
    collect = ["cycles", "ipc", "dram__bytes_read.sum", "lts__t_sector_hit_rate.*"]   # names or globs;
                                       # default: every scalar counter

A point of the study is one (program, size, seed, parameter values); its ``point_id`` is a digest of those and
of the base GPU, so a resumed study recognises the points it already has.  Every error names the field
(``vary.sm.cout: unknown field ...``) and the file.
"""
from __future__ import annotations

import fnmatch
import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from gpusim.errors import ConfigError

#: Parameters that are not GpuConfig fields: they go to :func:`gpusim.timing.simulate` directly.
SPECIAL_PARAMS = {
    "regs_per_thread": "registers per thread given to the timing model (default: the compiler's)",
    "memory_model": "'full' (the memory system) or 'fixed' (unloaded latencies)",
}
MEMORY_MODELS = ("full", "fixed")
COMBINE = ("grid", "zip")
#: Columns every row has whatever the metrics, computed from the timing result.
BUILTIN_METRICS = ("cycles", "time_us", "ipc", "regs_per_thread_used", "blocks_per_sm")
_TOP_LEVEL = {"sweep", "programs", "gpu_overrides", "vary", "metrics"}
_SWEEP_KEYS = {"name", "gpu", "combine", "seeds", "output", "budget", "description"}


class SweepSpecError(ConfigError):
    """``sweep.toml`` is malformed: the message starts with the file and names the field."""


@dataclass(frozen=True)
class Workload:
    """One program at one size and seed: one trace, shared by every point that uses it."""

    program: str
    size: str
    seed: int

    @property
    def key(self) -> str:
        return f"{self.program}-{self.size}-seed{self.seed}"


@dataclass(frozen=True)
class Point:
    """One simulation of the study."""

    point_id: str
    workload: Workload
    params: tuple[tuple[str, Any], ...]       # (name, value) in [vary] order

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)


@dataclass
class SweepSpec:
    """A parsed, checked ``sweep.toml`` (see the module docstring)."""

    name: str
    gpu: str
    combine: str
    seeds: list[int]
    programs: list[tuple[str, list[str]]]
    gpu_overrides: dict[str, Any]
    vary: dict[str, list[Any]]
    metrics: list[str] | None                 # None: every scalar counter
    output: Path
    budget: int | None = None
    description: str = ""
    source: str = "<dict>"
    size_params: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    # -- the points ----------------------------------------------------------------------------------
    def workloads(self) -> list[Workload]:
        return [Workload(p, s, seed) for p, sizes in self.programs for s in sizes for seed in self.seeds]

    def param_sets(self) -> list[tuple[tuple[str, Any], ...]]:
        names = list(self.vary)
        if not names:
            return [()]
        if self.combine == "zip":
            return [tuple(zip(names, values)) for values in zip(*(self.vary[n] for n in names))]
        return [tuple(zip(names, values)) for values in itertools.product(*(self.vary[n] for n in names))]

    def points(self) -> list[Point]:
        """Every point, workload-major (the points of one trace are neighbours)."""
        base = {"gpu": self.gpu, "gpu_overrides": self.gpu_overrides}
        out = []
        for w in self.workloads():
            for params in self.param_sets():
                ident = json.dumps({"base": base, "program": w.program, "size": w.size, "seed": w.seed,
                                    "params": dict(params)}, sort_keys=True, default=str)
                out.append(Point(hashlib.sha256(ident.encode()).hexdigest()[:16], w, params))
        return out

    def size_columns(self) -> list[str]:
        """``size.<key>`` columns: the named sizes' parameters (e.g. ``size.tile``) for plotting against."""
        keys: list[str] = []
        for params in self.size_params.values():
            for k in params:
                if k not in keys:
                    keys.append(k)
        return [f"size.{k}" for k in keys]

    def select_metrics(self, counter_names: list[str]) -> list[str]:
        """The metric columns: the builtin ones, then the counters ``[metrics] collect`` names (in its order,
        globs expanded in the counters' order), or every counter."""
        if self.metrics is None:
            chosen = list(counter_names)
        else:
            chosen = []
            for pattern in self.metrics:
                if pattern in BUILTIN_METRICS:
                    continue
                hits = [n for n in counter_names if fnmatch.fnmatchcase(n, pattern)]
                if not hits:
                    raise SweepSpecError(f"{self.source}: metrics.collect: {pattern!r} matches no counter; "
                                         f"counters include {', '.join(counter_names[:8])}, ... (see "
                                         f"`gpusim run --json`)")
                chosen.extend(h for h in hits if h not in chosen)
        return list(BUILTIN_METRICS) + [c for c in chosen if c not in BUILTIN_METRICS]


def load_spec(path: str | Path, *, output: str | Path | None = None) -> SweepSpec:
    """Read and check a ``sweep.toml``; :class:`SweepSpecError` names the field that is wrong."""
    path = Path(path)
    try:
        table = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise SweepSpecError(f"{path}: no such sweep file") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepSpecError(f"{path}: not valid TOML: {e}") from None
    return spec_from_dict(table, source=str(path), base_dir=path.parent, default_name=path.stem, output=output)


def spec_from_dict(table: dict, *, source: str = "<dict>", base_dir: Path | None = None,
                   default_name: str = "sweep", output: str | Path | None = None) -> SweepSpec:
    """Build a :class:`SweepSpec` from a TOML-shaped dict (what :func:`load_spec` does after parsing)."""
    base_dir = Path(base_dir or ".")

    def err(where: str, msg: str) -> SweepSpecError:
        return SweepSpecError(f"{source}: {where}: {msg}")

    for key in table:
        if key not in _TOP_LEVEL:
            raise err(key, f"unknown table; expected {', '.join(sorted(_TOP_LEVEL))}")
    sw = table.get("sweep", {})
    if not isinstance(sw, dict):
        raise err("sweep", "expected a table")
    for key in sw:
        if key not in _SWEEP_KEYS:
            raise err(f"sweep.{key}", f"unknown field; known: {', '.join(sorted(_SWEEP_KEYS))}")
    name = sw.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise err("sweep.name", f"expected a non-empty string, got {name!r}")
    gpu = sw.get("gpu", "h100")
    if not isinstance(gpu, str):
        raise err("sweep.gpu", f"expected a preset name or .toml path, got {gpu!r}")
    if gpu.endswith(".toml") and not Path(gpu).is_absolute():
        gpu = str((base_dir / gpu).resolve())
    combine = sw.get("combine", "grid")
    if combine not in COMBINE:
        raise err("sweep.combine", f"expected one of {', '.join(COMBINE)}, got {combine!r}")
    seeds = sw.get("seeds", [0])
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        seeds = [seeds]
    if not isinstance(seeds, list) or not seeds or not all(_is_int(s) for s in seeds):
        raise err("sweep.seeds", f"expected a list of integers, got {seeds!r}")
    budget = sw.get("budget")
    if budget is not None and (not _is_int(budget) or budget <= 0):
        raise err("sweep.budget", f"expected a positive integer (warp instructions), got {budget!r}")
    description = sw.get("description", "")

    programs = _programs(table.get("programs"), err)
    size_params = {}
    import programs as bundled
    for prog, sizes in programs:
        spec = bundled.get(prog) if prog in bundled.names() else None
        if spec is None:
            raise err("programs.name", f"unknown program {prog!r}; bundled programs: {', '.join(bundled.names())}")
        for s in sizes:
            if s not in spec.sizes:
                raise err(f"programs.{prog}.sizes", f"{prog} has sizes {', '.join(spec.sizes)}; not {s!r}")
            size_params[(prog, s)] = dict(spec.sizes[s])

    overrides = _flatten(table.get("gpu_overrides", {}), "gpu_overrides", err)
    vary_raw = table.get("vary", {})
    if not isinstance(vary_raw, dict):
        raise err("vary", "expected a table of parameter = list or range")
    vary = {k: _values(k, v, err) for k, v in _flatten(vary_raw, "vary", err, ranges=True).items()}
    if combine == "zip" and vary:
        lengths = {k: len(v) for k, v in vary.items()}
        if len(set(lengths.values())) > 1:
            raise err("vary", "combine = 'zip' needs lists of one length; got "
                      + ", ".join(f"{k}: {n}" for k, n in lengths.items()))
    for k in overrides:
        if k in SPECIAL_PARAMS or k in vary:
            raise err(f"gpu_overrides.{k}", "is also varied or is not a GPU field; set it in [vary] only")
    _check_gpu_fields(gpu, overrides, vary, err)

    metrics = None
    mt = table.get("metrics", {})
    if not isinstance(mt, dict):
        raise err("metrics", "expected a table with 'collect'")
    for key in mt:
        if key != "collect":
            raise err(f"metrics.{key}", "unknown field; known: collect")
    if "collect" in mt:
        metrics = mt["collect"]
        if isinstance(metrics, str):
            metrics = [metrics]
        if not isinstance(metrics, list) or not all(isinstance(m, str) and m for m in metrics):
            raise err("metrics.collect", f"expected a list of counter names or globs, got {metrics!r}")

    out = Path(output) if output is not None else Path(sw.get("output", f"{name}.csv"))
    if output is None and not isinstance(sw.get("output", ""), str):
        raise err("sweep.output", f"expected a file name, got {sw.get('output')!r}")
    return SweepSpec(name=name, gpu=gpu, combine=combine, seeds=[int(s) for s in seeds], programs=programs,
                     gpu_overrides=overrides, vary=vary, metrics=metrics, output=out, budget=budget,
                     description=description, source=source, size_params=size_params)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _programs(raw, err) -> list[tuple[str, list[str]]]:
    if raw is None:
        raise err("programs", "missing: add [[programs]] with name = ... and sizes = [...]")
    if isinstance(raw, dict):          # [programs] matmul_tiled = ["small"] form
        raw = [{"name": k, "sizes": v} for k, v in raw.items()]
    if not isinstance(raw, list) or not raw:
        raise err("programs", "expected [[programs]] entries (name, sizes)")
    out = []
    for i, entry in enumerate(raw):
        where = f"programs[{i}]"
        if not isinstance(entry, dict):
            raise err(where, f"expected a table, got {entry!r}")
        for key in entry:
            if key not in ("name", "sizes", "size"):
                raise err(f"{where}.{key}", "unknown field; known: name, sizes")
        name = entry.get("name")
        if not isinstance(name, str):
            raise err(f"{where}.name", f"expected a program name, got {name!r}")
        sizes = entry.get("sizes", entry.get("size"))
        if sizes is None:
            import programs as bundled
            sizes = [bundled.get(name).default_size] if name in bundled.names() else []
        if isinstance(sizes, str):
            sizes = [sizes]
        if not isinstance(sizes, list) or not all(isinstance(s, str) for s in sizes):
            raise err(f"{where}.sizes", f"expected a list of size names, got {sizes!r}")
        out.append((name, sizes))
    return out


def _is_range(v) -> bool:
    return isinstance(v, dict) and v and set(v) <= {"from", "to", "step", "times"} and "from" in v


def _flatten(raw, prefix, err, ranges=False, dotted="") -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise err(prefix, f"expected a table, got {raw!r}")
    out = {}
    for k, v in raw.items():
        name = f"{dotted}{k}"
        if isinstance(v, dict) and not (ranges and _is_range(v)):
            out.update(_flatten(v, prefix, err, ranges, f"{name}."))
        else:
            out[name] = v
    return out


def _values(name: str, v, err) -> list[Any]:
    where = f"vary.{name}"
    if isinstance(v, list):
        if not v:
            raise err(where, "empty list")
        values = v
    elif _is_range(v):
        lo, hi = v["from"], v.get("to")
        if hi is None:
            raise err(where, "a range needs 'to'")
        if "step" in v and "times" in v:
            raise err(where, "give 'step' (arithmetic) or 'times' (geometric), not both")
        for key in ("from", "to", "step", "times"):
            x = v.get(key)
            if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float))):
                raise err(f"{where}.{key}", f"expected a number, got {x!r}")
        if "times" in v:
            r = v["times"]
            if r <= 1 or lo <= 0:
                raise err(f"{where}.times", f"needs times > 1 and from > 0, got times={r!r}, from={lo!r}")
            values, x = [], lo
            while x <= hi * (1 + 1e-12):
                values.append(x)
                x = x * r
        else:
            step = v.get("step", 1)
            if step <= 0:
                raise err(f"{where}.step", f"must be > 0, got {step!r}")
            n = int(math.floor((hi - lo) / step + 1e-9)) + 1
            values = [lo + i * step for i in range(max(n, 0))]
        if all(_is_int(x) for x in (lo, v.get("step", 1), v.get("times", 2))):
            values = [int(x) for x in values]
        if not values:
            raise err(where, f"the range from {lo} to {hi} is empty")
    else:
        raise err(where, f"expected a list or a range {{from, to, step|times}}, got {v!r}")
    if name == "regs_per_thread" and not all(_is_int(x) and x > 0 for x in values):
        raise err(where, f"expected positive integers, got {values!r}")
    if name == "memory_model" and not all(x in MEMORY_MODELS for x in values):
        raise err(where, f"expected values among {', '.join(MEMORY_MODELS)}, got {values!r}")
    for x in values:
        if not isinstance(x, (int, float, str, bool)):
            raise err(where, f"values must be numbers, strings or booleans, got {x!r}")
    if len(set(map(repr, values))) != len(values):
        raise err(where, f"repeated values in {values!r}")
    return list(values)


def _check_gpu_fields(gpu: str, overrides: dict, vary: dict, err) -> None:
    """Every GPU parameter must name a field of the base preset (values are checked per point: a value the
    model rejects is a failed point, not a bad study)."""
    from gpusim.config import load_gpu
    try:
        base = load_gpu(gpu)
    except ConfigError as e:
        raise err("sweep.gpu", str(e)) from None
    try:
        base = base.replace(**overrides) if overrides else base
    except ConfigError as e:
        raise err("gpu_overrides", str(e)) from None
    table = base.to_dict()
    for name, values in vary.items():
        if name in SPECIAL_PARAMS:
            continue
        node, parts = table, name.split(".")
        for depth, part in enumerate(parts):
            if not isinstance(node, dict) or part not in node:
                where = ".".join(parts[:depth]) or "the GPU config"
                known = ", ".join(sorted(node)) if isinstance(node, dict) else "(not a table)"
                raise err(f"vary.{name}", f"unknown field {part!r} in {where}; known there: {known}; "
                          f"or one of the special parameters {', '.join(SPECIAL_PARAMS)}")
            node = node[part]
        if isinstance(node, dict) and not _short_form(base, name, values):
            raise err(f"vary.{name}", "is a table of the config; vary one of its fields")


def _short_form(base, name: str, values: list) -> bool:
    """Whether the config takes a plain value for the table ``name`` (``scheduler = "lrr"`` stands for
    ``[scheduler] policy = "lrr"``)."""
    try:
        base.replace(**{name: values[0]})
    except ConfigError:
        return False
    return True
