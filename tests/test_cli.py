"""The gpusim command line: each subcommand's happy path and its errors (exit codes, messages)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.cli import main

ROOT_PROGRAMS = Path(__file__).resolve().parents[1] / "programs"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_programs_lists_every_bundled_program(capsys):
    import programs
    code, out, _ = run_cli(capsys, "programs")
    assert code == 0
    for name in programs.names():
        assert name in out


def test_run_emulate_check_passes_and_prints_a_summary(capsys):
    code, out, _ = run_cli(capsys, "run", "programs/reduce_sequential.ptx", "--grid", "64", "--block", "256",
                           "--mode", "emulate", "--check")
    assert code == 0
    assert "check: OK" in out and "warp instructions" in out


def test_the_summary_names_the_size_that_ran_and_a_grid_scales_it(capsys):
    # a grid without --size changes the problem (nbody's n follows the threads): the first line says so
    code, out, _ = run_cli(capsys, "run", "hecbench/nbody", "--grid", "2", "--mode", "emulate", "--quiet")
    assert code == 0
    assert out.splitlines()[0].startswith("kernel hecbench_nbody_accel  size n=512  grid (2, 1, 1)")
    code, out, _ = run_cli(capsys, "run", "hecbench/nbody", "--size", "small", "--mode", "emulate", "--quiet")
    assert "size small (n=256)" in out.splitlines()[0]


def test_run_timing_writes_counters_json(capsys, tmp_path):
    path = tmp_path / "c.json"
    code, out, _ = run_cli(capsys, "run", "matmul_tiled", "--size", "small", "--json", str(path), "--quiet")
    assert code == 0 and "cycles" in out
    doc = json.loads(path.read_text())
    assert doc["counters"]["gpc__cycles_elapsed.max"] > 0


def test_run_skips_the_default_diagnosis_of_a_launch_too_large_to_re_simulate(capsys, monkeypatch):
    import gpusim.cli
    monkeypatch.setattr(gpusim.cli, "DIAGNOSIS_AUTO_MAX_WARP_INST", 10)
    code, out, _ = run_cli(capsys, "run", "vector_add", "--size", "small", "--quiet")
    assert code == 0 and "not diagnosed by default" in out and "what-ifs" not in out
    code, out, _ = run_cli(capsys, "run", "vector_add", "--size", "small", "--quiet", "--what-if", "none")
    assert code == 0 and "why is it slow" in out and "not diagnosed" not in out


def test_occupancy_names_the_limiting_resource(capsys):
    code, out, _ = run_cli(capsys, "occupancy", "programs/matmul_tiled.cu", "--block", "16x16", "--gpu", "a100",
                           "--regs", "33")
    assert code == 0
    assert "75.0%" in out and "registers" in out


def test_trace_then_simulate_on_two_gpus(capsys, tmp_path):
    tr = tmp_path / "red.trace"
    code, out, _ = run_cli(capsys, "trace", "programs/reduce_sequential.cu", "--size", "small", "-o", str(tr))
    assert code == 0 and tr.exists()
    code, out, _ = run_cli(capsys, "simulate", str(tr), "--gpu", "h100", "--gpu", "a100", "--quiet")
    assert code == 0 and "== h100 ==" in out and "== a100 ==" in out


def test_schedule_ptx_order_is_slower_than_hoisted_loads_on_the_naive_matmul(capsys, tmp_path):
    cycles = {}
    for order in ("ptx", "hoist"):
        path = tmp_path / f"{order}.json"
        code, _, _ = run_cli(capsys, "run", "matmul_naive", "--size", "small", "--schedule", order, "--quiet",
                             "--json", str(path))
        assert code == 0
        cycles[order] = json.loads(path.read_text())["counters"]["gpc__cycles_elapsed.max"]
    assert cycles["ptx"] > cycles["hoist"]


def test_gpus_lists_the_presets(capsys):
    code, out, _ = run_cli(capsys, "gpus")
    assert code == 0 and "h100" in out and "pmpp-device-d" in out


@pytest.mark.parametrize("argv, message", [
    (["run", "nothing_here.ptx"], "no such file"),
    (["run", "matmul_tiled", "--size", "huge"], "has no size 'huge'"),
    (["run", "matmul_tiled", "--gpu", "h900", "--size", "small"], "h900"),
    (["simulate", "nothing.trace"], "no such trace file"),
    (["occupancy", "vector_add", "--kernel", "nope"], "no kernel 'nope'"),     # an isa error, caught too
])
def test_errors_exit_1_with_a_message(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 1 and message in err


def test_bad_dimension_syntax_is_rejected_by_argparse(capsys):
    with pytest.raises(SystemExit):
        main(["run", "vector_add", "--grid", "1x0"])


def test_compiled_ptx_names_its_source_relative_to_where_it_is_written(tmp_path):
    from gpusim.cli import with_file_directive
    ptx = '\t.file\t1 "kernel.cu"\n\t.loc\t1 5 3\n'
    assert with_file_directive(ptx, tmp_path / "src" / "k.cu", tmp_path / "out" / "k.ptx") == \
        '\t.file\t1 "../src/k.cu"\n\t.loc\t1 5 3\n'
    assert with_file_directive(ptx, tmp_path / "k.cu", tmp_path / "k.ptx") == '\t.file\t1 "k.cu"\n\t.loc\t1 5 3\n'


def test_init_writes_a_launch_file_that_loads(tmp_path, capsys):
    import shutil

    from gpusim.launch import load
    shutil.copy(ROOT_PROGRAMS / "blur.cu", tmp_path / "blur.cu")
    assert main(["init", str(tmp_path / "blur.cu")]) == 0
    spec = load(tmp_path / "blur.toml")
    assert [e.name for e in spec.args] == ["in", "out", "width", "height"]
    assert spec.sizes["small"] == {"width": 32, "height": 32} and spec.launch("small").grid == (2, 2, 1)
    assert spec.args[0].fill == "integers" and spec.args[1].fill == "zeros" and spec.args[2].value == "width"
