"""The checker on the bug corpus (``programs/bugs/``), against compute-sanitizer on the H100
(``tests/golden/h100/sanitizer/``, the manifest's ``[bug.sanitizer]``): issue 13's acceptance.

- every planted bug is reported by its tool as its kind, at planted lines only, at every line
  compute-sanitizer named, and nothing else (no other tool, no other line) is reported for the kernel;
- races: the hazard classes are among the manifest's, share one with compute-sanitizer's where it reported
  the bug, and the scope (lanes of one warp, warps of a block, blocks of a launch) is the planted one;
- every fixed twin is clean under every tool (global races compared across blocks too), and completes;
- the comparison table in ``programs/bugs/README.md`` is current (``python -m programs.bugs.checked
  --readme``), and says what gpusim finds beyond compute-sanitizer.

One run per kernel (cached by :func:`programs.bugs.checked.outcome`): the whole corpus in about a second.
"""
from __future__ import annotations

import pytest

from programs import bugs
from programs.bugs import checked
from programs.bugs.checked import KINDS, hazard_class, outcome

MANIFEST = bugs.manifest()
BUGS = [pytest.param(b, id=b["name"]) for b in MANIFEST]


@pytest.mark.parametrize("bug", BUGS)
def test_the_bug_is_reported_as_its_kind_at_its_lines(bug):
    tool, kinds = KINDS[bug["kind"]]
    got = outcome(bug["name"])
    mine = got.of(tool)
    assert mine, f"{bug['name']}: {tool} reports nothing"
    assert all(f[1] in kinds for f in mine), mine
    assert got.lines(tool) <= set(bug["lines"]), (sorted(got.lines(tool)), bug["lines"])
    if bug["sanitizer"]["found"]:
        assert set(bug["sanitizer"]["lines"]) <= got.lines(tool)
    assert [f for f in got.findings if f[0] != tool] == []
    assert got.completed


@pytest.mark.parametrize("bug", [b for b in BUGS if b.values[0]["kind"] == "race"])
def test_a_race_is_reported_with_its_hazard_classes_and_scope(bug):
    got = outcome(bug["name"]).of("racecheck")
    classes = {f[1].split()[0] for f in got}
    assert classes <= set(bug["hazard"])
    cs = bug["sanitizer"]
    if cs["found"]:
        assert classes & {c.split()[0] for c in cs["classes"]}
        # compute-sanitizer's warp-level warnings are ours too, and its block-level errors
        theirs = {("warp" if "warp level" in c else "block") for c in cs["classes"]}
        assert theirs <= {f[2] for f in got}
    assert bug["scope"] in {f[2] for f in got}
    severities = {f[3] for f in got}
    assert severities == {"warning"} if bug["scope"] == "warp" else "error" in severities


@pytest.mark.parametrize("bug", BUGS)
def test_the_fixed_twin_is_clean(bug):
    got = outcome(bug["fixed"])
    assert got.clean, got.findings


def test_gpusim_finds_every_bug_compute_sanitizer_found_and_more():
    found = [b["name"] for b in MANIFEST if outcome(b["name"]).of(KINDS[b["kind"]][0])]
    theirs = [b["name"] for b in MANIFEST if b["sanitizer"]["found"]]
    assert set(theirs) <= set(found) and len(found) == len(MANIFEST)
    assert len(found) - len(theirs) >= 15          # global races, shared/local initcheck, masks, barriers


def test_the_readme_table_is_current():
    text = bugs.HERE.joinpath("README.md").read_text()
    body = text[text.index(checked.README_BEGIN) + len(checked.README_BEGIN):text.index(checked.README_END)]
    assert body.strip() == checked.table().strip(), "python -m programs.bugs.checked --readme"


def test_hazard_classes_read_as_compute_sanitizers():
    assert hazard_class("RAW hazard", "warp") == "RAW (warp level)"
    assert hazard_class("WAW hazard", "grid") == "WAW (across blocks)"


def test_the_launch_files_say_what_the_manifest_says_of_the_host_side():
    from gpusim.launch import load
    for kernel in bugs.kernels():
        spec = load(bugs.path(kernel, ".toml"))
        states = {st: [spec.args[i].name for i in idx] for st, idx in spec.host_states().items()}
        assert states == bugs.host_setup(kernel), kernel
