"""Running a study: on a Dask cluster (a ``LocalCluster`` sized to the machine by default, or an existing one),
or in this process.

The client side does the bookkeeping only: it expands the points, opens the results store (skipping the
points already there when resuming), submits one trace task per (program, size, seed) and, as each trace
finishes, one task per point of it, and appends every row to the store the moment its future completes
(``distributed.as_completed``), so Ctrl-C or a crash loses no finished point. The in-process path runs the
same two task functions in a loop; the tables are identical (apart from the run columns).

Dask rather than a home-made pool: it gives the local default, remote clusters (``--scheduler``), work
stealing, retries of lost workers and a dashboard with no code here.
"""
from __future__ import annotations

import os
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gpusim.errors import GpusimError
from gpusim.sweep import store as _store
from gpusim.sweep.spec import SweepSpec
from gpusim.sweep.tasks import build_trace, probe_counter_names, run_point

NO_DASK = ("Dask is not installed (pip install -e '.[sweep]' for dask[distributed]); running the study in "
           "this process, one point at a time (as --workers 1)")


@dataclass
class SweepSummary:
    """What a run of a study did."""

    output: Path
    total: int                 # points in the study
    skipped: int               # already in the store (resume)
    done: int = 0              # finished in this run (ok or failed)
    failed: int = 0            # of ``done``, with an error
    traces_built: int = 0
    traces_reused: int = 0
    wall_s: float = 0.0
    executor: str = ""
    interrupted: bool = False
    messages: list[str] = field(default_factory=list)

    @property
    def points_per_s(self) -> float:
        return self.done / self.wall_s if self.wall_s > 0 else 0.0

    def text(self) -> str:
        state = "interrupted" if self.interrupted else "finished"
        lines = [f"sweep {state}: {self.done} points done ({self.done - self.failed} ok, {self.failed} failed), "
                 f"{self.skipped} already in the store, {self.total} in the study",
                 f"  wall time {self.wall_s:.1f} s, {self.points_per_s:.2f} points/s "
                 f"({self.points_per_s * 60:.1f} points/min) on {self.executor}",
                 f"  traces: {self.traces_built} built, {self.traces_reused} reused",
                 f"  results: {self.output} (schema {_store.schema_path(self.output).name})"]
        if self.interrupted:
            lines.append("  rerun with --resume to run the remaining points")
        return "\n".join(lines)


def prepare(spec: SweepSpec, *, resume: bool = False, retry_failed: bool = False):
    """Open the store and list the points to run: (store, points_to_run, study dict for the workers)."""
    points = spec.points()
    try:
        counters = probe_counter_names(spec.gpu, spec.gpu_overrides)
    except Exception as e:  # noqa: BLE001
        raise GpusimError(f"{spec.source}: sweep.gpu: the base config does not simulate: {e}") from None
    metrics = spec.select_metrics(counters)
    schema = _store.build_schema(spec, metrics, _store.param_types(spec.vary))
    st = _store.ResultStore(spec.output, schema, resume=resume, retry_failed=retry_failed)
    todo = [p for p in points if p.point_id not in st.done]
    study = {"gpu": spec.gpu, "gpu_overrides": dict(spec.gpu_overrides), "metrics": metrics}
    return st, points, todo, study


def _point_dict(spec: SweepSpec, p) -> dict:
    w = p.workload
    return {"point_id": p.point_id, "program": w.program, "size": w.size, "seed": w.seed,
            "params": list(p.params), "size_params": spec.size_params.get((w.program, w.size), {})}


def trace_dir(spec: SweepSpec) -> Path:
    out = Path(spec.output)
    return out.with_name(out.stem + ".traces")


def run_sweep(spec: SweepSpec, *, workers: int | None = None, scheduler: str | None = None, client=None,
              resume: bool = False, retry_failed: bool = False, progress: bool = True,
              trace_transport: str | None = None, on_row=None, log=print) -> SweepSummary:
    """Run ``spec``; see the module docstring.

    ``workers``: 1 runs in this process; N > 1 (default: the machine's CPU count) starts a
    ``LocalCluster(N, threads_per_worker=1, processes=True)``. ``scheduler``: the address of an existing Dask
    scheduler (``tcp://host:8786``); ``client``: an existing ``distributed.Client`` (tests).
    ``trace_transport``: "file" (workers read the trace files; they must see the client's file system) or
    "data" (the trace bytes travel through Dask; the default with ``scheduler``). ``on_row(row)`` is called
    after each row is stored. Ctrl-C stops the study, keeps every stored row and returns a summary with
    ``interrupted`` set.
    """
    t0 = time.perf_counter()
    st, points, todo, study = prepare(spec, resume=resume, retry_failed=retry_failed)
    summary = SweepSummary(output=Path(spec.output), total=len(points), skipped=len(points) - len(todo))
    by_workload = defaultdict(list)
    for p in todo:
        by_workload[p.workload].append(p)

    use_dask = client is not None or scheduler is not None or (workers or os.cpu_count() or 1) > 1
    if use_dask and client is None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            if scheduler is not None:
                st.close()
                raise GpusimError("--scheduler needs Dask: pip install -e '.[sweep]'") from None
            log(NO_DASK)
            summary.messages.append(NO_DASK)
            use_dask = False
    bar = _Progress(len(todo), enabled=progress)

    def record(row):
        st.append(row)
        summary.done += 1
        if row["status"] != "ok":
            summary.failed += 1
        bar.advance(summary.failed)
        if on_row is not None:
            on_row(row)

    try:
        with bar:
            if not todo:
                summary.executor = "nothing to run"
            elif use_dask:
                _run_dask(spec, by_workload, study, record, summary, workers=workers, scheduler=scheduler,
                          client=client, transport=trace_transport or ("data" if scheduler else "file"))
            else:
                summary.executor = "this process (--workers 1)"
                _run_inprocess(spec, by_workload, study, record, summary)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        st.close()
        summary.wall_s = time.perf_counter() - t0
    return summary


def _trace_ref_counts(ref: dict, summary: SweepSummary) -> None:
    if ref.get("error"):
        return
    if ref.get("reused"):
        summary.traces_reused += 1
    else:
        summary.traces_built += 1


def _run_inprocess(spec, by_workload, study, record, summary) -> None:
    tdir = str(trace_dir(spec))
    for w, pts in by_workload.items():
        ref = build_trace({"program": w.program, "size": w.size, "seed": w.seed}, tdir, spec.budget)
        _trace_ref_counts(ref, summary)
        for p in pts:
            record(run_point(_point_dict(spec, p), ref, study))


def _run_dask(spec, by_workload, study, record, summary, *, workers, scheduler, client, transport) -> None:
    from distributed import Client, LocalCluster, as_completed

    own = []
    if client is None:
        if scheduler is not None:
            client = Client(scheduler)
            summary.executor = f"Dask cluster at {scheduler}"
        else:
            n = workers or os.cpu_count() or 1
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            own.append(cluster)
            client = Client(cluster)
            summary.executor = f"Dask LocalCluster ({n} worker processes)"
        own.insert(0, client)
    else:
        summary.executor = f"Dask cluster ({len(client.scheduler_info().get('workers', {}))} workers)"
    run_id = uuid.uuid4().hex[:8]
    tdir = str(trace_dir(spec))
    pending = {}
    try:
        traces = {}
        for w in by_workload:
            f = client.submit(build_trace, {"program": w.program, "size": w.size, "seed": w.seed}, tdir,
                              spec.budget, transport == "data", key=f"gpusim-trace-{w.key}-{run_id}", pure=False)
            traces[f.key] = (f, w)
        pending.update({f.key: f for f, _ in traces.values()})
        ac = as_completed(list(pending.values()))
        points_of = {}
        for fut in ac:
            pending.pop(fut.key, None)
            if fut.key in traces:
                _, w = traces[fut.key]
                try:
                    ref = fut.result()
                except Exception as e:  # noqa: BLE001 - a lost worker: the workload's points fail
                    ref = {"error": f"{type(e).__name__}: {e}", "digest": None}
                _trace_ref_counts(ref, summary)
                arg = fut if (transport == "data" and not ref.get("error")) else \
                    {k: v for k, v in ref.items() if k != "data"}
                for p in by_workload[w]:
                    pf = client.submit(run_point, _point_dict(spec, p), arg, study,
                                       key=f"gpusim-point-{p.point_id}-{run_id}", pure=False)
                    points_of[pf.key] = p
                    pending[pf.key] = pf
                    ac.add(pf)
                if transport != "data":
                    fut.release()
                continue
            p = points_of.pop(fut.key)
            try:
                row = fut.result()
            except Exception as e:  # noqa: BLE001 - e.g. KilledWorker: the point is recorded as failed
                row = run_point_failed(spec, p, study, e)
            fut.release()
            record(row)
    finally:
        if pending:
            client.cancel(list(pending.values()))
        for obj in own:
            try:
                obj.close()
            except Exception:  # noqa: BLE001
                pass


def run_point_failed(spec, p, study, exc) -> dict:
    """The row of a point whose task died (worker lost): its error, no metrics."""
    from gpusim.sweep.tasks import _error_text
    row = run_point(_point_dict(spec, p), {"error": "task lost", "digest": None}, study)
    row["error"] = f"task failed on the cluster: {_error_text(exc)}"
    return row


class _Progress:
    """A rich progress bar over points on stderr (nothing when disabled or stderr is not a terminal)."""

    def __init__(self, total: int, enabled: bool):
        import sys
        self.total = total
        self.enabled = enabled and sys.stderr.isatty()
        self._p = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)
            self._p = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                               TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                               TextColumn("eta"), TimeRemainingColumn(), console=Console(stderr=True),
                               transient=False)
            self._p.__enter__()
            self._task = self._p.add_task("points", total=self.total, failed=0)
        return self

    def advance(self, failed: int) -> None:
        if self._p is not None:
            self._p.update(self._task, advance=1, failed=failed)

    def __exit__(self, *exc):
        if self._p is not None:
            self._p.__exit__(*exc)
        return False
