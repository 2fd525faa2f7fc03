"""The bundled programs' inputs are the ones the H100 records were made from: every argument and symbol of
every program, size and seeds 0 and 1 has the digest recorded in ``input_digests.json`` (written from the
manifest before the programs moved to launch files, when a test showed both bit-identical)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import programs

DIGESTS = json.loads(Path(__file__).with_name("input_digests.json").read_text())


def digest(x) -> str:
    a = np.asarray(x)
    return (f"{type(x).__name__}:{a.dtype}:{list(a.shape)}:"
            + hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:20])


def test_every_program_and_size_is_recorded():
    have = {f"{n}/{s}/{seed}" for n in programs.names() for s in programs.get(n).sizes for seed in (0, 1)}
    assert have == set(DIGESTS)


@pytest.mark.parametrize("name", programs.names())
def test_inputs_are_bit_identical_to_the_recorded_ones(name):
    spec = programs.get(name)
    for size in spec.sizes:
        for seed in (0, 1):
            want = DIGESTS[f"{name}/{size}/{seed}"]
            assert [digest(a) for a in spec.make_args(size, seed)] == want["args"], f"{name} {size} seed {seed}"
            assert {k: digest(v) for k, v in spec.make_symbols(size, seed).items()} == want["symbols"]
