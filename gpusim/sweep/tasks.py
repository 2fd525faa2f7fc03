"""The two kinds of task of a study, as plain top-level functions of plain data (picklable, process-safe, the
same code in-process and on a Dask worker):

* :func:`build_trace`: emulate one (program, size, seed) once and save its trace file (atomically; an
  existing file of the same source is reused), returning a small reference (path, content digest);
* :func:`run_point`: time one point on its GPU config from that trace file and return its table row. Every
  exception of the point (a config the model rejects, a block that fits no SM, a model bug) becomes the
  row's ``error``: one bad point never stops a study.

A worker keeps the last few traces it loaded, keyed by digest, so the points of one trace that land on one
worker read the file once.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import os
import socket
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

_TRACE_CACHE: "OrderedDict[str, object]" = OrderedDict()
_TRACE_CACHE_SIZE = 4
_ERROR_CHARS = 600


def trace_digest(path: str | Path) -> str:
    """A digest of a trace file's contents (arrays and header), independent of the zip timestamps, so two
    builds of one trace have one digest."""
    h = hashlib.sha256()
    with np.load(path, allow_pickle=False) as z:
        for name in sorted(z.files):
            a = z[name]
            h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def source_key(program: str, size: str, seed: int, budget: int | None) -> str:
    """What a trace file depends on: the program's PTX text, its launch and inputs (size, seed), the budget
    and the gpusim version (the emulator's semantics)."""
    import gpusim
    import programs
    spec = programs.get(program)
    h = hashlib.sha256()
    for p in (spec.ptx_path,):
        if p is not None and Path(p).exists():
            h.update(Path(p).read_bytes())
    h.update(f"{program}|{size}|{seed}|{budget}|{gpusim.__version__}".encode())
    return h.hexdigest()[:10]


def build_trace(workload: dict, trace_dir: str, budget: int | None = None, with_data: bool = False) -> dict:
    """Emulate ``workload`` ({program, size, seed}) and save its trace under ``trace_dir`` (reused if a file
    of the same source key is there). Returns {key, path, digest, error, build_s[, data]}; ``data`` (the
    file's bytes) when the workers may not share the client's file system."""
    t0 = time.perf_counter()
    program, size, seed = workload["program"], workload["size"], int(workload["seed"])
    ref = {"key": f"{program}-{size}-seed{seed}", "path": None, "digest": None, "error": None, "reused": False}
    try:
        path = Path(trace_dir) / f"{ref['key']}-{source_key(program, size, seed, budget)}.trace"
        if path.exists():
            try:
                ref["digest"] = trace_digest(path)
                ref["reused"] = True
            except Exception:  # noqa: BLE001 - a damaged file is rebuilt
                ref["digest"] = None
        if ref["digest"] is None:
            import gpusim
            kw = {"budget": int(budget)} if budget else {}
            res = gpusim.run(program, size=size, seed=seed, mode="emulate", record_trace=True, **kw)
            res.trace.meta.update({"program": program, "size": size, "seed": seed,
                                   "gpusim_version": gpusim.__version__})
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            res.trace.save(tmp)
            os.replace(tmp, path)
            ref["digest"] = trace_digest(path)
        ref["path"] = str(path)
        if with_data:
            ref["data"] = path.read_bytes()
    except Exception as e:  # noqa: BLE001 - recorded in every row of this workload
        ref["error"] = _error_text(e)
    ref["build_s"] = time.perf_counter() - t0
    return ref


def clear_trace_cache() -> None:
    """Forget the traces this process has loaded (``client.run(clear_trace_cache)`` on a cluster)."""
    _TRACE_CACHE.clear()


def _load_trace(ref: dict):
    from gpusim.functional.trace import KernelTrace
    digest = ref["digest"]
    if digest in _TRACE_CACHE:
        _TRACE_CACHE.move_to_end(digest)
        return _TRACE_CACHE[digest]
    path = Path(ref["path"])
    if ref.get("data") is not None:      # the client's path may not exist here: use the bytes sent along
        path = Path(tempfile.gettempdir()) / "gpusim-sweep-traces" / f"{digest}.trace"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(ref["data"])
            os.replace(tmp, path)
    trace = KernelTrace.load(path)
    _TRACE_CACHE[digest] = trace
    while len(_TRACE_CACHE) > _TRACE_CACHE_SIZE:
        _TRACE_CACHE.popitem(last=False)
    return trace


def _error_text(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".replace("\r", " ").replace("\n", " | ")
    return text if len(text) <= _ERROR_CHARS else text[:_ERROR_CHARS - 3] + "..."


def _scalar(v):
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v)
    return None


def scalar_counter_names(counters: dict) -> list[str]:
    return [k for k, v in counters.items() if _scalar(v) is not None]


def probe_counter_names(gpu: str, overrides: dict) -> list[str]:
    """The scalar counters a timing result of this GPU has, from a tiny synthetic trace on one SM."""
    from gpusim.config import load_gpu
    from gpusim.timing import simulate
    from gpusim.timing.synthetic import ins, make_trace
    cfg = load_gpu(gpu, overrides={**overrides, "sm.count": 1})
    trace = make_trace([ins("ld.global", dst=[1]), ins("st.shared", src=[1]), ins("ld.shared", dst=[2]),
                        ins("st.global", src=[2]), ins("exit")])
    return scalar_counter_names(simulate(trace, cfg).counters)


def run_point(point: dict, trace_ref: dict, study: dict) -> dict:
    """Time one point; returns its row (see :mod:`gpusim.sweep.store` for the columns)."""
    import gpusim
    t0, c0 = time.perf_counter(), time.process_time()
    params = dict(point["params"])
    row = {"point_id": point["point_id"], "program": point["program"], "size": point["size"],
           "seed": point["seed"], "status": "error", "error": None, "gpusim_version": gpusim.__version__,
           "preset": study["gpu"], "gpu_name": None, "trace_digest": trace_ref.get("digest")}
    row.update({f"size.{k}": v for k, v in point.get("size_params", {}).items()})
    row.update(params)
    try:
        if trace_ref.get("error"):
            raise RuntimeError(f"trace not built: {trace_ref['error']}")
        from gpusim.config import load_gpu
        from gpusim.timing import simulate
        trace = _load_trace(trace_ref)
        gpu_params = {k: v for k, v in params.items() if k not in ("regs_per_thread", "memory_model")}
        gpu = load_gpu(study["gpu"], overrides={**study["gpu_overrides"], **gpu_params})
        row["gpu_name"] = gpu.name
        memory = "fixed" if params.get("memory_model") == "fixed" else None
        res = simulate(trace, gpu, regs_per_thread=params.get("regs_per_thread"), memory=memory)
        builtin = {"cycles": res.cycles, "time_us": res.time_us, "ipc": res.ipc,
                   "regs_per_thread_used": res.regs_per_thread,
                   "blocks_per_sm": getattr(res.occupancy, "blocks_per_sm", None)}
        for m in study["metrics"]:
            row[m] = _scalar(builtin[m]) if m in builtin else _scalar(res.counters.get(m))
        row["status"] = "ok"
    except Exception as e:  # noqa: BLE001 - a failed point is a row with its error
        row["error"] = _error_text(e)
    row["host"] = socket.gethostname()
    row["worker"] = f"{socket.gethostname()}:{os.getpid()}"
    row["wall_s"] = round(time.perf_counter() - t0, 4)
    row["cpu_s"] = round(time.process_time() - c0, 4)
    row["finished_at"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")
    return row
