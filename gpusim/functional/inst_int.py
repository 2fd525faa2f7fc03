"""Integer arithmetic: ``add sub mul mad div rem min max abs neg`` on integer types, the extended-precision
``add.cc addc sub.cc subc mad.cc madc`` (the carry flag CC.CF is a per-thread bit, ``fr.cc``), ``mul24 mad24
sad dp4a dp2a``.

Integer arithmetic wraps modulo 2^width, as on the GPU; ``.sat`` (s32 add/sub/mad) clamps instead.
``mul``/``mad`` ``.lo`` keep the low half of the double-width product, ``.hi`` the high half, ``.wide`` the
whole product in a register twice as wide.  Division truncates toward zero with C's sign rules and PTX's
results for the undefined cases: ``x / 0`` is all ones (-1 for signed types), ``x % 0`` is ``x``, and
``INT_MIN / -1`` is ``INT_MIN``.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.operands import DT, SIGNED, UNSIGNED, binary, reader, ternary, unary, writer
from gpusim.functional.registry import semantics
from isa.opcodes import TYPE_BITS
from isa.program import Instruction


def _packed16(ins: Instruction, ctx):
    """add/sub/min/max on .u16x2/.s16x2: each 16-bit half on its own (wrapping; .relu clamps at 0)."""
    signed = ins.type == "s16x2"
    base = ins.base
    relu = "relu" in ins.mods

    def half(x, k):
        v = (np.asarray(x).astype(np.uint32).astype(np.int64) >> (16 * k)) & 0xFFFF
        return np.where(v >= 0x8000, v - 0x10000, v) if signed else v

    def f(a, b):
        out = 0
        for k in range(2):
            x, y = half(a, k), half(b, k)
            r = x + y if base == "add" else x - y if base == "sub" else np.minimum(x, y) if base == "min" \
                else np.maximum(x, y)
            if relu:
                r = np.maximum(r, 0)
            out = out | ((r & 0xFFFF) << (16 * k))
        return np.asarray(out).astype(np.uint64).astype(np.uint32)
    return binary(ins, f, ctx)


@semantics("add", "sub", types="int")
def build_add_sub(ins: Instruction, ctx):
    if ins.type in ("u16x2", "s16x2"):
        return _packed16(ins, ctx)
    if "cc" in ins.mods:
        return _carry_ops(ins, ctx)
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
    if "cc" in mods:
        return _carry_ops(ins, ctx)
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
    if ins.type in ("u16x2", "s16x2"):
        return _packed16(ins, ctx)
    f = np.minimum if ins.base == "min" else np.maximum
    if "relu" in ins.mods:           # min/max.relu.s32: the result clamped at 0
        return binary(ins, lambda a, b: np.maximum(f(a, b), 0).astype(DT[ins.type]), ctx)
    return binary(ins, f, ctx)


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


# ---- extended precision: the carry flag CC.CF (per thread, fr.cc) ----------------------------------------
def _carry_ops(ins: Instruction, ctx):
    """add.cc / sub.cc / addc / subc / mad.cc / madc: 32- or 64-bit with the carry (borrow) in ``fr.cc``."""
    t = ins.type
    bits = TYPE_BITS[t]
    ut = UNSIGNED[bits]
    base = ins.base
    cin = base in ("addc", "subc", "madc")
    cout = "cc" in ins.mods
    srcs = [reader(o, t, ctx) for o in ins.operands[1:]]
    w = writer(ins.operands[0], t)
    big = 1 << bits
    mad_hi = "hi" in ins.mods

    def h(fr, st):
        sel = st.sel
        vals = [np.asarray(r(fr, sel)).astype(ut).astype(object) if bits == 64 else
                np.asarray(r(fr, sel)).astype(ut).astype(np.int64) for r in srcs]
        c = fr.cc[sel].astype(np.int64) if cin else 0
        if bits == 64:
            c = c.astype(object) if cin else 0
        if base in ("add", "addc"):
            full = vals[0] + vals[1] + c
            carry = full >= big
        elif base in ("sub", "subc"):
            full = vals[0] - vals[1] - c
            carry = full < 0              # the borrow
        else:                             # mad.cc / madc: lo or hi half of the product, plus c, plus carry
            a, b_ = vals[0], vals[1]
            if t[0] == "s":
                a = np.where(a >= big // 2, a - big, a) if bits < 64 else np.array([x - big if x >= big // 2 else x for x in np.ravel(a)], dtype=object).reshape(np.shape(a))
                b_ = np.where(b_ >= big // 2, b_ - big, b_) if bits < 64 else np.array([x - big if x >= big // 2 else x for x in np.ravel(b_)], dtype=object).reshape(np.shape(b_))
            prod = (np.asarray(a, dtype=object) * np.asarray(b_, dtype=object))
            half = (prod >> bits) % big if mad_hi else prod % big
            full = np.asarray(half, dtype=object) + np.asarray(vals[2], dtype=object) + np.asarray(c, dtype=object)
            carry = np.asarray(full >= big, dtype=bool)
        res = np.asarray(np.asarray(full, dtype=object) % big, dtype=object)
        w(fr, sel, np.asarray(res.astype(np.uint64) if bits == 64 else res.astype(np.int64)).astype(ut).view(DT[t]))
        if cout:
            fr.cc[sel] = np.asarray(carry, dtype=np.uint8)
    return h


@semantics("addc", "subc", "madc", types="int")
def build_carry(ins: Instruction, ctx):
    return _carry_ops(ins, ctx)


# ---- 24-bit multiplies, sum of absolute differences, dot products ---------------------------------------
@semantics("mul24", "mad24", types="int")
def build_mul24(ins: Instruction, ctx):
    signed = ins.type == "s32"
    hi = "hi" in ins.mods

    def prod(a, b):
        a = np.asarray(a).astype(np.int64) & 0xFFFFFF
        b = np.asarray(b).astype(np.int64) & 0xFFFFFF
        if signed:
            a = np.where(a & 0x800000, a - (1 << 24), a)
            b = np.where(b & 0x800000, b - (1 << 24), b)
        p = a * b                                  # the 48-bit product
        return (p >> 16) if hi else p
    if ins.base == "mul24":
        return binary(ins, lambda a, b: prod(a, b).astype(np.uint64).astype(np.uint32).view(DT[ins.type]), ctx)
    sat = "sat" in ins.mods and hi and signed

    def mad(a, b, c):
        s = (prod(a, b) & 0xFFFFFFFF) if not hi else (prod(a, b) & 0xFFFFFFFF)
        s = np.where(s >= 1 << 31, s - (1 << 32), s) if signed else s
        r = s + np.asarray(c).astype(np.int64)
        if sat:
            r = np.clip(r, -2 ** 31, 2 ** 31 - 1)
        return r.astype(np.uint64).astype(np.uint32).view(DT[ins.type])
    return ternary(ins, mad, ctx)


@semantics("sad", types="int")
def build_sad(ins: Instruction, ctx):
    t = ins.type
    dt = DT[t]

    def f(a, b, c):
        a, b = np.asarray(a), np.asarray(b)
        d = np.where(a < b, b - a, a - b).astype(dt)
        return (c + d).astype(dt)
    return ternary(ins, f, ctx)


def _bytes(x, signed: bool, n: int, width: int):
    """The n parts of ``width`` bits of each 32-bit value, sign- or zero-extended, as int64 [.., n]."""
    x = np.asarray(x).astype(np.uint32).astype(np.int64)
    parts = [(x >> (width * k)) & ((1 << width) - 1) for k in range(n)]
    if signed:
        parts = [np.where(p >= 1 << (width - 1), p - (1 << width), p) for p in parts]
    return parts


@semantics("dp4a", "dp2a", types="int")
def build_dot(ins: Instruction, ctx):
    ta, tb = ins.types
    tc = "u32" if (ta, tb) == ("u32", "u32") else "s32"
    hi = "hi" in ins.mods

    def f(a, b, c):
        if ins.base == "dp4a":
            va, vb = _bytes(a, ta == "s32", 4, 8), _bytes(b, tb == "s32", 4, 8)
        else:
            va = _bytes(a, ta == "s32", 2, 16)
            vb = _bytes(b, tb == "s32", 4, 8)[2:] if hi else _bytes(b, tb == "s32", 4, 8)[:2]
        acc = np.asarray(c).astype(np.int64)
        for x, y in zip(va, vb):
            acc = acc + x * y
        return (acc & 0xFFFFFFFF).astype(np.uint64).astype(np.uint32).view(DT[tc])
    return ternary(ins, f, ctx, types=(ta, tb, tc), out_type=tc)


# ---- SIMD video: vadd2 ... vmax4, vset2, vset4 ----------------------------------------------------------
_VIDEO_OPS = {
    "vadd": lambda a, b: a + b, "vsub": lambda a, b: a - b, "vabsdiff": lambda a, b: np.abs(a - b),
    "vmin": np.minimum, "vmax": np.maximum,
    "vavrg": lambda a, b: np.where(a + b >= 0, (a + b + 1) >> 1, (a + b) >> 1),
}
_VIDEO_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
              "ge": np.greater_equal}


def _elements(a, b, sel: str, signed: bool, width: int) -> list:
    """Elements i = 0, 1, ... of the selector ``sel`` (its last digit is element 0) from the bytes (or halves)
    of {b, a}, sign- or zero-extended, as int64."""
    both = (np.asarray(b).astype(np.uint32).astype(np.int64) << 32) | np.asarray(a).astype(np.uint32).astype(np.int64)
    out = []
    for ch in reversed(sel[1:]):
        v = (both >> (width * int(ch))) & ((1 << width) - 1)
        if signed:
            v = np.where(v >= 1 << (width - 1), v - (1 << width), v)
        out.append(v)
    return out


@semantics("vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
           "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4", types="int")
def build_simd_video(ins: Instruction, ctx):
    """The SIMD video instructions: per element (16-bit halves for *2, bytes for *4) of the operands' selected
    elements, the operation, .sat clamping to the element range, then merged into c under the destination's
    mask, or (.add) c plus the sum of the masked elements."""
    n = int(ins.base[-1])
    width = 32 // n
    op = ins.base[:-1]
    is_set = op == "vset"
    dtype, atype, btype = ("u32", *ins.types) if is_set else ins.types
    sel = ins.vsel or {}
    h = width == 16
    asel = sel.get("1", ".h10"[1:] if h else "b3210")
    bsel = sel.get("2", "h32" if h else "b7654")
    mask = sel.get("0", "h10" if h else "b3210")
    on = [str(i) in mask[1:] for i in range(n)]
    cmp = next((m for m in _VIDEO_CMP if m in ins.mods), None)
    sat, acc = "sat" in ins.mods, "add" in ins.mods
    dsigned = dtype == "s32"
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if dsigned else (0, (1 << width) - 1)

    def f(a, b, c):
        va = _elements(a, b, asel, atype == "s32", width)
        vb = _elements(a, b, bsel, btype == "s32", width)
        vc = _elements(c, 0, ("h10" if h else "b3210"), dsigned, width)
        t = []
        for x, y in zip(va, vb):
            r = _VIDEO_CMP[cmp](x, y).astype(np.int64) if is_set else _VIDEO_OPS[op](x, y)
            t.append(np.clip(r, lo, hi) if sat else r)
        if acc:
            d = np.asarray(c).astype(np.uint32).astype(np.int64)
            for i in range(n):
                if on[i]:
                    d = d + t[i]
        else:
            d = np.zeros(np.broadcast(np.asarray(a), np.asarray(b), np.asarray(c)).shape, dtype=np.int64)
            for i in range(n):
                d = d | (((t[i] if on[i] else vc[i]) & ((1 << width) - 1)) << (width * i))
        return (d & 0xFFFFFFFF).astype(np.uint64).astype(np.uint32).view(DT[dtype])
    return ternary(ins, f, ctx, types=(atype, btype, dtype), out_type=dtype)


# ---- scalar video: vadd vsub vabsdiff vmin vmax vshl vshr vmad vset --------------------------------------
def _part(x, signed: bool, sel: str | None):
    """The byte (.bN), half (.hN) or word of each 32-bit value, sign- or zero-extended (Python ints)."""
    x = int(x) & 0xFFFFFFFF
    width, shift = (32, 0) if not sel else ((8, 8 * int(sel[1])) if sel[0] == "b" else (16, 16 * int(sel[1])))
    v = (x >> shift) & ((1 << width) - 1)
    return v - (1 << width) if signed and v >> (width - 1) else v


def scalar_video_lane(op: str, types: tuple, mods, sel: dict):
    """One lane of a scalar video instruction (``op`` its base, ``types`` its type suffixes, ``sel`` its part
    selectors and vmad negations), as a function of the 32-bit words a, b, c, in Python integers.

    sm_90 has no video hardware: ptxas lowers these instructions to 64-bit integer code, and where that code
    departs from the PTX ISA's pseudo-code gpusim does what it does, as the H100 does (the record's cases
    scalar_video, video_merge_*, vshl_sat, video_op2, video_sat_op2 in ``tests/hw/test_isa_device.py``; every
    form against ptxas's SASS: ``benchmarks/video_lowering.py``): a shift's .sat and merge see the signed 34-bit
    intermediate; .sat to .u32 clamps only below; .sat into a part gives the part's largest value for a
    result above it or negative; d.h1 keeps the result's upper half; .min/.max compare at 64 bits (below);
    vmad computes in 64 bits with a word operand taken as .s32 and c sign-extended, whatever their types
    (``vmad`` below; the record's case vmad_*)."""
    is_set = op == "vset"
    dtype, atype, btype = ("u32", *types) if is_set else types
    asel, bsel, dsel = sel.get("1"), sel.get("2"), sel.get("0")
    op2 = next((m for m in ("add", "min", "max") if m in mods), None)
    cmp = next((m for m in ("eq", "ne", "lt", "le", "gt", "ge") if m in mods), None)
    dsigned = dtype == "s32"
    cmpf = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
            "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}.get(cmp)

    def clamp(v, bits, signed):
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        return max(lo, min(hi, v))

    def vmad(a, b, c):
        # ptxas's lowering (which the H100 runs, not the PTX ISA's pseudo-code): one signed 32 x 32 -> 64-bit
        # multiply-add (IMAD.WIDE), so a whole-word operand multiplies as .s32 even when its type is .u32 (a
        # byte or half is extended by its type), and c is sign-extended whatever the types; the sum wraps at 64
        # bits.  -(a*b) is ~(a*b) + 1; -c is ~c + 1 (c inverted before its extension); .po adds 1.
        na, nb, nc = "neg1" in sel, "neg2" in sel, "neg3" in sel
        signed = atype == "s32" or btype == "s32" or (na ^ nb) or nc
        prod = _part(a, atype == "s32" or not asel, asel) * _part(b, btype == "s32" or not bsel, bsel)
        cc = _part(c, True, None)
        if "po" in mods:
            prod += 1
        elif na ^ nb:
            prod = -prod
        elif nc:
            cc = -cc
        t = (prod + cc) & ((1 << 64) - 1)
        if signed and t >> 63:
            t -= 1 << 64
        # .shr7/.shr15 shift all 64 bits: arithmetically when the result is signed, else logically
        t >>= 7 if "shr7" in mods else 15 if "shr15" in mods else 0
        if "sat" in mods and not signed and t >> 63:
            t = 0               # .u32: the 64-bit value is clamped as a signed one (a "negative" sum gives 0)
        elif "sat" in mods:
            t = clamp(t, 32, signed)
        return t & 0xFFFFFFFF

    def one(a, b, c):
        ta = _part(a, atype == "s32", asel)
        tb = _part(b, btype == "s32" and op not in ("vshl", "vshr"), bsel)
        if op == "vmad":
            return vmad(a, b, c)
        shifted = op in ("vshl", "vshr")
        if shifted:
            tb = min(tb, 32) if "clamp" in mods else tb & 31
            exact = ta << tb if op == "vshl" else ta >> tb
            # .sat and the merge see the shift at the PTX ISA's signed 34-bit intermediate width (a << 32 of
            # an odd a is +2^32, of a = 2 mod 4 is -2^33)
            tmp = ((exact + (1 << 33)) & ((1 << 34) - 1)) - (1 << 33)
        elif is_set:
            exact = tmp = int(cmpf(ta, tb))
        else:
            exact = tmp = {"vadd": ta + tb, "vsub": ta - tb, "vabsdiff": abs(ta - tb), "vmin": min(ta, tb),
                           "vmax": max(ta, tb)}[op]
        cv = int(c) & 0xFFFFFFFF
        sat = "sat" in mods
        if dsel:
            width, shift = (8, 8 * int(dsel[1])) if dsel[0] == "b" else (16, 16 * int(dsel[1]))
            if sat and shifted:
                tmp = clamp(tmp, 32, dsigned)       # a shift saturates to d's 32-bit range, then merges
            elif sat:
                # the part's largest value of d's signedness for a result above it or negative: the H100
                # compares the intermediate as an unsigned 34-bit value (-74 -> 0x7F, not -128)
                tmp = min(tmp & ((1 << 34) - 1), (1 << (width - 1 if dsigned else width)) - 1)
            if dsel == "h1":
                # the H100 keeps the result's own upper half there (not its low half moved up)
                return (cv & 0xFFFF) | (tmp & 0xFFFF0000)
            m = ((1 << width) - 1) << shift
            return (cv & ~m) | ((tmp << shift) & m)
        if sat and (dsigned or shifted):
            tmp = clamp(tmp, 32, dsigned)
        elif sat:
            tmp = max(tmp, 0)       # .u32: the H100 clamps only below (0xFFFFFFFF + 1 -> 0, not 0xFFFFFFFF)
        if op2 == "add":
            tmp += cv
        elif op2:
            # a 64-bit compare: c extended by d's type (vset: a's), against the (saturated) result, except that
            # the results of vadd/vsub and of a saturated shift are their low 32 bits sign-extended (a carry is
            # lost: 0x80000000 + 0 compares above c = 0xFFFFFFFF for a .u32 d)
            csigned = (atype if is_set else dtype) == "s32"
            x = _part(tmp, True, None) if op in ("vadd", "vsub") or (sat and shifted) else tmp if sat else exact
            x &= (1 << 64) - 1
            if csigned and x >> 63:
                x -= 1 << 64
            cs = _part(cv, csigned, None)
            tmp = x if (x < cs) == (op2 == "min") else cs
        return tmp & 0xFFFFFFFF

    return one


@semantics("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", types="int")
def build_scalar_video(ins: Instruction, ctx):
    """The scalar video instructions, one lane at a time in Python integers (they are rare): the selected
    parts of a and b, the operation, .sat, then the secondary operation with c (.add .min .max) or the merge
    of the part d.sel into c; vmad's negations, .po and .shr7/.shr15 (``scalar_video_lane``)."""
    dtype, atype, btype = ("u32", *ins.types) if ins.base == "vset" else ins.types
    one = scalar_video_lane(ins.base, ins.types, ins.mods, ins.vsel or {})
    readers = [reader(o, t, ctx) for o, t in zip(ins.operands[1:], (atype, btype, dtype))]
    w = writer(ins.operands[0], dtype)

    def h(fr, st):
        vals = [np.atleast_1d(np.asarray(r(fr, st.sel))) for r in readers]
        n = max(v.size for v in vals)
        vals = [np.broadcast_to(v, (n,)) for v in vals] + [np.zeros(n, np.int64)] * (3 - len(vals))
        out = np.array([one(*xs) for xs in zip(*vals)], dtype=np.uint64).astype(np.uint32)
        w(fr, st.sel, out.view(DT[dtype]))
    return h
