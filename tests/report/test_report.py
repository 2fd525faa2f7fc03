import csv
import io
import json

import pytest

from gpusim.cli import main
from gpusim.report import COMPARE_METRICS, build_report, compare_configs, to_csv, to_json
from gpusim.report.sections import build_report as _br  # noqa: F401

SECTIONS = ["Diagnosis: why is it slow", "GPU Speed Of Light Throughput", "Launch Statistics", "Occupancy", "Scheduler Statistics",
            "Warp State Statistics", "Memory Workload Analysis", "Source Counters"]


def test_sections_and_nsight_names(transpose_run):
    rep = build_report(transpose_run)
    assert [s.name for s in rep.sections] == SECTIONS
    m = rep.metrics()
    c = transpose_run.counters
    for k in ("gpc__cycles_elapsed.max", "sm__warps_active.avg.pct_of_peak_sustained_active",
              "smsp__average_warp_latency_per_inst_issued.ratio", "launch__occupancy_limit_warps",
              "derived__memory_l1_wavefronts_shared_excessive", "dram__bytes_read.sum",
              "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"):
        assert m[k] == pytest.approx(c[k])
    assert m["launch__grid_size"] == 3 * 2 and m["launch__block_size"] == 1024
    assert m["gpu__time_duration.sum"] == pytest.approx(transpose_run.cycles / 1590)          # h100: the base clock
    assert m["smsp__issue_inst0.avg.pct_of_peak_sustained_active"] == pytest.approx(
        100 - c["smsp__issue_active.avg.pct_of_peak_sustained_active"])
    src = rep.section("Source Counters")
    assert [t.title.split()[2] for t in src.tables] == ["PTX", "CUDA"]
    # the kernel's parameters are read by their users (no ld.param in SASS): no cycles on the signature line
    cuda = {r[0]: r for r in src.tables[1].rows}
    assert "transpose_smem.cu:10" not in cuda or cuda["transpose_smem.cu:10"][3] == 0
    diag = rep.section("Diagnosis: why is it slow")
    assert rep.diagnosis is not None and diag.tables[0].columns[0] == "rank"
    assert not [s.name for s in build_report(transpose_run, what_if=False).sections if s.name.startswith("Diag")]


def test_json_and_csv(transpose_run):
    rep = build_report(transpose_run)
    doc = json.loads(to_json(rep))
    assert doc["kernel"] == "transpose_smem" and doc["gpu"] == "h100"
    assert [s["name"] for s in doc["sections"]] == SECTIONS
    rows = list(csv.reader(io.StringIO(to_csv(rep))))
    assert rows[0] == ["section", "metric", "label", "unit", "value"]
    metric_rows = {r[1]: r[4] for r in rows[1:] if len(r) == 5 and r[0] in SECTIONS and "__" in r[1]}
    assert float(metric_rows["gpc__cycles_elapsed.max"]) == transpose_run.cycles


def test_cli_report_formats(capsys, tmp_path):
    assert main(["report", "vector_add", "--size", "small", "--format", "json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["program"] == "vector_add"
    out = tmp_path / "r.csv"
    assert main(["report", "vector_add", "--size", "small", "--format", "csv", "-o", str(out), "--quiet"]) == 0
    assert out.read_text().startswith("section,metric")
    assert main(["report", "vector_add", "--size", "small", "--quiet"]) == 0
    text = capsys.readouterr().out
    for s in SECTIONS:
        assert s in text


def test_compare_configs(capsys):
    reps = compare_configs("vector_add", ["h100", "pmpp-device-d"], size="small")
    assert [r.gpu for r in reps] == ["h100", "pmpp-device-d"]
    assert reps[0].metrics()["gpc__cycles_elapsed.max"] != reps[1].metrics()["gpc__cycles_elapsed.max"]
    assert main(["compare-configs", "vector_add", "--size", "small", "--gpu", "h100", "--gpu", "pmpp-device-d",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["gpus"] == ["h100", "pmpp-device-d"]
    names = [m["metric"] for m in doc["metrics"]]
    assert names == [n for n in COMPARE_METRICS if n in names] and "gpc__cycles_elapsed.max" in names
    assert main(["compare-configs", "vector_add", "--size", "small", "--gpu", "h100", "--gpu", "a100"]) == 0
    assert "h100 vs a100" in capsys.readouterr().out


def test_run_plot_and_trace(tmp_path, capsys):
    from gpusim.analysis.chrome_trace import validate_chrome_trace
    out = tmp_path / "figs"
    tr = tmp_path / "t.json"
    assert main(["run", "vector_add", "--size", "small", "--quiet", "--plot", str(out), "--trace", str(tr),
                 "--bin", "100", "--window", "0:3000"]) == 0
    msg = capsys.readouterr().out
    assert "ui.perfetto.dev" in msg
    assert len(list(out.glob("*.png"))) >= 6
    doc = json.loads(tr.read_text())
    assert validate_chrome_trace(doc) == []
    assert doc["otherData"]["gpusim"]["bin_cycles"] == 100 and doc["otherData"]["gpusim"]["window"] == [0, 3000]


def test_run_trace_budget_says_what_it_aggregated(tmp_path, capsys):
    tr = tmp_path / "t.json"
    assert main(["run", "vector_add", "--size", "small", "--quiet", "--no-diagnosis", "--trace", str(tr),
                 "--max-events", "500"]) == 0
    out = capsys.readouterr().out
    assert "binned into counter tracks" in out and "--window" in out and "--max-events" in out
    doc = json.loads(tr.read_text())
    agg = doc["otherData"]["gpusim"]["aggregation"]
    assert agg["binned_sms"] and agg["max_events"] == 500
    assert max(e["ts"] + e.get("dur", 0) for e in doc["traceEvents"] if e["ph"] == "X") == \
        doc["otherData"]["gpusim"]["cycles"]


def test_window_argument_errors():
    with pytest.raises(SystemExit):
        main(["run", "vector_add", "--window", "20:10"])


def test_progress_bar_forced():
    from io import StringIO

    from rich.console import Console

    from gpusim.report.progress import progress_bar
    buf = StringIO()
    cb = progress_bar(force=True, console=Console(file=buf, force_terminal=True, width=100))
    cb(100, 1, 4)
    cb(500, 4, 4)          # closes itself
    assert progress_bar() is None or callable(progress_bar())


def test_a_long_emulation_shows_its_warp_instructions_while_no_block_finishes(monkeypatch):
    from io import StringIO

    from rich.console import Console

    import gpusim
    from gpusim.errors import BudgetExceededError
    from gpusim.functional import stream
    from gpusim.report.progress import progress_bars
    monkeypatch.setattr(stream, "PROGRESS_INTERVAL_S", 0.0)      # report at every look, not every 0.5 s
    buf = StringIO()
    bars = progress_bars(force=True, console=Console(file=buf, force_terminal=True, width=140))
    seen = []

    def emulation(done, total, warp_instructions):
        seen.append((done, total, warp_instructions))
        bars.emulation(done, total, warp_instructions)

    ptx = """.version 8.0
.target sm_90
.address_size 64
.visible .entry spin()
{
    .reg .b32 %r<2>;
    mov.u32 %r0, 0;
LOOP:
    add.u32 %r0, %r0, 1;
    bra.uni LOOP;
}
"""
    with pytest.raises(BudgetExceededError):
        gpusim.run(ptx, grid=1, block=32, args=[], budget=5_000, emulation_progress=emulation)
    bars.close()
    assert seen and all(done == 0 and total == 1 for done, total, _ in seen)      # inside the first batch
    assert "emulating" in buf.getvalue() and "warp instructions" in buf.getvalue()


def test_piped_report_keeps_source_brackets_and_whole_cells(capsys):
    """Rich markup is escaped (``[t]`` is source text, not a style) and a piped report is not cut to '…'."""
    assert main(["report", "reduce_interleaved", "--size", "small", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "sdata[t] += sdata[t + stride];" in out
    assert "…" not in out and "gpc__cycles_elapsed.avg.per_second" in out
