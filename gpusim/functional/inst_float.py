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
from gpusim.functional.operands import DT, binary, ternary, unary
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


@semantics("add", "sub", types="float")
def build_add_sub(ins: Instruction, ctx):
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
    if ins.type == "f32":
        f = lambda x, y, z: fo.fma_f32(x, y, z, rnd)
        if "sat" in ins.mods:
            f = lambda x, y, z: fo.sat01(fo.fma_f32(x, y, z, rnd))
    elif ins.type == "f64":
        f = fo.fma_f64
    else:
        f = lambda x, y, z: (np.asarray(x, np.float32) * y + z).astype(np.float16)
    return ternary(ins, _ftz(ins, f), ctx)


@semantics("div", types="float")
def build_div(ins: Instruction, ctx):
    _rounding(ins, ctx)
    return binary(ins, _ftz(ins, np.divide), ctx)


@semantics("min", "max", types="float")
def build_min_max(ins: Instruction, ctx):
    if "NaN" in ins.mods:
        f = np.minimum if ins.base == "min" else np.maximum
    else:
        f = np.fmin if ins.base == "min" else np.fmax
    return binary(ins, _ftz(ins, f), ctx)


@semantics("abs", "neg", "sqrt", "ex2", "lg2", "sin", "cos", types="float")
def build_unary(ins: Instruction, ctx):
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
