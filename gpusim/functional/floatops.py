"""IEEE-exact float helpers the instruction semantics need and numpy does not provide.

* :func:`fma_f32` — ``fma.rn.f32`` with a single rounding: the product of two float32 is exact in float64;
  the sum is taken with an error-free transformation (TwoSum) and rounded *to odd* in float64, which makes
  the final float64 -> float32 rounding correct (53 >= 2*24 + 2 bits).
* :func:`round_f64_to_f32` — float64 -> float32 in any of PTX's rounding modes (rn, rz, rm, rp).
* :func:`add_f32_rounded` / :func:`mul_f32_rounded` — f32 add/mul in directed rounding modes.
* :func:`flush_subnormals` — ``.ftz``: subnormal inputs and results become sign-preserving zero.
* :func:`sat01` — ``.sat`` on floats: clamp to [0, 1], NaN to 0.

* :func:`fma_f64` — ``fma.rn.f64`` correctly rounded: the product split exactly (Dekker's TwoProduct), the
  sum with TwoSum, the tail rounded to odd and added once (Boldo and Melquiond's emulated FMA); lanes near
  overflow or underflow, where those steps are not exact, go through exact rationals.
* :func:`to_half` / :func:`from_half` — f16 and bf16 (bits in uint16) from and to float64, correctly
  rounded (through a float32 rounded to odd, so that no double rounding can occur).
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
    """The operands as float64 arrays of one shape (at least 1-D; read only: the callers never write them)
    and that shape."""
    arrs = [np.asarray(x, dtype=np.float32).astype(np.float64) for x in xs]
    if any(a.shape != arrs[0].shape for a in arrs):
        arrs = np.broadcast_arrays(*arrs)
    shape = arrs[0].shape
    return [np.atleast_1d(a) for a in arrs], shape


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


_SPLITTER = 134217729.0          # 2^27 + 1: Veltkamp's splitter for float64
_SAFE_HI = 2.0 ** 995            # above it the split or the product may overflow
_SAFE_LO = 2.0 ** -960           # below it the product's error term may underflow


def _split(a):
    c = _SPLITTER * a
    h = c - (c - a)
    return h, a - h


def fma_f64(a, b, c) -> np.ndarray:
    arrs = np.broadcast_arrays(*[np.asarray(x, dtype=np.float64) for x in (a, b, c)])
    shape = arrs[0].shape
    a, b, c = (np.atleast_1d(x).astype(np.float64).copy() for x in arrs)
    with np.errstate(all="ignore"):
        uh = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl     # uh + ul = a * b exactly
        th = c + uh                                            # TwoSum: th + tl = c + uh exactly
        bb = th - c
        tl = (c - (th - bb)) + (uh - bb)
        v = _round_to_odd_sum(tl, ul)
        z = th + v
        au, ac = np.abs(uh), np.abs(c)
        risky = ~(np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & np.isfinite(z)) | \
            (np.abs(a) > _SAFE_HI) | (np.abs(b) > _SAFE_HI) | (au > _SAFE_HI) | (ac > _SAFE_HI) | \
            ((au < _SAFE_LO) & (uh != 0)) | ((ac < _SAFE_LO) & (c != 0)) | ((np.abs(z) < _SAFE_LO) & (z != 0))
        risky |= (uh == 0) | (z == 0)
    for i in np.flatnonzero(risky):
        z[i] = _fma_exact(float(a[i]), float(b[i]), float(c[i]))
    return z.reshape(shape)


def _fma_exact(a: float, b: float, c: float) -> float:
    """a * b + c rounded once, through exact rationals (the rare lanes fma_f64's fast path cannot take)."""
    import math
    from fractions import Fraction
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c
    if not math.isfinite(c):
        return c            # the exact product is finite, even where a * b would overflow
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        p_neg = (math.copysign(1.0, a) * math.copysign(1.0, b)) < 0
        prod_zero = a == 0 or b == 0
        if prod_zero and c == 0:
            return -0.0 if (p_neg and math.copysign(1.0, c) < 0) else 0.0
        return 0.0
    try:
        return float(exact)
    except OverflowError:
        return math.copysign(math.inf, exact)


def relu(x):
    """``.relu``: negative results (and NaN) become +0."""
    x = np.asarray(x)
    return np.where(np.isnan(x) | (x < 0), x.dtype.type(0), x).astype(x.dtype)


# ---- 16-bit floats: f16 and bf16 as uint16 bits ---------------------------------------------------------
def from_half(bits, kind: str) -> np.ndarray:
    """float64 values of f16 (``kind`` "f16") or bf16 ("bf16") bit patterns (uint16)."""
    bits = np.asarray(bits).astype(np.uint16)
    if kind == "f16":
        return bits.view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)


def _f64_to_f32_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd (exact for the final rounding to 16 bits, which has 13 bits fewer)."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    with np.errstate(all="ignore"):
        r = x.astype(np.float32)
        back = r.astype(np.float64)
        inexact = (back != x) & np.isfinite(x) & np.isfinite(back)
        even = (r.view(np.uint32) & np.uint32(1)) == 0
        fix = inexact & even
        if fix.any():
            r[fix] = np.nextafter(r[fix], np.where(x[fix] > back[fix], np.float32(np.inf), np.float32(-np.inf)))
    return r


HALF_CANONICAL_NAN = 0x7FFF     # what the H100 writes for every f16/bf16 NaN result (tests/hw/test_isa_device.py)


def to_half(x, kind: str) -> np.ndarray:
    """float64 values rounded to nearest even f16 or bf16, as uint16 bits; a NaN becomes the canonical
    0x7FFF, as the H100's f16/bf16 arithmetic and conversions write it (whatever the input NaN's payload)."""
    x = np.asarray(x, dtype=np.float64)
    shape = x.shape
    r = _f64_to_f32_odd(x)
    nan = np.isnan(r)
    if kind == "f16":
        with np.errstate(all="ignore"):
            out = r.astype(np.float16).view(np.uint16)
    else:
        u = r.view(np.uint32)
        out = ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
    return np.where(nan, np.uint16(HALF_CANONICAL_NAN), out).astype(np.uint16).reshape(shape)


def flush_half(x: np.ndarray, kind: str) -> np.ndarray:
    """``.ftz`` on 16-bit values held as float64: subnormals of the format become zero of the same sign."""
    tiny = 2.0 ** -14 if kind == "f16" else 2.0 ** -126
    return np.where((np.abs(x) < tiny) & (x != 0), np.copysign(0.0, x), x)


def flush_subnormals(x: np.ndarray) -> np.ndarray:
    """Replace subnormal values by a zero of the same sign (the ``.ftz`` modifier)."""
    tiny = _F32_TINY if x.dtype == np.float32 else _F64_TINY
    sub = (np.abs(x) < tiny) & (x != 0)
    if x.ndim == 0:
        return np.copysign(np.zeros_like(x), x) if sub else x
    if np.count_nonzero(sub):     # not sub.any(): a hot path on a few lanes, where .any()'s wrapper costs most
        x = np.where(sub, np.copysign(np.zeros_like(x), x), x)
    return x


def sat01(x) -> np.ndarray:
    """``.sat``: clamp to [0.0, 1.0]; NaN becomes 0."""
    x = np.asarray(x)
    return np.where(np.isnan(x), x.dtype.type(0), np.clip(x, 0, 1)).astype(x.dtype)


# ---- 8-bit floats (e4m3: no infinities, NaN 0x7F; e5m2: IEEE-like) and tf32 ------------------------------
def _fp8_table(fmt: str) -> np.ndarray:
    """The values of the 128 non-negative codes of an 8-bit float format (NaN/inf codes as nan/inf)."""
    ebits, mbits, bias = (4, 3, 7) if fmt == "e4m3" else (5, 2, 15)
    out = np.zeros(128)
    for code in range(128):
        e, m = code >> mbits, code & ((1 << mbits) - 1)
        if fmt == "e4m3" and code == 0x7F:
            out[code] = np.nan
        elif fmt == "e5m2" and e == (1 << ebits) - 1:
            out[code] = np.inf if m == 0 else np.nan
        elif e == 0:
            out[code] = m * 2.0 ** (1 - bias - mbits)
        else:
            out[code] = (1 + m * 2.0 ** -mbits) * 2.0 ** (e - bias)
    return out


_FP8 = {f: _fp8_table(f) for f in ("e4m3", "e5m2")}


def to_fp8(x, fmt: str, relu: bool = False) -> np.ndarray:
    """float64 -> 8-bit float codes, round to nearest even, saturating to the largest finite value
    (.satfinite); NaN -> 0x7F."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    table = _FP8[fmt]
    finite = table[np.isfinite(table)]
    top = len(finite) - 1                      # the codes 0 .. top are the finite non-negative values
    if relu:
        x = np.where(np.isnan(x), x, np.maximum(x, 0.0))
    mag = np.minimum(np.abs(x), finite[top])
    hi = np.clip(np.searchsorted(finite, mag, side="left"), 0, top)
    lo = np.maximum(hi - 1, 0)
    d_lo, d_hi = mag - finite[lo], finite[hi] - mag
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (hi % 2 == 0))
    code = np.where(pick_hi, hi, lo)
    code = np.where(mag == finite[hi], hi, code)
    code = code | np.where(np.signbit(x), 0x80, 0)
    return np.where(np.isnan(x), 0x7F, code).astype(np.uint8)


def from_fp8(code, fmt: str) -> np.ndarray:
    code = np.asarray(code).astype(np.int64)
    v = _FP8[fmt][code & 0x7F]
    return np.where(code & 0x80, -v, v)


def to_tf32(x: np.ndarray, mode: str) -> np.ndarray:
    """float32 -> tf32 (19 bits kept in a .b32: the low 13 mantissa bits zero): .rna ties away from zero,
    .rn to even, .rz truncates."""
    u = np.atleast_1d(np.asarray(x, dtype=np.float32)).view(np.uint32).astype(np.uint64)
    keep = np.uint64(0xFFFFE000)
    if mode == "rz":
        r = u & keep
    else:
        half = np.uint64(0x1000)
        tie_even = ((u >> np.uint64(13)) & np.uint64(1)) if mode == "rn" else np.uint64(1)
        r = (u + half - np.uint64(1) + tie_even) & keep
    special = (u & np.uint64(0x7F800000)) == np.uint64(0x7F800000)
    return np.where(special, u, r).astype(np.uint32)
