"""The Chrome/Perfetto trace: the documented event format (required keys by phase, monotonic ts per track)."""
import json
import warnings

import numpy as np
import pytest

from gpusim.analysis.chrome_trace import (TraceTruncated, chrome_trace_events, validate_chrome_trace,
                                       write_chrome_trace)


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
    assert {"active warps", "shared memory", "DRAM bandwidth (GB/s)", "bank conflicts (all SMs)"} <= counters


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


def test_cap_truncates_with_a_message(transpose_run):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        doc = chrome_trace_events(transpose_run.timeline, max_events=2000)
    assert any(issubclass(x.category, TraceTruncated) and "--window" in str(x.message) for x in w)
    timed = [e for e in doc["traceEvents"] if e["ph"] != "M"]
    assert len(timed) <= 2000
    t = doc["otherData"]["gpusim"]["truncated"]
    assert t["kept"] == len(timed) and t["events"] > 2000
    assert validate_chrome_trace(doc) == []


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
