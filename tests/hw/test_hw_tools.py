"""The parts of gpusim.hw that need no GPU: ncu CSV parsing, metric filtering, the CLI over records."""
from __future__ import annotations

import pytest

from gpusim.errors import ToolMissingError
from gpusim.hw import ncu
from golden import GOLDEN

RAW = '''==PROF== Connected to process 1
"ID","Process ID","Kernel Name","Grid Size","Block Size","dram__bytes_read.sum","gpc__cycles_elapsed.max","sm__warps_active.avg.pct_of_peak_sustained_active"
"","","","","","byte","cycle","%"
"0","123","vector_add","(40, 1, 1)","(256, 1, 1)","82,688","4596","11.85"
"1","123","vector_add","(391, 1, 1)","(256, 1, 1)","401,920","5004","n/a"
==PROF== Disconnected
'''


def test_parse_raw_csv_skips_units_and_thousands_separators():
    rows = ncu.parse_raw_csv(RAW)
    assert [r["kernel"] for r in rows] == ["vector_add", "vector_add"]
    assert rows[0]["dram__bytes_read.sum"] == 82688 and rows[0]["gpc__cycles_elapsed.max"] == 4596
    assert rows[0]["sm__warps_active.avg.pct_of_peak_sustained_active"] == pytest.approx(11.85)
    assert rows[1]["sm__warps_active.avg.pct_of_peak_sustained_active"] is None


def test_filter_metrics_by_base_name_keeps_unlisted_launch_attributes():
    keep, drop = ncu.filter_metrics(["smsp__inst_executed.sum", "lts__t_sectors.sum",
                                     "launch__occupancy_limit_warps"], frozenset({"smsp__inst_executed"}))
    assert keep == ["smsp__inst_executed.sum", "launch__occupancy_limit_warps"] and drop == ["lts__t_sectors.sum"]
    assert ncu.filter_metrics(["a.sum"], None) == (["a.sum"], [])


def test_metric_list_mirrors_the_simulator():
    import gpusim
    sim = gpusim.run("vector_add", size="small", mode="timing").timing.counters
    mirrored = [m for m in sim if not m.startswith(("gpusim__", "dram.per", "memory_l1", "derived__"))]
    missing = [m for m in mirrored if m not in ncu.METRICS]
    assert not missing, missing


def test_runner_without_cupy_says_how_to_install(monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "cupy":
            raise ImportError("No module named 'cupy'")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", fake)
    from gpusim.hw.runner import run_on_gpu
    with pytest.raises(ToolMissingError, match="pip install -e .\\[gpu\\]"):
        run_on_gpu("vector_add", "small")


def test_cli_compare_record(capsys, tmp_path):
    from gpusim.cli import main
    assert main(["hw", "compare", str(GOLDEN / "gmem_stride_probe__stride_4.json"),
                 "--plot", str(tmp_path / "c.png")]) == 0
    out = capsys.readouterr().out
    assert "8,192/8,192 bit-exact" in out and "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" in out
    assert (tmp_path / "c.png").stat().st_size > 0


def test_cli_compare_suite_record(capsys):
    from gpusim.cli import main
    assert main(["hw", "compare", str(GOLDEN / "suites" / "polybench__atax_1__small.json")]) == 0
    out = capsys.readouterr().out
    assert "polybench/atax_1 [small]" in out and "cycles: simulated" in out
