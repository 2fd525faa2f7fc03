"""Float arithmetic: ``add sub mul mad fma div min max abs neg rcp sqrt rsqrt ex2 lg2 sin cos tanh copysign
testp`` on f16/f32/f64.

IEEE arithmetic in the instruction's rounding mode: ``.rn`` through numpy, f32 ``.rz/.rm/.rp`` and the fused
f32 multiply-add with a single rounding through :mod:`gpusim.functional.floatops`; ``.ftz`` flushes
subnormal inputs and results to zero; ``.sat`` clamps to [0, 1] (NaN to 0).  ``min``/``max`` return the
other operand when one is NaN (``.NaN``: NaN).  The ``.approx`` operations (``rcp sqrt rsqrt ex2 lg2 sin cos
tanh``, ``div.approx/.full``) are computed exactly; the GPU's are within the documented ulps.  Not modelled
(rejected when the kernel is compiled): f64 directed rounding, directed rounding of f32 division and sqrt.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional import floatops as fo
from gpusim.functional.floatops import from_half
from gpusim.functional.operands import DT, binary, reader, ternary, unary, writer
from gpusim.functional.registry import semantics
from isa.program import Instruction

_TESTS = {"finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x),
          "notanumber": np.isnan,
          "normal": lambda x: np.isfinite(x) & (np.abs(x) >= np.finfo(x.dtype).tiny),
          "subnormal": lambda x: (np.abs(x) < np.finfo(x.dtype).tiny) & (x != 0)}
_UNARY = {"abs": np.abs, "neg": np.negative, "sqrt": np.sqrt, "ex2": np.exp2, "lg2": np.log2, "sin": np.sin,
          "cos": np.cos}


def _rounding(ins: Instruction, ctx) -> str:
    """The rounding modifier (default .rn), after rejecting the modes that are not modelled."""
    rnd = next((m for m in ("rn", "rz", "rm", "rp") if m in ins.mods), "rn")
    if ins.type == "f64" and rnd != "rn":
        raise ctx.unsupported(ins, f"{ins.opcode}: f64 directed rounding is not modelled")
    if ins.type == "f32" and rnd != "rn" and ins.base in ("div", "sqrt", "rcp") and "approx" not in ins.mods:
        raise ctx.unsupported(ins, f"{ins.opcode}: directed rounding of division/sqrt is not modelled")
    return rnd


def _ftz(ins: Instruction, f):
    if "ftz" not in ins.mods or ins.type not in ("f32",):
        return f

    def g(*xs):
        return fo.flush_subnormals(np.asarray(f(*[fo.flush_subnormals(np.asarray(x)) for x in xs])))
    return g


_HALF = ("f16", "f16x2", "bf16", "bf16x2")
_HALF_OPS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "neg": None, "abs": None,
    "ex2": np.exp2, "tanh": np.tanh,
}


def _half(ins: Instruction, ctx):
    """16-bit float arithmetic (f16, bf16, and the packed pairs f16x2, bf16x2): each value widened to float64
    exactly, the operation done there (exact, or rounded to odd for fma), and rounded once to the format;
    ``neg``/``abs`` flip/clear the sign bit; ``.ftz`` flushes the format's subnormals; ``.sat`` clamps to
    [0, 1]; ``.relu`` clamps at 0; ``min``/``max`` as for f32 (``.NaN``: NaN wins)."""
    t = ins.type
    kind = "bf16" if t.startswith("bf16") else "f16"
    packed = t.endswith("x2")
    base = ins.base
    mods = ins.mods
    ftz = "ftz" in mods

    def lanes(bits):
        """The 16-bit parts of each operand: one, or the low and high halves of a packed pair."""
        b = np.asarray(bits)
        if packed:
            b = b.astype(np.uint32)
            return [(b & np.uint32(0xFFFF)).astype(np.uint16), (b >> np.uint32(16)).astype(np.uint16)]
        return [b.astype(np.uint16)]

    def one(*parts):
        if base in ("neg", "abs"):
            (p,) = parts
            return (p ^ np.uint16(0x8000)) if base == "neg" else (p & np.uint16(0x7FFF))
        xs = [from_half(p, kind) for p in parts]
        if ftz:
            xs = [fo.flush_half(x, kind) for x in xs]
        with np.errstate(all="ignore"):
            if base in ("fma", "mad"):
                prod = xs[0] * xs[1]                       # exact in float64 (22 bits at most)
                r = fo._round_to_odd_sum(np.atleast_1d(prod).copy(), np.atleast_1d(np.broadcast_to(xs[2], np.shape(prod))).astype(np.float64).copy()).reshape(np.shape(prod))
            elif base in ("min", "max"):
                if "NaN" in mods:
                    r = np.minimum(xs[0], xs[1]) if base == "min" else np.maximum(xs[0], xs[1])
                else:
                    r = np.fmin(xs[0], xs[1]) if base == "min" else np.fmax(xs[0], xs[1])
            else:
                r = _HALF_OPS[base](*xs)
        if "sat" in mods:
            r = np.where(np.isnan(r), 0.0, np.clip(r, 0.0, 1.0))
        if "relu" in mods:
            r = np.where(np.isnan(r) | (r < 0), 0.0, r)
        if ftz:
            r = fo.flush_half(r, kind)
        return fo.to_half(r, kind)

    def f(*srcs):
        parts = [lanes(s_) for s_ in srcs]
        outs = [one(*[p[k] for p in parts]) for k in range(2 if packed else 1)]
        if packed:
            return (outs[0].astype(np.uint32) | (outs[1].astype(np.uint32) << np.uint32(16)))
        return outs[0]
    return _raw(ins, ctx, f, "b32" if packed else "b16")


def _raw(ins: Instruction, ctx, f, raw: str):
    """A handler reading every source as raw bits of ``raw`` and writing ``f``'s bits."""
    readers = [reader(o, raw, ctx) for o in ins.operands[1:]]
    w = writer(ins.operands[0], raw)

    def h(fr, st):
        sel = st.sel
        w(fr, sel, np.asarray(f(*[r(fr, sel) for r in readers])).astype(DT[raw]))
    return h


@semantics("add", "sub", types="float")
def build_add_sub(ins: Instruction, ctx):
    if ins.type in _HALF:
        return _half(ins, ctx)
    rnd = _rounding(ins, ctx)
    add = ins.base == "add"
    if ins.type == "f32" and rnd != "rn":
        f = (lambda x, y: fo.add_f32_rounded(x, y, rnd)) if add else (lambda x, y: fo.add_f32_rounded(x, -y, rnd))
    elif "sat" in ins.mods:
        f = (lambda x, y: fo.sat01(x + y)) if add else (lambda x, y: fo.sat01(x - y))
    else:
        f = np.add if add else np.subtract
    return binary(ins, _ftz(ins, f), ctx)


@semantics("mul", types="float")
def build_mul(ins: Instruction, ctx):
    if ins.type in _HALF:
        return _half(ins, ctx)
    rnd = _rounding(ins, ctx)
    if ins.type == "f32" and rnd != "rn":
        f = lambda x, y: fo.mul_f32_rounded(x, y, rnd)
    elif "sat" in ins.mods:
        f = lambda x, y: fo.sat01(x * y)
    else:
        f = np.multiply
    return binary(ins, _ftz(ins, f), ctx)


@semantics("mad", "fma", types="float")
def build_fma(ins: Instruction, ctx):
    rnd = _rounding(ins, ctx)
    if ins.type in ("f16x2", "bf16", "bf16x2") or ins.type == "f16":
        return _half(ins, ctx)
    if ins.type == "f32":
        f = lambda x, y, z: fo.fma_f32(x, y, z, rnd)
        if "sat" in ins.mods:
            f = lambda x, y, z: fo.sat01(fo.fma_f32(x, y, z, rnd))
    else:
        f = fo.fma_f64
    if "relu" in ins.mods:
        g0 = f
        f = lambda x, y, z: fo.relu(g0(x, y, z))
    if ins.fused:          # contracted from mul + add/sub (isa.contract): negate the product or the addend
        neg_p, neg_c, _ = ins.fused
        g = f
        if neg_p:
            f = lambda x, y, z: g(np.negative(x), y, z)
        elif neg_c:
            f = lambda x, y, z: g(x, y, np.negative(z))
    return ternary(ins, _ftz(ins, f), ctx)


@semantics("div", types="float")
def build_div(ins: Instruction, ctx):
    _rounding(ins, ctx)
    return binary(ins, _ftz(ins, np.divide), ctx)


@semantics("min", "max", types="float")
def build_min_max(ins: Instruction, ctx):
    if ins.type in _HALF:
        return _half(ins, ctx)
    if "relu" in ins.mods or "xorsign" in ins.mods or "abs" in ins.mods:
        if "xorsign" in ins.mods:
            raise ctx.unsupported(ins, f"{ins.opcode}: .xorsign.abs is modelled for 16-bit types only")
        inner = build_min_max_plain(ins)
        return binary(ins, _ftz(ins, lambda x, y: fo.relu(inner(x, y))), ctx)
    return binary(ins, _ftz(ins, build_min_max_plain(ins)), ctx)


def build_min_max_plain(ins: Instruction):
    if "NaN" in ins.mods:
        return np.minimum if ins.base == "min" else np.maximum
    return np.fmin if ins.base == "min" else np.fmax


@semantics("abs", "neg", "sqrt", "ex2", "lg2", "sin", "cos", types="float")
def build_unary(ins: Instruction, ctx):
    if ins.type in _HALF:
        return _half(ins, ctx)
    _rounding(ins, ctx)
    return unary(ins, _ftz(ins, _UNARY[ins.base]), ctx)


@semantics("rcp", "rsqrt", types="float")
def build_reciprocal(ins: Instruction, ctx):
    _rounding(ins, ctx)
    one = DT[ins.type](1)
    if ins.base == "rcp":
        return unary(ins, _ftz(ins, lambda x: one / x), ctx)
    return unary(ins, _ftz(ins, lambda x: one / np.sqrt(x)), ctx)


@semantics("tanh", types="float")
def build_tanh(ins: Instruction, ctx):
    if ins.type in _HALF:
        return _half(ins, ctx)
    return unary(ins, np.tanh, ctx)


@semantics("copysign", types="float")
def build_copysign(ins: Instruction, ctx):
    return binary(ins, lambda a, b: np.copysign(b, a), ctx)


@semantics("testp", types="float")
def build_testp(ins: Instruction, ctx):
    (which,) = [m for m in ins.mods if m in _TESTS] or [None]
    if which is None:
        raise ctx.unsupported(ins, "testp needs a class such as .finite")
    f = _TESTS[which]
    return unary(ins, lambda x: f(np.asarray(x)), ctx, out_type="pred")
