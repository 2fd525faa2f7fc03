"""Instruction semantics: each decoded :class:`isa.program.Instruction` becomes a pre-bound handler.

A handler is ``h(fr, st)``: ``fr`` is the emulator's :class:`Frame` (register file as one numpy array per
register, lanes on the axis, plus the memory spaces of a batch of blocks), ``st`` the current
:class:`Step` (which warps execute, which lanes: ``st.sel`` is a slice over all lanes or an index array of
the executing lanes).  Operand readers and writers are built once per instruction, so the hot path does no
string tests.  Control flow (bra, exit, barriers) is handled by the emulator, not here.

Registers hold raw bits (uint16/32/64, bool for predicates) and are viewed as the instruction's type, so
``mov.b32 %f1, %r1`` and float results are bit-exact.  Integer arithmetic wraps; float arithmetic is IEEE
in the instruction's rounding mode (see :mod:`gpusim.functional.floatops`).
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import UnsupportedError
from gpusim.functional import floatops as fo
from gpusim.functional.memory import (CONST_WINDOW, GLOBAL_BASE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW,
                                      window_space)
from isa.opcodes import TYPE_BITS
from isa.program import Imm, Instruction, Mem, Reg, SpecialReg, SymbolAddr, Vec

DT = {
    "s8": np.int8, "u8": np.uint8, "b8": np.uint8, "s16": np.int16, "u16": np.uint16, "b16": np.uint16,
    "f16": np.float16, "s32": np.int32, "u32": np.uint32, "b32": np.uint32, "f32": np.float32,
    "s64": np.int64, "u64": np.uint64, "b64": np.uint64, "f64": np.float64, "pred": np.bool_,
}
STORAGE = {1: np.bool_, 16: np.uint16, 32: np.uint32, 64: np.uint64}
UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
SPACE_CODE = {"global": 0, "shared": 1, "const": 2, "local": 3, "param": 4}
WINDOWS = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "const": CONST_WINDOW, "param": PARAM_WINDOW}


class Step:
    """What executes now: the warps (batch-local ids), their active and executing lane masks, the lanes."""

    __slots__ = ("pc", "selw", "act", "exe", "E", "sel", "lanes", "addr", "space", "clock")

    def lane_ids(self, fr) -> np.ndarray:
        if self.lanes is None:
            self.lanes = np.arange(fr.T, dtype=np.int64)
        return self.lanes

    def exec_matrix(self) -> np.ndarray:
        if self.E is None:
            self.E = ((self.exe[:, None] >> _AR32) & 1).astype(bool)
        return self.E


_AR32 = np.arange(32, dtype=np.uint32)
_EMPTY_BUF = np.zeros(16, dtype=np.uint8)


# ---- operand access --------------------------------------------------------------------------------------
def imm_value(op: Imm, t: str):
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


# ---- arithmetic ------------------------------------------------------------------------------------------
def _rounding(ins: Instruction) -> str:
    for m in ("rn", "rz", "rm", "rp"):
        if m in ins.mods:
            return m
    return "rn"


def _wrap_ftz(ins: Instruction, f):
    if "ftz" not in ins.mods or ins.type not in ("f32",):
        return f

    def g(*xs):
        return fo.flush_subnormals(np.asarray(f(*[fo.flush_subnormals(np.asarray(x)) for x in xs])))
    return g


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


def build_arith(ins: Instruction, ctx):
    b, t, mods = ins.base, ins.type, ins.mods
    isf = t[0] == "f"
    rnd = _rounding(ins)
    if isf and t == "f64" and rnd != "rn" and b in ("add", "sub", "mul", "fma", "mad", "div", "sqrt", "rcp"):
        raise ctx.unsupported(ins, f"{ins.opcode}: f64 directed rounding is not modelled")
    if isf and t == "f32" and rnd != "rn" and b in ("div", "sqrt", "rcp") and "approx" not in mods:
        raise ctx.unsupported(ins, f"{ins.opcode}: directed rounding of division/sqrt is not modelled")
    dt = DT[t]
    if b in ("add", "sub"):
        if isf and t == "f32" and rnd != "rn":
            f = (lambda x, y: fo.add_f32_rounded(x, y, rnd)) if b == "add" else \
                (lambda x, y: fo.add_f32_rounded(x, -y, rnd))
        elif "sat" in mods and t == "s32":
            f = (lambda x, y: _int_sat_s32(x.astype(np.int64) + y)) if b == "add" else \
                (lambda x, y: _int_sat_s32(x.astype(np.int64) - y))
        elif "sat" in mods and isf:
            f = (lambda x, y: _sat01(x + y)) if b == "add" else (lambda x, y: _sat01(x - y))
        else:
            f = np.add if b == "add" else np.subtract
        return _binary(ins, _wrap_ftz(ins, f), ctx)
    if b == "mul":
        if isf:
            if t == "f32" and rnd != "rn":
                f = lambda x, y: fo.mul_f32_rounded(x, y, rnd)
            elif "sat" in mods:
                f = lambda x, y: _sat01(x * y)
            else:
                f = np.multiply
            return _binary(ins, _wrap_ftz(ins, f), ctx)
        if "wide" in mods:
            wt = DT[_wide_type(t)]
            return _binary(ins, lambda x, y: np.asarray(x).astype(wt) * np.asarray(y).astype(wt), ctx,
                           out_type=_wide_type(t))
        if "hi" in mods:
            return _binary(ins, lambda x, y: _mul_hi(np.asarray(x), y, t), ctx)
        return _binary(ins, np.multiply, ctx)
    if b in ("mad", "fma"):
        if isf:
            if t == "f32":
                f = lambda x, y, z: fo.fma_f32(x, y, z, rnd)
                if "sat" in mods:
                    f = lambda x, y, z: _sat01(fo.fma_f32(x, y, z, rnd))
            elif t == "f64":
                f = fo.fma_f64
            else:
                f = lambda x, y, z: (np.asarray(x, np.float32) * y + z).astype(np.float16)
            return _ternary(ins, _wrap_ftz(ins, f), ctx)
        if "wide" in mods:
            wts = _wide_type(t)
            wt = DT[wts]
            return _ternary(ins, lambda x, y, z: np.asarray(x).astype(wt) * np.asarray(y).astype(wt) + z, ctx,
                            types=(t, t, wts), out_type=wts)
        if "hi" in mods:
            return _ternary(ins, lambda x, y, z: _mul_hi(np.asarray(x), y, t) + z, ctx)
        if "sat" in mods and t == "s32":
            return _ternary(ins, lambda x, y, z: _int_sat_s32(np.asarray(x).astype(np.int64) * y + z), ctx)
        return _ternary(ins, lambda x, y, z: x * y + z, ctx)
    if b == "div":
        if isf:
            return _binary(ins, _wrap_ftz(ins, np.divide), ctx)
        return _binary(ins, lambda x, y: _trunc_div(np.asarray(x), np.asarray(y), t), ctx)
    if b == "rem":
        return _binary(ins, lambda x, y: _trunc_rem(np.asarray(x), np.asarray(y), t), ctx)
    if b in ("min", "max"):
        if isf:
            f = np.fmin if b == "min" else np.fmax
            if "NaN" in mods:
                f = np.minimum if b == "min" else np.maximum
            return _binary(ins, _wrap_ftz(ins, f), ctx)
        return _binary(ins, np.minimum if b == "min" else np.maximum, ctx)
    if b == "abs":
        return _unary(ins, _wrap_ftz(ins, np.abs), ctx)
    if b == "neg":
        return _unary(ins, _wrap_ftz(ins, np.negative), ctx)
    if b == "rcp":
        one = dt(1)
        return _unary(ins, _wrap_ftz(ins, lambda x: one / x), ctx)
    if b == "sqrt":
        return _unary(ins, _wrap_ftz(ins, np.sqrt), ctx)
    if b == "rsqrt":
        one = dt(1)
        return _unary(ins, _wrap_ftz(ins, lambda x: one / np.sqrt(x)), ctx)
    if b == "ex2":
        return _unary(ins, _wrap_ftz(ins, np.exp2), ctx)
    if b == "lg2":
        return _unary(ins, _wrap_ftz(ins, np.log2), ctx)
    if b == "sin":
        return _unary(ins, _wrap_ftz(ins, np.sin), ctx)
    if b == "cos":
        return _unary(ins, _wrap_ftz(ins, np.cos), ctx)
    if b == "tanh":
        return _unary(ins, np.tanh, ctx)
    if b == "copysign":
        return _binary(ins, lambda a, bb: np.copysign(bb, a), ctx)
    if b == "testp":
        tests = {"finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x),
                 "notanumber": np.isnan,
                 "normal": lambda x: np.isfinite(x) & (np.abs(x) >= np.finfo(x.dtype).tiny),
                 "subnormal": lambda x: (np.abs(x) < np.finfo(x.dtype).tiny) & (x != 0)}
        (which,) = [m for m in mods if m in tests] or [None]
        if which is None:
            raise ctx.unsupported(ins, "testp needs a class such as .finite")
        f = tests[which]
        return _unary(ins, lambda x: f(np.asarray(x)), ctx, out_type="pred")
    raise ctx.unsupported(ins, f"no semantics for {ins.opcode}")


def _sat01(x):
    x = np.asarray(x)
    return np.where(np.isnan(x), x.dtype.type(0), np.clip(x, 0, 1)).astype(x.dtype)


def _unary(ins, f, ctx, out_type=None):
    t = ins.type
    ra = reader(ins.operands[1], t, ctx)
    w = writer(ins.operands[0], out_type or t)

    def h(fr, st):
        sel = st.sel
        w(fr, sel, f(ra(fr, sel)))
    return h


def _binary(ins, f, ctx, out_type=None, types=None):
    t = ins.type
    ta, tb = types or (t, t)
    ra = reader(ins.operands[1], ta, ctx)
    rb = reader(ins.operands[2], tb, ctx)
    w = writer(ins.operands[0], out_type or t)

    def h(fr, st):
        sel = st.sel
        w(fr, sel, f(ra(fr, sel), rb(fr, sel)))
    return h


def _ternary(ins, f, ctx, types=None, out_type=None):
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


def _shift(ins, ctx):
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
    return _binary(ins, f, ctx, types=(t, "u32"))


def build_logic(ins: Instruction, ctx):
    b, t = ins.base, ins.type
    if b in ("and", "or", "xor"):
        f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[b]
        return _binary(ins, f, ctx)
    if b == "not":
        return _unary(ins, np.logical_not if t == "pred" else np.invert, ctx)
    if b == "cnot":
        dt = DT[t]
        return _unary(ins, lambda x: (np.asarray(x) == 0).astype(dt), ctx)
    if b in ("shl", "shr"):
        return _shift(ins, ctx)
    if b == "popc":
        return _unary(ins, lambda x: _popcount(np.asarray(x)).astype(np.uint32), ctx, out_type="u32")
    if b == "clz":
        bits = TYPE_BITS[t]
        return _unary(ins, lambda x: _clz(x, bits), ctx, out_type="u32")
    if b == "brev":
        return _unary(ins, _brev, ctx)
    if b == "lop3":
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
        return _ternary(ins, f, ctx)
    if b == "bfe":
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
        return _ternary(ins, f, ctx, types=(t, "u32", "u32"))
    if b == "bfi":
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
    if b == "prmt":
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
        return _ternary(ins, f, ctx)
    raise ctx.unsupported(ins, f"no semantics for {ins.opcode}")


def _popcount(x: np.ndarray) -> np.ndarray:
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    out = np.zeros(x.shape, dtype=np.uint32)
    x = x.astype(np.uint64)
    while np.any(x):
        out += (x & np.uint64(1)).astype(np.uint32)
        x = x >> np.uint64(1)
    return out


# ---- compare / select / move / convert -------------------------------------------------------------------
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


def build_compare(ins: Instruction, ctx):
    b, t, mods = ins.base, ins.type, ins.mods
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


def build_move(ins: Instruction, ctx):
    b, t = ins.base, ins.type
    if b == "mov":
        ra = reader(ins.operands[1], t, ctx)
        w = writer(ins.operands[0], t)

        def h_mov(fr, st):
            sel = st.sel
            w(fr, sel, ra(fr, sel))
        return h_mov
    if b == "cvta":
        (space,) = [m for m in ins.mods if m in WINDOWS or m == "global"]
        to = "to" in ins.mods
        delta = 0 if space == "global" else WINDOWS[space]
        ra = reader(ins.operands[1], t, ctx)
        w = writer(ins.operands[0], t)
        dt = DT[t]
        d = dt(delta & ((1 << TYPE_BITS[t]) - 1))

        def h_cvta(fr, st):
            sel = st.sel
            v = ra(fr, sel)
            w(fr, sel, (v - d) if to else (v + d))
        return h_cvta
    if b == "cvt":
        return _build_cvt(ins, ctx)
    raise ctx.unsupported(ins, f"no semantics for {ins.opcode}")


def _build_cvt(ins: Instruction, ctx):
    dtype_s, stype_s = ins.types
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
        g = lambda x: _sat01(f(x))
    if ftz and df and dtype_s == "f32":
        g2 = g
        g = lambda x: fo.flush_subnormals(np.asarray(g2(fo.flush_subnormals(np.asarray(x))
                                                         if np.asarray(x).dtype.kind == "f" else x)))

    def h_cvt(fr, st):
        sel = st.sel
        with np.errstate(all="ignore"):
            w(fr, sel, g(ra(fr, sel)))
    return h_cvt


# ---- memory ----------------------------------------------------------------------------------------------
class MemOp:
    """Address computation and bounds checks shared by ld/st/atom/red."""

    def __init__(self, ins: Instruction, ctx, elem_bytes: int):
        self.ins = ins
        self.ctx = ctx
        self.space = ins.space
        self.elem = elem_bytes
        self.size = elem_bytes * ins.vec
        m = ins.operands[0] if ins.base in ("st", "red") else ins.operands[1]
        assert isinstance(m, Mem)
        self.off = m.offset
        self.base = m.base
        if isinstance(m.base, SymbolAddr):
            sspace, addr = ctx.symbol(m.base.name)
            if self.space != "generic" and sspace != self.space and not (sspace == "param" and
                                                                        self.space == "param"):
                raise ctx.unsupported(ins, f"'{m.base.name}' is a .{sspace} variable, accessed as .{self.space}")
            if self.space == "generic":
                addr += WINDOWS.get(sspace, 0)
            self.const_addr = addr + m.offset
        elif m.base is None:
            self.const_addr = m.offset
        else:
            self.const_addr = None
            rid = m.base.id
            self.rid = rid

    def locate(self, fr, st):
        """The executing lanes' addresses, resolved to (space, lanes, buffer, element offset) parts after the
        bounds and alignment checks, and recorded for the trace."""
        addr = self.addresses(fr, st)
        parts = self.resolve(fr, st, addr)
        if fr.recording:
            _trace_addresses(st, _trace_view(fr, st, self, addr),
                             SPACE_CODE[parts[0][0]] if parts else SPACE_CODE.get(self.space, 0), fr)
        return addr, parts

    def addresses(self, fr, st) -> np.ndarray:
        """State-space (or generic) address per executing lane, int64."""
        if self.const_addr is not None:
            n = fr.T if st.lanes is None else len(st.lanes)
            return np.full(n, self.const_addr, dtype=np.int64)
        a = fr.regs[self.rid][st.sel]
        if a.dtype == np.uint64:
            a = a.view(np.int64)
        else:
            a = a.astype(np.int64)
        return a + self.off if self.off else a.copy()

    def resolve(self, fr, st, addr):
        """-> list of (space, lane_positions or None, buffer, element index array) after checks."""
        space = self.space
        if space == "generic":
            codes = window_space(addr)
            out = []
            for code, name in enumerate(("global", "shared", "const", "local", "param")):
                where = np.flatnonzero(codes == code)
                if where.size == 0:
                    continue
                sub = addr[where] - (WINDOWS[name] if name != "global" else 0)
                out.append(self._resolve_space(fr, st, name, sub, where if where.size != addr.size else None))
            return out
        return [self._resolve_space(fr, st, space, addr, None)]

    def _resolve_space(self, fr, st, space, addr, where):
        size = self.size
        if addr.size == 0:
            return space, where, _EMPTY_BUF, addr
        if self.elem > 1 and np.bitwise_or.reduce(addr) & (self.elem - 1):
            mis = np.flatnonzero(addr & (self.elem - 1))
            raise self.ctx.address_error(fr, st, self.ins, int(mis[0]), where, int(addr[mis[0]]), space,
                                         f"misaligned {size}-byte access")
        lo, hi = int(addr.min()), int(addr.max())
        if space == "global":
            # fast path: the whole access falls inside one allocation
            if not fr.mem.contains_range(lo, hi + size):
                ok = fr.mem.check(addr, size)
                if not ok.all():
                    bad = int(np.flatnonzero(~ok)[0])
                    raise self.ctx.address_error(fr, st, self.ins, bad, where, int(addr[bad]), space,
                                                 "out-of-bounds access")
            return space, where, fr.mem.buf, addr - GLOBAL_BASE
        if space == "shared":
            limit = window = fr.shared_size
            buf = fr.shared
            phys_base = fr.lane_block_shared(st, where)
        elif space == "local":
            limit = window = fr.local_size
            buf = fr.local
            lanes = st.lane_ids(fr) if where is None else st.lane_ids(fr)[where]
            phys_base = lanes * limit
        elif space == "const":
            limit = window = fr.const_bytes
            buf = fr.const
            phys_base = 0
        elif space == "param":
            limit = window = fr.param_bytes
            buf = fr.params
            phys_base = 0
        else:
            raise self.ctx.unsupported(self.ins, f"state space {space}")
        ok = lo >= 0 and hi + size <= window
        if not ok:
            bad = int(np.flatnonzero((addr < 0) | (addr + size > window))[0])
            raise self.ctx.address_error(fr, st, self.ins, bad, where, int(addr[bad]), space,
                                         f"out of bounds of the {limit}-byte .{space} window")
        return space, where, buf, addr + phys_base


def _elem_bytes(t: str) -> int:
    return max(1, TYPE_BITS[t] // 8)


def _trace_addresses(st, addr, space_code, fr):
    """Record per-lane addresses of this step for the trace (as [warps, 32], -1 for idle lanes)."""
    if not fr.recording:
        return
    E = st.exec_matrix()
    A = np.full(E.shape, -1, dtype=np.int64)
    A[E] = addr
    st.addr = A
    st.space = space_code


def build_ld(ins: Instruction, ctx):
    t = ins.type
    elem = _elem_bytes(t)
    mo = MemOp(ins, ctx, elem)
    dst = ins.operands[0]
    regs = list(dst.items) if isinstance(dst, Vec) else [dst]
    writers = [writer(r, t) if r is not None else None for r in regs]
    dt = DT[t]
    shift = elem.bit_length() - 1

    def h_ld(fr, st):
        addr, parts = mo.locate(fr, st)
        for k, w in enumerate(writers):
            if w is None:
                continue
            if len(parts) == 1:
                space, where, buf, phys = parts[0]
                val = buf.view(dt)[(phys + k * elem) >> shift]
            else:
                val = np.zeros(addr.shape, dtype=dt)
                for space, where, buf, phys in parts:
                    val[where] = buf.view(dt)[(phys + k * elem) >> shift]
            w(fr, st.sel, val)
    return h_ld


def _trace_view(fr, st, mo, addr):
    """Addresses as the memory model sees them: generic ones resolved, local interleaved per warp."""
    if not fr.recording:
        return None
    if mo.space == "generic":
        codes = window_space(addr)
        out = addr.copy()
        for code, name in ((1, "shared"), (2, "const"), (3, "local"), (4, "param")):
            m = codes == code
            if m.any():
                out[m] -= WINDOWS[name]
        return out
    if mo.space == "local":
        # CUDA interleaves local memory so that the same word of the 32 lanes of a warp is contiguous
        lanes = st.lane_ids(fr)
        return fr.local_trace_base + ((addr >> 2) * 128 + (lanes & 31) * 4 + (addr & 3)) + \
            (lanes >> 5) * fr.local_size * 32
    return addr


def build_st(ins: Instruction, ctx):
    t = ins.type
    elem = _elem_bytes(t)
    mo = MemOp(ins, ctx, elem)
    src = ins.operands[1]
    items = list(src.items) if isinstance(src, Vec) else [src]
    readers = [reader(r, t, ctx) if r is not None else None for r in items]
    dt = DT[t]
    shift = elem.bit_length() - 1
    if ins.space in ("const", "param"):
        raise ctx.unsupported(ins, f"stores to .{ins.space} are not allowed")

    def h_st(fr, st):
        addr, parts = mo.locate(fr, st)
        for k, r in enumerate(readers):
            if r is None:
                continue
            val = np.asarray(r(fr, st.sel)).astype(dt, copy=False)
            for space, where, buf, phys in parts:
                if space in ("const", "param"):
                    raise ctx.address_error(fr, st, ins, 0, where, int(addr[0]), space,
                                            f"store to read-only .{space} space")
                v = val if (where is None or val.ndim == 0) else val[where]
                buf.view(dt)[(phys + k * elem) >> shift] = v
    return h_st


def _atomic_apply(op, t, old, val, cmpv=None):
    dt = DT[t]
    if op == "add":
        return (old + val).astype(dt)
    if op == "min":
        return np.minimum(old, val)
    if op == "max":
        return np.maximum(old, val)
    if op == "exch":
        return np.broadcast_to(val, np.shape(old)).astype(dt)
    if op == "cas":
        return np.where(old == cmpv, val, old).astype(dt)
    if op == "and":
        return old & val
    if op == "or":
        return old | val
    if op == "xor":
        return old ^ val
    if op == "inc":
        return np.where(old >= val, dt(0), old + dt(1)).astype(dt)
    if op == "dec":
        return np.where((old == 0) | (old > val), val, old - dt(1)).astype(dt)
    raise ValueError(op)


def atomic_rmw(view, idx, op, t, val, cmpv=None):
    """Apply an atomic op for all lanes in lane order; return the old value each lane saw."""
    n = idx.size
    dt = DT[t]
    val = np.broadcast_to(np.asarray(val, dtype=dt), (n,))
    cmpv = None if cmpv is None else np.broadcast_to(np.asarray(cmpv, dtype=dt), (n,))
    uniq, inv, counts = np.unique(idx, return_inverse=True, return_counts=True)
    if counts.max(initial=0) <= 1:
        old = view[idx].copy()
        view[idx] = _atomic_apply(op, t, old, val, cmpv)
        return old
    order = np.argsort(inv, kind="stable")
    ginv = inv[order]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[ginv]
    old = np.empty(n, dtype=dt)
    if op == "add" and dt().dtype.kind in "iu":
        # integer addition is associative under wrap-around: old = initial + exclusive prefix sum
        sv = val[order]
        cs = np.cumsum(sv, dtype=dt)
        excl = (cs - sv).astype(dt)
        base = excl[starts][ginv]
        init = view[uniq].copy()
        old[order] = (init[ginv] + (excl - base)).astype(dt)
        view[uniq] = (init + (cs[starts + counts - 1] - base[starts])).astype(dt)
        return old
    for r in range(int(counts.max())):
        lanes = np.flatnonzero(rank == r)
        i = idx[lanes]
        o = view[i].copy()
        old[lanes] = o
        view[i] = _atomic_apply(op, t, o, val[lanes], None if cmpv is None else cmpv[lanes])
    return old


def build_atom(ins: Instruction, ctx):
    t = ins.type
    elem = _elem_bytes(t)
    mo = MemOp(ins, ctx, elem)
    (op,) = [m for m in ins.mods if m in ("add", "min", "max", "exch", "cas", "and", "or", "xor", "inc", "dec")]
    if op in ("min", "max") and t[0] == "f":
        raise ctx.unsupported(ins, f"{ins.opcode}: float atomic min/max are not modelled")
    is_red = ins.base == "red"
    k0 = 1 if is_red else 2          # atom d, [m], a[, b]   /   red [m], a
    rv = reader(ins.operands[k0], t, ctx)
    rc = None
    if op == "cas":
        rc = rv
        rv = reader(ins.operands[k0 + 1], t, ctx)
    w = None if is_red else writer(ins.operands[0], t)
    dt = DT[t]
    shift = elem.bit_length() - 1

    def h_atom(fr, st):
        addr, parts = mo.locate(fr, st)
        val = rv(fr, st.sel)
        cmpv = rc(fr, st.sel) if rc is not None else None
        result = np.zeros(addr.shape, dtype=dt)
        for space, where, buf, phys in parts:
            if space not in ("global", "shared"):
                raise ctx.address_error(fr, st, ins, 0, where, int(addr[0]), space,
                                        f"atomics on .{space} are not allowed")
            v = val if (where is None or np.ndim(val) == 0) else np.asarray(val)[where]
            c = cmpv if (cmpv is None or where is None or np.ndim(cmpv) == 0) else np.asarray(cmpv)[where]
            old = atomic_rmw(buf.view(dt), phys >> shift, op, t, v, c)
            if where is None:
                result = old
            else:
                result[where] = old
        if w is not None:
            w(fr, st.sel, result)
    return h_atom


# ---- warp-level ------------------------------------------------------------------------------------------
def build_warp(ins: Instruction, ctx):
    b = ins.base
    if b == "shfl":
        (mode,) = [m for m in ins.mods if m in ("up", "down", "bfly", "idx")]
        ra = reader(ins.operands[1], "b32", ctx)
        rb = reader(ins.operands[2], "b32", ctx)
        rc = reader(ins.operands[3], "b32", ctx)
        w = writer(ins.operands[0], "b32")
        wp = writer(ins.pred_out, "pred") if ins.pred_out is not None else None
        a_op = ins.operands[1]

        def h_shfl(fr, st):
            sel = st.sel
            lanes = st.lane_ids(fr)
            lane = (lanes & 31).astype(np.int64)
            bval = np.asarray(rb(fr, sel)).astype(np.int64) & 31
            c = np.asarray(rc(fr, sel)).astype(np.int64)
            segmask = (c >> 8) & 31
            max_lane = (lane & segmask) | (c & 31 & ~segmask)
            min_lane = lane & segmask
            if mode == "up":
                j = lane - bval
                ok = j >= max_lane
            elif mode == "down":
                j = lane + bval
                ok = j <= max_lane
            elif mode == "bfly":
                j = lane ^ bval
                ok = j <= max_lane
            else:
                j = min_lane | (bval & ~segmask)
                ok = j <= max_lane
            src = np.where(ok, (lanes - lane) + j, lanes)
            if isinstance(a_op, Reg):
                val = fr.regs[a_op.id][src]
            else:
                val = np.broadcast_to(np.asarray(ra(fr, sel)), src.shape)
            w(fr, sel, val)
            if wp is not None:
                wp(fr, sel, ok)
        return h_shfl
    if b == "vote":
        (mode,) = [m for m in ins.mods if m in ("all", "any", "uni", "ballot")]
        rp = ins.operands[1]
        rm = reader(ins.operands[2], "b32", ctx)
        w = writer(ins.operands[0], "b32" if mode == "ballot" else "pred")
        rpr = reader(rp, "pred", ctx)

        def h_vote(fr, st):
            E = st.exec_matrix()
            if isinstance(rp, Reg):
                P = fr.regs[rp.id][(st.selw * 32)[:, None] + np.arange(32)]
            else:
                P = np.broadcast_to(np.asarray(rpr(fr, slice(None))), E.shape)
            member = np.asarray(rm(fr, st.sel))
            ballot = np.packbits(P & E, axis=1, bitorder="little").view("<u4")[:, 0]
            if mode == "ballot":
                per_warp = ballot
            elif mode == "any":
                per_warp = ballot != 0
            elif mode == "all":
                per_warp = ballot == st.exe
            else:
                per_warp = (ballot == 0) | (ballot == st.exe)
            vals = np.broadcast_to(per_warp[:, None], E.shape)[E]
            if mode == "ballot" and member.ndim == 0:
                vals = vals & member
            w(fr, st.sel, vals)
        return h_vote
    if b == "activemask":
        w = writer(ins.operands[0], "b32")

        def h_active(fr, st):
            E = st.exec_matrix()
            w(fr, st.sel, np.broadcast_to(st.act[:, None], E.shape)[E])
        return h_active
    raise ctx.unsupported(ins, f"no semantics for {ins.opcode}")


BUILDERS = {}
for _n in ("add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "abs", "neg", "rcp", "sqrt", "rsqrt",
           "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp"):
    BUILDERS[_n] = build_arith
for _n in ("and", "or", "xor", "not", "cnot", "lop3", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "prmt"):
    BUILDERS[_n] = build_logic
for _n in ("setp", "set", "selp"):
    BUILDERS[_n] = build_compare
for _n in ("mov", "cvta", "cvt"):
    BUILDERS[_n] = build_move
BUILDERS["ld"] = build_ld
BUILDERS["st"] = build_st
BUILDERS["atom"] = build_atom
BUILDERS["red"] = build_atom
for _n in ("shfl", "vote", "activemask"):
    BUILDERS[_n] = build_warp
CONTROL = ("bra", "ret", "exit", "bar", "barrier", "membar", "fence")
