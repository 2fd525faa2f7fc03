"""The Chrome/Perfetto trace: the documented event format (required keys by phase, monotonic ts per track),
the whole run within the event budget (binned for every SM, detailed for the SMs that fit), the launch."""
import json

import numpy as np
import pytest

from gpusim.analysis.chrome_trace import chrome_trace_events, validate_chrome_trace, write_chrome_trace


def test_structure(transpose_run, tmp_path):
    tl = transpose_run.timeline
    p = write_chrome_trace(tl, tmp_path / "t.json")
    doc = json.loads(p.read_text())
    assert set(doc) >= {"traceEvents", "displayTimeUnit", "otherData"}
    assert validate_chrome_trace(doc) == []
    ev = doc["traceEvents"]
    assert {e["ph"] for e in ev} == {"X", "C", "M"}
    for e in ev:
        if e["ph"] == "X":
            assert isinstance(e["ts"], int) and isinstance(e["dur"], int) and e["dur"] >= 1
    # with the default budget every SM of this small run is detailed:
    assert doc["otherData"]["gpusim"]["aggregation"]["binned_sms"] == []
    # issue slices cover every issued instruction exactly once
    issue = [e for e in ev if e.get("cat") == "issue"]
    assert sum(e["args"]["instructions"] for e in issue) == transpose_run.counters["smsp__inst_executed.sum"]
    assert sum(e["dur"] for e in issue) == transpose_run.counters["smsp__inst_executed.sum"]
    # warp-state slices: the merged runs, summing to the resident warp-cycles
    st = [e for e in ev if e.get("cat") == "warp_state"]
    assert len(st) == tl.intervals["warp"].size
    assert sum(e["dur"] for e in st) == sum(transpose_run.stalls.values())
    names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    assert "SMSP 0 issue" in names and any(n.startswith("warp 0 ") for n in names)
    counters = {e["name"] for e in ev if e["ph"] == "C"}
    assert {"active warps", "shared memory", "DRAM bandwidth (GB/s)", "bank conflicts (all SMs)", "warp states",
            "issue slots busy (%)", "warp states (all SMs)"} <= counters


def test_window_clips(transpose_run):
    doc = chrome_trace_events(transpose_run.timeline, window=(3000, 3200))
    assert validate_chrome_trace(doc) == []
    for e in doc["traceEvents"]:
        if e["ph"] == "X":
            assert 3000 <= e["ts"] and e["ts"] + e["dur"] <= 3200
        elif e["ph"] == "C":
            assert 3000 <= e["ts"] <= 3200
    assert doc["otherData"]["gpusim"]["window"] == [3000, 3200]
    with pytest.raises(ValueError):
        chrome_trace_events(transpose_run.timeline, window=(5, 5))


def test_budget_aggregates_instead_of_cutting(transpose_run):
    """A small budget keeps the whole run: blocks and binned counters for every SM, detail for fewer SMs, and
    the file says which."""
    tl = transpose_run.timeline
    full = chrome_trace_events(tl)
    small = chrome_trace_events(tl, max_events=2000)
    assert validate_chrome_trace(small) == []
    agg = small["otherData"]["gpusim"]["aggregation"]
    assert len(agg["detailed_sms"]) < len(full["otherData"]["gpusim"]["aggregation"]["detailed_sms"])
    assert "binned" in agg["description"] and "--max-events" in agg["description"]
    end = max(e["ts"] + e.get("dur", 0) for e in small["traceEvents"] if e["ph"] == "X")
    assert end == tl.cycles                                   # the run is covered to its last cycle
    blocks = [e for e in small["traceEvents"] if e.get("cat") == "block"]
    assert len(blocks) == 6 and {e["pid"] for e in blocks} == set(np.unique(tl.warp_sm[tl.warp_start >= 0]).tolist())
    # the counter tracks cover the whole run in wider bins, within a third of the budget
    assert agg["bin_cycles"] > tl.bin_cycles and agg["bin_cycles"] % tl.bin_cycles == 0
    states = [e for e in small["traceEvents"] if e["ph"] == "C" and e["name"] == "warp states" and e["pid"] == 0]
    assert len(states) >= -(-tl.cycles // agg["bin_cycles"]) and states[-1]["ts"] == tl.cycles
    assert sum(e["ph"] == "C" for e in small["traceEvents"]) <= 2000 / 3 + 20     # + the tracks' closing zeros
    names = {e["args"]["name"] for e in small["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    assert any("binned counters" in n for n in names) or not agg["binned_sms"]


def test_a_budget_too_small_for_sm_0_details_the_sm_that_fits(transpose_run):
    """SM 0 and the last SM come first; when neither fits, the SM with the least detail that fits is shown."""
    tl = transpose_run.timeline
    per_sm = chrome_trace_events(tl)["otherData"]["gpusim"]["aggregation"]["detail_events_per_sm"]
    smallest = min(per_sm, key=per_sm.get)
    assert per_sm[smallest] < per_sm[0]
    first = None
    for budget in range(per_sm[smallest], per_sm[0] + 10_000, 500):     # the smallest budgets that detail one
        agg = chrome_trace_events(tl, max_events=budget)["otherData"]["gpusim"]["aggregation"]
        if agg["detailed_sms"]:
            first = agg
            break
    assert first is not None and first["detailed_sms"] == [smallest]
    assert first["events"] <= first["max_events"]
    none = chrome_trace_events(tl, max_events=100)["otherData"]["gpusim"]["aggregation"]
    assert none["detailed_sms"] == [] and "no SM's per-issue and per-warp-state slices fit" in none["description"]


def test_launch_overhead_is_marked(transpose_run):
    doc = chrome_trace_events(transpose_run.timeline)
    phase = {e["name"]: e for e in doc["traceEvents"] if e.get("cat") == "phase"}
    launch = transpose_run.timeline.launch_cycles
    assert phase["launch overhead"]["ts"] == 0 and phase["launch overhead"]["dur"] == launch
    assert phase["blocks running"]["ts"] == launch
    assert launch == int(transpose_run.timing.warp_start_cycle.min()) > 3000     # the H100's kernel launch
    assert doc["otherData"]["gpusim"]["launch_cycles"] == launch


def test_detail_sms_chosen(transpose_run):
    doc = chrome_trace_events(transpose_run.timeline, detail_sms=[1])
    assert {e["pid"] for e in doc["traceEvents"] if e.get("cat") in ("issue", "warp_state")} == {1}
    with pytest.raises(ValueError, match="SM 999"):
        chrome_trace_events(transpose_run.timeline, detail_sms=[999])


def test_validator_catches_problems():
    bad = {"traceEvents": [{"ph": "X", "name": "a", "ts": 5, "dur": 2, "pid": 0, "tid": 0},
                           {"ph": "X", "name": "b", "ts": 3, "dur": 1, "pid": 0, "tid": 0},
                           {"ph": "Q"}, {"ph": "C", "ts": 1, "pid": 0}]}
    probs = validate_chrome_trace(bad)
    assert any("goes back" in p for p in probs)
    assert any("unknown phase" in p for p in probs)
    assert any("missing" in p for p in probs)


def test_gzip(transpose_run, tmp_path):
    import gzip
    p = write_chrome_trace(transpose_run.timeline, tmp_path / "t.json.gz", window=(0, 3000))
    doc = json.loads(gzip.open(p, "rt").read())
    assert validate_chrome_trace(doc) == []
