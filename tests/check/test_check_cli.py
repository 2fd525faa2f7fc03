"""``gpusim check``: the report as printed, the exit status, the options."""
from __future__ import annotations

import json

import pytest

from gpusim.cli import main

BUGS = "programs/bugs/"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_race_is_printed_with_both_lines_their_source_and_a_summary_and_exits_1(capsys):
    code, out, _ = run_cli(capsys, "check", BUGS + "race_scan_war.cu")
    assert code == 1
    assert "racecheck error: WAR hazard between warps of a block in shared memory" in out
    assert "read by thread" in out and "race_scan_war.cu:17" in out and "race_scan_war.cu:18" in out
    assert "int left = temp[threadIdx.x - stride];" in out            # the CUDA source line
    assert "PTX race_scan_war.ptx:" in out
    assert "RACECHECK SUMMARY: 2 findings (1 error, 1 warning)" in out
    assert "ERROR SUMMARY: 1 error, 1 warning" in out


def test_a_clean_kernel_exits_0(capsys):
    code, out, _ = run_cli(capsys, "check", BUGS + "race_scan_war_fixed.cu")
    assert code == 0 and "ERROR SUMMARY: 0 errors, 0 warnings" in out


def test_tool_picks_the_tools(capsys):
    code, out, _ = run_cli(capsys, "check", BUGS + "race_scan_war.cu", "--tool", "initcheck", "--tool", "memcheck")
    assert code == 0 and "tools: initcheck, memcheck" in out and "RACECHECK" not in out


def test_schedule_says_whether_the_outputs_changed(capsys):
    code, out, _ = run_cli(capsys, "check", BUGS + "race_global_crossblock_waw.cu", "--schedule", "reversed")
    assert code == 1
    assert "outputs changed under the reversed schedule" in out and "out (arg 1):" in out
    code, out, _ = run_cli(capsys, "check", BUGS + "race_global_crossblock_waw_fixed.cu", "--schedule", "random",
                           "--seed", "3")
    assert code == 0 and "the same under the random (seed 3) schedule" in out


def test_global_races_grid_compares_global_accesses_of_different_blocks(capsys):
    assert run_cli(capsys, "check", BUGS + "race_global_crossblock_waw.cu")[0] == 0
    code, out, _ = run_cli(capsys, "check", BUGS + "race_global_crossblock_waw.cu", "--global-races", "grid")
    assert code == 1 and "WAW hazard between blocks in global memory" in out


def test_json_writes_the_report(capsys, tmp_path):
    path = tmp_path / "r.json"
    code, _, _ = run_cli(capsys, "check", BUGS + "oob_off_by_one.cu", "--json", str(path))
    doc = json.loads(path.read_text())
    assert code == 1 and doc["errors"] == 3 and doc["completed"]
    (f,) = doc["findings"]
    assert (f["tool"], f["kind"], f["lines"]) == ("memcheck", "out-of-bounds access", [10])


def test_help_lists_the_tools_and_the_exit_status(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    for word in ("racecheck", "initcheck", "synccheck", "memcheck", "--schedule", "--global-races", "exit status"):
        assert word in out


def test_an_unknown_tool_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", BUGS + "race_scan_war.cu", "--tool", "leakcheck"])
    assert e.value.code == 2 and "invalid choice: 'leakcheck'" in capsys.readouterr().err
