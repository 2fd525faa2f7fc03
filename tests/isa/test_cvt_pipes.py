"""Datasheet of ``cvt``: the SASS ptxas 13.0 makes of each form for sm_90, and the pipe the model issues it on.

The record ``tests/golden/h100/micro/cvt``: ``cvt_forms.ptx`` (one kernel per form: load, convert, store) through
``ptxas -arch=sm_90 -O3`` and ``nvdisasm -c`` (``cvt_forms.sass``).  A kernel's conversion is what is left of its
SASS without the loads, stores, constant loads and EXIT/BRA.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from isa import parse_ptx
from isa.opcodes import cvt_sass, cvt_unit_and_latency
from isa.units import LatencyClass, Unit

RECORD = Path(__file__).resolve().parents[1] / "golden" / "h100" / "micro" / "cvt"
_FRAME = ("LDC", "ULDC", "LDG", "STG", "EXIT", "BRA", "NOP")


def _listing(name: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    fn = None
    for line in (RECORD / f"{name}.sass").read_text().splitlines():
        m = re.search(r"\.text\.(\w+):", line)
        if m:
            fn = m.group(1)
            out[fn] = []
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and fn:
            out[fn].append(m.group(2))
    return {fn: [op for op in ops if op.split(".")[0] not in _FRAME] for fn, ops in out.items()}


# cvt_forms: 47 forms; cvt_extra: the 8-bit floats, .s8 and .u16 sources, an f16x2 pack, tf32
LISTING = {**_listing("cvt_forms"), **_listing("cvt_extra")}
LISTING.pop("k_tf32")       # four integer instructions (rounding the mantissa): tested on its own below
PROGRAMS = [parse_ptx((RECORD / f"{name}.ptx").read_text()) for name in ("cvt_forms", "cvt_extra")]


def _cvt(kernel: str):
    prog = next(p for p in PROGRAMS if kernel in p.kernels)
    return next(i for i in prog.kernels[kernel].instructions if i.base == "cvt")


@pytest.mark.parametrize("kernel", sorted(LISTING))
def test_each_form_is_the_sass_instruction_ptxas_makes(kernel):
    ins = _cvt(kernel)
    sass = LISTING[kernel]
    head = cvt_sass(ins.types[0], ins.types[1], ins.mods)
    if head == "MOV":       # integer widening/narrowing and bf16 -> f32: nothing, a move or a shift
        assert len(sass) <= 1 and not any(op.split(".")[0] in ("I2F", "F2I", "F2F", "FRND", "I2FP") for op in sass)
    else:
        assert [op.split(".")[0] for op in sass] == [head], ins.opcode


@pytest.mark.parametrize("kernel", sorted(LISTING))
def test_the_xu_forms_issue_on_the_sfu_pipe_at_the_conversion_latency(kernel):
    ins = _cvt(kernel)
    xu = LISTING[kernel] and LISTING[kernel][0].split(".")[0] in ("I2F", "F2I", "F2F", "FRND")
    if xu:
        assert (ins.unit, ins.latency_class) == (Unit.SFU, LatencyClass.CONVERT), ins.opcode
    else:
        assert ins.unit is not Unit.SFU, ins.opcode


def test_the_i2fp_rule():
    # .rn/.rz to f32 from a 32-bit integer (or a zero-extended narrower one): I2FP on the ALU; other roundings,
    # 64-bit and sign-extended 16-bit sources, and every f64 destination go to the XU
    assert cvt_unit_and_latency("f32", "s32", {"rn"}) == (Unit.INT, LatencyClass.ALU)
    assert cvt_unit_and_latency("f32", "u32", {"rz"}) == (Unit.INT, LatencyClass.ALU)
    for dst, src, rnd in (("f32", "u32", "rp"), ("f32", "s32", "rm"), ("f32", "s64", "rn"), ("f64", "s32", "rn"),
                          ("f32", "s16", "rn")):
        assert cvt_unit_and_latency(dst, src, {rnd}) == (Unit.SFU, LatencyClass.CONVERT), (dst, src, rnd)
    assert cvt_unit_and_latency("f32", "f16", set()) == (Unit.FP32, LatencyClass.FMA)     # HADD2.F32
    assert cvt_unit_and_latency("s64", "s32", set()) == (Unit.INT, LatencyClass.ALU)


def test_tf32_rounds_on_the_integer_pipes():
    sass = _listing("cvt_extra")["k_tf32"]
    assert len(sass) == 4 and not any(op.split(".")[0] in ("I2F", "F2I", "F2F", "FRND") for op in sass)
    assert _cvt("k_tf32").unit is Unit.INT


def test_the_conversion_latency_is_variable():
    # the SASS control codes of I2F/F2I set a write barrier their reader waits on: a short-scoreboard wait
    assert LatencyClass.CONVERT.is_variable and not LatencyClass.CONVERT.is_long
