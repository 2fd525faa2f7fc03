"""The emulator's outputs equal the recorded H100 outputs (``tests/golden/h100/*.npz``) bit for bit.

Every bundled kernel is expected to be bit-exact against the GPU: their PTX uses only exactly specified
arithmetic (integer ops; ``add/sub/mul.f32`` without a rounding suffix, which is round-to-nearest;
``fma.rn.f32``), integer atomics only (so the order of atomic updates cannot change a result), and no
approximate instruction (``.approx``, ``.ftz``, ``rsqrt``, ``ex2``, ``div.full``).  A kernel whose PTX has
one of those would need a tolerance: :data:`APPROXIMATE` says which (none today), and
:func:`test_no_unexpected_approximate_instructions` fails when a new program brings one in, so that the
tolerance is chosen deliberately.  One caveat, checked by these very tests: ptxas may contract a
``mul.f32`` followed by an ``add.f32`` into one FFMA (PTX allows it without ``.rn``); none of the bundled
kernels has such a pair where it changes the result, which the recorded outputs confirm.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import programs
from golden import load, records, simulated

#: program -> (rtol, why). Empty: every program is compared bit for bit.
APPROXIMATE: dict[str, tuple[float, str]] = {}

APPROX_RE = re.compile(r"\.approx|\.ftz|\brsqrt\b|\bex2\b|\blg2\b|\bsin\b|\bcos\b|div\.full|atom\.[a-z.]*\.f(16|32|64)")

CASES = records(with_arrays=True)


def test_records_exist_for_every_program_at_two_sizes():
    from golden import GOLDEN
    import json
    have: dict[str, set] = {}
    for p in GOLDEN.glob("*__*.json"):
        r = json.loads(p.read_text())
        have.setdefault(r["program"], set()).add(r["size"])
    missing = [n for n in programs.names() if len(have.get(n, ())) < 2]
    assert not missing, f"programs with fewer than two recorded sizes: {missing}"


def test_recorded_gpu_outputs_passed_the_reference_check():
    from golden import GOLDEN
    import json
    bad = [p.stem for p in GOLDEN.glob("*__*.json") if not json.loads(p.read_text())["check"]["ok"]]
    assert not bad


@pytest.mark.parametrize("name", sorted({programs.get(n).name for n in programs.names()}))
def test_no_unexpected_approximate_instructions(name):
    ptx = programs.get(name).ptx_path.read_text()
    found = sorted(set(m.group(0) for m in APPROX_RE.finditer(ptx)))
    if name in APPROXIMATE:
        assert found, f"{name} is listed in APPROXIMATE but its PTX has no approximate instruction"
    else:
        assert not found, (f"{name} uses {found}: its GPU output need not equal the emulator's bit for bit; "
                           f"add it to APPROXIMATE with a tolerance and the reason")


@pytest.mark.parametrize("name", CASES)
def test_emulator_output_equals_recorded_gpu_output(name):
    from gpusim.hw.compare import output_agreement
    rec = load(name)
    sim = simulated(name, "emulate")
    assert rec["arrays"], f"{name}: no arrays recorded"
    for idx, measured in rec["arrays"].items():
        got = np.asarray(sim.args[idx])
        if rec["program"] in APPROXIMATE:
            rtol, why = APPROXIMATE[rec["program"]]
            np.testing.assert_allclose(got, measured, rtol=rtol, err_msg=why)
        else:
            agree = output_agreement(got, measured)
            assert agree["bit_exact"] == agree["n"], f"{name} arg {idx}: {agree}"


def test_digest_of_a_big_record_matches():
    """Records too big for an array keep a SHA-256 digest: check one cheap such record against it."""
    from gpusim.hw.compare import outputs_vs_record
    rec = load("vector_add__default")
    assert not rec["arrays"]
    sim = simulated("vector_add__default", "emulate")
    for idx, o in outputs_vs_record(sim.args, rec).items():
        assert o["note"] == "digest matches", (idx, o)
