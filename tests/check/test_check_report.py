"""The report model and the Python API: findings counted once per (tool, kind, scope, severity, lines),
compute-sanitizer-like summaries, info findings kept apart, and ``gpusim.run(sanitize=...)``."""
import numpy as np
import pytest
from ptxkernel import check, kernel

import gpusim
from gpusim.check import tools_of
from gpusim.check.report import Access, CheckReport, Finding, merge
from gpusim.errors import LaunchError
from isa.location import SourceLocation


def finding(tool="racecheck", kind="RAW hazard", severity="error", lines=(3, 5), count=1):
    acc = [Access("write", 1, SourceLocation("k.ptx", lines[0])), Access("read", 2, SourceLocation("k.ptx", lines[-1]))]
    return Finding(tool, kind, severity, "m", acc, count, "shared", "block")


def test_findings_at_the_same_lines_are_one_finding_counted():
    merged = merge([finding(count=2), finding(count=3), finding(lines=(3, 6)), finding(severity="info")])
    assert [(f.lines, f.severity, f.count) for f in merged] == [((3, 5), "error", 5), ((3, 6), "error", 1),
                                                                 ((3, 5), "info", 1)]


def test_the_summary_counts_per_tool_and_info_findings_are_not_problems():
    rep = CheckReport("k", "k.ptx", ("racecheck", "memcheck"), "lockstep",
                      merge([finding(count=4), finding(severity="warning", lines=(7, 8)), finding(severity="info"),
                             finding("memcheck", "out-of-bounds access", lines=(9,))]))
    assert rep.summary() == [
        "RACECHECK SUMMARY: 2 findings (1 error, 1 warning), 5 occurrences; 1 info (writes of the value already "
        "there)",
        "MEMCHECK SUMMARY: 1 finding (1 error, 0 warnings), 1 occurrence",
        "ERROR SUMMARY: 2 errors, 1 warning"]
    assert not rep.ok and len(rep.problems) == 3 and rep.lines("racecheck") == {3, 5, 7, 8}
    assert rep.to_json()["findings"][0]["accesses"][0]["location"] == "k.ptx:3"


def test_info_findings_print_only_when_asked():
    ptx = kernel("\tmov.u32 %r7, 1;\n\tst.shared.u32 [s], %r7;\n")
    rep = check(ptx)[1]
    assert rep.ok and "WAW" not in rep.format() and "1 info" in rep.format()
    assert "racecheck info: WAW hazard" in rep.format(info=True)


def test_sanitize_names_tools():
    assert tools_of(True) == tools_of("all") == ("racecheck", "initcheck", "synccheck", "memcheck")
    assert tools_of("memcheck,racecheck") == ("racecheck", "memcheck")
    assert tools_of(["synccheck"]) == ("synccheck",)
    with pytest.raises(LaunchError, match="unknown tool 'leakcheck'"):
        tools_of("leakcheck")


def test_run_keeps_the_report_and_refuses_what_does_not_fit():
    args = [np.zeros(64, np.int32), np.zeros(64, np.int32)]
    ptx = kernel("")
    assert gpusim.run(ptx, grid=1, block=64, args=args).sanitizer is None
    res = gpusim.run(ptx, grid=1, block=64, args=args, sanitize="racecheck")
    assert res.sanitizer.ok and res.sanitizer.tools == ("racecheck",)
    assert "sanitizer (racecheck): 0 findings" in res.summary()
    with pytest.raises(LaunchError, match="emulate mode"):
        gpusim.run(ptx, grid=1, block=64, args=args, sanitize=True, mode="timing")
    with pytest.raises(LaunchError, match="host: freed: no argument 'q'"):
        gpusim.run(ptx, grid=1, block=64, args=args, sanitize=True, host={"freed": ["q"]})
    with pytest.raises(LaunchError, match="unknown state 'stale'"):
        gpusim.run(ptx, grid=1, block=64, args=args, sanitize=True, host={"stale": [0]})


def test_a_checked_launch_records_the_same_trace_as_a_plain_one():
    # gpusim.cupy times its launches under the checker: the checker leaves the trace's addresses
    from gpusim.check import Checker
    from gpusim.functional.emulator import Emulator
    module, _ = gpusim.load_module(kernel("\tld.global.u32 %r7, [%rd10];\n\tst.global.u32 [%rd11], %r7;\n"))
    args = [np.arange(64, dtype=np.int32), np.zeros(64, np.int32)]
    plain = Emulator(module).launch("k", 1, 64, args, record=True).trace
    checked = Emulator(module).launch("k", 1, 64, args, record=True, checker=Checker()).trace
    assert np.array_equal(plain.addresses, checked.addresses) and np.array_equal(plain.pc, checked.pc)
