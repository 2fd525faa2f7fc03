"""``gpusim validate``: record discovery, the parallel runner with its time limit, and the figures per suite
and size class (definitions in :mod:`gpusim.hw.validate`)."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from gpusim.errors import GpusimError
from gpusim.hw import validate as val

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "h100"


def _ref(name="p__s", suite="lecture", hw=10_000.0, inst=None, stall=None) -> val.RecordRef:
    return val.RecordRef(path="", name=name, program=name.split("__")[0], size="s", seed=0, suite=suite,
                         clock_control="base", cycles_hw=hw, inst_hw=inst, stall_hw=stall, threads=None)


def _write(folder: Path, name: str, **fields) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    doc = {"program": name.split("__")[0], "size": name.split("__")[1], "seed": 0, **fields}
    p = folder / f"{name}.json"
    p.write_text(json.dumps(doc))
    return p


# -- definitions ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cycles, name", [(0, "< 20k"), (19_999, "< 20k"), (20_000, "20k-200k"),
                                          (199_999, "20k-200k"), (200_000, "200k-2M"), (2_000_000, ">= 2M")])
def test_size_classes_split_at_20k_200k_2m_measured_cycles(cycles, name):
    assert val.size_class(cycles) == name


def test_dominant_stall_is_the_largest_ratio_other_than_selected():
    c = {val.STALL_PREFIX + r + val.STALL_SUFFIX: v for r, v in
         (("selected", 1.0), ("long_scoreboard", 0.9), ("wait", 0.4), ("barrier", 0.0))}
    assert val.dominant_stall(c) == "long_scoreboard"
    c[val.STALL_PREFIX + "selected" + val.STALL_SUFFIX] = 50.0
    assert val.dominant_stall(c) == "long_scoreboard"
    assert val.dominant_stall({"gpc__cycles_elapsed.max": 5}) is None


def test_summary_figures():
    outs = [val.Outcome(_ref("a__s", hw=100, inst=10, stall="wait"), cycles_sim=105, inst_sim=10, stall_sim="wait"),
            val.Outcome(_ref("b__s", hw=100, inst=10, stall="wait"), cycles_sim=80, inst_sim=40,
                        stall_sim="barrier"),
            val.Outcome(_ref("c__s", hw=1000), cycles_sim=1300),
            val.Outcome(_ref("d__s", hw=1000), reason="time limit of 1 s reached (CPU)")]
    s = val.Summary.of(outs)
    assert (s.launches, s.simulated) == (4, 3)
    assert s.mape_pct == pytest.approx((5 + 20 + 30) / 3)
    assert s.median_pct == pytest.approx(20)
    assert s.within10_pct == pytest.approx(100 / 3) and s.within25_pct == pytest.approx(200 / 3)
    assert (s.stall_agree, s.stall_compared) == (1, 2)
    assert s.inst_ratio == pytest.approx(2.0)                       # geometric mean of 1 and 4
    assert s.r_log == pytest.approx(0.99, abs=0.01)
    assert val.Summary.of(outs[:2]).r_log is None                  # fewer than three launches


# -- records ----------------------------------------------------------------------------------------------------
def test_find_records_searches_several_folders_recursively_and_says_what_it_leaves_out(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a, "k1__small", cycles=5000, counters={val.INST: 100})
    _write(a / "suites", "k2__big", suite="PolyBench/GPU", cycles=9e6, counters={val.INST: 5e8})
    _write(a, "k3__small", cycles=None)
    _write(b, "k4__small", cycles=7000, clock_control="none")
    refs, skipped = val.find_records([a, b, a / "suites"], "base", max_warp_inst=1e7)
    assert [r.name for r in refs] == ["k1__small", "k2__big"] and refs[0].suite == "lecture"
    assert refs[0].left_out is None
    assert refs[1].left_out == "500.0 M warp instructions > --max-warp-inst 10 M"
    reasons = dict(skipped)
    assert "no measured cycles" in reasons["k3__small"]
    assert "--clock-control none, not validated with --clock base" in reasons["k4__small"]
    refs, _ = val.find_records([b], "boost")
    assert [r.name for r in refs] == ["k4__small"]


def test_find_records_errors_name_the_folder_or_file(tmp_path):
    with pytest.raises(GpusimError, match="no such folder"):
        val.find_records([tmp_path / "missing"])
    with pytest.raises(GpusimError, match="no records"):
        val.find_records([tmp_path])
    (tmp_path / "x__y.json").write_text("{not json")
    with pytest.raises(GpusimError, match=r"x__y\.json: not a readable record"):
        val.find_records([tmp_path])
    with pytest.raises(GpusimError, match="--clock"):
        val.find_records([tmp_path], clock="turbo")


def test_the_h100_records_are_found_with_their_suites():
    refs, skipped = val.find_records([GOLDEN], "base")
    suites = {r.suite for r in refs}
    assert len(refs) >= 249 and not skipped
    assert {"lecture", "PolyBench/GPU", "SHOC", "Parboil", "HeCBench", "Lonestar", "Pannotia"} <= suites
    assert all(r.stall_hw and r.inst_hw for r in refs)


# -- the runner -------------------------------------------------------------------------------------------------
def _fake_simulate(ref, options):
    """Simulated cycles 10% above the measured ones; names with 'slow' spin, 'bad' raise, 'dies' exit."""
    if "slow" in ref.name:
        while True:
            pass
    if "bad" in ref.name:
        raise ValueError("unsupported instruction")
    if "dies" in ref.name:
        os._exit(3)
    return {"cycles": ref.cycles_hw * 1.1, "inst": 2.0, "stall": "wait"}


def test_runner_keeps_order_and_reports_every_record_it_could_not_simulate():
    refs = [_ref("ok1__s"), _ref("slow__s"), _ref("bad__s"), _ref("dies__s"), _ref("ok2__s", hw=20_000),
            val.RecordRef(**{**_ref("big__s").__dict__, "left_out": "too big"})]
    seen = []
    outs = val.run_records(refs, val.SimOptions(), _fake_simulate, jobs=2, time_limit_s=1,
                           progress=lambda o, done, total: seen.append((o.ref.name, done, total)))
    assert [o.ref.name for o in outs] == [r.name for r in refs]
    assert sorted(n for n, _, _ in seen) == sorted(r.name for r in refs) and seen[-1][1:] == (6, 6)
    by = {o.ref.name: o for o in outs}
    assert by["ok1__s"].cycles_sim == pytest.approx(11_000) and by["ok2__s"].error == pytest.approx(0.1)
    assert by["slow__s"].reason == "time limit of 1 s reached (CPU)"
    assert by["bad__s"].reason == "ValueError: unsupported instruction"
    assert by["dies__s"].reason == "the simulating process died (exit code 3)"
    assert by["big__s"].reason == "too big"


def test_records_above_sample_above_are_timed_sampled_and_the_others_in_full(tmp_path):
    _write(tmp_path, "k1__small", cycles=5000, counters={val.INST: 1e6})
    _write(tmp_path, "k2__big", cycles=9e6, counters={val.INST: 5e8})
    refs, _ = val.find_records([tmp_path], "base", sample_above=5e6)
    assert [(r.name, r.sample) for r in refs] == [("k1__small", False), ("k2__big", True)]
    refs, _ = val.find_records([tmp_path], "base")
    assert [r.sample for r in refs] == [None, None]                # gpusim.run's automatic choice


def test_a_sampled_record_says_so_with_its_bound_in_the_tables_and_results(tmp_path):
    def fake(ref, options):
        return {**_fake_simulate(ref, options), "sampled_bound_pct": 12.5 if "big" in ref.name else None}
    refs = [_ref("small__s", hw=5_000), _ref("big__s", hw=3e6)]
    v = val.Validation(val.run_records(refs, val.SimOptions(), fake))
    assert [o.sampled_bound_pct for o in v.outcomes] == [None, 12.5]
    assert "| >= 2M | 1 | 1 | 1 | 10.0% |" in v.text and "| all | 2 | 2 | 1 | 10.0% |" in v.text
    assert "- `big` s: 3,300,000 vs 3,000,000 (+10%, sampled: estimate +/- 12%)" in v.text
    assert "| full detail | 1 | 1 | 0 | 10.0% |" in v.text and "| sampled | 1 | 1 | 1 | 10.0% |" in v.text
    assert "| timed |" not in val.Validation(v.outcomes[:1]).text          # no sampled launch: no such table
    val.write_results(v, tmp_path / "r.json")
    assert val.read_results(tmp_path / "r.json").outcomes[1].sampled_bound_pct == 12.5


def test_simulate_record_samples_when_the_record_says_so():
    refs = {r.name: r for r in val.find_records([GOLDEN], "base", name_pattern="^vector_add__default$",
                                                sample_above=0)[0]}
    got = val.simulate_record(refs["vector_add__default"], val.SimOptions())
    assert got["sampled_bound_pct"] is not None and got["cycles"] > 0


def test_runner_in_process_without_jobs_or_limit():
    outs = val.run_records([_ref("ok__s"), _ref("bad__s")], val.SimOptions(), _fake_simulate)
    assert outs[0].ok and outs[1].reason == "ValueError: unsupported instruction"


def test_boost_clock_uses_the_boost_preset_and_names_it_where_it_is_missing(tmp_path):
    from gpusim.config.loader import preset_names
    assert val.boost_preset_name("h100") == "h100-boost" and val.boost_preset_name("h100-boost") == "h100-boost"
    assert val.gpu_at_clock("h100", "base").name == "h100"
    if "h100-boost" in preset_names():
        assert val.gpu_at_clock("h100", "boost").name == "h100-boost"
    else:
        with pytest.raises(GpusimError, match="no h100-boost preset in this gpusim"):
            val.gpu_at_clock("h100", "boost")
    with pytest.raises(GpusimError, match="no a100x-boost preset"):
        val.gpu_at_clock("a100x", "boost")
    boost_toml = tmp_path / "mine-boost.toml"                       # a boost preset given as a file is used as is
    boost_toml.write_text((Path(val.__file__).parents[1] / "config" / "presets" / "h100.toml").read_text())
    assert val.gpu_at_clock(str(boost_toml), "boost").name == "h100"
    with pytest.raises(GpusimError, match="give the GPU at its boost clock with --gpu"):
        val.gpu_at_clock(str(tmp_path / "other.toml"), "boost")


def test_without_a_gpu_at_that_clock_every_record_is_listed_with_the_reason():
    opts = val.SimOptions(gpu="a100x", clock="boost")
    v = val.run_validation([_ref("ok1__s"), _ref("ok2__s")], opts, simulate=_fake_simulate, jobs=2)
    assert [o.reason for o in v.outcomes] == [v.outcomes[0].reason] * 2
    assert "no a100x-boost preset" in v.outcomes[0].reason and v.overall().simulated == 0


def test_the_clock_of_a_records_folder(tmp_path):
    _write(tmp_path / "boost", "k__s", cycles=7000, clock_control="none")
    _write(tmp_path / "base", "k__s", cycles=5000, clock_control="base")
    assert val.records_clock([tmp_path / "boost"]) == "boost"
    assert val.records_clock([tmp_path / "base", tmp_path / "boost"]) == "base"
    assert val.records_clock([GOLDEN.parent / "h100-boost"]) == "boost" and val.records_clock([GOLDEN]) == "base"


# -- text and results file --------------------------------------------------------------------------------------
def _validation() -> val.Validation:
    refs = [_ref("a__s", suite="lecture", hw=5_000, inst=10, stall="wait"),
            _ref("b__s", suite="SHOC", hw=50_000, inst=10, stall="long_scoreboard"),
            _ref("c__s", suite="Parboil", hw=500_000), _ref("bad__s", suite="SHOC", hw=3e6)]
    outs = val.run_records(refs, val.SimOptions(), _fake_simulate)
    return val.Validation(outs, skipped=[("e__s", "no measured cycles (recorded without ncu)")])


def test_text_has_a_row_per_suite_and_size_class_the_worst_five_and_every_reason():
    text = _validation().text
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[:5] == ["| suite", "| lecture", "| Parboil", "| SHOC", "| all"]
    assert rows[5:] == ["| size class (H100 cycles)", "| < 20k", "| 20k-200k", "| 200k-2M", "| >= 2M", "| all"]
    assert "| SHOC | 2 | 1 | 0 | 10.0% |" in text
    assert "- `c` s: 550,000 vs 500,000 (+10%)" in text
    assert "not simulated: bad__s: ValueError: unsupported instruction" in text
    assert "not simulated: e__s: no measured cycles" in text
    assert "other than 'selected'" in text


def test_results_file_round_trips(tmp_path):
    v = _validation()
    val.write_results(v, tmp_path / "r.json", command="gpusim validate --golden x")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["command"] == "gpusim validate --golden x" and len(doc["date"]) == 10
    assert doc["overall"]["simulated"] == 3 and doc["by_suite"]["SHOC"]["launches"] == 2
    assert val.read_results(tmp_path / "r.json").text == v.text


def test_against_an_earlier_run_shows_both_figures_and_what_moved(tmp_path):
    v = _validation()
    earlier = val.Validation([val.Outcome(o.ref, cycles_sim=o.ref.cycles_hw * (1.3 if o.ref.name == "b__s" else 1.1))
                              if o.ok else o for o in v.outcomes])
    text = val.format_against(v, earlier)
    assert "against 3 launches simulated in both runs" in text
    assert "| SHOC | 1 | 10.0% | 30.0% | 10.0% | 30.0% |" in text and "| all | 3 |" in text
    moved = text.split("moved most")[1].strip().splitlines()[1:]
    assert len(moved) == 1 and moved[0].split()[0] == "b__s" and "+30.0% ->   +10.0%" in moved[0]
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(GpusimError, match="bad.json: not a results file"):
        val.read_results(tmp_path / "bad.json")


def test_only_selects_records_by_file_name(tmp_path):
    _write(tmp_path, "polybench__gemm__small", cycles=5000)
    _write(tmp_path, "vector_add__small", cycles=5000)
    refs, _ = val.find_records([tmp_path], name_pattern="gemm|nothing")
    assert [r.name for r in refs] == ["polybench__gemm__small"]
    with pytest.raises(GpusimError, match="not a regular expression"):
        val.find_records([tmp_path], name_pattern="(")


# -- the command ------------------------------------------------------------------------------------------------
def test_cli_validate_small_records(capsys, tmp_path):
    from gpusim.cli import main
    out_json = tmp_path / "v.json"
    assert main(["validate", "--golden", str(GOLDEN), str(GOLDEN / "suites"), "--program", "vector_add",
                 "--program", "saxpy_hand", "--max-threads", "20000", "--quiet", "--out", str(out_json),
                 "--plot", str(tmp_path / "v.png")]) == 0
    out = capsys.readouterr().out
    assert "| lecture | 5 | 2 |" in out and "| all | 5 | 2 |" in out
    assert "not simulated: vector_add__large:" in out and "> --max-threads 20000" in out
    doc = json.loads(out_json.read_text())
    assert doc["command"].startswith("gpusim validate --golden ") and "--max-threads 20000" in doc["command"]
    assert sum(math.isfinite(r["error"] or math.nan) for r in doc["records"]) == 2
    assert (tmp_path / "v.png").stat().st_size > 0
    assert main(["validate", "--golden", str(GOLDEN), "--only", "^vector_add__small$", "--quiet",
                 "--against", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "| lecture | 1 | 1 |" in out and "against 1 launches simulated in both runs" in out


def test_cli_reuse_keeps_earlier_results_and_simulates_the_rest(capsys, tmp_path):
    """--reuse FILE keeps each record FILE simulated (its figures, not simulated again: here a made-up 1,234
    cycles shows it was kept), simulates what FILE lacks or failed on and what --redo names, and refuses a file
    of another preset or clock."""
    from gpusim.cli import main
    first = tmp_path / "first.json"
    assert main(["validate", "--golden", str(GOLDEN), "--only", "^vector_add__small$", "--quiet",
                 "--out", str(first)]) == 0
    doc = json.loads(first.read_text())
    doc["records"][0]["cycles_sim"] = 1234.0
    first.write_text(json.dumps(doc))
    both = ["validate", "--golden", str(GOLDEN), "--only", "^(vector_add|saxpy_hand)__small$", "--quiet"]
    second = tmp_path / "second.json"
    assert main([*both, "--reuse", str(first), "--out", str(second)]) == 0
    capsys.readouterr()
    got = {r["name"]: r["cycles_sim"] for r in json.loads(second.read_text())["records"]}
    assert got["vector_add__small"] == 1234.0 and got["saxpy_hand__small"] > 1000
    doc2 = json.loads(second.read_text())
    assert "--reuse" not in doc2["command"] and doc2["reused"]["kept"] == 1 and doc2["reused"]["file"] == str(first)

    def cycles(*extra):
        main([*both, "--reuse", str(first), *extra, "--out", str(second)])      # 1 when none is counted
        return {r["name"]: r["cycles_sim"] for r in json.loads(second.read_text())["records"]}
    assert cycles("--redo", "vector")["vector_add__small"] != 1234.0
    # timed otherwise now (sampled where it was in full detail): simulated again
    assert cycles("--sample-above", "0")["vector_add__small"] != 1234.0
    # left out now (too many warp instructions): not counted from the earlier file either
    assert cycles("--max-warp-inst", "1")["vector_add__small"] is None
    with pytest.raises(SystemExit, match="not gpu=a100"):
        main([*both, "--gpu", "a100", "--reuse", str(first)])
    with pytest.raises(SystemExit, match="--redo needs --reuse"):
        main([*both, "--redo", "x"])
    with pytest.raises(SystemExit, match="--redo '\\(': not a regular expression"):
        main([*both, "--reuse", str(first), "--redo", "("])


def test_cli_out_holds_the_records_done_while_the_run_goes_on(tmp_path, monkeypatch):
    """--out is rewritten as each record finishes, marked partial with how many of how many are done, so that a
    run stopped before its end (a time limit on the machine) leaves what it did for --reuse to take up."""
    from gpusim.cli import main
    from gpusim.hw import validate as val
    out = tmp_path / "run.json"
    seen = []
    real = val.write_results

    def spy(v, path, command=None, reused=None, partial=None):
        real(v, path, command=command, reused=reused, partial=partial)
        seen.append(json.loads(Path(path).read_text()))
    monkeypatch.setattr(val, "write_results", spy)
    assert main(["validate", "--golden", str(GOLDEN), "--only", "^(vector_add|saxpy_hand)__small$", "--quiet",
                 "--out", str(out)]) == 0
    assert [d.get("partial") for d in seen] == [{"records_done": 1, "of": 2}, {"records_done": 2, "of": 2}, None]
    assert len(seen[0]["records"]) == 1 and len(seen[-1]["records"]) == 2
    # a stopped run: its partial file is taken up, the record it has kept, the other simulated
    stopped = tmp_path / "stopped.json"
    stopped.write_text(json.dumps(seen[0]))
    monkeypatch.setattr(val, "write_results", real)
    done = seen[0]["records"][0]["name"]
    assert main(["validate", "--golden", str(GOLDEN), "--only", "^(vector_add|saxpy_hand)__small$", "--quiet",
                 "--reuse", str(stopped), "--out", str(out)]) == 0
    final = json.loads(out.read_text())
    assert "partial" not in final and final["reused"]["kept"] == 1
    assert {r["name"] for r in final["records"]} == {"vector_add__small", "saxpy_hand__small"} and done


# -- the README's table ------------------------------------------------------------------------------------------
RESULTS = Path(__file__).resolve().parents[2] / "gpusim" / "hw" / "validation_h100.json"


def test_committed_results_are_the_current_models():
    """The README's agreement table is rendered from gpusim/hw/validation_h100.json (tests/test_readme.py checks
    the rendering). The smallest simulated record of each suite is simulated again here: a model change that
    moves its cycles fails until `gpusim validate` is run again with the command in that file (and
    `python tools/readme_tables.py`)."""
    v = val.read_results(RESULTS)
    doc = json.loads(RESULTS.read_text())
    assert doc["command"].startswith("gpusim validate --golden") and v.overall().simulated >= 100
    picks = {}
    for o in sorted(v.simulated, key=lambda o: o.ref.inst_hw or math.inf):
        picks.setdefault(o.ref.suite, o)
    refs = {r.name: r for r in val.find_records([GOLDEN], "base")[0]}
    for o in picks.values():
        got = val.simulate_record(refs[o.ref.name], val.SimOptions())
        assert got["cycles"] == o.cycles_sim, (
            f"{o.ref.name}: {got['cycles']:,.0f} simulated now, {o.cycles_sim:,.0f} in {RESULTS.name}: re-run "
            f"`{doc['command']} --out {RESULTS.relative_to(RESULTS.parents[2])}` and python tools/readme_tables.py")

