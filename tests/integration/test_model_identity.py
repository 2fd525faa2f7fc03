"""Refactors of the model keep every number: each bundled program at every small size, on three presets and
three schedulers, gives the outputs, cycles, counters and stall totals captured in ``model_identity.json``.

A change that is meant to move the numbers re-captures the file (``python
tests/integration/model_identity.py --capture``) in the same commit and says why.
"""
from __future__ import annotations

import json

import pytest

from model_identity import BASELINE, cases, key, measure

_BASE = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
CASES = cases()


def test_the_baseline_covers_every_case():
    assert sorted(_BASE) == sorted(key(c) for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[key(c) for c in CASES])
def test_outputs_cycles_counters_and_stalls_equal_the_captured_baseline(case):
    want = _BASE[key(case)]
    got = measure(*case)
    assert got["outputs"] == want["outputs"]
    assert got["cycles"] == want["cycles"]
    assert got["stalls"] == want["stalls"]
    diff = {k: (got["counters"].get(k), v) for k, v in want["counters"].items() if got["counters"].get(k) != v}
    assert not diff, diff
    assert set(got["counters"]) == set(want["counters"])
