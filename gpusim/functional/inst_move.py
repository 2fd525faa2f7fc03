"""Moves and conversions: ``mov cvta cvt``.

``mov`` copies bits (a register, an immediate, a special register, or the address of a variable).  ``cvta``
converts between a state-space address and a generic one (adds or subtracts the space's window in the generic
address space, see :mod:`gpusim.functional.memory`).  ``cvt`` converts between types: float to float in the
given rounding (``.rni/.rzi/.rmi/.rpi`` round to an integral value), integer to float (``.rn`` default,
directed modes exact through float64), float to integer always saturating with NaN -> 0, integer to integer
truncating or sign/zero-extending (``.sat`` clamps); ``.ftz`` flushes subnormals, ``.sat`` on a float
destination clamps to [0, 1].
"""
from __future__ import annotations

import numpy as np

from gpusim.functional import floatops as fo
from gpusim.functional.memory import GENERIC_WINDOWS
from gpusim.functional.operands import DT, reader, writer
from gpusim.functional.registry import semantics
from isa.opcodes import TYPE_BITS
from isa.program import Instruction, Vec
from isa.units import MemSpace


def _build_pack(ins: Instruction, ctx):
    """``mov.b64 d, {lo, hi}`` (pack: the first register is the low part) and ``mov.b64 {lo, hi}, a``
    (unpack); likewise b32 from two b16 or four b8, b16 from two b8."""
    t = ins.type
    d, a = ins.operands[0], ins.operands[1]
    width = TYPE_BITS[t]
    if isinstance(a, Vec):     # pack
        n = len(a.items)
        part = width // n
        pt = {8: "b8", 16: "b16", 32: "b32", 64: "b64"}[part]
        readers = [reader(r, pt, ctx) for r in a.items]
        w = writer(d, t)
        wide = np.uint64
        mask = wide((1 << part) - 1) if part < 64 else wide(0xFFFFFFFFFFFFFFFF)

        def h_pack(fr, st):
            acc = wide(0)
            for k, r in enumerate(readers):
                acc = acc | ((np.asarray(r(fr, st.sel)).astype(wide) & mask) << wide(k * part))
            w(fr, st.sel, np.asarray(acc).astype(DT[t]))
        return h_pack
    n = len(d.items)
    part = width // n
    pt = {8: "b8", 16: "b16", 32: "b32", 64: "b64"}[part]
    ra = reader(a, t, ctx)
    writers = [writer(r, pt) if r is not None else None for r in d.items]
    wide = np.uint64
    mask = wide((1 << part) - 1) if part < 64 else wide(0xFFFFFFFFFFFFFFFF)

    def h_unpack(fr, st):
        v = np.asarray(ra(fr, st.sel)).astype(wide)
        for k, w in enumerate(writers):
            if w is not None:
                w(fr, st.sel, ((v >> wide(k * part)) & mask).astype(DT[pt]))
    return h_unpack


@semantics("mov")
def build_mov(ins: Instruction, ctx):
    t = ins.type
    if isinstance(ins.operands[0], Vec) or isinstance(ins.operands[1], Vec):
        return _build_pack(ins, ctx)
    ra = reader(ins.operands[1], t, ctx)
    w = writer(ins.operands[0], t)

    def h_mov(fr, st):
        sel = st.sel
        w(fr, sel, ra(fr, sel))
    return h_mov


@semantics("cvta")
def build_cvta(ins: Instruction, ctx):
    t = ins.type
    to = "to" in ins.mods
    delta = GENERIC_WINDOWS.get(MemSpace(ins.space), 0)
    ra = reader(ins.operands[1], t, ctx)
    w = writer(ins.operands[0], t)
    dt = DT[t]
    d = dt(delta & ((1 << TYPE_BITS[t]) - 1))

    def h_cvta(fr, st):
        sel = st.sel
        v = ra(fr, sel)
        w(fr, sel, (v - d) if to else (v + d))
    return h_cvta


def _build_cvt_half(ins: Instruction, ctx):
    """cvt to or from bf16, and the packing conversions to .f16x2/.bf16x2 (a -> upper half, b -> lower)."""
    dtype_s, stype_s = ins.types
    packed = dtype_s.endswith("x2")
    kind = "bf16" if dtype_s.startswith("bf16") else "f16"
    mods = ins.mods
    rz = "rz" in mods
    if dtype_s in ("bf16", "f16x2", "bf16x2", "f16") and stype_s in ("f32", "f64"):
        readers = [reader(o, stype_s, ctx) for o in ins.operands[1:]]
        if packed and len(readers) != 2:
            raise ctx.unsupported(ins, f"{ins.opcode} packs two values: cvt.rn.{dtype_s}.f32 d, a, b")
        w = writer(ins.operands[0], "b32" if packed else "b16")

        def one(x):
            x = np.asarray(x, dtype=np.float64)
            if "relu" in mods:
                x = np.where(np.isnan(x), np.nan, np.maximum(x, 0.0))
            if "satfinite" in mods:
                big = 65504.0 if kind == "f16" else float(np.float32(3.3895314e38))
                x = np.where(np.isnan(x), np.nan, np.clip(x, -big, big))
            if rz and kind == "bf16":      # toward zero: drop the low 16 bits of the float32
                f = x.astype(np.float32)
                return (np.atleast_1d(f).view(np.uint32) >> np.uint32(16)).astype(np.uint16).reshape(np.shape(f))
            return fo.to_half(x, kind)

        def h_cvt_half(fr, st):
            vals = [one(r(fr, st.sel)) for r in readers]
            if packed:
                hi, lo = vals
                w(fr, st.sel, (np.asarray(hi).astype(np.uint32) << np.uint32(16)) | np.asarray(lo).astype(np.uint32))
            else:
                w(fr, st.sel, vals[0])
        return h_cvt_half
    if stype_s == "bf16" and dtype_s in ("f32", "f64"):
        ra = reader(ins.operands[1], "bf16", ctx)
        w = writer(ins.operands[0], dtype_s)

        def h_from_bf16(fr, st):
            w(fr, st.sel, fo.from_half(ra(fr, st.sel), "bf16").astype(DT[dtype_s]))
        return h_from_bf16
    raise ctx.unsupported(ins, f"{ins.opcode}: this conversion of 16-bit floats is not modelled")


def _build_cvt_narrow(ins: Instruction, ctx):
    """cvt to .tf32, and to and from the 8-bit floats .e4m3x2/.e5m2x2 (two values: the first operand's in the
    upper byte)."""
    dtype_s, stype_s = ins.types
    mods = ins.mods
    if dtype_s == "tf32":
        mode = "rna" if "rna" in mods else "rz" if "rz" in mods else "rn"
        ra = reader(ins.operands[1], "f32", ctx)
        w = writer(ins.operands[0], "b32")
        return lambda fr, st: w(fr, st.sel, fo.to_tf32(ra(fr, st.sel), mode))
    if dtype_s in ("e4m3x2", "e5m2x2"):
        fmt = dtype_s[:4]
        relu = "relu" in mods
        w = writer(ins.operands[0], "b16")
        if stype_s == "f32":
            ra, rb = reader(ins.operands[1], "f32", ctx), reader(ins.operands[2], "f32", ctx)

            def h_to_fp8(fr, st):
                hi = fo.to_fp8(ra(fr, st.sel), fmt, relu).astype(np.uint16)
                lo = fo.to_fp8(rb(fr, st.sel), fmt, relu).astype(np.uint16)
                w(fr, st.sel, (hi << np.uint16(8)) | lo)
            return h_to_fp8
        ra = reader(ins.operands[1], "b32", ctx)       # .f16x2: the upper half to the upper byte

        def h_f16x2_to_fp8(fr, st):
            v = np.atleast_1d(np.asarray(ra(fr, st.sel)).astype(np.uint32))
            hi = fo.to_fp8(fo.from_half((v >> np.uint32(16)).astype(np.uint16), "f16"), fmt, relu)
            lo = fo.to_fp8(fo.from_half((v & np.uint32(0xFFFF)).astype(np.uint16), "f16"), fmt, relu)
            w(fr, st.sel, (hi.astype(np.uint16) << np.uint16(8)) | lo.astype(np.uint16))
        return h_f16x2_to_fp8
    fmt = stype_s[:4]                                 # .f16x2 from .e4m3x2/.e5m2x2: exact
    ra = reader(ins.operands[1], "b16", ctx)
    w = writer(ins.operands[0], "b32")

    def h_from_fp8(fr, st):
        v = np.atleast_1d(np.asarray(ra(fr, st.sel)).astype(np.uint16))
        hi = fo.to_half(fo.from_fp8(v >> np.uint16(8), fmt), "f16").astype(np.uint32)
        lo = fo.to_half(fo.from_fp8(v & np.uint16(0xFF), fmt), "f16").astype(np.uint32)
        w(fr, st.sel, (hi << np.uint32(16)) | lo)
    return h_from_fp8


@semantics("cvt")
def build_cvt(ins: Instruction, ctx):
    dtype_s, stype_s = ins.types
    if {dtype_s, stype_s} & {"tf32", "e4m3x2", "e5m2x2"}:
        return _build_cvt_narrow(ins, ctx)
    if {dtype_s, stype_s} & {"bf16", "f16x2", "bf16x2"} or (dtype_s == "f16" and len(ins.operands) > 2):
        return _build_cvt_half(ins, ctx)
    mods = ins.mods
    ddt = DT[dtype_s]
    ra = reader(ins.operands[1], stype_s, ctx)
    w = writer(ins.operands[0], dtype_s)
    sat = "sat" in mods
    ftz = "ftz" in mods
    df, sf = dtype_s[0] == "f", stype_s[0] == "f"
    iround = [m for m in mods if m in ("rni", "rzi", "rmi", "rpi")]
    fround = [m for m in mods if m in ("rn", "rz", "rm", "rp")]
    if df and sf:
        rnd = fround[0] if fround else "rn"
        if iround:
            r = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[iround[0]]

            def f(x):
                y = r(np.asarray(x)).astype(ddt)
                return y
        elif TYPE_BITS[dtype_s] < TYPE_BITS[stype_s]:
            if dtype_s == "f32" and rnd != "rn":
                f = lambda x: fo.round_f64_to_f32(np.asarray(x, np.float64), rnd)
            else:
                f = lambda x: np.asarray(x).astype(ddt)
        else:
            f = lambda x: np.asarray(x).astype(ddt)
    elif df:  # int -> float
        rnd = fround[0] if fround else "rn"
        if rnd != "rn" and dtype_s == "f32":
            f = lambda x: fo.round_f64_to_f32(np.asarray(x).astype(np.float64), rnd)
        else:
            f = lambda x: np.asarray(x).astype(ddt)
    elif sf:  # float -> int (always saturates in PTX; NaN -> 0)
        r = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[iround[0] if iround else "rzi"]
        info = np.iinfo(ddt)

        def f(x):
            x = np.asarray(x)
            if ftz:
                x = fo.flush_subnormals(x)
            y = r(x.astype(np.float64))
            y = np.where(np.isnan(y), 0, y)
            lo, hi = float(info.min), float(info.max)
            big = y >= hi
            y = np.clip(y, lo, hi)
            out = y.astype(np.int64 if info.min < 0 or info.bits < 64 else np.uint64)
            if info.bits == 64:
                out = np.where(big, info.max, out) if info.min < 0 else np.where(big, np.uint64(info.max),
                                                                                  y.astype(np.uint64))
            return np.asarray(out).astype(ddt)
    else:  # int -> int
        if sat:
            info = np.iinfo(ddt)

            def f(x):
                x = np.asarray(x)
                if x.dtype.kind == "u" and info.min < 0:
                    return np.minimum(x, np.uint64(info.max)).astype(ddt)
                xi = x.astype(np.int64) if x.dtype != np.uint64 else x
                return np.clip(xi, max(info.min, np.iinfo(xi.dtype).min) if xi.dtype.kind == "i" else 0,
                               info.max).astype(ddt)
        else:
            f = lambda x: np.asarray(x).astype(ddt)
    g = f
    if sat and df:
        g = lambda x: fo.sat01(f(x))
    if ftz and df and dtype_s == "f32":
        g2 = g
        g = lambda x: fo.flush_subnormals(np.asarray(g2(fo.flush_subnormals(np.asarray(x))
                                                         if np.asarray(x).dtype.kind == "f" else x)))

    def h_cvt(fr, st):
        sel = st.sel
        with np.errstate(all="ignore"):
            w(fr, sel, g(ra(fr, sel)))
    return h_cvt


@semantics("mapa")
def build_mapa(ins: Instruction, ctx):
    """A launch's clusters are of one block: rank 0 is the block itself (d = a); another rank is an error."""
    t = ins.type
    ra = reader(ins.operands[1], t, ctx)
    rb = reader(ins.operands[2], "u32", ctx)
    w = writer(ins.operands[0], t)

    def h_mapa(fr, st):
        rank = np.asarray(rb(fr, st.sel))
        if np.any(rank != 0):
            raise ctx.kernel_error(ins, f"{ins.opcode} to block rank {int(np.max(rank))} of the cluster: gpusim "
                                        f"launches clusters of one block (rank 0 only)")
        w(fr, st.sel, ra(fr, st.sel))
    return h_mapa


@semantics("getctarank")
def build_getctarank(ins: Instruction, ctx):
    w = writer(ins.operands[0], "u32")

    def h_rank(fr, st):
        w(fr, st.sel, np.uint32(0))
    return h_rank


@semantics("alloca", "stacksave", "stackrestore")
def build_stack(ins: Instruction, ctx):
    """The per-thread stack of alloca (``fr.stack_sp``: local addresses, growing down from the top of the
    region :func:`isa.link.link` reserves); running below its floor is a stack-overflow error."""
    t = ins.type
    floor, _ = ctx.program.stack_range
    if ins.base == "stackrestore":
        ra = reader(ins.operands[0], t, ctx)

        def h_restore(fr, st):
            fr.stack_sp[st.sel] = np.asarray(ra(fr, st.sel)).astype(np.int64)
        return h_restore
    w = writer(ins.operands[0], t)
    if ins.base == "stacksave":
        def h_save(fr, st):
            w(fr, st.sel, fr.stack_sp[st.sel].astype(DT[t]))
        return h_save
    rs = reader(ins.operands[1], t, ctx)
    align = int(ins.operands[2].value) if len(ins.operands) > 2 else 8
    if align & (align - 1):
        raise ctx.unsupported(ins, f"{ins.opcode}: the alignment {align} is not a power of two")

    def h_alloca(fr, st):
        sp = fr.stack_sp[st.sel] - np.asarray(rs(fr, st.sel)).astype(np.int64)
        sp = sp & ~np.int64(max(align, 8) - 1)
        if np.any(sp < floor):
            raise ctx.kernel_error(ins, f"stack overflow in kernel '{ctx.kernel.name}': {ins.opcode} needs more than "
                                        f"the {ctx.program.stack_range[1] - floor}-byte stack a thread has")
        fr.stack_sp[st.sel] = sp
        w(fr, st.sel, sp.astype(DT[t]))
    return h_alloca
