"""Why is it slow: the diagnosis of the lecture kernels names the limiter each lecture teaches, with the
CUDA line, and its what-if speed-up is measured (and, where the lecture has the fixed kernel, agrees with it).

The kernels run on an H100 cut to 4 SMs (the same SM and memory system): a problem small enough for the
test suite then runs several waves of blocks, so the kernel's own work outweighs the launch, as at the
lecture's sizes on the whole GPU (``gpusim run programs/<kernel>.cu`` at the default sizes gives the same
ranking; see the README).
"""
from __future__ import annotations

import json

import pytest

import gpusim
from gpusim.analysis.diagnosis import LAUNCH_DOMINANT
from gpusim.cli import main
from gpusim.config import load_gpu


@pytest.fixture(scope="module")
def h100_4sm():
    return load_gpu("h100").replace(**{"sm.count": 4})


def _diagnose(program, size, gpu, what_if="auto"):
    r = gpusim.run(program, size=size, mode="timing", gpu=gpu)
    return r, r.diagnose(what_if)


def test_transpose_smem_is_bank_conflicts_and_padding_gains_what_the_what_if_says(h100_4sm):
    size = "width=256,height=256"
    r, d = _diagnose("transpose_smem", size, h100_4sm)
    top = d.top
    assert top.key == "banks" and top.title == "shared-memory bank conflicts" and top.measured
    assert "transpose_smem.cu:24" in top.lines
    assert any("32.0-way bank conflicts" in e and "tile[threadIdx.x][threadIdx.y]" in e for e in top.evidence)
    padded = gpusim.run("transpose_padded", size=size, mode="timing", gpu=h100_4sm)
    assert top.what_if.cycles == pytest.approx(padded.cycles, rel=0.15)
    assert top.what_if.speedup > 1.5


def test_transpose_naive_is_uncoalesced_stores(h100_4sm):
    _, d = _diagnose("transpose_naive", "width=256,height=256", h100_4sm)
    top = d.top
    assert top.key == "coalescing" and top.title == "uncoalesced global stores" and top.measured
    assert top.lines == ["transpose_naive.cu:14"]
    assert "32.0 sectors per request where 4.0 would do" in top.evidence[0]
    assert "1,024 bytes apart" in top.evidence[0]                      # height x 4 bytes between threads
    assert top.what_if.speedup > 1.2


def test_reduce_interleaved_is_divergence(h100_4sm):
    _, d = _diagnose("reduce_interleaved", "n=65536", h100_4sm)
    top = d.top
    assert top.key == "divergence" and top.measured and top.what_if.speedup > 1.03
    assert "reduce_interleaved.cu:20" in top.lines
    assert any("sdata[t] += sdata[t + stride];" in e and "of 32 threads active" in e for e in top.evidence)


def test_matmul_naive_is_global_memory_and_predicts_the_tiled_gain(h100_4sm):
    naive, d = _diagnose("matmul_naive", "width=64", h100_4sm)
    top = d.top
    assert top.key == "reuse" and top.title.startswith("global memory") and top.measured
    tiled = gpusim.run("matmul_tiled", size="width=64,tile=16", mode="timing", gpu=h100_4sm)
    gain = naive.cycles / tiled.cycles
    assert gain > 1.1
    # the what-if is an upper bound on tiling (it charges nothing for filling the tiles): at least the gain
    # the tiled kernel realises, and of its order
    assert gain <= top.what_if.speedup < 1.5 * gain


def test_small_vector_add_is_launch_overhead():
    _, d = _diagnose("vector_add", "small", "h100")
    top = d.top
    assert top.key == "launch" and top.measured
    assert d.launch_cycles / d.cycles >= LAUNCH_DOMINANT and top.share > 0.5
    assert d.findings[1].key == "blocks" and d.findings[1].title == "too few blocks" and not d.findings[1].measured
    text = d.text()
    assert text.startswith("why is it slow: vector_add on h100")
    assert "1. launch overhead: what-if zero launch overhead" in text
    assert "2. too few blocks: costs about" in text and "(estimated, not re-simulated)" in text


def test_what_ifs_say_what_they_change_and_cannot(h100_4sm):
    _, d = _diagnose("transpose_smem", "width=128,height=128", h100_4sm, what_if=["banks", "launch"])
    assert [w.name for w in d.what_ifs] == ["banks", "launch"]
    text = d.text()
    for w in d.what_ifs:
        assert w.title in text and f"changes: {w.changes[:40]}" in text.replace("\n        ", " ")
        assert "cannot: " in text
    assert set(d.skipped) == {"occupancy", "coalescing", "reuse", "divergence", "dram", "atomics", "barriers"}
    doc = json.loads(json.dumps(d.as_dict()))
    assert doc["findings"][0]["what_if"]["name"] == "banks"


def test_without_what_ifs_the_ranking_is_estimated(h100_4sm):
    _, d = _diagnose("transpose_smem", "width=128,height=128", h100_4sm, what_if="none")
    assert d.what_ifs == [] and d.findings and not any(f.measured for f in d.findings)
    assert d.top.key == "banks"


def test_cli_run_prints_the_diagnosis(capsys, tmp_path):
    out = tmp_path / "r.json"
    assert main(["run", "vector_add", "--size", "small", "--quiet", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "why is it slow: vector_add on h100" in text and "1. launch overhead" in text
    assert json.loads(out.read_text())["diagnosis"]["findings"][0]["key"] == "launch"
    assert main(["run", "vector_add", "--size", "small", "--quiet", "--no-diagnosis"]) == 0
    assert "why is it slow" not in capsys.readouterr().out
    assert main(["run", "vector_add", "--size", "small", "--quiet", "--what-if", "none"]) == 0
    assert "estimated, not re-simulated" in capsys.readouterr().out


def test_cli_report_has_the_diagnosis_section(capsys):
    assert main(["report", "vector_add", "--size", "small", "--quiet", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sections"][0]["name"] == "Diagnosis: why is it slow"
    assert doc["diagnosis"]["findings"][0]["key"] == "launch"


@pytest.mark.parametrize("argv", [["run", "vector_add", "--what-if", "bank"],
                                  ["report", "vector_add", "--what-if", "banks,nope"],
                                  ["run", "vector_add", "--jobs", "0"]])
def test_cli_bad_what_if_is_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("gpusim")
