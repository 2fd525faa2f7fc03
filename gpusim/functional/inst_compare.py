"""Comparison and selection: ``setp set selp slct``.

Integer comparisons use the instruction type's signedness (``lo ls hi hs`` are the unsigned names).  Float
comparisons are ordered (false when either operand is NaN) unless their name ends in ``u`` (``equ ltu ...``:
true on NaN); ``num``/``nan`` test for NaN operands.  ``setp`` may combine its result with a third predicate
by ``.and/.or/.xor`` and write the complement to a second destination (``setp.lt.and.s32 p|q, a, b, c``:
``q = !(a < b) & c``).  ``set`` writes all ones (``.f32``: 1.0f) or 0.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional import floatops as fo
from gpusim.functional.operands import DT, reader, writer
from gpusim.functional.registry import semantics
from isa.program import Instruction


def _compare(op: str, a, b, isf: bool):
    a = np.asarray(a)
    b = np.asarray(b)
    base = op.rstrip("u") if op not in ("num", "nan") else op
    unordered = isf and op.endswith("u") and op not in ("lo", "ls", "hi", "hs")
    if op == "num":
        return ~(np.isnan(a) | np.isnan(b))
    if op == "nan":
        return np.isnan(a) | np.isnan(b)
    r = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
         "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater,
         "hs": np.greater_equal}[base](a, b)
    if isf:
        nan = np.isnan(a) | np.isnan(b)
        r = (r | nan) if unordered else (r & ~nan)
    return r



@semantics("setp", "set", "selp")
def build_compare(ins: Instruction, ctx):
    b, t, mods = ins.base, ins.type, ins.mods
    if t in ("f16", "bf16", "f16x2", "bf16x2") and b != "selp":
        return _half_compare(ins, ctx)
    isf = t[0] == "f"
    cmps = [m for m in mods if m in ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu",
                                     "ltu", "leu", "gtu", "geu", "num", "nan")]
    cmp = cmps[0] if cmps else None   # selp has none
    bops = [m for m in mods if m in ("and", "or", "xor")]
    bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
    ra = reader(ins.operands[1], t, ctx)
    rb = reader(ins.operands[2], t, ctx)
    rc = reader(ins.operands[3], "pred", ctx) if len(ins.operands) > 3 else None
    ftz = "ftz" in mods and t == "f32"
    if b == "selp":
        rs = reader(ins.operands[3], "pred", ctx)
        w = writer(ins.operands[0], t)

        def h_selp(fr, st):
            sel = st.sel
            w(fr, sel, np.where(rs(fr, sel), ra(fr, sel), rb(fr, sel)).astype(DT[t]))
        return h_selp
    if b == "setp":
        w = writer(ins.operands[0], "pred")
        wq = writer(ins.pred_out, "pred") if ins.pred_out is not None else None

        def h_setp(fr, st):
            sel = st.sel
            x, y = ra(fr, sel), rb(fr, sel)
            if ftz:
                x, y = fo.flush_subnormals(np.asarray(x)), fo.flush_subnormals(np.asarray(y))
            r = _compare(cmp, x, y, isf)
            if bop is not None:
                c = rc(fr, sel)
                if wq is not None:
                    wq(fr, sel, bop(~r, c))
                r = bop(r, c)
            elif wq is not None:
                wq(fr, sel, ~r)
            w(fr, sel, r)
        return h_setp
    # set: d = all ones / 1.0f
    dtype_out = ins.types[0]
    w = writer(ins.operands[0], "u32")
    true_bits = np.uint32(0x3F800000) if dtype_out == "f32" else np.uint32(0xFFFFFFFF)   # 1.0f or all ones

    def h_set(fr, st):
        sel = st.sel
        r = _compare(cmp, ra(fr, sel), rb(fr, sel), isf)
        if bop is not None:
            r = bop(r, rc(fr, sel))
        w(fr, sel, np.where(r, true_bits, np.uint32(0)))
    return h_set


@semantics("slct")
def build_slct(ins: Instruction, ctx):
    """``slct.dtype.ctype d, a, b, c``: ``d = (c >= 0) ? a : b`` (f32 c: -0.0 counts as >= 0, NaN as < 0)."""
    t, tc = ins.types
    ra, rb = reader(ins.operands[1], t, ctx), reader(ins.operands[2], t, ctx)
    rc = reader(ins.operands[3], tc, ctx)
    w = writer(ins.operands[0], t)
    ftz = "ftz" in ins.mods and tc == "f32"

    def h_slct(fr, st):
        sel = st.sel
        c = np.asarray(rc(fr, sel))
        if ftz:
            c = fo.flush_subnormals(c)
        w(fr, sel, np.where(c >= 0, ra(fr, sel), rb(fr, sel)).astype(DT[t]))
    return h_slct


def _half_compare(ins: Instruction, ctx):
    """setp/set on 16-bit floats: compared as float64 (exact); .f16x2/.bf16x2 setp writes p|q, the low and
    the high halves' results."""
    t = ins.type
    kind = "bf16" if t.startswith("bf16") else "f16"
    packed = t.endswith("x2")
    raw = "b32" if packed else "b16"
    cmp = next(m for m in ins.mods if m in ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu",
                                            "ltu", "leu", "gtu", "geu", "num", "nan"))
    bops = [m for m in ins.mods if m in ("and", "or", "xor")]
    bop = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bops[0]] if bops else None
    ra, rb = reader(ins.operands[1], raw, ctx), reader(ins.operands[2], raw, ctx)
    rc = reader(ins.operands[3], "pred", ctx) if len(ins.operands) > 3 else None
    ftz = "ftz" in ins.mods

    def values(bits, hi):
        v = np.asarray(bits).astype(np.uint32)
        v = (v >> np.uint32(16)) if hi else (v & np.uint32(0xFFFF))
        x = fo.from_half(v.astype(np.uint16), kind)
        return fo.flush_half(x, kind) if ftz else x

    def result(fr, sel, hi):
        r = _compare(cmp, values(ra(fr, sel), hi), values(rb(fr, sel), hi), True)
        return bop(r, rc(fr, sel)) if bop is not None else r
    if ins.base == "set":
        w = writer(ins.operands[0], "u32")
        true_bits = np.uint32(0x3F800000) if ins.types[0] == "f32" else np.uint32(0xFFFFFFFF)

        def h_set_half(fr, st):
            w(fr, st.sel, np.where(result(fr, st.sel, False), true_bits, np.uint32(0)))
        return h_set_half
    w = writer(ins.operands[0], "pred") if ins.operands[0] is not None else None
    wq = writer(ins.pred_out, "pred") if ins.pred_out is not None else None

    def h_setp_half(fr, st):
        lo = result(fr, st.sel, False)
        if packed:
            w(fr, st.sel, lo)
            if wq is not None:
                wq(fr, st.sel, result(fr, st.sel, True))
            return
        w(fr, st.sel, lo)
        if wq is not None:
            wq(fr, st.sel, ~lo if bop is None else bop(~_compare(cmp, values(ra(fr, st.sel), False),
                                                                 values(rb(fr, st.sel), False), True),
                                                       rc(fr, st.sel)))
    return h_setp_half
