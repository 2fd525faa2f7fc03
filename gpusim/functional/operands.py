"""Operands: how a handler reads and writes registers, immediates, special registers and symbol addresses.

Registers hold raw bits (uint16/32/64, bool for predicates) and are *viewed* as the instruction's type, so
``mov.b32 %f1, %r1`` and float results are bit-exact; a narrower type reads the low bits, and a narrower value
written into a wider register is sign- or zero-extended by its type.  Readers and writers are built once per
instruction (:func:`reader`, :func:`writer`), so the hot path does no string tests.  :func:`unary`,
:func:`binary` and :func:`ternary` build the handler of an element-wise instruction ``d = f(a[, b[, c]])``
from a numpy function: most of the instruction families are one of those.
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import UnsupportedError
from isa.opcodes import TYPE_BITS
from isa.program import Imm, Instruction, Reg, SpecialReg, SymbolAddr

DT = {   # numpy dtype of each PTX type (a register's bits are viewed as it)
    "s8": np.int8, "u8": np.uint8, "b8": np.uint8, "s16": np.int16, "u16": np.uint16, "b16": np.uint16,
    "f16": np.float16, "s32": np.int32, "u32": np.uint32, "b32": np.uint32, "f32": np.float32,
    "s64": np.int64, "u64": np.uint64, "b64": np.uint64, "f64": np.float64, "pred": np.bool_,
    # bf16 and packed pairs are handled as their bits (gpusim.functional.floatops converts them)
    "bf16": np.uint16, "f16x2": np.uint32, "bf16x2": np.uint32, "u16x2": np.uint32, "s16x2": np.uint32,
    "tf32": np.uint32, "e4m3x2": np.uint16, "e5m2x2": np.uint16,
}
STORAGE = {1: np.bool_, 16: np.uint16, 32: np.uint32, 64: np.uint64}   # register arrays by register width
UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def imm_value(op: Imm, t: str):
    """The immediate as a numpy scalar of type ``t`` (float literals given as bits are reinterpreted)."""
    dt = DT[t]
    bits = TYPE_BITS[t]
    if op.is_float_bits:
        raw = np.array(op.value, dtype=UNSIGNED[op.float_bits]).view(DT["f32" if op.float_bits == 32 else "f64"])
        return raw.astype(dt)[()] if t[0] == "f" else np.array(op.value, dtype=UNSIGNED[max(bits, 16)]).astype(dt)[()]
    if isinstance(op.value, float):
        return dt(op.value)
    if t == "pred":
        return np.bool_(op.value != 0)
    return np.array(op.value & ((1 << max(bits, 8)) - 1), dtype=UNSIGNED[max(bits, 8)]).view(dt)[()]


def reader(op, t: str, ctx):
    """A function (fr, sel) -> value of operand `op` read as type `t` (array over sel, or a scalar)."""
    dt = DT[t]
    if isinstance(op, Reg):
        rid = op.id
        if op.bits == 1:
            return lambda fr, sel: fr.regs[rid][sel]
        tb = max(TYPE_BITS[t], 16) if TYPE_BITS[t] == 8 else TYPE_BITS[t]
        if tb == op.bits and TYPE_BITS[t] != 8:
            return lambda fr, sel: fr.regs[rid][sel].view(dt)
        return lambda fr, sel: fr.regs[rid][sel].astype(dt)   # narrower type: low bits (truncation)
    if isinstance(op, Imm):
        c = imm_value(op, t)
        return lambda fr, sel: c
    if isinstance(op, SpecialReg):
        key = op.name + ("." + op.component if op.component else "")
        return lambda fr, sel: _special(fr, key, sel, dt)
    if isinstance(op, SymbolAddr):
        space, addr = ctx.symbol(op.name)
        c = np.array(addr + op.offset, dtype=np.uint64).astype(dt)[()]
        return lambda fr, sel: c
    raise UnsupportedError(f"operand {op!r} cannot be read as a value")


def _special(fr, key, sel, dt):
    """A special register: per-lane arrays (``%tid.x``) are indexed, launch-wide scalars (``%ntid.x``) not."""
    v = fr.special[key]
    if isinstance(v, np.ndarray) and v.ndim:
        v = v[sel]
    return v.astype(dt, copy=False) if isinstance(v, np.ndarray) else dt(v)


def writer(reg: Reg, t: str):
    """A function (fr, sel, value) storing `value` (of type t) into register `reg` for the lanes sel."""
    rid = reg.id
    if reg.bits == 1:
        def w_pred(fr, sel, v):
            fr.regs[rid][sel] = v
        return w_pred
    sdt = STORAGE[reg.bits]
    tb = TYPE_BITS[t]
    if tb == reg.bits:
        def w_same(fr, sel, v):
            fr.regs[rid][sel] = np.asarray(v).view(sdt)
        return w_same
    # a narrower value into a wider register: sign- or zero-extend by the value's type
    ext = SIGNED[reg.bits] if t[0] == "s" else UNSIGNED[reg.bits]
    if t[0] == "f":
        def w_float(fr, sel, v):  # f16 into a 32-bit register: low 16 bits
            fr.regs[rid][sel] = np.asarray(v).view(UNSIGNED[tb]).astype(sdt)
        return w_float

    def w_ext(fr, sel, v):
        fr.regs[rid][sel] = np.asarray(v).astype(ext).view(sdt)
    return w_ext



def unary(ins: Instruction, f, ctx, out_type=None):
    """Handler of ``d = f(a)``: operands read as the instruction's type, ``d`` written as ``out_type``."""
    t = ins.type
    ra = reader(ins.operands[1], t, ctx)
    w = writer(ins.operands[0], out_type or t)

    def h(fr, st):
        sel = st.sel
        w(fr, sel, f(ra(fr, sel)))
    return h


def binary(ins: Instruction, f, ctx, out_type=None, types=None):
    """Handler of ``d = f(a, b)``; ``types`` overrides the types the sources are read as."""
    t = ins.type
    ta, tb = types or (t, t)
    ra = reader(ins.operands[1], ta, ctx)
    rb = reader(ins.operands[2], tb, ctx)
    w = writer(ins.operands[0], out_type or t)

    def h(fr, st):
        sel = st.sel
        w(fr, sel, f(ra(fr, sel), rb(fr, sel)))
    return h


def ternary(ins: Instruction, f, ctx, types=None, out_type=None):
    """Handler of ``d = f(a, b, c)``."""
    t = ins.type
    ta, tb, tc = types or (t, t, t)
    ra = reader(ins.operands[1], ta, ctx)
    rb = reader(ins.operands[2], tb, ctx)
    rc = reader(ins.operands[3], tc, ctx)
    w = writer(ins.operands[0], out_type or t)

    def h(fr, st):
        sel = st.sel
        w(fr, sel, f(ra(fr, sel), rb(fr, sel), rc(fr, sel)))
    return h


# ---- logic -----------------------------------------------------------------------------------------------
