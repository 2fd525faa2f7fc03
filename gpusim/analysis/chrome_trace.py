"""Export a :class:`~gpusim.analysis.timeline.Timeline` as a Chrome trace event file (JSON object format), which
ui.perfetto.dev and chrome://tracing open.

Layout (one "process" per SM, plus one for the whole GPU):

* per SM sub-partition a thread ``SMSP k issue`` with complete events (``ph: "X"``): one slice per run of
  consecutive cycles in which the same warp issued (GTO keeps issuing one warp, so runs are long), named
  ``w<warp>`` with the instruction count and the first PC in ``args``;
* per warp a thread ``warp <w> (block <b>)`` with one slice per merged run of a warp state (named after the
  Nsight state: ``long_scoreboard``, ``barrier``, ...);
* counter tracks (``ph: "C"``) per SM: ``active warps`` and ``shared wavefronts`` / ``bank conflicts`` per
  bin; on the GPU process: ``DRAM bandwidth (GB/s)``, ``active warps (all SMs)``, ``bank conflicts``;
* metadata events (``ph: "M"``) name and order the processes and threads.

Time: **1 trace microsecond = 1 SM cycle** (``ts`` and ``dur`` are cycles), written in ``otherData`` of
the file; the Chrome format's ``ts`` unit is the microsecond and cycles read more naturally than 1/1980 us.

Size: events are coalesced as above; ``window=(start, end)`` keeps only cycles in [start, end) (slices
clipped to it), and ``max_events`` caps the total: past the cap the export stops at the cycle where the cap
is reached, says so in a warning and in ``otherData.truncated``, and suggests a window.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from gpusim.timing.warp_states import STALL_REASONS

DEFAULT_MAX_EVENTS = 400_000
GPU_PID = 1_000_000
WARP_TID_BASE = 1000


class TraceTruncated(UserWarning):
    """The trace hit ``max_events``: the file ends early (see the message for a window that fits)."""


def _issue_runs(iss: dict):
    """Runs of consecutive cycles on one SMSP in which the same warp issued: (sm, smsp, warp, start, n, pc)."""
    if iss["cycle"].size == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, z, z, z
    key = iss["sm"] * 64 + iss["smsp"]
    order = np.lexsort((iss["cycle"], key))
    k, c, w, pc = key[order], iss["cycle"][order], iss["warp"][order], iss["pc"][order]
    new = np.ones(k.size, dtype=bool)
    new[1:] = (k[1:] != k[:-1]) | (w[1:] != w[:-1]) | (c[1:] != c[:-1] + 1)
    idx = np.flatnonzero(new)
    n = np.diff(np.append(idx, k.size))
    return k[idx] // 64, k[idx] % 64, w[idx], c[idx], n, pc[idx]


def chrome_trace_events(tl, *, window: tuple[int, int] | None = None, max_events: int = DEFAULT_MAX_EVENTS,
                        include_warps: bool = True, include_counters: bool = True) -> dict:
    """The trace as a dict ``{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}``."""
    lo, hi = (0, max(tl.cycles, 1)) if window is None else (int(window[0]), int(window[1]))
    if hi <= lo:
        raise ValueError(f"empty window {lo}:{hi} (expected START:END with START < END, in cycles)")
    timed: list[tuple[int, dict]] = []       # (ts, event)

    # issue slices
    sm, smsp, warp, start, n, pc = _issue_runs(tl.issues)
    end = start + n
    keep = (end > lo) & (start < hi)
    for s, p, w, a, b, c, k in zip(sm[keep].tolist(), smsp[keep].tolist(), warp[keep].tolist(),
                                   np.maximum(start[keep], lo).tolist(), np.minimum(end[keep], hi).tolist(),
                                   pc[keep].tolist(), n[keep].tolist()):
        timed.append((a, {"name": f"w{w}", "cat": "issue", "ph": "X", "ts": a, "dur": b - a, "pid": s, "tid": p,
                          "args": {"warp": w, "instructions": k, "first_pc": c}}))
    used_warps: set[int] = set()
    if include_warps:
        iv = tl.intervals
        keep = (iv["end"] > lo) & (iv["start"] < hi)
        ws = iv["warp"][keep]
        sms = tl.warp_sm[ws]
        for w, s, a, b, st, pc in zip(ws.tolist(), sms.tolist(), np.maximum(iv["start"][keep], lo).tolist(),
                                      np.minimum(iv["end"][keep], hi).tolist(), iv["state"][keep].tolist(),
                                      iv["pc"][keep].tolist()):
            used_warps.add(w)
            timed.append((a, {"name": STALL_REASONS[st], "cat": "warp_state", "ph": "X", "ts": a, "dur": b - a,
                              "pid": s, "tid": WARP_TID_BASE + w, "args": {"pc": pc}}))
    if include_counters:
        timed.extend(_counter_events(tl, lo, hi))

    timed.sort(key=lambda te: te[0])
    truncated = None
    if len(timed) > max_events:
        cut = timed[max_events][0]
        kept = [e for t, e in timed if t < cut]
        truncated = {"events": len(timed), "kept": len(kept), "max_events": max_events, "stopped_at_cycle": cut}
        per_cycle = len(timed) / max(hi - lo, 1)
        fit = int(max_events / max(per_cycle, 1e-9))
        msg = (f"trace of {tl.kernel} has {len(timed):,} events, over the cap of {max_events:,}: the file stops at "
               f"cycle {cut:,} of {hi:,}. Pass a window of cycles (--window START:END, about {fit:,} cycles fit) "
               f"or raise the cap (--max-events / max_events=).")
        warnings.warn(msg, TraceTruncated, stacklevel=3)
        truncated["message"] = msg
        events = kept
    else:
        events = [e for _, e in timed]
    meta = _metadata(tl, used_warps, {e["pid"] for e in events})
    other = {"gpusim": {"kernel": tl.kernel, "gpu": tl.gpu, "cycles": tl.cycles, "clock_mhz": tl.clock_mhz,
                        "time_unit": "1 trace microsecond = 1 SM cycle", "window": [lo, hi],
                        "bin_cycles": tl.bin_cycles}}
    if truncated:
        other["gpusim"]["truncated"] = truncated
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


def _counter_events(tl, lo: int, hi: int):
    x = tl.bin_start
    sel = np.flatnonzero((x + tl.bin_cycles > lo) & (x < hi))
    out = []
    ts = np.maximum(x[sel], lo).tolist()
    active = tl.active_warps
    conf = tl.shared_conflicts
    wav = tl.shared_wavefronts
    used = np.unique(tl.warp_sm[tl.warp_start >= 0]).tolist()
    for s in used:
        aw = np.round(active[s, sel], 3).tolist()
        cf, wf = conf[s, sel].tolist(), wav[s, sel].tolist()
        for t, a, c, f in zip(ts, aw, cf, wf):
            out.append((t, {"name": "active warps", "ph": "C", "ts": t, "pid": s, "args": {"warps": a}}))
            out.append((t, {"name": "shared memory", "ph": "C", "ts": t, "pid": s,
                            "args": {"wavefronts": f, "bank conflicts": c}}))
    gbs = np.round(tl.dram_bandwidth()[sel] * tl.clock_mhz * 1e6 / 1e9, 3).tolist()
    tot_aw = np.round(active.sum(axis=0)[sel], 3).tolist()
    tot_cf = conf.sum(axis=0)[sel].tolist()
    for t, b, a, c in zip(ts, gbs, tot_aw, tot_cf):
        out.append((t, {"name": "DRAM bandwidth (GB/s)", "ph": "C", "ts": t, "pid": GPU_PID, "args": {"GB/s": b}}))
        out.append((t, {"name": "active warps (all SMs)", "ph": "C", "ts": t, "pid": GPU_PID, "args": {"warps": a}}))
        out.append((t, {"name": "bank conflicts (all SMs)", "ph": "C", "ts": t, "pid": GPU_PID,
                        "args": {"excessive wavefronts": c}}))
    end = min(hi, tl.n_bins * tl.bin_cycles)
    if ts and end > ts[-1]:
        # close the counter tracks so the last bin has a width
        for s in used:
            out.append((end, {"name": "active warps", "ph": "C", "ts": end, "pid": s, "args": {"warps": 0}}))
        out.append((end, {"name": "DRAM bandwidth (GB/s)", "ph": "C", "ts": end, "pid": GPU_PID, "args": {"GB/s": 0}}))
    return out


def _metadata(tl, warps: set[int], pids: set[int]) -> list[dict]:
    ev = [{"name": "process_name", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": 0,
           "args": {"name": f"GPU {tl.gpu}: {tl.kernel}"}},
          {"name": "process_sort_index", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": 0, "args": {"sort_index": -1}}]
    for s in sorted(p for p in pids if p != GPU_PID):
        ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": s, "tid": 0, "args": {"name": f"SM {s}"}})
        ev.append({"name": "process_sort_index", "ph": "M", "ts": 0, "pid": s, "tid": 0, "args": {"sort_index": s}})
        for k in range(tl.n_smsp):
            ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": s, "tid": k,
                       "args": {"name": f"SMSP {k} issue"}})
            ev.append({"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": s, "tid": k, "args": {"sort_index": k}})
    for w in sorted(warps):
        s = int(tl.warp_sm[w])
        ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": s, "tid": WARP_TID_BASE + w,
                   "args": {"name": f"warp {w} (block {int(tl.warp_block[w])}, SMSP {int(tl.warp_smsp[w])})"}})
        ev.append({"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": s, "tid": WARP_TID_BASE + w,
                   "args": {"sort_index": WARP_TID_BASE + w}})
    return ev


def write_chrome_trace(tl, path, **kw) -> Path:
    """Write :func:`chrome_trace_events` to ``path`` (compact JSON; ``.gz`` suffix: gzip)."""
    doc = chrome_trace_events(tl, **kw)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    if path.suffix == ".gz":
        import gzip
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def validate_chrome_trace(doc: dict) -> list[str]:
    """Problems with a Chrome trace document (empty list: fine). Checks what the viewers rely on: the
    required keys of each event by phase, known phases, non-negative durations, ts nondecreasing per track
    in file order, and X slices on one track not overlapping."""
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["no traceEvents list"]
    last: dict = {}
    last_end: dict = {}
    for i, e in enumerate(doc["traceEvents"]):
        ph = e.get("ph")
        need = {"X": ("name", "ts", "dur", "pid", "tid"), "C": ("name", "ts", "pid", "args"),
                "M": ("name", "pid", "args"), "B": ("name", "ts", "pid", "tid"), "E": ("ts", "pid", "tid"),
                "i": ("name", "ts", "pid")}.get(ph)
        if need is None:
            problems.append(f"event {i}: unknown phase {ph!r}")
            continue
        miss = [k for k in need if k not in e]
        if miss:
            problems.append(f"event {i} ({ph}): missing {', '.join(miss)}")
            continue
        if ph == "M":
            continue
        if not isinstance(e["ts"], (int, float)) or e["ts"] < 0:
            problems.append(f"event {i}: bad ts {e['ts']!r}")
        if ph == "X" and e["dur"] < 0:
            problems.append(f"event {i}: negative dur")
        track = (e["pid"], e.get("tid"), e["name"] if ph == "C" else None)
        if e["ts"] < last.get(track, -1):
            problems.append(f"event {i}: ts {e['ts']} goes back on track {track}")
        last[track] = e["ts"]
        if ph == "X":
            t2 = (e["pid"], e["tid"])
            if e["ts"] < last_end.get(t2, -1):
                problems.append(f"event {i}: slice overlaps the previous one on track {t2}")
            last_end[t2] = e["ts"] + e["dur"]
    return problems


STREAM_TID_BASE = 1


def program_trace_events(launches, *, gpu: str, clock_mhz: float) -> dict:
    """A whole program's kernel launches (:class:`gpusim.cupy._session.LaunchRecord`) as a Chrome trace: one
    slice per launch on its stream's track (``stream N``) of the GPU process, at its start on the program
    clock (1 trace microsecond = 1 SM cycle, as in :func:`chrome_trace_events`), with its grid, block,
    cycles, time, top stall and DRAM and L2 figures in ``args``; counter tracks of DRAM bytes and L2 hit
    rate per launch.  Launches of emulate mode (no time) are left out."""
    events: list[dict] = []
    streams: set[int] = set()
    for rec in launches:
        t = rec.timing
        if t is None:
            continue
        c = t.counters
        dram = float(c.get("dram__bytes_read.sum", 0.0)) + float(c.get("dram__bytes_write.sum", 0.0))
        tid = STREAM_TID_BASE + int(rec.stream)
        streams.add(tid)
        events.append({"name": rec.kernel, "cat": "launch", "ph": "X", "ts": int(rec.start_cycle),
                       "dur": int(t.cycles), "pid": GPU_PID, "tid": tid,
                       "args": {"launch": rec.index, "grid": list(rec.grid), "block": list(rec.block),
                                "cycles": int(t.cycles), "time_us": round(t.cycles / clock_mhz, 4),
                                "top_stall": rec.top_stall, "dram_bytes": dram,
                                "l2_hit_rate_pct": round(float(c.get("lts__t_sector_hit_rate.pct", 0.0)), 2),
                                "caches_flushed_before": bool(rec.flushed)}})
        events.append({"name": "DRAM bytes per launch", "ph": "C", "ts": int(rec.start_cycle), "pid": GPU_PID,
                       "args": {"bytes": dram}})
        events.append({"name": "L2 hit rate per launch (%)", "ph": "C", "ts": int(rec.start_cycle), "pid": GPU_PID,
                       "args": {"pct": round(float(c.get("lts__t_sector_hit_rate.pct", 0.0)), 2)}})
    meta = [{"name": "process_name", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": 0,
             "args": {"name": f"GPU {gpu}: program"}}]
    for tid in sorted(streams):
        meta.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": tid,
                     "args": {"name": f"stream {tid - STREAM_TID_BASE}"}})
    total = max((e["ts"] + e["dur"] for e in events if e["ph"] == "X"), default=0)
    other = {"gpusim": {"gpu": gpu, "clock_mhz": clock_mhz, "launches": sum(e["ph"] == "X" for e in events),
                        "cycles": total, "time_unit": "1 trace microsecond = 1 SM cycle"}}
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


def write_program_trace(launches, path, *, gpu: str, clock_mhz: float) -> Path:
    """Write :func:`program_trace_events` to ``path`` (JSON)."""
    doc = program_trace_events(launches, gpu=gpu, clock_mhz=clock_mhz)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, separators=(",", ":")))
    return path
