"""Bitwise logic, shifts and bit fields: ``and or xor not cnot lop3 shl shr shf popc clz bfind fns brev bfe bfi
bmsk szext prmt``.

On ``.pred`` operands ``and or xor not`` are the boolean operations.  Shifts by the width or more give 0
(``shr.s``: the sign bit everywhere).  ``bfe``/``bfi`` clamp position and length to the width as PTX
defines; ``bfe.s`` sign-extends from the field's top bit.  ``prmt``: the default byte-select mode (each
result byte picks one of the eight bytes of ``{b, a}``, or replicates its sign) and the special modes
``.f4e .b4e .rc8 .ecl .ecr .rc16`` (selected by ``c[1:0]``).  ``shf`` is the funnel shift of ``{b, a}``;
``bfind`` finds the most significant non-sign bit (``.shiftamt``: the shift that moves it to the top).
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


# the byte of {b, a} each result byte (0..3) takes in the special modes, by c[1:0]
_PRMT_MODES = {
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


@semantics("prmt")
def build_prmt(ins: Instruction, ctx):
    mode = next((m for m in _PRMT_MODES if m in ins.mods), None)
    table = np.array(_PRMT_MODES[mode], dtype=np.uint64) if mode else None

    def f(a, bb, c):
        a = np.asarray(a).astype(np.uint64)
        bb = np.asarray(bb).astype(np.uint64)
        c = np.asarray(c).astype(np.uint64)
        tmp = (bb << np.uint64(32)) | a
        out = np.zeros(np.broadcast(a, bb, c).shape, dtype=np.uint64)
        for k in range(4):
            if table is not None:
                sel_ = table[(c & np.uint64(3)).astype(np.int64), k]
                byte = (tmp >> (sel_ * np.uint64(8))) & np.uint64(0xFF)
            else:
                nib = (c >> np.uint64(4 * k)) & np.uint64(0xF)
                sel_ = nib & np.uint64(7)
                byte = (tmp >> (sel_ * np.uint64(8))) & np.uint64(0xFF)
                sign = np.where((byte & np.uint64(0x80)) != 0, np.uint64(0xFF), np.uint64(0))
                byte = np.where((nib & np.uint64(8)) != 0, sign, byte)
            out |= byte << np.uint64(8 * k)
        return out.astype(np.uint32)
    return ternary(ins, f, ctx)


@semantics("bfind")
def build_bfind(ins: Instruction, ctx):
    t = ins.type
    bits = TYPE_BITS[t]
    shiftamt = "shiftamt" in ins.mods

    def f(a):
        u = np.asarray(a).view(UNSIGNED[bits]) if np.ndim(a) else np.asarray(a).astype(DT[t]).view(UNSIGNED[bits])
        u = u.astype(np.uint64)
        if t[0] == "s":       # negative: look for the most significant 0
            neg = (u >> np.uint64(bits - 1)) & np.uint64(1)
            mask = np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
            u = np.where(neg == 1, (~u) & mask, u)
        lz = _clz(u, 64).astype(np.int64)
        pos = 63 - lz
        found = u != 0
        d = np.where(shiftamt, (bits - 1) - pos, pos)
        return np.where(found, d, 0xFFFFFFFF).astype(np.uint64).astype(np.uint32)
    return unary(ins, f, ctx, out_type="u32")


@semantics("fns")
def build_fns(ins: Instruction, ctx):
    def f(mask, base, offset):
        mask = np.atleast_1d(np.asarray(mask).astype(np.uint64))
        base = np.asarray(base).astype(np.int64)
        offset = np.asarray(offset).astype(np.int64)
        mask, base, offset = np.broadcast_arrays(mask, base, offset)
        bitsm = ((mask[:, None] >> np.arange(32, dtype=np.uint64)) & np.uint64(1)).astype(bool)
        pos = np.arange(32)
        out = np.full(mask.shape, 0xFFFFFFFF, dtype=np.uint64)
        zero = offset == 0
        hit0 = bitsm[np.arange(mask.size), np.clip(base, 0, 31)] & (base >= 0) & (base < 32)
        out = np.where(zero & hit0, base.astype(np.uint64), out)
        up = offset > 0
        # upwards: the |offset|-th set bit at or above base; downwards: at or below
        above = bitsm & (pos[None, :] >= base[:, None])
        below = bitsm & (pos[None, :] <= base[:, None])
        rank_up = np.cumsum(above, axis=1)
        rank_dn = np.cumsum(below[:, ::-1], axis=1)[:, ::-1]
        k = np.abs(offset)
        hit_up = above & (rank_up == k[:, None])
        hit_dn = below & (rank_dn == k[:, None])
        first_up = np.where(hit_up.any(axis=1), hit_up.argmax(axis=1), -1)
        last_dn = np.where(hit_dn.any(axis=1), 31 - hit_dn[:, ::-1].argmax(axis=1), -1)
        res = np.where(up, first_up, last_dn)
        out = np.where(~zero & (res >= 0), res.astype(np.uint64), np.where(zero, out, np.uint64(0xFFFFFFFF)))
        return out.astype(np.uint32)
    return ternary(ins, f, ctx, types=("b32", "b32", "s32"))


@semantics("bmsk", "szext")
def build_bmsk(ins: Instruction, ctx):
    clamp = "clamp" in ins.mods
    signed = ins.type == "s32"
    full = np.uint64(0xFFFFFFFF)

    if ins.base == "bmsk":
        def f(a, b):
            a = np.asarray(a).astype(np.uint64)
            b = np.asarray(b).astype(np.uint64)
            a1 = a & np.uint64(31)
            b1 = b & np.uint64(31)
            mask0 = (full << a1) & full
            total = a1 + b1
            mask1 = np.where(total >= 32, np.uint64(0), (full << np.minimum(total, 31)) & full)
            if clamp:
                mask0 = np.where(a >= 32, np.uint64(0), mask0)
                mask1 = np.where(b >= 32, np.uint64(0), mask1)
            mask1 = np.where((total < 32) & (b1 == 0) & ~(clamp & (b >= 32)), full, mask1)
            return (mask0 & ~mask1 & full).astype(np.uint32)
        return binary(ins, f, ctx, types=("b32", "u32"))

    def g(a, b):
        a = np.asarray(a).astype(np.uint32).astype(np.uint64)
        b = np.asarray(b).astype(np.uint64)
        b1 = b & np.uint64(31)
        too_large = (b >= 32) & clamp
        mask = np.where(too_large, np.uint64(0), (full << b1) & full)
        if signed:
            sign = np.where((b1 == 0) | too_large, np.uint64(0), (a >> ((b1 - np.uint64(1)) & np.uint64(31))) &
                            np.uint64(1))
        else:
            sign = np.zeros_like(a)
        d = (a & ~mask & full) | np.where(sign == 1, mask, np.uint64(0))
        return d.astype(np.uint32).view(DT[ins.type])
    return binary(ins, g, ctx, types=(ins.type, "u32"))


@semantics("shf")
def build_shf(ins: Instruction, ctx):
    left = "l" in ins.mods
    clamp = "clamp" in ins.mods

    def f(a, b, c):
        a = np.asarray(a).astype(np.uint64)
        b = np.asarray(b).astype(np.uint64)
        c = np.asarray(c).astype(np.uint64)
        n = np.minimum(c, np.uint64(32)) if clamp else c & np.uint64(31)
        v = (b << np.uint64(32)) | a
        if left:
            r = np.where(n >= 64, np.uint64(0), v << np.minimum(n, np.uint64(63))) >> np.uint64(32)
        else:
            r = v >> np.minimum(n, np.uint64(63))
        return (r & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    return ternary(ins, f, ctx, types=("b32", "b32", "u32"))


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
