"""Integer arithmetic: add sub mul(.lo/.hi/.wide) mad div rem min max abs neg, with wrap-around edge cases."""
import numpy as np
import pytest
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
