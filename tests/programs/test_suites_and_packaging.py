"""The validation suites (``programs/suites/<suite>/*.toml``) are listed and run like the bundled programs, and
the package ships every file the programs need."""
from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import gpusim
import programs
from gpusim.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def suites(tmp_path, monkeypatch):
    """A suites folder with one program, 'add' in suite 'demo' (vector_add's files)."""
    folder = tmp_path / "suites" / "demo"
    folder.mkdir(parents=True)
    for ext in (".cu", ".ptx"):
        shutil.copy(programs.HERE / f"vector_add{ext}", folder / f"add{ext}")
    text = (programs.HERE / "vector_add.toml").read_text().replace('topic = "kernel basics',
                                                                  'suite = "Demo"\ntopic = "kernel basics')
    shutil.copy(programs.HERE / "references.py", folder / "references.py")
    (folder / "add.toml").write_text(text)
    monkeypatch.setattr(programs, "SUITES", tmp_path / "suites")
    return folder


def test_gpusim_programs_lists_the_suites(suites, capsys):
    assert main(["programs"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:2] == ["program", "suite"]
    row = [line for line in out if line.startswith("add ")]
    assert len(row) == 1 and row[0].split()[1] == "demo" and row[0].split()[2] == "vector_add"
    assert any(line.startswith("vector_add ") and line.split()[1] == "bundled" for line in out)
    assert [s for s, _ in programs.suite_specs()] == ["demo"] and programs.suite_specs()[0][1].suite == "Demo"


def test_a_suite_kernel_runs_from_its_checked_in_ptx(suites):
    res = gpusim.run(suites / "add.cu", mode="emulate", size="small", check=True)   # no CUDA compiler needed
    assert res.check.ok and res.program.name == "add"


def test_the_repository_has_no_suites_yet_or_they_all_load():
    for suite, spec in programs.suite_specs():
        assert spec.ptx_path.exists(), f"{suite}/{spec.name}: no checked-in PTX beside the launch file"


def test_package_data_ships_every_program_file():
    """Every file under programs/ that is not a python module of the package matches a package-data pattern."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["programs"]
    missing = []
    for p in sorted(programs.HERE.rglob("*")):
        rel = p.relative_to(programs.HERE).as_posix()
        if p.is_dir() or "__pycache__" in rel or (p.suffix == ".py" and "/" not in rel):
            continue
        if not any(fnmatch.fnmatch(rel, pat) and rel.count("/") == pat.count("/") for pat in patterns):
            missing.append(rel)
    assert not missing, f"not shipped by pyproject.toml's package-data: {missing}"
    for pat in ("suites/*/*.toml", "suites/*/*.cu", "suites/*/*.ptx", "suites/*/*.py", "*.toml"):
        assert pat in patterns
