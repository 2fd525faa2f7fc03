"""Datasheet of the guard latency (``guard_latency_cycles``): how long an instruction guarded by a predicate
waits for the instruction that wrote it, against the record ``tests/golden/h100/micro/xulat/xulat_pred.json``.

``xulat.cu`` runs one thread through 17 trips of 64 dependent steps (an H200, the GH100 chip: the H100's eight
other xulat kernels reproduce to 0.01 cycle).  ``lat_setp_selp``: ``ISETP`` -> ``SEL`` (the predicate read as an
operand) -> ``ISETP``..., 8.34 cycles a step; ``lat_setp_padd``: ``ISETP`` -> ``@P1 VIADD`` (the predicate as its
guard) -> ``ISETP``..., 18.26 (``xulat_pred.sass``).  A step is measured as in ``test_xu_latency.py``: (cycles
of the kernel - cycles of ``lat_fadd``) / 1088 + the record's ``lat_fadd`` step.

    kernel          H100 (H200)   h100 preset   guard_latency_cycles = 0
    lat_setp_selp   8.34          8.76          8.76
    lat_setp_padd   18.26         18.71         8.71
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.timing.decode import DecodedKernel
from gpusim.timing.synthetic import make_trace

pytestmark = pytest.mark.filterwarnings("ignore::gpusim.functional.host.DtypeMismatchWarning")

RECORD = Path(__file__).resolve().parents[1] / "golden" / "h100" / "micro" / "xulat"
PTX = (RECORD / "xulat.ptx").read_text()
MEASURED = {r["kernel"]: r["cycles_per_step_median"] for r in json.loads((RECORD / "xulat_pred.json").read_text())["rows"]}
STEPS = 17 * 64


def _cycles(kernel: str, gpu) -> int:
    sink, out = np.zeros(1, np.uint32), np.zeros(1, np.float32)
    return gpusim.run(PTX, kernel=kernel, grid=(1, 1, 1), block=(1, 1, 1), args=[12345, 7, sink, out],
                      mode="timing", gpu=gpu, sample=False).timing.cycles


@pytest.fixture(scope="module")
def per_step():
    presets = {"h100": load_gpu("h100"), "no_guard": load_gpu("h100", overrides={"guard_latency_cycles": 0})}
    out = {}
    for name, gpu in presets.items():
        fadd = _cycles("lat_fadd", gpu)
        for kernel in ("lat_setp_selp", "lat_setp_padd"):
            out[name, kernel] = (_cycles(kernel, gpu) - fadd) / STEPS + MEASURED["lat_fadd"]
    return out


def test_the_h100_preset_guard_latency_is_the_record_s():
    # a guard waits padd - selp + the operand's 4 cycles: 18.26 - 8.34 + 4 = 13.9
    assert load_gpu("h100").guard_latency_cycles == round(MEASURED["lat_setp_padd"] - MEASURED["lat_setp_selp"] + 4)


@pytest.mark.parametrize("kernel", ["lat_setp_selp", "lat_setp_padd"])
def test_a_setp_chain_takes_the_measured_cycles_a_step_within_6_percent(kernel, per_step):
    assert per_step["h100", kernel] == pytest.approx(MEASURED[kernel], rel=0.06)


def test_a_guard_costs_the_measured_cycles_over_an_operand_within_half_a_cycle(per_step):
    model = per_step["h100", "lat_setp_padd"] - per_step["h100", "lat_setp_selp"]
    assert model == pytest.approx(MEASURED["lat_setp_padd"] - MEASURED["lat_setp_selp"], abs=0.5)


def test_without_the_guard_latency_a_guard_waits_the_setp_s_alu_latency(per_step):
    # guard_latency_cycles = 0 is the model before it (a100, pmpp): padd's step costs what selp's does
    assert per_step["no_guard", "lat_setp_padd"] == pytest.approx(per_step["no_guard", "lat_setp_selp"], abs=0.2)
    assert per_step["no_guard", "lat_setp_selp"] == pytest.approx(per_step["h100", "lat_setp_selp"], abs=0.01)


def _decoded(guard_latency_cycles: int) -> DecodedKernel:
    # setp -> @p add (guarded) -> selp (p as an operand) -> @p bra (a guarded branch)
    program = [
        dict(opcode="setp.lt.u32", unit="int", latency_class="alu", dst_regs=(0,), src_regs=(1, 2)),
        dict(opcode="add.u32", unit="int", latency_class="alu", dst_regs=(1,), src_regs=(0, 1), guard_reg=0),
        dict(opcode="selp.b32", unit="int", latency_class="alu", dst_regs=(3,), src_regs=(1, 2, 0)),
        dict(opcode="bra", unit="branch", latency_class="branch", src_regs=(0,), guard_reg=0, is_branch=True,
             branch_target=0),
        dict(opcode="exit", unit="branch", latency_class="none", is_exit=True),
    ]
    gpu = load_gpu("h100", overrides={"guard_latency_cycles": guard_latency_cycles})
    return DecodedKernel(make_trace(program), gpu)


def test_a_setp_writes_its_guard_entry_guard_latency_after_issue_and_only_guards_wait_for_it():
    k = _decoded(14)
    shadow = k.n_regs - 1
    assert k.dsts[0] == (0, shadow) and k.dst_extras[0] == (0, 14 - 4)   # issue + 4 + 10
    assert shadow in k.deps[1]                                             # @p add
    assert shadow not in k.deps[2]                                         # selp reads p as an operand
    assert shadow not in k.deps[3]                                         # @p bra: not measured, as before


def test_guard_latency_zero_decodes_as_before():
    k = _decoded(0)
    assert k.dsts[0] == (0,) and k.n_regs == 4 and all(x == 0 for x in k.dst_extra)
