"""Float arithmetic: add sub mul fma mad div rcp sqrt min max abs neg (and the approximate SFU ops), with NaN,
infinities, -0, subnormals (.ftz), single rounding of fma, directed rounding.  Results are compared bit for
bit with values derived independently: float64 arithmetic rounded once to float32 (exact for + - * / sqrt of
float32 operands), exact rationals (`fractions`) rounded by hand, or hand-written bit patterns."""
import math
from fractions import Fraction

import numpy as np
import pytest
from snippet import f32_of_hex, round_fraction_to_f32, run_snippet

NAN = float("nan")
INF = float("inf")
rs = np.random.RandomState(11)
XA = np.concatenate([np.float32([1.0, -1.0, 0.1, 3.0, 1e30, -1e-30, 1e-40, -1e-42, 0.0, -0.0, INF, -INF, NAN,
                                 7.0, 2.0 ** -126, 16777216.0]),
                     (rs.randn(16) * 10.0 ** rs.randint(-5, 6, 16)).astype(np.float32)])
XB = np.concatenate([np.float32([3.0, 3.0, 0.2, 1e-8, 1e30, 1e-30, 1e-40, 5.0, -0.0, -0.0, -INF, -INF, 1.0,
                                 0.0, -2.0 ** -127, 1.0]),
                     (rs.randn(16) * 10.0 ** rs.randint(-5, 6, 16)).astype(np.float32)])


def bits(x):
    return [hex(int(v)) for v in np.asarray(x, dtype=np.float32).view(np.uint32)]


def ref32(f, *xs):
    """f evaluated in float64 on float32 operands, rounded once to float32 (NaN canonicalised)."""
    with np.errstate(all="ignore"):
        r = f(*[np.asarray(x, dtype=np.float64) for x in xs]).astype(np.float32)
    return r


def same(got, want):
    got = np.asarray(got, np.float32)
    want = np.asarray(want, np.float32)
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), (got, want)
    assert bits(got[~nan]) == bits(want[~nan])


@pytest.mark.parametrize("op,f", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                  ("div.rn", np.divide)])
def test_f32_binary_rn(op, f):
    o = run_snippet(f"{op}.f32 %d, %a, %b;", {"a": XA, "b": XB}, {"d": "f32"})
    same(o["d"], ref32(f, XA, XB))


def test_f32_sqrt_rcp_rn():
    a = np.abs(XA)
    o = run_snippet("sqrt.rn.f32 %d, %a; rcp.rn.f32 %e, %b;", {"a": a, "b": XB}, {"d": "f32", "e": "f32"})
    same(o["d"], ref32(np.sqrt, a))
    same(o["e"], ref32(lambda x: 1.0 / x, XB))
    o = run_snippet("sqrt.rn.f32 %d, %a;", {"a": np.float32([-1.0, -0.0, -INF] + [4.0] * 29)}, {"d": "f32"})
    assert np.isnan(o["d"][0]) and np.isnan(o["d"][2])
    assert bits(o["d"][1:2]) == ["0x80000000"]                # sqrt(-0) = -0


def test_signed_zero_and_special_values():
    a = np.float32([-0.0, -0.0, 0.0, 1.0, INF, INF, 0.0, INF] + [1.0] * 24)
    b = np.float32([-0.0, 0.0, -0.0, -1.0, -INF, INF, INF, 0.0] + [1.0] * 24)
    o = run_snippet("add.f32 %d, %a, %b; mul.f32 %e, %a, %b;", {"a": a, "b": b}, {"d": "f32", "e": "f32"})
    assert bits(o["d"][:4]) == ["0x80000000", "0x0", "0x0", "0x0"]       # -0 + -0 = -0; x + -x = +0
    assert np.isnan(o["d"][4]) and o["d"][5] == INF                      # inf - inf = NaN
    assert np.isnan(o["e"][6]) and np.isnan(o["e"][7])                   # 0 * inf = NaN
    assert bits(o["e"][:1]) == ["0x0"] and bits(o["e"][1:2]) == ["0x80000000"]


def test_fma_single_rounding_differs_from_mul_add():
    # a*b = 1 + 2^-11 + 2^-24 exactly; mul rounds the 2^-24 away (a tie to even), fma keeps it
    a = f32_of_hex(0x3F800800)                   # 1 + 2^-12
    c = -f32_of_hex(0x3F801000)                  # -(1 + 2^-11)
    n = 32
    o = run_snippet("fma.rn.f32 %d, %a, %a, %c; mul.rn.f32 %t, %a, %a; add.rn.f32 %e, %t, %c; "
                    "mad.rn.f32 %f, %a, %a, %c;", {"a": np.float32([a] * n), "c": np.float32([c] * n)},
                    {"d": "f32", "e": "f32", "f": "f32", "t": "f32"})
    assert float(o["d"][0]) == 2.0 ** -24
    assert float(o["e"][0]) == 0.0
    assert float(o["f"][0]) == 2.0 ** -24


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_fma_f32_against_exact_rationals(mode):
    fin = np.isfinite(XA) & np.isfinite(XB) & (np.abs(XA) < 1e20) & (np.abs(XB) < 1e20)
    a, b = XA[fin][:16], XB[fin][:16]
    a = np.concatenate([a, np.float32(rs.randn(32 - a.size))])
    b = np.concatenate([b, np.float32(rs.randn(32 - b.size))])
    c = np.float32(rs.randn(32) * 1e-3)
    c[:3] = -(a[:3].astype(np.float64) * b[:3]).astype(np.float32)       # cancellation cases
    o = run_snippet(f"fma.{mode}.f32 %d, %a, %b, %c;", {"a": a, "b": b, "c": c}, {"d": "f32"})
    want = []
    for x, y, z in zip(a, b, c):
        q = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        r = round_fraction_to_f32(q, mode)
        if q == 0:
            r = 0x80000000 if mode == "rm" else 0      # exact zero sum: +0, -0 when rounding down
        want.append(hex(r))
    assert bits(o["d"]) == want


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_directed_rounding_f32(op, mode):
    a = np.float32([1.0, -1.0, 1.0 / 3, -1.0 / 3, 3.0, 1e-3, 16777215.0, -7.1] * 4)
    b = np.float32([2.0 ** -30, 2.0 ** -30, 1e-9, 1e-9, 1.0 / 3, -7e-12, 0.75, 0.3] * 4)
    o = run_snippet(f"{op}.{mode}.f32 %d, %a, %b;", {"a": a, "b": b}, {"d": "f32"})
    f = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}[op]
    want = [hex(round_fraction_to_f32(f(Fraction(float(x)), Fraction(float(y))), mode)) for x, y in zip(a, b)]
    assert bits(o["d"]) == want
    if op == "add" and mode in ("rz", "rm"):
        assert float(o["d"][0]) == 1.0        # 1 + 2^-30 rounds down to 1


def test_ftz_flushes_subnormal_inputs_and_results():
    tiny = np.float32(1e-40)          # subnormal
    a = np.float32([tiny, -tiny, 1e-20, 2.0 ** -126, 1.0] + [1.0] * 27)
    b = np.float32([0.0, -0.0, 1e-20, 0.5, tiny] + [1.0] * 27)
    o = run_snippet("add.ftz.f32 %d, %a, %b; add.f32 %e, %a, %b; mul.ftz.f32 %f, %a, %b; mul.f32 %g, %a, %b;",
                    {"a": a, "b": b}, {"d": "f32", "e": "f32", "f": "f32", "g": "f32"})
    assert bits(o["d"][:2]) == ["0x0", "0x80000000"]        # input flushed, sign kept
    same(o["e"][:2], a[:2])                                  # without .ftz the subnormal survives
    assert bits(o["f"][2:4]) == ["0x0", "0x0"]               # 1e-40 and 2^-127 results flushed
    same(o["g"][2:4], ref32(np.multiply, a[2:4], b[2:4]))
    assert o["g"][3] != 0


def test_min_max_nan_and_abs_neg_bits():
    a = np.float32([NAN, 1.0, NAN, -0.0, -INF, 3.0, -2.0, 1e-40] * 4)
    b = np.float32([1.0, NAN, NAN, 5.0, 2.0, -3.0, -1.0, -1e-40] * 4)
    o = run_snippet("min.f32 %d, %a, %b; max.f32 %e, %a, %b; abs.f32 %f, %a; neg.f32 %g, %a; "
                    "min.NaN.f32 %h, %a, %b;", {"a": a, "b": b}, {"d": "f32", "e": "f32", "f": "f32", "g": "f32",
                                                                 "h": "f32"})
    assert [float(v) for v in o["d"][:2]] == [1.0, 1.0] and np.isnan(o["d"][2])   # a NaN operand: the other
    assert [float(v) for v in o["e"][:2]] == [1.0, 1.0] and np.isnan(o["e"][2])
    assert [float(v) for v in o["d"][3:8]] == [-0.0, -INF, -3.0, -2.0, float(np.float32(-1e-40))]
    assert [float(v) for v in o["e"][3:8]] == [5.0, 2.0, 3.0, -1.0, float(np.float32(1e-40))]
    assert np.isnan(o["h"][0]) and np.isnan(o["h"][1])                           # .NaN propagates
    ua = a.view(np.uint32)
    assert [int(v) for v in o["f"].view(np.uint32)] == [int(x) & 0x7FFFFFFF for x in ua]
    assert [int(v) for v in o["g"].view(np.uint32)] == [int(x) ^ 0x80000000 for x in ua]


def _ulps(got, want):
    g = np.asarray(got, np.float32).view(np.int32).astype(np.int64)
    w = np.asarray(want, np.float32).view(np.int32).astype(np.int64)
    return np.abs(g - w)


def test_div_full_approx_and_sfu_ops_within_stated_ulps():
    a = np.float32(rs.uniform(0.5, 100, 32))
    b = np.float32(rs.uniform(0.5, 100, 32))
    o = run_snippet("div.full.f32 %d, %a, %b; div.approx.f32 %e, %a, %b; rcp.approx.f32 %f, %b; "
                    "sqrt.approx.f32 %g, %a;", {"a": a, "b": b}, {"d": "f32", "e": "f32", "f": "f32", "g": "f32"})
    exact = ref32(np.divide, a, b)
    assert _ulps(o["d"], exact).max() <= 2 and _ulps(o["e"], exact).max() <= 2
    assert _ulps(o["f"], ref32(lambda x: 1.0 / x, b)).max() <= 1
    assert _ulps(o["g"], ref32(np.sqrt, a)).max() <= 1
    x = np.float32(rs.uniform(0.1, 4, 32))
    o = run_snippet("ex2.approx.f32 %d, %a; lg2.approx.f32 %e, %a; sin.approx.f32 %f, %a; cos.approx.f32 %g, %a; "
                    "rsqrt.approx.f32 %h, %a;", {"a": x}, {"d": "f32", "e": "f32", "f": "f32", "g": "f32",
                                                         "h": "f32"})
    xs = [float(v) for v in x]
    np.testing.assert_allclose(o["d"], [2 ** v for v in xs], rtol=2e-6)
    np.testing.assert_allclose(o["e"], [math.log2(v) for v in xs], rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(o["f"], [math.sin(v) for v in xs], atol=1e-6)
    np.testing.assert_allclose(o["g"], [math.cos(v) for v in xs], atol=1e-6)
    np.testing.assert_allclose(o["h"], [1 / math.sqrt(v) for v in xs], rtol=2e-6)


def test_f64_arithmetic_and_fma_single_rounding():
    e = 2.0 ** -30
    a = np.float64([1 + e, 1.0 / 3, 1e300, -2.5] * 8)
    b = np.float64([1 + e, 3.0, 1e10, 4.0] * 8)
    c = np.float64([-(1 + 2 * e), -1.0, -INF, 0.1] * 8)
    o = run_snippet("fma.rn.f64 %d, %a, %b, %c; add.f64 %e, %a, %c; mul.f64 %f, %a, %b; div.rn.f64 %g, %a, %b;"
                    " sqrt.rn.f64 %h, %b;", {"a": a, "b": b, "c": c},
                    {"d": "f64", "e": "f64", "f": "f64", "g": "f64", "h": "f64"})
    assert float(o["d"][0]) == 2.0 ** -60                   # mul then add would give 0
    assert float(o["d"][1]) == float(Fraction(1, 1) * 0 + Fraction(1.0 / 3) * 3 - 1)
    assert o["d"][2] == -INF
    assert float(o["d"][3]) == float(Fraction(-2.5) * 4 + Fraction(0.1))
    for k in range(4):
        fa, fb, fc = (Fraction(float(v[k])) if math.isfinite(v[k]) else None for v in (a, b, c))
        if fc is not None:
            assert float(o["e"][k]) == float(fa + fc)
        if abs(fa * fb) < 1e308:
            assert float(o["f"][k]) == float(fa * fb)
        else:
            assert o["f"][k] == INF
        assert float(o["g"][k]) == float(fa / fb)
        assert float(o["h"][k]) == math.sqrt(float(b[k]))


def test_copysign_and_testp():
    a = np.float32([1.0, -1.0, NAN, INF, 1e-40, 0.0, -0.0, 2.0 ** -126] * 4)
    o = run_snippet("copysign.f32 %d, %a, 0f40400000; testp.finite.f32 %p, %a; testp.subnormal.f32 %q, %a; "
                    "testp.notanumber.f32 %r, %a; testp.normal.f32 %s, %a;", {"a": a},
                    {"d": "f32", "p": "pred", "q": "pred", "r": "pred", "s": "pred"})
    assert [float(v) for v in o["d"][:2]] == [3.0, -3.0]     # |b| with the sign of a
    assert list(o["p"][:8]) == [1, 1, 0, 0, 1, 1, 1, 1]
    assert list(o["q"][:8]) == [0, 0, 0, 0, 1, 0, 0, 0]
    assert list(o["r"][:8]) == [0, 0, 1, 0, 0, 0, 0, 0]
    assert list(o["s"][:8]) == [1, 1, 0, 0, 0, 0, 0, 1]


def test_exact_zero_sum_sign_in_directed_rounding():
    a = np.float32([3.0, 0.0, -0.0, 0.0] * 8)
    b = np.float32([-3.0, 0.0, -0.0, -0.0] * 8)
    for mode in ("rn", "rz", "rm", "rp"):
        o = run_snippet(f"add.{mode}.f32 %d, %a, %b; sub.{mode}.f32 %e, %a, %a;", {"a": a, "b": b},
                        {"d": "f32", "e": "f32"})
        neg = "0x80000000"
        # x + (-x) and +0 + -0 are -0 only when rounding toward -inf; -0 + -0 is always -0
        assert bits(o["d"][:4]) == ([neg, "0x0", neg, neg] if mode == "rm" else ["0x0", "0x0", neg, "0x0"]), mode
        assert bits(o["e"][:1]) == [neg if mode == "rm" else "0x0"]


def test_fma_rn_exact_midpoint_plus_tiny_rounds_up():
    # a*a = 1 + 2^-11 + 2^-24 is a float32 midpoint; + 2^-80 must round up (a float64 sum would land on the
    # midpoint and tie to even: a double-rounding error); - 2^-80 must round down
    a = f32_of_hex(0x3F800800)
    c = np.float32([2.0 ** -80, -(2.0 ** -80), 0.0, 2.0 ** -100] * 8)
    o = run_snippet("fma.rn.f32 %d, %a, %a, %c;", {"a": np.float32([a] * 32), "c": c}, {"d": "f32"})
    assert bits(o["d"][:4]) == [hex(0x3F801001), hex(0x3F801000), hex(0x3F801000), hex(0x3F801001)]


# ---- f64 fma correctly rounded, 16-bit floats (f16, bf16, packed pairs) ---------------------------------
def test_fma_f64_is_correctly_rounded_near_ties():
    """a*b + c with c cancelling a*b's leading bits: the exact rational result, rounded once."""
    rng = np.random.default_rng(11)
    a = 1 + rng.integers(1, 2 ** 52, 64) * 2.0 ** -52
    b = 1 + rng.integers(1, 2 ** 52, 64) * 2.0 ** -52
    c = -(a * b) * (1 + rng.integers(-4, 5, 64) * 2.0 ** -52)
    o = run_snippet("fma.rn.f64 %d, %a, %b, %c;", {"a": a, "b": b, "c": c}, {"d": "f64"}, threads=64)
    want = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    assert o["d"].tolist() == want


def _f16(x):
    return int(np.float16(x).view(np.uint16))


def _bf16_bits(x):
    """Round-to-nearest-even float32 -> bf16 bits, by integer arithmetic on the float32 bits."""
    u = int(np.float32(x).view(np.uint32))
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16


def test_f16x2_packed_add_mul_fma():
    a = [_f16(1.5) | _f16(-2.0) << 16, _f16(65504) | _f16(0.1) << 16]
    b = [_f16(0.25) | _f16(3.0) << 16, _f16(65504) | _f16(0.2) << 16]
    o = run_snippet("add.f16x2 %d, %a, %b; mul.f16x2 %e, %a, %b; fma.rn.f16x2 %f, %a, %b, %a;",
                    {"a": ([int(x) for x in a] * 16, "b32"), "b": ([int(x) for x in b] * 16, "b32")},
                    {"d": "b32", "e": "b32", "f": "b32"})

    def halves(v):
        v = int(v)
        return [float(np.uint16(v & 0xFFFF).view(np.float16)), float(np.uint16(v >> 16).view(np.float16))]
    assert halves(o["d"][0]) == [1.75, 1.0] and halves(o["e"][0]) == [0.375, -6.0]
    assert halves(o["f"][0]) == [1.5 * 0.25 + 1.5, -2.0 * 3.0 - 2.0]
    assert halves(o["d"][1])[0] == float("inf")                          # 65504 + 65504 overflows
    assert halves(o["d"][1])[1] == float(np.float16(float(np.float16(0.1)) + float(np.float16(0.2))))


def test_bf16_arithmetic_rounds_once():
    x, y = np.float32(1.0078125), np.float32(3.0)                     # exact bf16 values
    o = run_snippet("add.bf16 %d, %a, %b; mul.bf16 %e, %a, %b; fma.rn.bf16 %f, %a, %b, %b; neg.bf16 %g, %a;",
                    {"a": ([_bf16_bits(x)] * 32, "b16"), "b": ([_bf16_bits(y)] * 32, "b16")},
                    {"d": "b16", "e": "b16", "f": "b16", "g": "b16"})
    assert int(o["d"][0]) == _bf16_bits(np.float64(x) + np.float64(y))
    assert int(o["e"][0]) == _bf16_bits(np.float64(x) * np.float64(y))
    assert int(o["f"][0]) == _bf16_bits(np.float64(x) * np.float64(y) + np.float64(y))
    assert int(o["g"][0]) == _bf16_bits(x) ^ 0x8000


def test_f16_and_bf16_nan_results_are_the_canonical_0x7fff():
    """As on the H100 (tests/hw/test_isa_device.py, cases half and narrow_floats): whatever NaN goes in, or
    when inf - inf makes one, an f16/bf16 result NaN is 0x7FFF; neg/abs only flip bits."""
    nan_in = 0x7E00 | 0xFC00 << 16                        # (qNaN, -inf)
    inf = 0x7C00 | 0x7C00 << 16
    o = run_snippet("add.f16x2 %d, %a, %b; fma.rn.f16x2 %e, %a, %b, %b; min.f16x2 %f, %a, %a; "
                    "add.bf16x2 %g, %c, %c; neg.f16x2 %h, %a;",
                    {"a": ([nan_in] * 32, "b32"), "b": ([inf] * 32, "b32"), "c": ([0x7FC1FF80] * 32, "b32")},
                    {x: "b32" for x in "defgh"})
    assert int(o["d"][0]) == 0x7FFF | 0x7FFF << 16        # NaN + inf; -inf + inf
    assert int(o["e"][0]) & 0xFFFF == 0x7FFF              # NaN * inf + inf
    assert int(o["f"][0]) & 0xFFFF == 0x7FFF
    assert int(o["g"][0]) == 0xFF80 | 0x7FFF << 16        # bf16: -inf + -inf = -inf; the NaN half: 0x7FFF
    assert int(o["h"][0]) == 0xFE00 | 0x7C00 << 16        # neg keeps the payload, flips the sign
