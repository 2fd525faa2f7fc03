"""Integer arithmetic: add sub mul(.lo/.hi/.wide) mad div rem min max abs neg, with wrap-around edge cases."""
import numpy as np
import pytest

from isa.errors import PtxError
from snippet import run_snippet

I32_MIN, I32_MAX = -2 ** 31, 2 ** 31 - 1
S32 = [0, 1, -1, 7, -7, 100, -100, I32_MAX, I32_MIN, I32_MIN + 1, 12345678, -87654321, 3, -3, 2, -2,
       65536, -65536, 46341, -46341, 1 << 30, 255, -256, 9, 10, -10, 13, -13, 0x7FFF, 1 << 16, 17, 31]
S32_B = [1, -1, 2, -2, 3, 7, -7, -1, -1, 1, 10, 3, 0, 0, I32_MIN, I32_MAX, 65536, 65536, 46341, 46341,
         4, 255, 16, -3, 4, 3, 5, -5, 1, 1 << 16, -17, 0]


def s32(v):
    return np.array(v, dtype=np.int64).astype(np.int32)


def wrap32(vals):
    return np.array([((v + 2 ** 31) % 2 ** 32) - 2 ** 31 for v in vals], dtype=np.int64).astype(np.int32)


def run2(op, a, b, t="s32", out=None):
    dt = {"s32": np.int32, "u32": np.uint32, "s64": np.int64, "u64": np.uint64, "s16": np.int16,
          "u16": np.uint16}[t]
    return run_snippet(f"{op} %d, %a, %b;", {"a": as_dt(a, dt), "b": as_dt(b, dt)}, {"d": out or t})["d"]


def as_dt(vals, dt):
    """Python ints -> numpy array of dt, wrapping as the register would."""
    bits = np.dtype(dt).itemsize * 8
    return np.array([v % 2 ** bits for v in vals], dtype=np.uint64).astype(dt)


def test_add_sub_wrap():
    np.testing.assert_array_equal(run2("add.s32", S32, S32_B), wrap32([a + b for a, b in zip(S32, S32_B)]))
    np.testing.assert_array_equal(run2("sub.s32", S32, S32_B), wrap32([a - b for a, b in zip(S32, S32_B)]))
    # the classic: INT_MAX + 1 wraps to INT_MIN
    assert run2("add.s32", [I32_MAX] * 32, [1] * 32)[0] == I32_MIN
    assert run2("sub.u32", [0] * 32, [1] * 32, "u32")[0] == 0xFFFFFFFF


def test_add_sat_s32_clamps():
    d = run2("add.sat.s32", [I32_MAX, I32_MIN, 5] + [0] * 29, [1, -1, -7] + [0] * 29)
    assert list(d[:3]) == [I32_MAX, I32_MIN, -2]
    d = run2("sub.sat.s32", [I32_MIN, I32_MAX] + [0] * 30, [1, -1] + [0] * 30)
    assert list(d[:2]) == [I32_MIN, I32_MAX]


def test_add_64_and_16_bit():
    a = [2 ** 63 - 1, -1, 1 << 40] + [0] * 29
    b = [1, 1, 1 << 40] + [3] * 29
    d = run2("add.s64", a, b, "s64")
    assert list(d[:4]) == [-2 ** 63, 0, 1 << 41, 3]
    d = run2("add.u16", [0xFFFF, 0x8000] + [1] * 30, [1, 0x8000] + [1] * 30, "u16")
    assert list(d[:3]) == [0, 0, 2]


def test_mul_lo_hi_wide():
    prods = [a * b for a, b in zip(S32, S32_B)]
    np.testing.assert_array_equal(run2("mul.lo.s32", S32, S32_B), wrap32(prods))
    np.testing.assert_array_equal(run2("mul.hi.s32", S32, S32_B), s32([p >> 32 for p in prods]))
    np.testing.assert_array_equal(run2("mul.wide.s32", S32, S32_B, out="s64"), np.array(prods, np.int64))
    ua = [a & 0xFFFFFFFF for a in S32]
    ub = [b & 0xFFFFFFFF for b in S32_B]
    uprods = [a * b for a, b in zip(ua, ub)]
    np.testing.assert_array_equal(run2("mul.hi.u32", ua, ub, "u32"),
                                  np.array([p >> 32 for p in uprods], dtype=np.uint64).astype(np.uint32))
    np.testing.assert_array_equal(run2("mul.wide.u32", ua, ub, "u32", out="u64"),
                                  np.array(uprods, dtype=np.uint64))
    d = run2("mul.wide.s16", [-32768, 300] + [2] * 30, [-32768, -300] + [3] * 30, "s16", out="s32")
    assert list(d[:3]) == [2 ** 30, -90000, 6]


def test_mul_hi_64():
    a = [2 ** 63 - 1, -1, -(2 ** 63), 0x123456789ABCDEF, -5] + [1] * 27
    b = [2 ** 63 - 1, -1, -1, 0x0FEDCBA987654321, 7] + [1] * 27
    d = run2("mul.hi.s64", a, b, "s64")
    assert list(d[:5]) == [(x * y) >> 64 for x, y in zip(a[:5], b[:5])]
    d = run2("mul.lo.s64", a, b, "s64")
    assert [int(v) for v in d[:5]] == [((x * y + 2 ** 63) % 2 ** 64) - 2 ** 63 for x, y in zip(a[:5], b[:5])]
    ua = [x % 2 ** 64 for x in a]
    ub = [x % 2 ** 64 for x in b]
    d = run2("mul.hi.u64", ua, ub, "u64")
    assert [int(v) for v in d[:5]] == [(x * y) >> 64 for x, y in zip(ua[:5], ub[:5])]


def test_mad_lo_hi_wide():
    c = list(range(32))
    o = run_snippet("mad.lo.s32 %d, %a, %b, %c; mad.hi.s32 %e, %a, %b, %c; mad.wide.s32 %w, %a, %b, %x;",
                    {"a": s32(S32), "b": s32(S32_B), "c": s32(c), "x": np.full(32, -5, np.int64)},
                    {"d": "s32", "e": "s32", "w": "s64"})
    np.testing.assert_array_equal(o["d"], wrap32([a * b + k for a, b, k in zip(S32, S32_B, c)]))
    np.testing.assert_array_equal(o["e"], wrap32([((a * b) >> 32) + k for a, b, k in zip(S32, S32_B, c)]))
    np.testing.assert_array_equal(o["w"], np.array([a * b - 5 for a, b in zip(S32, S32_B)], np.int64))


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def test_div_rem_signed_truncate():
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (1, 3), (-1, 3), (I32_MIN, 1), (I32_MAX, -1), (100, 7),
             (-100, 7), (5, 5), (0, -3)]
    pairs += [(i * 37 - 500, (i % 9) - 4 or 3) for i in range(32 - len(pairs))]
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    np.testing.assert_array_equal(run2("div.s32", a, b), wrap32([_tdiv(x, y) for x, y in pairs]))
    np.testing.assert_array_equal(run2("rem.s32", a, b), wrap32([x - _tdiv(x, y) * y for x, y in pairs]))
    assert run2("rem.s32", [-7] * 32, [2] * 32)[0] == -1    # sign of the dividend, as in C


def test_div_int_min_by_minus_one_and_by_zero():
    # -2^31 / -1 overflows: the GPU gives -2^31 (the wrapped quotient); remainder 0
    a = [I32_MIN, 5, -5, 0] + [1] * 28
    b = [-1, 0, 0, 0] + [1] * 28
    d = run2("div.s32", a, b)
    assert d[0] == I32_MIN
    # x / 0 is all ones (as documented in isa/README.md: -1 signed, 0xFFFFFFFF unsigned)
    assert list(d[1:4]) == [-1, -1, -1]
    r = run2("rem.s32", a, b)
    assert r[0] == 0
    assert list(r[1:4]) == [5, -5, 0]      # x % 0 = x
    du = run2("div.u32", [7, 0xFFFFFFFF] + [1] * 30, [0, 2] + [1] * 30, "u32")
    assert list(du[:2]) == [0xFFFFFFFF, 0x7FFFFFFF]
    ru = run2("rem.u32", [7, 0xFFFFFFFF] + [1] * 30, [0, 10] + [1] * 30, "u32")
    assert list(ru[:2]) == [7, 0xFFFFFFFF % 10]


def test_div_rem_64():
    a = [-(2 ** 63), 2 ** 62 + 3, -17] + [9] * 29
    b = [-1, 7, 5] + [2] * 29
    d = run2("div.s64", a, b, "s64")
    assert [int(v) for v in d[:4]] == [-(2 ** 63), (2 ** 62 + 3) // 7, -3, 4]
    r = run2("rem.s64", a, b, "s64")
    assert [int(v) for v in r[:4]] == [0, (2 ** 62 + 3) % 7, -2, 1]
    du = run2("div.u64", [2 ** 64 - 1, 10] + [1] * 30, [3, 0] + [1] * 30, "u64")
    assert [int(v) for v in du[:2]] == [(2 ** 64 - 1) // 3, 2 ** 64 - 1]


def test_min_max_signed_unsigned():
    np.testing.assert_array_equal(run2("min.s32", S32, S32_B), s32([min(a, b) for a, b in zip(S32, S32_B)]))
    np.testing.assert_array_equal(run2("max.s32", S32, S32_B), s32([max(a, b) for a, b in zip(S32, S32_B)]))
    ua = [a & 0xFFFFFFFF for a in S32]
    ub = [b & 0xFFFFFFFF for b in S32_B]
    np.testing.assert_array_equal(run2("min.u32", ua, ub, "u32"),
                                  np.array([min(a, b) for a, b in zip(ua, ub)], np.uint32))
    np.testing.assert_array_equal(run2("max.u32", ua, ub, "u32"),
                                  np.array([max(a, b) for a, b in zip(ua, ub)], np.uint32))


@pytest.mark.parametrize("t,dt,lo", [("s32", np.int32, I32_MIN), ("s64", np.int64, -(2 ** 63)),
                                     ("s16", np.int16, -32768)])
def test_abs_neg(t, dt, lo):
    a = np.array([0, 1, -1, 5, -5, lo, lo + 1] + list(range(-12, 13)), dtype=np.int64).astype(dt)
    o = run_snippet(f"abs.{t} %d, %a; neg.{t} %e, %a;", {"a": a}, {"d": t, "e": t})
    vals = [int(v) for v in a]
    bits = np.dtype(dt).itemsize * 8

    def wrap(v):
        return ((v + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1)
    assert [int(v) for v in o["d"]] == [wrap(abs(v)) for v in vals]     # abs(INT_MIN) = INT_MIN
    assert [int(v) for v in o["e"]] == [wrap(-v) for v in vals]
    assert int(o["d"][5]) == lo


def test_immediate_operands_and_negative_immediates():
    o = run_snippet("add.s32 %d, %a, -3; mul.lo.s32 %e, %a, 0x10; sub.s32 %f, 100, %a;",
                    {"a": np.arange(32, dtype=np.int32)}, {"d": "s32", "e": "s32", "f": "s32"})
    np.testing.assert_array_equal(o["d"], np.arange(32) - 3)
    np.testing.assert_array_equal(o["e"], np.arange(32) * 16)
    np.testing.assert_array_equal(o["f"], 100 - np.arange(32))


# ---- extended precision (carry chains), 24-bit multiplies, sad, dot products ----------------------------
def test_carry_chain_128_bit_addition():
    """A 128-bit add as four 32-bit words: add.cc, addc.cc, addc.cc, addc (the carry ripples)."""
    rng = np.random.default_rng(3)
    xs = [int(v) for v in rng.integers(0, 2 ** 62, 28)] + [2 ** 128 - 1, 2 ** 96 - 1, 2 ** 64 - 1, 2 ** 32 - 1]
    ys = [int(v) for v in rng.integers(0, 2 ** 62, 28)] + [1, 1, 1, 1]
    xs = [(x * 0x9E3779B97F4A7C15) % 2 ** 128 if k < 28 else x for k, x in enumerate(xs)]
    ins = {}
    for w in range(4):
        ins[f"x{w}"] = ([(x >> (32 * w)) & 0xFFFFFFFF for x in xs], "u32")
        ins[f"y{w}"] = ([(y >> (32 * w)) & 0xFFFFFFFF for y in ys], "u32")
    o = run_snippet("add.cc.u32 %d0, %x0, %y0; addc.cc.u32 %d1, %x1, %y1; addc.cc.u32 %d2, %x2, %y2; "
                    "addc.u32 %d3, %x3, %y3;", ins, {f"d{w}": "u32" for w in range(4)})
    got = [sum(int(o[f"d{w}"][k]) << (32 * w) for w in range(4)) for k in range(32)]
    assert got == [(x + y) % 2 ** 128 for x, y in zip(xs, ys)]
    assert got[28] == 0 and got[29] == 2 ** 96 and got[31] == 2 ** 32


def test_borrow_chain_and_64_bit_carry():
    o = run_snippet("sub.cc.u32 %d, %a, %b; subc.u32 %e, %a, %b; add.cc.u64 %f, %x, %x; addc.u64 %g, %x, %x;",
                    {"a": ([0, 5, 0xFFFFFFFF, 1] * 8, "u32"), "b": ([1, 3, 0xFFFFFFFF, 2] * 8, "u32"),
                     "x": ([2 ** 63, 1, 2 ** 64 - 1, 0] * 8, "u64")}, {"d": "u32", "e": "u32", "f": "u64", "g": "u64"})
    assert list(o["d"][:4]) == [0xFFFFFFFF, 2, 0, 0xFFFFFFFF]
    # subc: a - b - borrow, the borrow of the sub.cc in the same lane (0 - 1 and 1 - 2 borrow)
    assert list(o["e"][:4]) == [0xFFFFFFFE, 2, 0, 0xFFFFFFFE]
    assert list(o["f"][:4]) == [0, 2, 2 ** 64 - 2, 0]
    assert list(o["g"][:4]) == [1, 2, 2 ** 64 - 1, 0]                 # x + x + carry of the add.cc


def test_madc_hi_lo_multiword_product():
    """The 64-bit product of two 32-bit words through mad.lo.cc / madc.hi (what wide multiplies emit)."""
    a = [0xFFFFFFFF, 0x12345678, 7, 0x80000000] * 8
    b = [0xFFFFFFFF, 0x9ABCDEF0, 9, 2] * 8
    o = run_snippet("mad.lo.cc.u32 %d, %a, %b, 0; madc.hi.u32 %e, %a, %b, 0;", {"a": (a, "u32"), "b": (b, "u32")},
                    {"d": "u32", "e": "u32"})
    for k in range(4):
        p = a[k] * b[k]
        assert int(o["d"][k]) == p & 0xFFFFFFFF and int(o["e"][k]) == p >> 32


def test_mul24_and_mad24():
    a = [0x00FFFFFF, 0x00800000, 3, 0x7FFFFF, 0xFF000005] * 6 + [0, 0]
    b = [0x00FFFFFF, 2, 0x00800000, 0x7FFFFF, 7] * 6 + [0, 0]
    o = run_snippet("mul24.lo.u32 %d, %a, %b; mul24.hi.u32 %e, %a, %b; mul24.lo.s32 %f, %a, %b; "
                    "mad24.lo.u32 %g, %a, %b, 10;", {"a": (a, "u32"), "b": (b, "u32")},
                    {"d": "u32", "e": "u32", "f": "s32", "g": "u32"})

    def s24(x):
        x &= 0xFFFFFF
        return x - (1 << 24) if x & 0x800000 else x
    for k in range(5):
        pu = (a[k] & 0xFFFFFF) * (b[k] & 0xFFFFFF)
        assert int(o["d"][k]) == pu & 0xFFFFFFFF
        assert int(o["e"][k]) == (pu >> 16) & 0xFFFFFFFF
        ps = s24(a[k]) * s24(b[k])
        assert int(o["f"][k]) == ((ps & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
        assert int(o["g"][k]) == (pu + 10) & 0xFFFFFFFF


def test_sad():
    o = run_snippet("sad.s32 %d, %a, %b, %c; sad.u32 %e, %a, %b, %c;",
                    {"a": ([-5, 10, 0, 7] * 8, "s32"), "b": ([3, -10, 0, 7] * 8, "s32"), "c": ([100] * 32, "s32")},
                    {"d": "s32", "e": "u32"})
    assert list(o["d"][:4]) == [108, 120, 100, 100]
    # unsigned: -5 is 0xFFFFFFFB, 3 - that wraps; |10 - 0xFFFFFFF6| = 0xFFFFFFEC
    assert list(o["e"][:4]) == [(100 + 0xFFFFFFFB - 3) & 0xFFFFFFFF, (100 + 0xFFFFFFF6 - 10) & 0xFFFFFFFF, 100, 100]


def test_dp4a_and_dp2a_signedness():
    a, b = 0xFF7F0180, 0x80FF0203
    o = run_snippet("dp4a.u32.u32 %d, %a, %b, 1; dp4a.s32.s32 %e, %a, %b, 1; dp4a.s32.u32 %f, %a, %b, 1; "
                    "dp2a.lo.s32.s32 %g, %a, %b, 0; dp2a.hi.u32.s32 %h, %a, %b, 0;",
                    {"a": ([a] * 32, "u32"), "b": ([b] * 32, "u32")},
                    {"d": "u32", "e": "s32", "f": "s32", "g": "s32", "h": "s32"})
    ua, ub = [0x80, 0x01, 0x7F, 0xFF], [0x03, 0x02, 0xFF, 0x80]      # bytes, least significant first
    sa, sb = [-128, 1, 127, -1], [3, 2, -1, -128]
    assert int(o["d"][0]) == 1 + sum(x * y for x, y in zip(ua, ub))
    assert int(o["e"][0]) == 1 + sum(x * y for x, y in zip(sa, sb))
    assert int(o["f"][0]) == 1 + sum(x * y for x, y in zip(sa, ub))
    ha = [0x0180 - 0, -0x0081]            # the 16-bit halves of a, signed: 0x0180, 0xFF7F
    assert int(o["g"][0]) == ha[0] * sb[0] + ha[1] * sb[1]
    assert int(o["h"][0]) == 0x0180 * sb[2] + 0xFF7F * sb[3]


# ---- SIMD video (vabsdiff4 is what __vabsdiffu4 and __vsadu4 compile to) and 16-bit pairs ---------------
def _parts(x, w, signed):
    v = [(x >> (w * i)) & ((1 << w) - 1) for i in range(32 // w)]
    return [p - (1 << w) if signed and p >> (w - 1) else p for p in v]


def _pack(v, w):
    return sum((p & ((1 << w) - 1)) << (w * i) for i, p in enumerate(v)) & 0xFFFFFFFF


A4 = [0x01FF807F, 0x80808080, 0xFFFFFFFF, 0x00000000, 0x7F00FF01, 0x12345678, 0xDEADBEEF, 0x0F0F0F0F] * 4
B4 = [0xFF017F80, 0x7F7F7F7F, 0x00000001, 0xFFFFFFFF, 0x80FF0102, 0x87654321, 0xBEEFDEAD, 0xF0F0F0F0] * 4


def test_vabsdiff4_merge_and_accumulate():
    o = run_snippet("vabsdiff4.u32.u32.u32 %d, %a, %b, %c; vabsdiff4.u32.u32.u32.add %e, %a, %b, %c; "
                    "vabsdiff4.s32.s32.s32.sat %f, %a, %b, %c; vabsdiff4.u32.u32.u32 %g.b20, %a, %b, %c;",
                    {"a": (A4, "u32"), "b": (B4, "u32"), "c": ([0x11223344] * 32, "u32")},
                    {"d": "u32", "e": "u32", "f": "u32", "g": "u32"})
    for k in range(8):
        ua, ub, sa, sb = _parts(A4[k], 8, 0), _parts(B4[k], 8, 0), _parts(A4[k], 8, 1), _parts(B4[k], 8, 1)
        t = [abs(x - y) for x, y in zip(ua, ub)]
        assert int(o["d"][k]) == _pack(t, 8)
        assert int(o["e"][k]) == (0x11223344 + sum(t)) & 0xFFFFFFFF           # __vsadu4 + c
        assert int(o["f"][k]) == _pack([min(abs(x - y), 127) for x, y in zip(sa, sb)], 8)
        c = _parts(0x11223344, 8, 0)                                          # mask .b20: elements 0 and 2
        assert int(o["g"][k]) == _pack([t[0], c[1], t[2], c[3]], 8)


def test_simd_video_selectors_halves_and_vset():
    o = run_snippet("vadd2.u32.u32.u32 %d, %a.h01, %b.h23, %c; vavrg4.s32.s32.s32 %e, %a, %b, %c; "
                    "vmax2.s32.s32.s32.add %f, %a, %b, %c; vset4.u32.u32.lt %g, %a, %b, %c; "
                    "vsub4.s32.s32.s32.sat %h, %a.b0000, %b, %c;",
                    {"a": (A4, "u32"), "b": (B4, "u32"), "c": ([7] * 32, "u32")},
                    {"d": "u32", "e": "u32", "f": "u32", "g": "u32", "h": "u32"})
    for k in range(8):
        ha, hb = _parts(A4[k], 16, 0), _parts(B4[k], 16, 0)
        assert int(o["d"][k]) == _pack([ha[1] + hb[1], ha[0] + hb[0]], 16)    # .h01 swaps a's halves, .h23 b's
        sa, sb = _parts(A4[k], 8, 1), _parts(B4[k], 8, 1)
        assert int(o["e"][k]) == _pack([(x + y + 1) >> 1 if x + y >= 0 else (x + y) >> 1 for x, y in zip(sa, sb)], 8)
        sha, shb = _parts(A4[k], 16, 1), _parts(B4[k], 16, 1)
        assert int(o["f"][k]) == (7 + sum(max(x, y) for x, y in zip(sha, shb))) & 0xFFFFFFFF
        ua, ub = _parts(A4[k], 8, 0), _parts(B4[k], 8, 0)
        assert int(o["g"][k]) == _pack([int(x < y) for x, y in zip(ua, ub)], 8)
        assert int(o["h"][k]) == _pack([max(-128, min(127, sa[0] - y)) for y in sb], 8)


def test_sub_has_no_16_bit_pairs():
    """PTX's sub takes no .u16x2/.s16x2 (ptxas rejects it; add, min and max do take them)."""
    with pytest.raises(PtxError, match=r"sub does not take \.u16x2"):
        run_snippet("sub.u16x2 %d, %a, %b;", {"a": ([1] * 32, "u32"), "b": ([2] * 32, "u32")}, {"d": "u32"})


def test_add_min_max_on_16_bit_pairs():
    o = run_snippet("add.s16x2 %d, %a, %b; add.u16x2 %e, %a, %b; min.s16x2 %f, %a, %b; max.u16x2 %g, %a, %b; "
                    "max.relu.s16x2 %h, %a, %b;", {"a": (A4, "b32"), "b": (B4, "b32")},
                    {"d": "b32", "e": "b32", "f": "b32", "g": "b32", "h": "b32"})
    for k in range(8):
        sa, sb, ua, ub = _parts(A4[k], 16, 1), _parts(B4[k], 16, 1), _parts(A4[k], 16, 0), _parts(B4[k], 16, 0)
        assert int(o["d"][k]) == _pack([x + y for x, y in zip(sa, sb)], 16)
        assert int(o["e"][k]) == _pack([x + y for x, y in zip(ua, ub)], 16)
        assert int(o["f"][k]) == _pack([min(x, y) for x, y in zip(sa, sb)], 16)
        assert int(o["g"][k]) == _pack([max(x, y) for x, y in zip(ua, ub)], 16)
        assert int(o["h"][k]) == _pack([max(x, y, 0) for x, y in zip(sa, sb)], 16)


def test_scalar_video_part_selection_saturation_secondary_ops_and_merge():
    a, b, c = 0x12345678, 0x9ABCDEF0, 1000
    o = run_snippet("vadd.u32.u32.u32.sat %d, %a.b0, %b.b1; vsub.s32.s32.s32 %e.h1, %a.h0, %b.h1, %c; "
                    "vabsdiff.u32.u32.u32.add %f, %a, %b, %c; vset.u32.u32.lt %g, %a.b2, %b.b2; "
                    "vshl.u32.u32.u32.clamp %h, %a, 40; vmad.s32.s32.s32.shr7 %k, %a.h0, -%b.h1, %c; "
                    "vmax.s32.s32.s32.sat %m.b3, %a.b0, %b.b0, %c; vshr.s32.s32.u32.wrap.min %q, %b, 36, %c;",
                    {"a": ([a] * 32, "u32"), "b": ([b] * 32, "u32"), "c": ([c] * 32, "u32")},
                    {x: "u32" for x in "defghkmq"})
    got = [int(o[x][0]) for x in "defghkmq"]
    sb1 = 0x9ABC - 0x10000                                      # b.h1 as .s32
    assert got[0] == 0x78 + 0xDE
    assert got[1] == ((0x5678 - sb1) & 0xFFFF0000) | c          # .h1: the result's own upper half (as the H100)
    assert got[2] == (b - a + c) & 0xFFFFFFFF
    assert got[3] == 1 and got[4] == 0                         # 0x34 < 0xBC; a << 32 (clamped) loses a
    assert got[5] == (-(0x5678 * sb1) + c) >> 7                 # -(a*b) + c, then >> 7
    assert got[6] == (min(max(0x78, 0xF0 - 0x100), 127) << 24) | c    # max(120, -16) into byte 3 of c
    assert got[7] == ((b - (1 << 32)) >> 4) & 0xFFFFFFFF                # min(b >> (36 mod 32), c), signed


def test_scalar_video_merge_and_secondary_op_as_the_h100_does_them():
    """The rules measured on the H100 (tests/hw/test_isa_device.py, cases scalar_video and video_merge_*)."""
    a, b, c = 0x00000001, 0xED5A4BC8, 0x00000001           # a.b0 - b.b1 = 1 - 0x4B = -74; a.h0 - b.h1 = 4775
    o = run_snippet("vsub.s32.s32.s32.sat %d.b0, %a.b0, %b.b1, %c; vsub.s32.s32.s32 %e.b3, %a.b0, %b.b1, %c; "
                    "vsub.s32.s32.s32 %f.h1, %a.h0, %b.h1, %c; vsub.s32.s32.s32.sat %g.h0, %b.h1, %a.h0, %c; "
                    "vshl.s32.s32.u32.sat.clamp %h.h0, %k0, 11, %c; vmin.u32.s32.s32.max %k, %a.h1, %b.h0, %c;"
                    "vadd.u32.u32.u32.sat %m.b3, %a.b0, %q0, %c;",
                    {"a": ([a] * 32, "u32"), "b": ([b] * 32, "u32"), "c": ([c] * 32, "u32"),
                     "k0": ([120] * 32, "u32"), "q0": ([300] * 32, "u32")},
                    {x: "u32" for x in "defghkm"})
    got = [int(o[x][0]) for x in "defghkm"]
    assert got[0] == 0x7F | (c & ~0xFF)             # .sat into a byte: -74 saturates as unsigned, to 0x7F
    assert got[1] == (0xB6 << 24) | c               # no .sat: the low byte of -74, moved to byte 3
    assert got[2] == (4775 & 0xFFFF0000) | c        # .h1: the result's upper half (0 here), not 4775 << 16
    assert got[3] == 0x7FFF | (c & 0xFFFF0000)      # -4775 saturated into h0 as unsigned: 0x7FFF
    assert got[4] == (120 << 11) & 0xFFFF | (c & 0xFFFF0000)   # the shifts merge unsaturated low bits
    # min(0, b.h0 = 0x4BC8) = 0, then .max with c as unsigned 32-bit values
    assert got[5] == max(0, c)
    assert got[6] == (min(1 + 300, 255) << 24) | c  # .u32 .sat into byte 3: 255


def test_scalar_video_secondary_max_compares_a_negative_result_of_a_u32_d_as_unsigned():
    # min(a.h1, b.h0) = min(0, -3924) = -3924: as a .u32 result, 0xFFFFF0AC, larger than c = 3
    o = run_snippet("vmin.u32.s32.s32.max %d, %a.h1, %b.h0, %c; vmin.u32.s32.s32.min %e, %a.h1, %b.h0, %c;",
                    {"a": ([0] * 32, "u32"), "b": ([0xDDF1F0AC] * 32, "u32"), "c": ([3] * 32, "u32")},
                    {"d": "u32", "e": "u32"})
    assert int(o["d"][0]) == 0xFFFFF0AC and int(o["e"][0]) == 3


# The scalar video instructions as the H100 runs them: ptxas lowers each to 64-bit integer code, which the
# record's cases vshl_sat, video_op2, video_merge_sat and video_sat_op2 (tests/hw/test_isa_device.py) measure.
def _lanes(body, rows, outs):
    """Run body with one lane per row of (a, b, c) words; the outputs' values per lane (Python ints)."""
    cols = list(zip(*rows))
    o = run_snippet(body, {x: (list(v) + [v[0]] * (32 - len(v)), "u32") for x, v in zip("abc", cols)},
                    {x: "u32" for x in outs})
    return {x: [int(v) for v in o[x][:len(rows)]] for x in outs}


def test_scalar_video_shift_sat_sees_the_signed_34_bit_intermediate():
    rows = [(1, 32, 0), (2, 32, 0), (0xFFFFFFA9, 32, 0), (0xFFFFFFF6, 29, 0), (0xFFFFFFBB, 27, 0), (5, 3, 0)]
    o = _lanes("vshl.s32.s32.u32.sat.clamp %d, %a, %b; vshl.u32.u32.u32.sat.clamp %e, %a, %b;", rows, "de")
    # 1 << 32 = +2^32; 2 << 32 wraps to -2^33; -87 << 32 to +2^32; -10 << 29 stays negative; -69 << 27 wraps
    # to +7918845952; in range: 40
    assert o["d"] == [0x7FFFFFFF, 0x80000000, 0x7FFFFFFF, 0x80000000, 0x7FFFFFFF, 40]
    # .u32 (a zero-extended): the two bits above the word decide, 01 -> the max, 1x (negative) -> 0;
    # 0xFFFFFFF6 << 29 keeps 22 << 29 (bit 33 set), 0xFFFFFFBB << 27 keeps 59 << 27 (< 2^33)
    assert o["e"] == [0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF, 40]


def test_scalar_video_shift_sat_into_a_part_clamps_to_32_bits_then_merges_the_low_bits():
    c = 0x2DEFD3F5
    rows = [(0x66, 26, c), (0xBB, 27, c), (0xF6, 29, c), (0x48, 34, c), (0x78, 11, c)]
    o = _lanes("vshl.s32.s32.u32.sat.clamp %d.h0, %a.b0, %b, %c;", rows, "d")
    # 102 << 26 -> 0x7FFFFFFF; -69 << 27 wraps positive -> 0x7FFFFFFF; -10 << 29 -> 0x80000000; 72 << 32 (clamp)
    # is 0 in 34 bits; 120 << 11 in range (not clamped to the half's 0x7FFF)
    assert o["d"] == [(c & 0xFFFF0000) | h for h in (0xFFFF, 0xFFFF, 0, 0, 120 << 11)]


def test_scalar_video_sat_into_a_part_beyond_32_bits_gives_the_parts_largest_value():
    c = 0x80000001
    o = _lanes("vadd.u32.u32.u32.sat %d.h0, %a, %b, %c; vsub.u32.u32.u32.sat %e.b2, %a, %b, %c; "
               "vadd.s32.s32.s32.sat %f.h0, %a, %b, %c;",
               [(1, 0xFFFFFFFF, c), (0, 0xFFFFFFFF, c), (0x80000000, 0x80000000, c)], "def")
    assert o["d"][0] == 0x8000FFFF               # 2^32 -> 0xFFFF, not the low half 0
    assert o["e"][1] == 0x80FF0001               # 0 - 0xFFFFFFFF < 0 -> 0xFF, not the low byte 1
    assert o["f"][2] == 0x80007FFF               # -2^32 -> 0x7FFF


def test_scalar_video_u32_sat_clamps_only_below():
    rows = [(0xFFFFFFFF, 1, 0), (0, 1, 0), (0x80000000, 0xFFFFFFFF, 0)]
    o = _lanes("vadd.u32.u32.u32.sat %d, %a, %b; vsub.u32.u32.u32.sat %e, %a, %b; "
               "vabsdiff.u32.s32.u32.sat %f, %a, %b; vadd.s32.s32.s32.sat %g, %a, %b;", rows, "defg")
    assert o["d"][0] == 0                        # 2^32: its low bits, not 0xFFFFFFFF (ptxas tests the sign only)
    assert o["e"][1] == 0                        # -1 -> 0
    assert o["f"][2] == 0x7FFFFFFF               # |-2^31 - 0xFFFFFFFF| = 2^32 + 2^31 - 1: the low bits
    assert o["g"][2] == 0x80000000               # .s32 clamps both ways: -2^31 + -1


def test_scalar_video_secondary_min_max_compare_at_64_bits():
    o = _lanes("vadd.u32.u32.u32.max %d, %a, %b, %c; vadd.u32.u32.u32.min %e, %a, %b, %c; "
               "vabsdiff.s32.u32.u32.min %f, %a, %b, %c; vmax.s32.u32.u32.min %g, %a, %b, %c; "
               "vset.s32.s32.gt.min %h, %a, %b, %c; vsub.u32.s32.s32.sat.min %k, %a, %b, %c;",
               [(0, 0x80000000, 0xFFFFFFFF), (0xFFFFFFFF, 2, 5), (0, 0x80000000, 0), (0x80000000, 0xFFFF, 0xFFFFFFC4),
                (1, 0, 0x80000001), (0, 0x80000000, 0xFFFFFFFF)], "defghk")
    # vadd/vsub: the low 32 bits sign-extended (0x80000000 is above any .u32 c; the carry of 2^32 + 1 is lost)
    assert o["d"][0] == 0x80000000 and o["e"][1] == 1
    # vabsdiff/vmin/vmax: the exact result (2^31 is above c = 0 and above c = -60 for a .s32 d)
    assert o["f"][2] == 0 and o["g"][3] == 0xFFFFFFC4
    assert o["h"][4] == 0x80000001               # vset: c compares as a's type (.s32: negative), not as .u32
    assert o["k"][5] == 0xFFFFFFFF               # .sat to .u32 gives 2^31, sign-extended: above c


def test_scalar_video_secondary_min_max_of_a_shift_compare_its_exact_value():
    o = _lanes("vshl.u32.u32.u32.clamp.min %d, %a, %b, %c; vshr.u32.s32.u32.clamp.min %e, %a.b0, %b, %c; "
               "vshl.s32.s32.u32.clamp.max %f, %a, %b, %c;",
               [(0x80, 27, 0x8048BED6), (0xDF, 1, 0xFFFFFFFE), (2, 32, 1)], "def")
    assert o["d"][0] == 0x8048BED6               # 0x80 << 27 = 2^34 (not 0 at 34 bits) is above c
    assert o["e"][1] == 0xFFFFFFFE               # -33 >> 1 = -17 is 2^64 - 17 as a .u32 d's 64-bit value
    assert o["f"][2] == 0                        # 2 << 32 = 2^33 > 1: its low bits


# vmad as the H100 runs it: ptxas lowers it to one signed 32 x 32 -> 64-bit multiply-add (the record's cases
# vmad_words_* and vmad_parts_*, tests/hw/test_isa_device.py), not the PTX ISA's pseudo-code
def test_vmad_multiplies_a_whole_u32_word_as_s32_and_shifts_all_64_bits():
    rows = [(0xFFFFFFFF, 2, 0), (0x80000000, 0x80000000, 0), (0xFF, 0xFFFFFFFF, 0)]
    o = _lanes("vmad.u32.u32.u32.shr7 %d, %a, %b, %c; vmad.u32.u32.u32.shr15 %e, %a.b0, %b, %c; "
               "vmad.s32.s32.s32.shr7 %f, %a, %b, %c;", rows, "def")
    # -1 * 2 = -2 = 0xFFFF_FFFF_FFFF_FFFE, shifted logically (.u32): 0x01FF_FFFF_FFFF_FFFF (not 0x1_FFFF_FFFE >> 7)
    assert o["d"][0] == 0xFFFFFFFF
    assert o["d"][1] == (1 << 62 >> 7) & 0xFFFFFFFF == 0          # (-2^31)^2 = 2^62: its low bits
    # a.b0 = 255 (a byte is extended by its type), b = -1 as a word: -255 >> 15 logically
    assert o["e"][2] == ((-255 & (2 ** 64 - 1)) >> 15) & 0xFFFFFFFF == 0xFFFFFFFF
    assert o["f"][0] == (-2 >> 7) & 0xFFFFFFFF == 0xFFFFFFFF       # .s32: arithmetic


def test_vmad_sign_extends_c_whatever_the_types():
    o = _lanes("vmad.u32.u32.u32.shr15 %d, %a, %b, %c; vmad.u32.u32.u32 %e, %a, %b, %c;",
               [(1, 0, 0x80000000), (3, 5, 0xFFFFFFFF)], "de")
    # c = 0x80000000 is -2^31: 0xFFFF_FFFF_8000_0000 >> 15 keeps ones above bit 16 (the pseudo-code: 0x10000)
    assert o["d"][0] == 0xFFFF0000
    assert o["e"][1] == 14                                         # unscaled: the low 32 bits, 15 - 1


def test_vmad_u32_sat_clamps_the_64_bit_sum_as_a_signed_value():
    rows = [(0xFFFFFFFF, 2, 0), (0x7FFFFFFF, 4, 0), (3, 5, 0xFFFFFFF0), (3, 5, 7)]
    o = _lanes("vmad.u32.u32.u32.sat %d, %a, %b, %c; vmad.s32.s32.s32.sat %e, %a, %b, %c;", rows, "de")
    assert o["d"][0] == 0                        # -1 * 2 = -2: below 0 (the pseudo-code: 2^33 - 2 -> 0xFFFFFFFF)
    assert o["d"][1] == 0xFFFFFFFF               # 2^33 - 4: above
    assert o["d"][2] == 0                        # 15 + (c = -16) = -1
    assert o["d"][3] == 22
    assert o["e"][1] == 0x7FFFFFFF and o["e"][2] == 0xFFFFFFFF


def test_vmad_negations_and_po():
    rows = [(3, 5, 7), (0x10, 0x20, 0x100)]
    o = _lanes("vmad.s32.s32.s32 %d, -%a, %b, %c; vmad.s32.s32.s32 %e, %a, %b, -%c; "
               "vmad.s32.s32.s32 %f, -%a, -%b, -%c; vmad.u32.u32.u32.po %g, %a, %b, %c; "
               "vmad.u32.u32.u32.sat %h, %a, -%b, %c; vmad.u32.u32.u32.shr7 %k, %a, %b, -%c;", rows, "defghk")
    assert o["d"][0] == 7 - 15 & 0xFFFFFFFF      # -(a*b) + c
    assert o["e"][0] == 15 - 7                   # a*b - c
    assert o["f"][0] == 15 - 7                   # the product's signs cancel: -c alone
    assert o["g"][0] == 15 + 7 + 1               # .po: a*b + c + 1
    assert o["h"][1] == 0x100 - 0x200 & 0xFFFFFFFF     # a negation makes the result signed: -256, not 0
    assert o["k"][1] == (0x200 - 0x100) >> 7     # signed: an arithmetic shift of 256


@pytest.mark.parametrize("body, message", [
    ("vmad.u32.u32.u32 %d, -%a, %b, -%c;", "negate either the product"),
    ("vmad.u32.u32.u32.po %d, %a, %b, -%c;", r"\.po .* takes no negated operand"),
    ("vmad.u32.u32.u32 %d, %a, %b, %c.b0;", "c takes no part selector"),
    ("vmad.u32.u32.u32.shr7.shr15 %d, %a, %b, %c;", r"one of \.shr7 and \.shr15"),
])
def test_vmad_forms_ptxas_rejects_are_errors(body, message):
    with pytest.raises(PtxError, match=message):
        run_snippet(body, {x: ([1] * 32, "u32") for x in "abc"}, {"d": "u32"})
