"""Figures of a results table: a metric against one parameter (one line per combination of the other columns
that vary), or a heat map of a metric over two parameters. Failed points are left out of lines and drawn as
hatched cells in heat maps (a configuration that does not run is a result too). Repeated (x, z) cells, e.g.
over seeds, are averaged.
"""
from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from gpusim.errors import GpusimError
from gpusim.sweep.store import RUN_COLUMNS, read_results

_NOT_GROUPING = set(RUN_COLUMNS) | {"point_id", "status", "error", "trace_digest", "gpusim_version", "gpu_name",
                                   "preset"}


def filter_rows(rows: list[dict], where: list[str] | None) -> list[dict]:
    """Keep rows whose columns equal the ``col=value`` conditions (compared as text)."""
    for cond in where or []:
        if "=" not in cond:
            raise GpusimError(f"--where expects COLUMN=VALUE, not {cond!r}")
        col, val = cond.split("=", 1)
        if rows and col not in rows[0]:
            raise GpusimError(f"--where: no column {col!r}")
        rows = [r for r in rows if _text(r.get(col)) == val]
    return rows


def _text(v) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return "" if v is None else str(v)


def _sort_key(v):
    return (0, v, "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0, str(v))


def _check_columns(rows, *cols):
    if not rows:
        raise GpusimError("no rows to plot (an empty table, or --where matched nothing)")
    for c in cols:
        if c is not None and c not in rows[0]:
            metrics = [k for k in rows[0] if k not in _NOT_GROUPING]
            raise GpusimError(f"no column {c!r}; columns: {', '.join(metrics)}")


def varying_columns(rows: list[dict], exclude: set[str]) -> list[str]:
    """Id/size/param columns that take more than one value in ``rows`` (the lines of a line plot)."""
    if not rows:
        return []
    cols = []
    for c in rows[0]:
        if c in exclude or c in _NOT_GROUPING:
            continue
        if c in ("program", "size", "seed") or c.startswith("size.") or _is_param(rows, c):
            if len({_text(r.get(c)) for r in rows}) > 1:
                cols.append(c)
    # a column that only renames another (size -> size.tile when each size has its own tile) adds nothing
    kept: list[str] = []
    for c in cols:
        if not any(_same_partition(rows, c, k) for k in kept):
            kept.append(c)
    return kept


def _same_partition(rows, a, b) -> bool:
    pairs = {(_text(r.get(a)), _text(r.get(b))) for r in rows}
    return len(pairs) == len({p[0] for p in pairs}) == len({p[1] for p in pairs})


def _is_param(rows, c) -> bool:
    return c in rows[0].get("__params__", ()) if "__params__" in rows[0] else False


def series(rows: list[dict], x: str, y: str, by: list[str]) -> dict[tuple, list[tuple]]:
    """{group values: [(x, mean y), ...] sorted by x} over the ok rows."""
    acc = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.get("status") != "ok" or r.get(y) is None or r.get(x) is None:
            continue
        acc[tuple(r.get(b) for b in by)][r[x]].append(float(r[y]))
    return {g: sorted(((xv, sum(v) / len(v)) for xv, v in d.items()), key=lambda t: _sort_key(t[0]))
            for g, d in sorted(acc.items(), key=lambda kv: tuple(_sort_key(v) for v in kv[0]))}


def grid(rows: list[dict], x: str, z: str, y: str):
    """(xs, zs, values[z][x]) with NaN where every point of the cell failed and None where there is none."""
    xs = sorted({r[x] for r in rows if r.get(x) is not None}, key=_sort_key)
    zs = sorted({r[z] for r in rows if r.get(z) is not None}, key=_sort_key)
    acc = defaultdict(list)
    seen = set()
    for r in rows:
        seen.add((r.get(z), r.get(x)))
        if r.get("status") == "ok" and r.get(y) is not None:
            acc[(r[z], r[x])].append(float(r[y]))
    vals = [[(sum(acc[(zv, xv)]) / len(acc[(zv, xv)]) if acc[(zv, xv)] else
              (math.nan if (zv, xv) in seen else None)) for xv in xs] for zv in zs]
    return xs, zs, vals


def table_text(rows, x, y, z=None, by=None) -> str:
    """The plotted numbers as a plain-text (markdown) table."""
    if z is not None:
        xs, zs, vals = grid(rows, x, z, y)
        head = f"| {z} \\ {x} | " + " | ".join(_text(v) for v in xs) + " |"
        lines = [head, "|" + "---|" * (len(xs) + 1)]
        for zv, row in zip(zs, vals):
            cells = ["-" if v is None else ("failed" if math.isnan(v) else f"{v:.4g}") for v in row]
            lines.append(f"| {_text(zv)} | " + " | ".join(cells) + " |")
        return "\n".join(lines)
    by = by if by is not None else varying_columns(rows, {x, y})
    lines = [f"| {' | '.join(by + [x, y])} |", "|" + "---|" * (len(by) + 2)]
    for g, pts in series(rows, x, y, by).items():
        for xv, yv in pts:
            lines.append("| " + " | ".join([_text(v) for v in g] + [_text(xv), f"{yv:.4g}"]) + " |")
    return "\n".join(lines)


def plot(rows: list[dict], x: str, y: str, z: str | None = None, by: list[str] | None = None,
         out: str | Path | None = None, title: str | None = None, logx: bool = False):
    """Draw the figure and save it to ``out`` (returns the path), or return the matplotlib figure."""
    import matplotlib
    if out is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    _check_columns(rows, x, y, z, *(by or []))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    if z is None:
        by = by if by is not None else varying_columns(rows, {x, y})
        for g, pts in series(rows, x, y, by).items():
            label = ", ".join(f"{b}={_text(v)}" for b, v in zip(by, g)) or None
            xs = [p[0] for p in pts]
            numeric = all(isinstance(v, (int, float)) for v in xs)
            ax.plot(xs if numeric else [str(v) for v in xs], [p[1] for p in pts], marker="o", label=label)
        if by:
            ax.legend(fontsize="small")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        if logx:
            ax.set_xscale("log", base=2)
        ax.grid(alpha=0.3)
    else:
        xs, zs, vals = grid(rows, x, z, y)
        arr = np.array([[np.nan if v is None else v for v in row] for row in vals], dtype=float)
        im = ax.imshow(np.ma.masked_invalid(arr), origin="lower", aspect="auto", cmap="viridis")
        failed = np.array([[v is not None and math.isnan(v) for v in row] for row in vals])
        for (i, j), bad in np.ndenumerate(failed):
            if bad:
                ax.add_patch(plt.Rectangle((j - .5, i - .5), 1, 1, fill=False, hatch="xx", color="0.6", lw=0))
                ax.text(j, i, "failed", ha="center", va="center", fontsize=7, color="0.3")
            elif not np.isnan(arr[i, j]):
                ax.text(j, i, f"{arr[i, j]:.3g}", ha="center", va="center", fontsize=7, color="w")
        ax.set_xticks(range(len(xs)), [_text(v) for v in xs])
        ax.set_yticks(range(len(zs)), [_text(v) for v in zs])
        ax.set_xlabel(x)
        ax.set_ylabel(z)
        fig.colorbar(im, ax=ax, label=y)
    ax.set_title(title or (f"{y} over {x} x {z}" if z else f"{y} vs {x}"), fontsize=10)
    fig.tight_layout()
    if out is None:
        return fig
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return Path(out)


def plot_file(csv_path, x, y, z=None, by=None, out=None, where=None, logx=False) -> tuple[Path, str]:
    rows = filter_rows(read_results(csv_path), where)
    _check_columns(rows, x, y, z)
    params = _params_from_schema(csv_path)
    for r in rows:
        r["__params__"] = params
    if out is None:
        stem = Path(csv_path).with_suffix("")
        out = f"{stem}-{_safe(y)}-vs-{_safe(x)}{'-' + _safe(z) if z else ''}.png"
    path = plot(rows, x, y, z, by=by, out=out, logx=logx)
    return path, table_text(rows, x, y, z, by)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def _params_from_schema(csv_path) -> tuple:
    import json
    from gpusim.sweep.store import schema_path
    sp = schema_path(csv_path)
    if not sp.exists():
        return ()
    return tuple(c["name"] for c in json.loads(sp.read_text())["columns"] if c["role"] == "param")
