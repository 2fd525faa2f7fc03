"""Export a :class:`~gpusim.analysis.timeline.Timeline` as a Chrome trace event file (JSON object format), which
ui.perfetto.dev and chrome://tracing open.

The file covers the whole run (or ``window=(start, end)``) within an event budget (``max_events``, default
:data:`DEFAULT_MAX_EVENTS`; an event is about 115 bytes of JSON, so 15.5 MB for transpose_smem at its
default size): what would not fit is *aggregated*, never cut off.

Always there (aggregated, for every SM):

* on the GPU process, a ``kernel`` track with one slice for the whole kernel and a ``phase`` track with
  ``launch overhead`` (from cycle 0 until the first warp issues: the kernel launch and the first block's
  dispatch, when no block is resident yet) and ``blocks running``;
* per SM, one track per block slot with a slice for every block it ran (when the block was resident);
* binned counter tracks (``ph: "C"``, one value per time bin of ``bin_cycles``): per SM ``warp states``
  (average warps in each state: the states that hold at least 1% of all warp-cycles, the rest as
  ``other``), ``issue slots busy (%)``, ``active warps`` and ``shared memory`` (wavefronts, bank
  conflicts); on the GPU process ``warp states (all SMs)``, ``active warps (all SMs)``, ``DRAM bandwidth
  (GB/s)`` and ``bank conflicts (all SMs)``.  These take at most a third of the budget: their bins are
  widened (a whole multiple of the timeline's) when the run has more bins than fit.

In detail, for as many SMs as the rest of the budget allows (SM 0 first, then the SM that finished last,
then the others in order; if neither fits, the SM with the least detail that does; ``detail_sms=`` chooses
them): per SM sub-partition a thread ``SMSP k issue`` with one
slice per run of consecutive cycles in which the same warp issued, and per warp a thread ``warp <w>``
with one slice per merged run of a warp state (Nsight's names).  Which SMs are detailed, and what the
others show, is written in ``otherData.gpusim.aggregation`` and in each SM's process name.

Time: **1 trace microsecond = 1 SM cycle** (``ts`` and ``dur`` are cycles), written in ``otherData``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from gpusim.timing.warp_states import STALL_REASONS

DEFAULT_MAX_EVENTS = 150_000
GPU_PID = 1_000_000
WARP_TID_BASE = 1000
BLOCK_TID_BASE = 100
#: States below this share of all warp-cycles are summed into "other" in the counter tracks.
MIN_STATE_SHARE = 0.01
#: The binned counter tracks take at most this share of the event budget (their bins are widened to fit),
#: so that the rest holds the detail of at least one SM.
COUNTER_SHARE = 1 / 3
#: Counter events per SM and bin (warp states, issue slots, active warps, shared memory), and on the GPU.
_COUNTERS_PER_SM_BIN, _COUNTERS_GPU_BIN = 4, 4


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


def _launch_end(tl) -> int:
    ok = tl.warp_start >= 0
    return int(tl.warp_start[ok].min()) if ok.any() else int(tl.cycles)


def chrome_trace_events(tl, *, window: tuple[int, int] | None = None, max_events: int = DEFAULT_MAX_EVENTS,
                        detail_sms=None, include_counters: bool = True) -> dict:
    """The trace as a dict ``{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`` (see the
    module docstring; ``detail_sms``: the SMs to show in detail, default chosen by the budget)."""
    lo, hi = (0, max(tl.cycles, 1)) if window is None else (int(window[0]), int(window[1]))
    if hi <= lo:
        raise ValueError(f"empty window {lo}:{hi} (expected START:END with START < END, in cycles)")
    timed: list[tuple[int, dict]] = []
    timed.extend(_phase_events(tl, lo, hi))
    block_events, lanes = _block_events(tl, lo, hi)
    timed.extend(block_events)
    ctl = _counter_timeline(tl, lo, hi, max_events)
    if include_counters:
        timed.extend(_counter_events(ctl, lo, hi))
    base = len(timed)

    # detail: issue runs and warp-state runs, per SM, inside the window
    sm, smsp, warp, start, n, pc = _issue_runs(tl.issues)
    end = start + n
    ikeep = (end > lo) & (start < hi)
    iv = tl.intervals
    vkeep = (iv["end"] > lo) & (iv["start"] < hi)
    v_sm = tl.warp_sm[iv["warp"]]
    per_sm = (np.bincount(sm[ikeep], minlength=tl.n_sm) + np.bincount(v_sm[vkeep], minlength=tl.n_sm))[:tl.n_sm]
    chosen = _choose_sms(tl, per_sm, max(0, max_events - base), detail_sms)
    is_chosen = np.zeros(tl.n_sm + 1, dtype=bool)
    is_chosen[list(chosen)] = True
    ik = ikeep & is_chosen[sm]
    for s, p, w, a, b, c, k in zip(sm[ik].tolist(), smsp[ik].tolist(), warp[ik].tolist(),
                                   np.maximum(start[ik], lo).tolist(), np.minimum(end[ik], hi).tolist(),
                                   pc[ik].tolist(), n[ik].tolist()):
        timed.append((a, {"name": f"w{w}", "cat": "issue", "ph": "X", "ts": a, "dur": b - a, "pid": s, "tid": p,
                          "args": {"warp": w, "instructions": k, "first_pc": c}}))
    vk = vkeep & is_chosen[v_sm]
    used_warps = set(iv["warp"][vk].tolist())
    for w, s, a, b, st, p in zip(iv["warp"][vk].tolist(), v_sm[vk].tolist(), np.maximum(iv["start"][vk], lo).tolist(),
                                 np.minimum(iv["end"][vk], hi).tolist(), iv["state"][vk].tolist(), iv["pc"][vk].tolist()):
        timed.append((a, {"name": STALL_REASONS[st], "cat": "warp_state", "ph": "X", "ts": a, "dur": b - a,
                          "pid": s, "tid": WARP_TID_BASE + w, "args": {"pc": p}}))
    timed.sort(key=lambda te: te[0])
    events = [e for _, e in timed]
    sms_used = sorted({e["pid"] for e in events if e["pid"] != GPU_PID} | set(chosen))
    detail = ", ".join(map(str, sorted(chosen)))
    detail = (f"per-issue and per-warp-state slices for SM {detail}" if chosen else
              f"no SM's per-issue and per-warp-state slices fit (the smallest SM needs "
              f"{int(per_sm[per_sm > 0].min()) if (per_sm > 0).any() else 0:,} events)")
    aggregation = {
        "detailed_sms": sorted(chosen),
        "binned_sms": [s for s in sms_used if s not in chosen],
        "bin_cycles": ctl.bin_cycles,
        "max_events": max_events,
        "events": len(events),
        "detail_events_per_sm": {int(s): int(per_sm[s]) for s in sms_used if s < tl.n_sm},
        "description": (f"every SM: its blocks as slices and its warp states, issue rate, active warps and shared "
                        f"memory binned into counter tracks ({ctl.bin_cycles:,} cycles per bin); {detail} "
                        f"(the event budget of {max_events:,}: raise it with --max-events, or narrow the cycles "
                        f"with --window START:END, to see more SMs in detail and finer bins)"),
    }
    meta = _metadata(tl, used_warps, sms_used, set(chosen), lanes)
    other = {"gpusim": {"kernel": tl.kernel, "gpu": tl.gpu, "cycles": tl.cycles, "clock_mhz": tl.clock_mhz,
                        "time_unit": "1 trace microsecond = 1 SM cycle", "window": [lo, hi],
                        "bin_cycles": ctl.bin_cycles, "launch_cycles": _launch_end(tl),
                        "aggregation": aggregation}}
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


def _counter_timeline(tl, lo: int, hi: int, max_events: int):
    """``tl``, or the same timeline with wider bins (a whole multiple of its own), so that the counter tracks
    of the window take at most COUNTER_SHARE of ``max_events``."""
    n_used = int(np.unique(tl.warp_sm[tl.warp_start >= 0]).size)
    per_bin = _COUNTERS_PER_SM_BIN * n_used + _COUNTERS_GPU_BIN
    bins = max(1, int(max_events * COUNTER_SHARE) // per_bin)
    if -(-(hi - lo) // tl.bin_cycles) <= bins:
        return tl
    return tl.rebin(-(-(hi - lo) // (bins * tl.bin_cycles)) * tl.bin_cycles)


def _choose_sms(tl, per_sm: np.ndarray, budget: int, detail_sms) -> list[int]:
    if detail_sms is not None:
        bad = [s for s in detail_sms if not 0 <= int(s) < tl.n_sm]
        if bad:
            raise ValueError(f"SM {bad[0]} does not exist on {tl.gpu} (0..{tl.n_sm - 1})")
        return sorted({int(s) for s in detail_sms})
    ran = tl.warp_start >= 0
    order = [0]
    if ran.any():
        last = int(tl.warp_sm[ran][np.argmax(tl.warp_end[ran])])
        order.append(last)
    order += [s for s in range(tl.n_sm) if per_sm[s] > 0]
    chosen, used = [], 0
    for s in dict.fromkeys(order):
        if per_sm[s] == 0:
            continue
        if used + per_sm[s] > budget:
            break
        chosen.append(s)
        used += int(per_sm[s])
    if not chosen and (per_sm > 0).any():
        # neither SM 0 nor the last SM fits: the SM with the least detail that does, if one does
        s = int(np.argmin(np.where(per_sm > 0, per_sm, np.iinfo(np.int64).max)))
        if per_sm[s] <= budget:
            chosen.append(s)
    return chosen


def _clip(a: int, b: int, lo: int, hi: int):
    a, b = max(a, lo), min(b, hi)
    return (a, b) if b > a else None


def _phase_events(tl, lo: int, hi: int):
    out = []
    end = max(int(tl.cycles), 1)
    launch = _launch_end(tl)
    k = _clip(0, end, lo, hi)
    if k:
        out.append((k[0], {"name": f"{tl.kernel} ({tl.cycles:,} cycles)", "cat": "kernel", "ph": "X", "ts": k[0],
                           "dur": k[1] - k[0], "pid": GPU_PID, "tid": 0, "args": {"cycles": tl.cycles}}))
    for name, a, b, why in (("launch overhead", 0, launch, "kernel launch and the first block's dispatch: no "
                             "block is resident yet"),
                            ("blocks running", launch, end, "at least one block resident")):
        c = _clip(a, b, lo, hi)
        if c:
            out.append((c[0], {"name": name, "cat": "phase", "ph": "X", "ts": c[0], "dur": c[1] - c[0],
                               "pid": GPU_PID, "tid": 1, "args": {"cycles": b - a, "what": why}}))
    return out


def _block_events(tl, lo: int, hi: int):
    """One slice per block on its SM, on the first block-slot track free at its start."""
    blk, bstart, bend, bsm = tl.block_spans()
    order = np.lexsort((blk, bstart, bsm))
    free: dict[int, list[int]] = {}
    lanes: dict[int, int] = {}
    out = []
    for b, s, a, e in zip(blk[order].tolist(), bsm[order].tolist(), bstart[order].tolist(), bend[order].tolist()):
        ends = free.setdefault(s, [])
        lane = next((i for i, x in enumerate(ends) if x <= a), None)
        if lane is None:
            lane = len(ends)
            ends.append(e)
        else:
            ends[lane] = e
        lanes[s] = max(lanes.get(s, 0), lane + 1)
        c = _clip(a, e, lo, hi)
        if c:
            out.append((c[0], {"name": f"block {b}", "cat": "block", "ph": "X", "ts": c[0], "dur": c[1] - c[0],
                               "pid": s, "tid": BLOCK_TID_BASE + lane, "args": {"block": b, "start": a, "end": e}}))
    return out, lanes


def _counter_events(tl, lo: int, hi: int):
    x = tl.bin_start
    sel = np.flatnonzero((x + tl.bin_cycles > lo) & (x < hi))
    out = []
    ts = np.maximum(x[sel], lo).tolist()
    active = tl.active_warps
    conf = tl.shared_conflicts
    wav = tl.shared_wavefronts
    states = tl.states_sm                                           # [sm, state, bin]
    share = states.sum(axis=(0, 2))
    share = share / share.sum() if share.sum() else share
    shown = [i for i in range(len(STALL_REASONS)) if share[i] >= MIN_STATE_SHARE]
    rest = [i for i in range(len(STALL_REASONS)) if i not in shown and share[i] > 0]
    width = np.maximum(tl.bin_width, 1).astype(np.float64)
    issue_pct = 100.0 * tl.issued.sum(axis=1) / (width * tl.n_smsp)   # [sm, bin]
    used = np.unique(tl.warp_sm[tl.warp_start >= 0]).tolist()

    def state_args(block):                                          # block: [state, bins] -> per bin dicts
        cols = [(STALL_REASONS[i], np.round(block[i], 2).tolist()) for i in shown]
        if rest:
            cols.append(("other", np.round(block[rest].sum(axis=0), 2).tolist()))
        return [{n: v[j] for n, v in cols} for j in range(len(ts))]

    for s in used:
        aw = np.round(active[s, sel], 3).tolist()
        cf, wf = conf[s, sel].tolist(), wav[s, sel].tolist()
        ip = np.round(issue_pct[s, sel], 1).tolist()
        st = state_args(states[s][:, sel])
        for t, a, c, f, i, sa in zip(ts, aw, cf, wf, ip, st):
            out.append((t, {"name": "warp states", "ph": "C", "ts": t, "pid": s, "args": sa}))
            out.append((t, {"name": "issue slots busy (%)", "ph": "C", "ts": t, "pid": s, "args": {"%": i}}))
            out.append((t, {"name": "active warps", "ph": "C", "ts": t, "pid": s, "args": {"warps": a}}))
            if f:
                out.append((t, {"name": "shared memory", "ph": "C", "ts": t, "pid": s,
                                "args": {"wavefronts": f, "bank conflicts": c}}))
    gbs = np.round(tl.dram_bandwidth()[sel] * tl.clock_mhz * 1e6 / 1e9, 3).tolist()
    tot_aw = np.round(active.sum(axis=0)[sel], 3).tolist()
    tot_cf = conf.sum(axis=0)[sel].tolist()
    tot_st = state_args(states.sum(axis=0)[:, sel])
    for t, b, a, c, sa in zip(ts, gbs, tot_aw, tot_cf, tot_st):
        out.append((t, {"name": "DRAM bandwidth (GB/s)", "ph": "C", "ts": t, "pid": GPU_PID, "args": {"GB/s": b}}))
        out.append((t, {"name": "active warps (all SMs)", "ph": "C", "ts": t, "pid": GPU_PID, "args": {"warps": a}}))
        out.append((t, {"name": "bank conflicts (all SMs)", "ph": "C", "ts": t, "pid": GPU_PID,
                        "args": {"excessive wavefronts": c}}))
        out.append((t, {"name": "warp states (all SMs)", "ph": "C", "ts": t, "pid": GPU_PID, "args": sa}))
    end = min(hi, tl.n_bins * tl.bin_cycles)
    if ts and end > ts[-1]:
        # close the counter tracks so the last bin has a width
        zero = {STALL_REASONS[i]: 0 for i in shown}
        if rest:
            zero["other"] = 0
        for s in used:
            out.append((end, {"name": "active warps", "ph": "C", "ts": end, "pid": s, "args": {"warps": 0}}))
            out.append((end, {"name": "warp states", "ph": "C", "ts": end, "pid": s, "args": dict(zero)}))
            out.append((end, {"name": "issue slots busy (%)", "ph": "C", "ts": end, "pid": s, "args": {"%": 0}}))
        out.append((end, {"name": "DRAM bandwidth (GB/s)", "ph": "C", "ts": end, "pid": GPU_PID, "args": {"GB/s": 0}}))
        out.append((end, {"name": "warp states (all SMs)", "ph": "C", "ts": end, "pid": GPU_PID, "args": dict(zero)}))
    return out


def _metadata(tl, warps: set[int], sms: list[int], detailed: set[int], lanes: dict[int, int]) -> list[dict]:
    ev = [{"name": "process_name", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": 0,
           "args": {"name": f"GPU {tl.gpu}: {tl.kernel}"}},
          {"name": "process_sort_index", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": 0, "args": {"sort_index": -1}},
          {"name": "thread_name", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": 0, "args": {"name": "kernel"}},
          {"name": "thread_name", "ph": "M", "ts": 0, "pid": GPU_PID, "tid": 1, "args": {"name": "phase"}}]
    detail_list = ", ".join(map(str, sorted(detailed))) or "none"
    for s in sms:
        label = f"SM {s}" if s in detailed else f"SM {s} (binned counters and blocks; detail: SM {detail_list})"
        ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": s, "tid": 0, "args": {"name": label}})
        ev.append({"name": "process_sort_index", "ph": "M", "ts": 0, "pid": s, "tid": 0,
                   "args": {"sort_index": s if s in detailed else tl.n_sm + s}})
        for k in range(lanes.get(s, 0)):
            ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": s, "tid": BLOCK_TID_BASE + k,
                       "args": {"name": f"block slot {k}"}})
            ev.append({"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": s, "tid": BLOCK_TID_BASE + k,
                       "args": {"sort_index": BLOCK_TID_BASE + k}})
        if s in detailed:
            for k in range(tl.n_smsp):
                ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": s, "tid": k,
                           "args": {"name": f"SMSP {k} issue"}})
                ev.append({"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": s, "tid": k,
                           "args": {"sort_index": k}})
    for w in sorted(warps):
        s = int(tl.warp_sm[w])
        ev.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": s, "tid": WARP_TID_BASE + w,
                   "args": {"name": f"warp {w} (block {int(tl.warp_block[w])}, SMSP {int(tl.warp_smsp[w])})"}})
        ev.append({"name": "thread_sort_index", "ph": "M", "ts": 0, "pid": s, "tid": WARP_TID_BASE + w,
                   "args": {"sort_index": WARP_TID_BASE + w}})
    return ev


def write_chrome_trace(tl, path, **kw) -> Path:
    """Write :func:`chrome_trace_events` to ``path`` (compact JSON; ``.gz`` suffix: gzip)."""
    return save_trace_document(chrome_trace_events(tl, **kw), path)


def save_trace_document(doc: dict, path) -> Path:
    """Write a trace document as compact JSON (gzip when ``path`` ends in ``.gz``)."""
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
