"""Integer arithmetic: ``add sub mul mad div rem min max abs neg`` on integer types.

Integer arithmetic wraps modulo 2^width, as on the GPU; ``.sat`` (s32 add/sub/mad) clamps instead.
``mul``/``mad`` ``.lo`` keep the low half of the double-width product, ``.hi`` the high half, ``.wide`` the
whole product in a register twice as wide.  Division truncates toward zero with C's sign rules and PTX's
results for the undefined cases: ``x / 0`` is all ones (-1 for signed types), ``x % 0`` is ``x``, and
``INT_MIN / -1`` is ``INT_MIN``.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.operands import DT, SIGNED, UNSIGNED, binary, ternary, unary
from gpusim.functional.registry import semantics
from isa.opcodes import TYPE_BITS
from isa.program import Instruction


@semantics("add", "sub", types="int")
def build_add_sub(ins: Instruction, ctx):
    if "sat" in ins.mods and ins.type == "s32":
        f = (lambda x, y: _int_sat_s32(x.astype(np.int64) + y)) if ins.base == "add" else \
            (lambda x, y: _int_sat_s32(x.astype(np.int64) - y))
    else:
        f = np.add if ins.base == "add" else np.subtract
    return binary(ins, f, ctx)


@semantics("mul", types="int")
def build_mul(ins: Instruction, ctx):
    t = ins.type
    if "wide" in ins.mods:
        wt = DT[_wide_type(t)]
        return binary(ins, lambda x, y: np.asarray(x).astype(wt) * np.asarray(y).astype(wt), ctx,
                      out_type=_wide_type(t))
    if "hi" in ins.mods:
        return binary(ins, lambda x, y: _mul_hi(np.asarray(x), y, t), ctx)
    return binary(ins, np.multiply, ctx)


@semantics("mad", types="int")
def build_mad(ins: Instruction, ctx):
    t, mods = ins.type, ins.mods
    if "wide" in mods:
        wts = _wide_type(t)
        wt = DT[wts]
        return ternary(ins, lambda x, y, z: np.asarray(x).astype(wt) * np.asarray(y).astype(wt) + z, ctx,
                       types=(t, t, wts), out_type=wts)
    if "hi" in mods:
        return ternary(ins, lambda x, y, z: _mul_hi(np.asarray(x), y, t) + z, ctx)
    if "sat" in mods and t == "s32":
        return ternary(ins, lambda x, y, z: _int_sat_s32(np.asarray(x).astype(np.int64) * y + z), ctx)
    return ternary(ins, lambda x, y, z: x * y + z, ctx)


@semantics("div", "rem", types="int")
def build_div_rem(ins: Instruction, ctx):
    t = ins.type
    if ins.base == "div":
        return binary(ins, lambda x, y: _trunc_div(np.asarray(x), np.asarray(y), t), ctx)
    return binary(ins, lambda x, y: _trunc_rem(np.asarray(x), np.asarray(y), t), ctx)


@semantics("min", "max", types="int")
def build_min_max(ins: Instruction, ctx):
    return binary(ins, np.minimum if ins.base == "min" else np.maximum, ctx)


@semantics("abs", "neg", types="int")
def build_abs_neg(ins: Instruction, ctx):
    return unary(ins, np.abs if ins.base == "abs" else np.negative, ctx)


def _trunc_div(a, b, t):
    bits = TYPE_BITS[t]
    signed = t[0] == "s"
    zero = b == 0
    if signed:
        bad = zero | ((a == np.iinfo(DT[t]).min) & (b == -1))
        bs = np.where(bad, 1, b).astype(DT[t])
        q = np.abs(a.astype(np.int64) if bits < 64 else a) // np.abs(bs.astype(np.int64) if bits < 64 else bs)
        q = np.where((a < 0) != (bs < 0), -q, q).astype(DT[t])
        q = np.where(zero, DT[t](-1), q)
        return np.where((a == np.iinfo(DT[t]).min) & (b == -1), a, q).astype(DT[t])
    bs = np.where(zero, 1, b).astype(DT[t])
    return np.where(zero, np.iinfo(DT[t]).max, a // bs).astype(DT[t])


def _trunc_rem(a, b, t):
    zero = b == 0
    if t[0] == "s":
        q = _trunc_div(a, np.where(zero, 1, b).astype(DT[t]), t)
        r = (a - q * np.where(zero, 1, b).astype(DT[t])).astype(DT[t])
    else:
        r = a % np.where(zero, 1, b).astype(DT[t])
    return np.where(zero, a, r).astype(DT[t])


def _mul_hi(a, b, t):
    bits = TYPE_BITS[t]
    if bits <= 32:
        wide = SIGNED[64] if t[0] == "s" else UNSIGNED[64]
        return ((a.astype(wide) * np.asarray(b).astype(wide)) >> bits).astype(DT[t])
    # 64x64 -> high 64 bits through 32-bit limbs
    au = np.asarray(a).astype(np.uint64)
    bu = np.asarray(b).astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    a0, a1 = au & m32, au >> np.uint64(32)
    b0, b1 = bu & m32, bu >> np.uint64(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> np.uint64(32)) + (p01 & m32) + (p10 & m32)
    hi = p11 + (p01 >> np.uint64(32)) + (p10 >> np.uint64(32)) + (mid >> np.uint64(32))
    if t[0] == "s":  # signed correction: hi(a*b) = hi_u(a*b) - (a<0)*b - (b<0)*a
        hi = hi - np.where(np.asarray(a) < 0, bu, np.uint64(0)) - np.where(np.asarray(b) < 0, au, np.uint64(0))
    return hi.astype(DT[t]) if t[0] == "u" else hi.view(np.int64) if isinstance(hi, np.ndarray) else np.int64(hi)


def _wide_type(t: str) -> str:
    return {"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}[t]


def _int_sat_s32(x64):
    return np.clip(x64, -2 ** 31, 2 ** 31 - 1).astype(np.int32)
