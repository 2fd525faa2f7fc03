"""Running studies: in-process vs a 2-worker LocalCluster, resume after an interruption, failed points."""
import sys

import pytest

from gpusim.sweep import comparable, load_spec, read_results, run_sweep


def _ids(rows):
    return [r["point_id"] for r in rows]


def test_inprocess_and_localcluster_give_identical_tables(tmp_path, spec_file, dask_client):
    spec = load_spec(spec_file, output=tmp_path / "a.csv")
    s1 = run_sweep(spec, workers=1, progress=False)
    assert (s1.done, s1.failed, s1.traces_built) == (4, 0, 1) and s1.executor.startswith("this process")
    spec2 = load_spec(spec_file, output=tmp_path / "b.csv")
    s2 = run_sweep(spec2, client=dask_client, progress=False)
    assert (s2.done, s2.failed) == (4, 0) and "Dask" in s2.executor
    a, b = read_results(tmp_path / "a.csv"), read_results(tmp_path / "b.csv")
    assert len(a) == len(b) == 4
    assert comparable(a) == comparable(b)
    row = a[0]
    assert row["status"] == "ok" and row["cycles"] > 0 and row["ipc"] > 0
    assert row["smsp__inst_executed.sum"] > 0 and "dram__bytes_read.sum" in row
    assert row["gpusim_version"] and row["trace_digest"] and row["host"] and row["wall_s"] > 0
    assert {r["sm.count"] for r in a} == {2, 3} and {r["scheduler"] for r in a} == {"gto", "lrr"}
    assert row["size.n"] == 10000
    # the cluster's workers were other processes
    assert {r["worker"] for r in b}.isdisjoint({r["worker"] for r in a})
    # a remote cluster gets the trace bytes through Dask instead of the file: same table
    from gpusim.sweep import tasks
    dask_client.run(tasks.clear_trace_cache)
    spec3 = load_spec(spec_file, output=tmp_path / "c.csv")
    assert run_sweep(spec3, client=dask_client, progress=False, trace_transport="data").done == 4
    assert comparable(read_results(tmp_path / "c.csv")) == comparable(a)


def test_memory_model_parameter(tmp_path, write_spec):
    body = write_spec(tmp_path).read_text().replace('scheduler = ["gto", "lrr"]', 'memory_model = ["full", "fixed"]')
    spec = load_spec(write_spec(tmp_path, body=body, name="m.toml"), output=tmp_path / "m.csv")
    assert run_sweep(spec, workers=1, progress=False).failed == 0
    rows = read_results(tmp_path / "m.csv")
    by = {(r["sm.count"], r["memory_model"]): r["cycles"] for r in rows}
    assert by[(2, "full")] != by[(2, "fixed")]


def test_traces_are_built_once_per_workload_and_shared_through_the_file(tmp_path, write_spec, dask_client):
    spec = load_spec(write_spec(tmp_path, body=(write_spec(tmp_path).read_text()
                                                .replace("seeds = [0]", "seeds = [0, 1]"))), output=tmp_path / "r.csv")
    s = run_sweep(spec, client=dask_client, progress=False)
    assert s.done == 8 and s.traces_built == 2
    traces = sorted((tmp_path / "r.traces").glob("*.trace"))
    assert len(traces) == 2
    rows = read_results(tmp_path / "r.csv")
    assert len({r["trace_digest"] for r in rows}) == 2
    assert {r["trace_digest"] for r in rows if r["seed"] == 0} != {r["trace_digest"] for r in rows if r["seed"] == 1}


def test_resume_after_interruption_loses_and_repeats_nothing(tmp_path, spec_file):
    spec = load_spec(spec_file, output=tmp_path / "r.csv")
    all_ids = {p.point_id for p in spec.points()}
    seen = []

    def ctrl_c_after_three(row):
        seen.append(row["point_id"])
        if len(seen) == 3:
            raise KeyboardInterrupt

    s = run_sweep(spec, workers=1, progress=False, on_row=ctrl_c_after_three)
    assert s.interrupted and s.done == 3
    first = read_results(tmp_path / "r.csv")
    assert _ids(first) == seen
    # a crash in the middle of writing a row leaves a torn last line: that point is simply run again
    with open(tmp_path / "r.csv", "a") as f:
        f.write("deadbeef,vector_add,sm")
    with pytest.raises(Exception, match="--resume"):
        run_sweep(load_spec(spec_file, output=tmp_path / "r.csv"), workers=1, progress=False)
    again = []
    s2 = run_sweep(load_spec(spec_file, output=tmp_path / "r.csv"), workers=1, progress=False, resume=True,
                   on_row=lambda r: again.append(r["point_id"]))
    assert not s2.interrupted and s2.skipped == 3 and s2.done == 1 and s2.traces_reused == 1
    assert set(again) == all_ids - set(seen)
    final = read_results(tmp_path / "r.csv")
    assert sorted(_ids(final)) == sorted(all_ids)          # each point exactly once
    s3 = run_sweep(load_spec(spec_file, output=tmp_path / "r.csv"), workers=1, progress=False, resume=True)
    assert (s3.done, s3.skipped) == (0, 4)


def test_failing_points_are_recorded_and_do_not_stop_the_study(tmp_path, write_spec):
    body = write_spec(tmp_path).read_text().replace('"sm.count" = { from = 2, to = 3 }', '"sm.count" = [0, 2]') \
        .replace('scheduler = ["gto", "lrr"]', 'regs_per_thread = [16, 64]')
    spec = load_spec(write_spec(tmp_path, body=body, name="f.toml"), output=tmp_path / "f.csv")
    s = run_sweep(spec, workers=1, progress=False)
    assert (s.done, s.failed) == (4, 3)
    rows = {(r["sm.count"], r["regs_per_thread"]): r for r in read_results(tmp_path / "f.csv")}
    assert rows[(2, 16)]["status"] == "ok" and rows[(2, 16)]["cycles"] > 0
    for key in ((0, 16), (0, 64)):
        assert rows[key]["status"] == "error" and "ConfigError" in rows[key]["error"]
        assert "sm.count" in rows[key]["error"] and rows[key]["cycles"] is None
    assert "LaunchError" in rows[(2, 64)]["error"] and "regs_per_thread" in rows[(2, 64)]["error"]
    # --retry-failed runs only the failed points again
    s2 = run_sweep(load_spec(tmp_path / "f.toml", output=tmp_path / "f.csv"), workers=1, progress=False,
                   resume=True, retry_failed=True)
    assert (s2.done, s2.failed, s2.skipped) == (3, 3, 1)
    assert len(read_results(tmp_path / "f.csv")) == 4


def test_a_kernel_over_its_budget_fails_its_points(tmp_path, write_spec):
    body = write_spec(tmp_path).read_text().replace("seeds = [0]", "seeds = [0]\nbudget = 50")
    spec = load_spec(write_spec(tmp_path, body=body, name="b.toml"), output=tmp_path / "b.csv")
    s = run_sweep(spec, workers=1, progress=False)
    assert (s.done, s.failed) == (4, 4)
    for r in read_results(tmp_path / "b.csv"):
        assert "trace not built" in r["error"] and "budget" in r["error"].lower()


def test_without_dask_a_message_and_the_in_process_path(tmp_path, spec_file, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    msgs = []
    s = run_sweep(load_spec(spec_file, output=tmp_path / "r.csv"), workers=2, progress=False, log=msgs.append)
    assert s.done == 4 and s.executor.startswith("this process")
    assert msgs and "pip install" in msgs[0]
    with pytest.raises(Exception, match="--scheduler needs Dask"):
        run_sweep(load_spec(spec_file, output=tmp_path / "s.csv"), scheduler="tcp://nowhere:8786", progress=False)


def test_cli_sweep_and_plot(tmp_path, spec_file, capsys):
    from gpusim.cli import main
    out = tmp_path / "cli.csv"
    assert main(["sweep", str(spec_file), "-o", str(out), "--workers", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "4 points done (4 ok, 0 failed)" in text and "points/s" in text
    assert main(["sweep", str(spec_file), "-o", str(out), "--dry-run"]) == 0
    assert main(["sweep-plot", str(out), "--x", "sm.count", "--y", "ipc"]) == 0
    assert main(["sweep-plot", str(out), "--x", "sm.count", "--y", "cycles", "--z", "scheduler",
                 "-o", str(tmp_path / "h.png")]) == 0
    assert (tmp_path / "h.png").stat().st_size > 0
    assert list(tmp_path.glob("cli-ipc-vs-sm_count.png"))
    assert main(["sweep-plot", str(out), "--x", "sm.count", "--y", "nope"]) == 1
