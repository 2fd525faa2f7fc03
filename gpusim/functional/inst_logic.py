"""Bitwise logic, shifts and bit fields: ``and or xor not cnot lop3 shl shr popc clz brev bfe bfi prmt``.

On ``.pred`` operands ``and or xor not`` are the boolean operations.  Shifts by the width or more give 0
(``shr.s``: the sign bit everywhere).  ``bfe``/``bfi`` clamp position and length to the width as PTX
defines; ``bfe.s`` sign-extends from the field's top bit.  ``prmt`` implements the default byte-select mode
(each result byte picks one of the eight bytes of ``{b, a}``, or replicates its sign).
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.operands import DT, UNSIGNED, binary, reader, ternary, unary, writer
from gpusim.functional.registry import semantics
from isa.opcodes import TYPE_BITS
from isa.program import Imm, Instruction


@semantics("and", "or", "xor")
def build_bitwise(ins: Instruction, ctx):
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.base]
    return binary(ins, f, ctx)


@semantics("not", "cnot")
def build_not(ins: Instruction, ctx):
    if ins.base == "not":
        return unary(ins, np.logical_not if ins.type == "pred" else np.invert, ctx)
    dt = DT[ins.type]
    return unary(ins, lambda x: (np.asarray(x) == 0).astype(dt), ctx)


@semantics("shl", "shr")
def build_shift(ins: Instruction, ctx):
    t = ins.type
    bits = TYPE_BITS[t]
    dt = DT[t]
    right = ins.base == "shr"
    arith = right and t[0] == "s"
    cap = dt(bits - 1)

    def f(a, s):
        s = np.asarray(s)
        big = s >= bits
        sc = np.minimum(s, bits - 1).astype(dt)
        if right:
            r = a >> sc
            return np.where(big, (a >> cap) if arith else dt(0), r).astype(dt)
        return np.where(big, dt(0), a << sc).astype(dt)
    return binary(ins, f, ctx, types=(t, "u32"))


@semantics("popc", "clz", "brev")
def build_bit_count(ins: Instruction, ctx):
    if ins.base == "popc":
        return unary(ins, lambda x: _popcount(np.asarray(x)).astype(np.uint32), ctx, out_type="u32")
    if ins.base == "clz":
        bits = TYPE_BITS[ins.type]
        return unary(ins, lambda x: _clz(x, bits), ctx, out_type="u32")
    return unary(ins, _brev, ctx)


@semantics("lop3")
def build_lop3(ins: Instruction, ctx):
    lut = ins.operands[4]
    if not isinstance(lut, Imm):
        raise ctx.unsupported(ins, "lop3 needs an immediate truth table")
    table = int(lut.value) & 0xFF

    def f(a, bb, c):
        a, bb, c = (np.asarray(v).astype(np.uint32) for v in (a, bb, c))
        r = np.zeros(np.broadcast(a, bb, c).shape, dtype=np.uint32)
        for i in range(8):
            if table >> i & 1:
                r |= (a if i & 4 else ~a) & (bb if i & 2 else ~bb) & (c if i & 1 else ~c)
        return r
    return ternary(ins, f, ctx)


@semantics("bfe")
def build_bfe(ins: Instruction, ctx):
    t = ins.type
    bits = TYPE_BITS[t]
    dt = DT[t]
    ut = UNSIGNED[bits]

    def f(a, pos, ln):
        pos = np.minimum(np.asarray(pos).astype(np.int64) & 0xFF, bits)
        ln = np.minimum(np.asarray(ln).astype(np.int64) & 0xFF, bits)
        au = np.asarray(a).view(ut) if np.ndim(a) else ut(np.asarray(a).view(ut))
        shifted = (au.astype(np.uint64) >> np.minimum(pos, 63).astype(np.uint64)) if bits <= 64 else au
        shifted = np.where(pos >= bits, 0, shifted).astype(np.uint64)
        mask = np.where(ln >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                        (np.uint64(1) << np.minimum(ln, 63).astype(np.uint64)) - np.uint64(1))
        field = shifted & mask
        if t[0] == "s":
            sbit_pos = np.clip(pos + ln - 1, 0, bits - 1).astype(np.uint64)
            sign = (au.astype(np.uint64) >> sbit_pos) & np.uint64(1)
            sign = np.where(ln == 0, 0, sign).astype(np.uint64)
            # bits past the top of a (pos + len > width) are sign bits too
            eff = np.minimum(ln, np.maximum(bits - pos, 0))
            emask = np.where(eff >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                             (np.uint64(1) << np.minimum(eff, 63).astype(np.uint64)) - np.uint64(1))
            ext = np.where(sign == 1, ~emask, np.uint64(0))
            field = field | ext
        return field.astype(UNSIGNED[64]).astype(ut).view(dt) if np.ndim(field) else dt(field)
    return ternary(ins, f, ctx, types=(t, "u32", "u32"))


@semantics("bfi")
def build_bfi(ins: Instruction, ctx):
    t = ins.type
    bits = TYPE_BITS[t]
    dt = DT[t]
    ra = reader(ins.operands[1], t, ctx)
    rb = reader(ins.operands[2], t, ctx)
    rc = reader(ins.operands[3], "u32", ctx)
    re_ = reader(ins.operands[4], "u32", ctx)
    w = writer(ins.operands[0], t)

    def h(fr, st):
        sel = st.sel
        a = np.asarray(ra(fr, sel)).astype(np.uint64)
        bb = np.asarray(rb(fr, sel)).astype(np.uint64)
        pos = np.minimum(np.asarray(rc(fr, sel)).astype(np.uint64) & np.uint64(0xFF), np.uint64(bits))
        ln = np.minimum(np.asarray(re_(fr, sel)).astype(np.uint64) & np.uint64(0xFF), np.uint64(bits))
        mask = np.where(ln >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                        (np.uint64(1) << np.minimum(ln, 63)) - np.uint64(1))
        mask = np.where(pos >= bits, np.uint64(0), mask << np.minimum(pos, 63))
        r = (bb & ~mask) | ((a << np.minimum(pos, 63)) & mask)
        w(fr, sel, np.asarray(r).astype(UNSIGNED[bits]).view(dt))
    return h


@semantics("prmt")
def build_prmt(ins: Instruction, ctx):
    def f(a, bb, c):
        a = np.asarray(a).astype(np.uint64)
        bb = np.asarray(bb).astype(np.uint64)
        c = np.asarray(c).astype(np.uint64)
        tmp = (bb << np.uint64(32)) | a
        out = np.zeros(np.broadcast(a, bb, c).shape, dtype=np.uint64)
        for k in range(4):
            nib = (c >> np.uint64(4 * k)) & np.uint64(0xF)
            sel_ = nib & np.uint64(7)
            byte = (tmp >> (sel_ * np.uint64(8))) & np.uint64(0xFF)
            sign = np.where((byte & np.uint64(0x80)) != 0, np.uint64(0xFF), np.uint64(0))
            byte = np.where((nib & np.uint64(8)) != 0, sign, byte)
            out |= byte << np.uint64(8 * k)
        return out.astype(np.uint32)
    return ternary(ins, f, ctx)


_BREV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def _brev(x):
    x = np.asarray(x)
    b = x.view(np.uint8).reshape(x.shape + (x.dtype.itemsize,)) if x.ndim else \
        np.frombuffer(x.tobytes(), dtype=np.uint8)
    rev = _BREV8[b][..., ::-1].copy()
    return rev.view(x.dtype).reshape(x.shape)


def _clz(x, bits):
    x = np.asarray(x).astype(np.uint64)
    out = np.full(x.shape, bits, dtype=np.uint32)
    nz = x != 0
    if bits == 64:
        hi = (x >> np.uint64(32)).astype(np.uint32)
        lo = (x & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        return np.where(hi != 0, _clz(hi, 32), 32 + _clz(lo, 32)).astype(np.uint32)
    with np.errstate(divide="ignore"):
        lz = (bits - 1 - np.floor(np.log2(np.where(nz, x, 1).astype(np.float64)))).astype(np.uint32)
    return np.where(nz, lz, out).astype(np.uint32)


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    out = np.zeros(x.shape, dtype=np.uint32)
    x = x.astype(np.uint64)
    while np.any(x):
        out += (x & np.uint64(1)).astype(np.uint32)
        x = x >> np.uint64(1)
    return out
