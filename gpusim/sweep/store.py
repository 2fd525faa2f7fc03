"""The results table: one CSV row per point, appended (flushed and fsynced) as each point finishes, with a
JSON schema next to it (``results.schema.json``: column names, types, roles, the study's spec).

CSV rather than Parquet so that a study needs no pandas or pyarrow and a half-written file is still a valid
table: a crash can at worst leave one partial last line, which :class:`ResultStore` drops when it reopens
the file (that point had not been recorded, so ``--resume`` runs it again).  :func:`read_results` gives the
rows back as typed dicts; :func:`to_parquet` writes a Parquet copy where pyarrow is installed.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path
from typing import Any, Iterable

from gpusim.errors import GpusimError

#: Columns a comparison of two runs of one study should ignore (they describe the run, not the result).
RUN_COLUMNS = ("host", "worker", "wall_s", "cpu_s", "finished_at")
ID_COLUMNS = ("point_id", "program", "size", "seed")
STATUS_COLUMNS = ("status", "error")
PROVENANCE_COLUMNS = ("gpusim_version", "preset", "gpu_name", "trace_digest") + RUN_COLUMNS
SCHEMA_VERSION = 1
#: What makes two runs the same study (a --resume must match): its name, base GPU and fixed overrides.
IDENTITY = ("format", "study", "gpu", "gpu_overrides")


def schema_path(csv_path: str | Path) -> Path:
    p = Path(csv_path)
    return p.with_name(p.stem + ".schema.json")


def build_schema(spec, metric_columns: list[str], param_types: dict[str, str]) -> dict:
    cols = [{"name": "point_id", "type": "str", "role": "id"},
            {"name": "program", "type": "str", "role": "id"},
            {"name": "size", "type": "str", "role": "id"},
            {"name": "seed", "type": "int", "role": "id"}]
    size_types: dict[str, str] = {}
    for params in spec.size_params.values():
        for k, v in params.items():
            size_types[f"size.{k}"] = _merge_type(size_types.get(f"size.{k}"), _type_of(v))
    cols += [{"name": c, "type": size_types.get(c, "str"), "role": "size"} for c in spec.size_columns()]
    cols += [{"name": n, "type": param_types[n], "role": "param"} for n in spec.vary]
    cols += [{"name": "status", "type": "str", "role": "status"},
             {"name": "error", "type": "str", "role": "status"}]
    cols += [{"name": m, "type": "int" if m in ("cycles", "regs_per_thread_used", "blocks_per_sm") else "float",
              "role": "metric"} for m in metric_columns]
    cols += [{"name": "gpusim_version", "type": "str", "role": "provenance"},
             {"name": "preset", "type": "str", "role": "provenance"},
             {"name": "gpu_name", "type": "str", "role": "provenance"},
             {"name": "trace_digest", "type": "str", "role": "provenance"},
             {"name": "host", "type": "str", "role": "run"},
             {"name": "worker", "type": "str", "role": "run"},
             {"name": "wall_s", "type": "float", "role": "run"},
             {"name": "cpu_s", "type": "float", "role": "run"},
             {"name": "finished_at", "type": "str", "role": "run"}]
    return {"format": "gpusim-sweep-results", "version": SCHEMA_VERSION, "study": spec.name,
            "source": spec.source, "gpu": spec.gpu, "gpu_overrides": spec.gpu_overrides,
            "combine": spec.combine, "vary": spec.vary, "columns": cols,
            "roles": {"id": "identifies the point", "size": "the named size's parameters",
                      "param": "a varied parameter", "status": "'ok' or 'error' and the error message",
                      "metric": "a counter (Nsight metric name) or a builtin metric of the timing result",
                      "provenance": "what produced the row", "run": "where and how long it ran "
                      "(differs between runs of one study)"}}


def _type_of(v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    return "str"


def _merge_type(a: str | None, b: str) -> str:
    if a is None or a == b:
        return b
    if {a, b} == {"int", "float"}:
        return "float"
    return "str"


def param_types(vary: dict[str, list]) -> dict[str, str]:
    out = {}
    for name, values in vary.items():
        t = None
        for v in values:
            t = _merge_type(t, _type_of(v))
        out[name] = t or "str"
    return out


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else str(v)
    return str(v)


def _parse(text: str, typ: str):
    if text == "":
        return None
    if typ == "int":
        try:
            return int(text)
        except ValueError:
            return float(text)
    if typ == "float":
        return float(text)
    if typ == "bool":
        return text == "true"
    return text


class ResultStore:
    """Appends rows to the CSV of one study. Opening an existing file (``resume``) checks that its columns
    are this study's, repairs a torn last line, and reports the point ids it already holds."""

    def __init__(self, path: str | Path, schema: dict, *, resume: bool = False, retry_failed: bool = False):
        self.path = Path(path)
        self.schema = schema
        self.columns = [c["name"] for c in schema["columns"]]
        self.done: set[str] = set()
        self.failed_before: set[str] = set()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists and not resume:
            raise GpusimError(f"{self.path} exists: pass --resume to continue that study, or -o for a new file")
        if exists:
            self._check_identity()
            self._reopen(retry_failed)
        else:
            with open(self.path, "w", newline="") as f:
                csv.writer(f).writerow(self.columns)
                f.flush()
                os.fsync(f.fileno())
        schema_path(self.path).write_text(json.dumps(schema, indent=1, default=str))
        self._fh = open(self.path, "a", newline="")
        self._writer = csv.DictWriter(self._fh, fieldnames=self.columns, extrasaction="ignore")

    def _check_identity(self) -> None:
        """Resume only this study's file: the schema beside it must name the same study, base GPU and
        overrides (another study with the same columns would mix foreign rows into this one)."""
        sp = schema_path(self.path)
        try:
            old = json.loads(sp.read_text())
        except FileNotFoundError:
            raise GpusimError(f"{self.path}: no {sp.name} beside it says which study wrote it; resume only a "
                              f"study's own results, or write to a new file with -o") from None
        except (ValueError, OSError) as e:
            raise GpusimError(f"{sp}: not a results schema ({e}); write to a new file with -o") from None
        mine = {k: self.schema.get(k) for k in IDENTITY}
        theirs = {k: old.get(k) if isinstance(old, dict) else None for k in IDENTITY}
        if json.loads(json.dumps(mine, default=str)) != json.loads(json.dumps(theirs, default=str)):
            differ = ", ".join(f"{k} {theirs[k]!r} there, {mine[k]!r} here" for k in IDENTITY if theirs[k] != mine[k])
            raise GpusimError(f"{self.path} holds the results of another study ({differ}); --resume continues "
                              f"only the same study: write to a new file with -o")

    def _reopen(self, retry_failed: bool) -> None:
        raw = self.path.read_bytes()
        if not raw.endswith(b"\n"):
            raw = raw[:raw.rfind(b"\n") + 1]       # a torn last row: that point was not recorded
        text = raw.decode()
        rows = list(csv.reader(io.StringIO(text, newline="")))
        if not rows or rows[0] != self.columns:
            have = rows[0] if rows else []
            extra = [c for c in have if c not in self.columns]
            missing = [c for c in self.columns if c not in have]
            raise GpusimError(f"{self.path}: its columns are not this study's (missing {missing[:5]}, "
                              f"extra {extra[:5]}); write to a new file with -o")
        keep = [rows[0]]
        i_id, i_status = self.columns.index("point_id"), self.columns.index("status")
        for r in rows[1:]:
            if len(r) != len(self.columns):
                continue
            if r[i_status] != "ok" and retry_failed:
                self.failed_before.add(r[i_id])
                continue
            self.done.add(r[i_id])
            keep.append(r)
        if retry_failed or len(raw) != self.path.stat().st_size:
            tmp = self.path.with_suffix(self.path.suffix + ".tmp")
            with open(tmp, "w", newline="") as f:
                csv.writer(f).writerows(keep)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)

    def append(self, row: dict) -> None:
        self._writer.writerow({k: _cell(row.get(k)) for k in self.columns})
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.done.add(row["point_id"])

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_results(path: str | Path) -> list[dict]:
    """The rows of a results CSV as dicts with typed values (types from the schema sidecar when it is there;
    else numbers are parsed where they parse). A torn last line is ignored."""
    path = Path(path)
    sp = schema_path(path)
    types = {}
    if sp.exists():
        types = {c["name"]: c["type"] for c in json.loads(sp.read_text())["columns"]}
    raw = path.read_text()
    if raw and not raw.endswith("\n"):
        raw = raw[:raw.rfind("\n") + 1]
    rows = list(csv.DictReader(io.StringIO(raw, newline="")))
    out = []
    for r in rows:
        if None in r or any(v is None for v in r.values()):
            continue
        out.append({k: (_parse(v, types[k]) if k in types else _guess(v)) for k, v in r.items()})
    return out


def _guess(text: str):
    if text == "":
        return None
    for fn in (int, float):
        try:
            return fn(text)
        except ValueError:
            pass
    return text


def comparable(rows: Iterable[dict]) -> list[dict]:
    """Rows without the run columns (host, worker, wall time, finish time), sorted by point id: two runs of
    one study must give equal lists."""
    return sorted(({k: v for k, v in r.items() if k not in RUN_COLUMNS} for r in rows),
                  key=lambda r: r["point_id"])


def to_parquet(csv_path: str | Path, out: str | Path | None = None) -> Path:
    """A Parquet copy of a results CSV (needs pyarrow)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise GpusimError("Parquet output needs pyarrow: pip install pyarrow (the CSV is the primary "
                          "store)") from None
    rows = read_results(csv_path)
    out = Path(out) if out else Path(csv_path).with_suffix(".parquet")
    cols = list(rows[0]) if rows else []
    pq.write_table(pa.table({c: [r[c] for r in rows] for c in cols}), out)
    return out
