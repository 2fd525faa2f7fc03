"""Print a :class:`~gpusim.report.sections.Report` as rich tables, or write it as JSON or CSV.

CSV has one row per metric (``section,metric,label,unit,value``, like ``ncu --csv --page details``) followed
by the sections' tables, each row prefixed with its section and table title.
"""
from __future__ import annotations

import csv
import io
import json
import math


def _fmt(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            return str(v)
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 100:
            return f"{v:.1f}"
        return f"{v:.2f}"
    return str(v)


def _json_default(v):
    try:
        import numpy as np
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, np.ndarray):
            return v.tolist()
    except ImportError:
        pass
    return str(v)


def to_json(report) -> str:
    return json.dumps(report.as_dict(), indent=2, default=_json_default)


def to_csv(report) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["section", "metric", "label", "unit", "value"])
    for s in report.sections:
        for m in s.metrics:
            w.writerow([s.name, m.name, m.label, m.unit, m.value])
    for s in report.sections:
        for t in s.tables:
            w.writerow([])
            w.writerow([s.name, t.title] + t.columns)
            for r in t.rows:
                w.writerow([s.name, t.title] + list(r))
    return buf.getvalue()


def _console(console=None):
    """The given console, or one on stdout: as wide as the terminal, or unlimited when piped (so that tables
    are never cut to "...")."""
    from rich.console import Console
    if console is not None:
        return console
    console = Console()
    return console if console.is_terminal else Console(width=100_000, soft_wrap=True)


def _cell(v) -> str:
    """A table cell's text with rich markup escaped (``sdata[t] += sdata[t + stride];`` stays as it is)."""
    from rich.markup import escape
    return escape(_fmt(v))


def print_report(report, *, console=None, show_metric_names: bool = True) -> None:
    from rich.markup import escape
    from rich.table import Table
    console = _console(console)
    head = f"[bold]{escape(str(report.kernel))}[/bold] on [bold]{escape(str(report.gpu))}[/bold]"
    if report.program:
        head += escape(f"  (program {report.program}, size {report.size})")
    console.print(head)
    for s in report.sections:
        t = Table(title=s.name, title_style="bold cyan", title_justify="left", expand=False)
        t.add_column("Metric")
        t.add_column("Unit", style="dim")
        t.add_column("Value", justify="right")
        if show_metric_names:
            t.add_column("Nsight metric", style="dim")
        for m in s.metrics:
            row = [escape(m.label), escape(m.unit), _cell(m.value)]
            if show_metric_names:
                row.append(escape(m.name))
            t.add_row(*row)
        if s.metrics:
            console.print(t)
        for tab in s.tables:
            tt = Table(title=escape(f"{s.name}: {tab.title}"), title_style="cyan", title_justify="left")
            for i, col in enumerate(tab.columns):
                text = isinstance(tab.rows[0][i], str) if tab.rows else True
                tt.add_column(escape(col), justify="left" if text or not i else "right", no_wrap=text,
                              overflow="ellipsis", max_width=40 if text and console.is_terminal else None)
            for r in tab.rows:
                tt.add_row(*[_cell(v) for v in r])
            console.print(tt)
        for n in s.notes:
            console.print(f"  [dim]{escape(n)}[/dim]")


def compare_table(reports, metrics) -> tuple[list[str], list[list]]:
    """(columns, rows) of ``metrics`` side by side for ``reports`` (one column per report's GPU)."""
    cols = ["metric", "label", "unit"] + [r.gpu for r in reports]
    rows = []
    for name in metrics:
        found = [_lookup(r, name) for r in reports]
        first = next((m for m in found if m is not None), None)
        if first is None:
            continue
        rows.append([name, first.label, first.unit] + [m.value if m is not None else "" for m in found])
    return cols, rows


def _lookup(report, name):
    for s in report.sections:
        for m in s.metrics:
            if m.name == name:
                return m
    return None


def print_compare(reports, metrics, *, console=None) -> None:
    from rich.markup import escape
    from rich.table import Table
    console = _console(console)
    cols, rows = compare_table(reports, metrics)
    k = reports[0].kernel if reports else ""
    t = Table(title=f"{k}: " + " vs ".join(r.gpu for r in reports), title_style="bold cyan", title_justify="left")
    t.add_column("Metric")
    t.add_column("Unit", style="dim")
    for g in cols[3:]:
        t.add_column(g, justify="right")
    t.add_column("Nsight metric", style="dim")
    for r in rows:
        t.add_row(escape(r[1]), escape(r[2]), *[_cell(v) for v in r[3:]], escape(r[0]))
    console.print(t)


def compare_json(reports, metrics) -> str:
    cols, rows = compare_table(reports, metrics)
    return json.dumps({"kernel": reports[0].kernel if reports else None, "gpus": cols[3:],
                       "metrics": [{"metric": r[0], "label": r[1], "unit": r[2],
                                    "values": dict(zip(cols[3:], r[3:]))} for r in rows]},
                      indent=2, default=_json_default)


def compare_csv(reports, metrics) -> str:
    cols, rows = compare_table(reports, metrics)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(cols)
    w.writerows(rows)
    return buf.getvalue()
