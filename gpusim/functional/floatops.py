"""IEEE-exact float helpers the instruction semantics need and numpy does not provide.

* :func:`fma_f32` — ``fma.rn.f32`` with a single rounding: the product of two float32 is exact in float64;
  the sum is taken with an error-free transformation (TwoSum) and rounded *to odd* in float64, which makes
  the final float64 -> float32 rounding correct (53 >= 2*24 + 2 bits).
* :func:`round_f64_to_f32` — float64 -> float32 in any of PTX's rounding modes (rn, rz, rm, rp).
* :func:`add_f32_rounded` / :func:`mul_f32_rounded` — f32 add/mul in directed rounding modes.
* :func:`flush_subnormals` — ``.ftz``: subnormal inputs and results become sign-preserving zero.
* :func:`sat01` — ``.sat`` on floats: clamp to [0, 1], NaN to 0.

f64 fused multiply-add has no exact numpy path: :func:`fma_f64` uses ``np.longdouble`` (x87 80-bit on
x86-64), which is exact for the product's leading 64 bits and can differ from the GPU by one ulp in rare
double-rounding cases; this is documented in ``isa/README.md``.
"""
from __future__ import annotations

import numpy as np

_F32_TINY = np.float32(np.finfo(np.float32).tiny)
_F64_TINY = np.float64(np.finfo(np.float64).tiny)


def _round_to_odd_sum(p: np.ndarray, c: np.ndarray) -> np.ndarray:
    """p + c in float64, rounded to odd (p, c float64)."""
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    lsb_even = (s.view(np.uint64) & np.uint64(1)) == 0
    fix = (err != 0) & lsb_even & np.isfinite(s)
    if fix.any():
        s[fix] = np.nextafter(s[fix], np.where(err[fix] > 0, np.inf, -np.inf))
    return s


def _rm_zero_sign(s: np.ndarray, p: np.ndarray, c: np.ndarray, mode: str) -> np.ndarray:
    """IEEE 754: an exact zero sum is -0 when rounding toward -inf, unless both terms are +0."""
    if mode != "rm":
        return s
    both_pos_zero = (p == 0) & ~np.signbit(p) & (c == 0) & ~np.signbit(c)
    return np.where((s == 0) & ~both_pos_zero, -0.0, s)


def round_f64_to_f32(x: np.ndarray, mode: str = "rn") -> np.ndarray:
    """Round float64 values to float32 with a PTX rounding mode (x should be rounded-to-odd or exact)."""
    x = np.asarray(x, dtype=np.float64)
    r = x.astype(np.float32)
    if mode == "rn":
        return r
    back = r.astype(np.float64)
    with np.errstate(invalid="ignore"):
        if mode == "rz":
            adjust = (np.abs(back) > np.abs(x)) & np.isfinite(x)
            target = np.zeros_like(r)
        elif mode == "rm":
            adjust = back > x
            target = np.full_like(r, -np.inf)
        elif mode == "rp":
            adjust = back < x
            target = np.full_like(r, np.inf)
        else:
            raise ValueError(f"unknown rounding mode {mode}")
    if np.ndim(r) == 0:
        return np.nextafter(r, target) if adjust else r
    if adjust.any():
        r = r.copy()
        r[adjust] = np.nextafter(r[adjust], target[adjust])
    # overflow to infinity only in the rounding direction that allows it
    if mode in ("rz", "rm", "rp"):
        big = np.isinf(r) & np.isfinite(x)
        if np.any(big):
            fmax = np.float32(np.finfo(np.float32).max)
            keep_inf = (mode == "rp") & (x > 0) | (mode == "rm") & (x < 0)
            r = np.where(big & ~keep_inf, np.copysign(fmax, x).astype(np.float32), r)
    return r


def _f64_operands(*xs):
    arrs = np.broadcast_arrays(*[np.asarray(x, dtype=np.float32).astype(np.float64) for x in xs])
    shape = arrs[0].shape
    return [np.atleast_1d(a).copy() for a in arrs], shape


_MID_MASK = np.uint64((1 << 29) - 1)     # float64 mantissa bits below float32 precision
_MID_HALF = np.uint64(1 << 28)
_F32_NORMAL_MIN = 2.0 ** -126


def fma_f32(a, b, c, mode: str = "rn") -> np.ndarray:
    (a64, b64, c64), shape = _f64_operands(a, b, c)
    with np.errstate(all="ignore"):
        p = a64 * b64                           # the product of two float32 is exact in float64
        if mode == "rn":
            # Rounding p + c to float64 and then to float32 can only go wrong (double rounding) when the
            # float64 sum lands exactly on a float32 midpoint, or in the subnormal range: only those lanes
            # need the exact round-to-odd sum.
            s = p + c64
            risky = ((s.view(np.uint64) & _MID_MASK) == _MID_HALF) | (np.abs(s) < _F32_NORMAL_MIN)
            if risky.any():
                s[risky] = _round_to_odd_sum(p[risky], c64[risky])
            return s.astype(np.float32).reshape(shape)
        return round_f64_to_f32(_rm_zero_sign(_round_to_odd_sum(p, c64), p, c64, mode), mode).reshape(shape)


def add_f32_rounded(a, b, mode: str) -> np.ndarray:
    (a64, b64), shape = _f64_operands(a, b)
    with np.errstate(all="ignore"):
        return round_f64_to_f32(_rm_zero_sign(_round_to_odd_sum(a64, b64), a64, b64, mode), mode).reshape(shape)


def mul_f32_rounded(a, b, mode: str) -> np.ndarray:
    (a64, b64), shape = _f64_operands(a, b)
    with np.errstate(all="ignore"):
        return round_f64_to_f32(a64 * b64, mode).reshape(shape)   # exact product


def fma_f64(a, b, c) -> np.ndarray:
    with np.errstate(all="ignore"):
        la = np.asarray(a, dtype=np.float64).astype(np.longdouble)
        return (la * np.asarray(b, dtype=np.float64) + np.asarray(c, dtype=np.float64)).astype(np.float64)


def flush_subnormals(x: np.ndarray) -> np.ndarray:
    """Replace subnormal values by a zero of the same sign (the ``.ftz`` modifier)."""
    tiny = _F32_TINY if x.dtype == np.float32 else _F64_TINY
    sub = (np.abs(x) < tiny) & (x != 0)
    if np.ndim(x) == 0:
        return np.copysign(np.zeros_like(x), x) if sub else x
    if sub.any():
        x = np.where(sub, np.copysign(np.zeros_like(x), x), x)
    return x


def sat01(x) -> np.ndarray:
    """``.sat``: clamp to [0.0, 1.0]; NaN becomes 0."""
    x = np.asarray(x)
    return np.where(np.isnan(x), x.dtype.type(0), np.clip(x, 0, 1)).astype(x.dtype)
