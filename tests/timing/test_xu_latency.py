"""Datasheet of the XU latencies on the h100 preset against the H100's record (``tests/golden/h100/micro/xulat``).

``xulat.cu`` runs one thread through 17 trips of 64 dependent steps; the record holds the SM cycles per step the
H100 took (clock64 around 16 trips).  The model runs the same kernels (``xulat.ptx``: nvcc 13.0 -ptx -arch=sm_90
-O3 of ``xulat.cu``) and a step costs (cycles of the kernel - cycles of ``lat_fadd``) / 1088 plus the record's
``lat_fadd`` step: the difference to the FADD chain takes launch and loop overheads out of both.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim

pytestmark = pytest.mark.filterwarnings("ignore::gpusim.functional.host.DtypeMismatchWarning")  # st.f32 into the uint sink

RECORD = Path(__file__).resolve().parents[1] / "golden" / "h100" / "micro" / "xulat"
PTX = (RECORD / "xulat.ptx").read_text()
MEASURED = {r["kernel"]: r["cycles_per_step_median"] for r in json.loads((RECORD / "xulat.json").read_text())["rows"]}
STEPS = 17 * 64


def _cycles(kernel: str) -> int:
    sink, out = np.zeros(1, np.uint32), np.zeros(1, np.float32)
    return gpusim.run(PTX, kernel=kernel, grid=(1, 1, 1), block=(1, 1, 1), args=[12345, 7, sink, out],
                      mode="timing", gpu="h100", sample=False).timing.cycles


@pytest.fixture(scope="module")
def fadd_cycles() -> int:
    return _cycles("lat_fadd")


def _per_step(kernel: str, fadd_cycles: int) -> float:
    return (_cycles(kernel) - fadd_cycles) / STEPS + MEASURED["lat_fadd"]


@pytest.mark.parametrize("kernel,what", [
    ("lat_rcp", "MUFU.RCP + FADD: 23.3 cycles a step on the H100"),
    ("lat_i2f_f2i", "I2F.U32.RP + F2I.U32.TRUNC + IADD: 40.3"),
    ("lat_imad", "IMAD: 4.3"),
])
def test_xu_and_imad_chains_take_the_measured_cycles_within_3_percent(kernel, what, fadd_cycles):
    assert _per_step(kernel, fadd_cycles) == pytest.approx(MEASURED[kernel], rel=0.03), what


# The tail's dependent steps include two ISETP -> guarded-correction hops a step (guard_latency_cycles, 14 on
# the h100 preset): without them the model gave 44.7 / 40.7 cycles a step; with them 64.7 / 60.7.
@pytest.mark.parametrize("kernel", ["lat_udiv", "lat_urem"])
def test_a_division_by_an_invariant_register_takes_the_measured_cycles_within_10_percent(kernel, fadd_cycles):
    assert _per_step(kernel, fadd_cycles) == pytest.approx(MEASURED[kernel], rel=0.10)


@pytest.mark.parametrize("kernel", ["lat_udiv", "lat_urem"])
def test_a_division_by_an_invariant_register_issues_no_xu_work_in_the_loop(kernel):
    # ptxas hoists the reciprocal out of the loop (xulat.sass: one I2F, MUFU.RCP, F2I before it, none in it)
    from gpusim.timing.divrem import find_divisions
    from isa.units import Unit
    trace = gpusim.run(PTX, kernel=kernel, grid=(1, 1, 1), block=(1, 1, 1),
                       args=[12345, 7, np.zeros(1, np.uint32), np.zeros(1, np.float32)], mode="emulate",
                       record_trace=True).trace
    found = find_divisions(trace)
    assert len(found) == 64
    assert not any(step.unit is Unit.SFU for seq in found.values() for step in seq)
