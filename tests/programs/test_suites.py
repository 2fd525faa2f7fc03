"""Every validation-suite kernel (``programs/suites/<suite>/<name>.toml``) runs at its ``small`` sizes in the
functional emulator from its checked-in PTX and matches its numpy reference under the launch file's tolerance,
and its outputs are bit-identical to the H100's (``tests/golden/h100/suites/``) unless its PTX uses
``.approx`` instructions or float atomics (whose order, on the GPU, is not fixed).

Data-driven from the launch files: a new kernel is covered by adding its files.  A kernel whose PTX uses a
construct the emulator does not support yet is listed in the "Needs ISA support" table of
``programs/suites/README.md`` (suite, program, construct, error); it is expected to fail here (strictly: once
the ISA supports it, the test says so, and the row comes out of the table).
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

import gpusim
import programs
from gpusim.launch import load

README = programs.SUITES / "README.md"


def needs_isa_support() -> dict[tuple[str, str], str]:
    """``{(suite folder, program): construct}`` from the README's "Needs ISA support" table."""
    if not README.is_file():
        return {}
    text = README.read_text()
    m = re.search(r"^#+ Needs ISA support\s*$(.*?)(?=^#|\Z)", text, re.MULTILINE | re.DOTALL)
    rows = {}
    for line in (m.group(1) if m else "").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[1].startswith("`"):
            rows[(cells[0].strip("`"), cells[1].strip("`"))] = cells[2]
    return rows


NEEDS_ISA = needs_isa_support()
CASES = [pytest.param(suite, spec.name, size, id=f"{suite}/{spec.name}-{size}",
                      marks=[pytest.mark.xfail(reason=f"needs ISA support: {NEEDS_ISA[suite, spec.name]}",
                                               strict=True)] if (suite, spec.name) in NEEDS_ISA else [])
         for suite, spec in programs.suite_specs() for size in spec.sizes if size.startswith("small")]


RECORDS = Path(__file__).resolve().parents[1] / "golden" / "h100" / "suites"
_INEXACT = re.compile(r"\.approx|\b(?:atom|red)\.[\w.]*\.(?:f16|bf16|f32|f64)\b")


def h100_record(suite: str, name: str, size: str) -> dict | None:
    path = RECORDS / f"{suite}__{name}__{size}.json"
    return json.loads(path.read_text()) if path.is_file() else None


@pytest.mark.parametrize("suite,name,size", CASES)
def test_suite_kernel_matches_reference_in_emulation_and_the_h100_bit_for_bit(suite, name, size):
    spec = load(programs.SUITES / suite / f"{name}.toml")
    result = gpusim.run(spec.ptx_path, mode="emulate", size=size, check=True)
    assert result.check.ok, result.check.message
    rec = h100_record(suite, name, size)
    if rec is None or _INEXACT.search(spec.ptx_path.read_text()):
        return
    assert rec["seed"] == 0
    for idx, out in rec["outputs"].items():
        got = hashlib.sha256(np.ascontiguousarray(result.args[int(idx)]).tobytes()).hexdigest()
        assert got == out["sha256"], f"argument {idx} differs from the H100's output"


def test_every_needs_isa_row_names_a_suite_kernel():
    known = {(suite, spec.name) for suite, spec in programs.suite_specs()}
    assert set(NEEDS_ISA) <= known, f"README rows without a kernel: {sorted(set(NEEDS_ISA) - known)}"


def test_every_suite_kernel_has_a_small_size_and_names_its_suite():
    for suite, spec in programs.suite_specs():
        assert any(s.startswith("small") for s in spec.sizes), f"{suite}/{spec.name}: no small size"
        assert spec.suite, f"{suite}/{spec.name}: [program] suite is not set"
        assert len(spec.sizes) >= 2, f"{suite}/{spec.name}: needs a realistic size besides small"


def test_entry_names_are_unique_across_the_corpus_and_the_bundled_programs():
    """One name, one kernel: a device batch that records the corpus can select launches by entry name."""
    seen: dict[str, str] = {}
    owners = [(name, programs.get(name)) for name in programs.names()]
    owners += [(f"{suite}/{spec.name}", spec) for suite, spec in programs.suite_specs()]
    for owner, spec in owners:
        for kernel in spec.kernels:
            assert kernel not in seen, f"entry {kernel!r} in both {seen[kernel]} and {owner}"
            seen[kernel] = owner
