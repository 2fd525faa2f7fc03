"""Comparison and selection: setp with every comparison (ordered and unordered float ones), .and/.or/.xor
combination and the `p|q` form, set, selp."""
import math
import operator

import numpy as np
import pytest
from snippet import run_snippet

NAN = float("nan")
INF = float("inf")
FA = [1.0, 1.0, 2.0, -0.0, 0.0, NAN, 1.0, NAN, INF, -INF, INF, 3.5, -3.5, 1e-40, -1e-40, 7.0] * 2
FB = [1.0, 2.0, 1.0, 0.0, -0.0, 1.0, NAN, NAN, INF, INF, -INF, 3.5, 3.5, 0.0, 0.0, 8.0] * 2
IA = [0, 1, -1, 5, -5, 2 ** 31 - 1, -2 ** 31, 7, 7, -7] + list(range(-11, 11))
IB = [0, -1, 1, 5, 5, -2 ** 31, 2 ** 31 - 1, 8, 6, -7] + list(range(10, -12, -1))

ORD = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
       "ge": operator.ge}


def fref(op, a, b):
    nan = math.isnan(a) or math.isnan(b)
    if op == "num":
        return not nan
    if op == "nan":
        return nan
    if op.endswith("u"):
        return nan or ORD[op[:-1]](a, b)
    return (not nan) and ORD[op](a, b)


@pytest.mark.parametrize("op", list(ORD) + ["equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"])
def test_setp_f32_every_comparison(op):
    o = run_snippet(f"setp.{op}.f32 %d, %a, %b;", {"a": np.float32(FA), "b": np.float32(FB)}, {"d": "pred"})
    assert list(o["d"]) == [int(fref(op, np.float32(a), np.float32(b))) for a, b in zip(FA, FB)]


def test_setp_f64_unordered():
    o = run_snippet("setp.ltu.f64 %d, %a, %b; setp.lt.f64 %e, %a, %b;",
                    {"a": np.float64(FA), "b": np.float64(FB)}, {"d": "pred", "e": "pred"})
    assert list(o["d"]) == [int(fref("ltu", a, b)) for a, b in zip(FA, FB)]
    assert list(o["e"]) == [int(fref("lt", a, b)) for a, b in zip(FA, FB)]


@pytest.mark.parametrize("op", list(ORD) + ["lo", "ls", "hi", "hs"])
def test_setp_integer_signed_and_unsigned(op):
    uop = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}.get(op, op)
    ua = [a % 2 ** 32 for a in IA]
    ub = [b % 2 ** 32 for b in IB]
    o = run_snippet(f"setp.{op}.u32 %d, %a, %b;", {"a": (ua, "u32"), "b": (ub, "u32")}, {"d": "pred"})
    assert list(o["d"]) == [int(ORD[uop](a, b)) for a, b in zip(ua, ub)]
    if op in ORD:
        o = run_snippet(f"setp.{op}.s32 %d, %a, %b;", {"a": (IA, "s32"), "b": (IB, "s32")}, {"d": "pred"})
        assert list(o["d"]) == [int(ORD[op](a, b)) for a, b in zip(IA, IB)]


def test_setp_64_bit_and_b32():
    a = [2 ** 63 - 1, -2 ** 63, -1, 0] * 8
    b = [-1, 0, 0, 0] * 8
    o = run_snippet("setp.lt.s64 %d, %a, %b; setp.lo.u64 %e, %a, %b; setp.ne.b32 %f, %x, 0;",
                    {"a": (a, "s64"), "b": (b, "s64"), "x": (list(range(32)), "b32")},
                    {"d": "pred", "e": "pred", "f": "pred"})
    assert list(o["d"]) == [int(x < y) for x, y in zip(a, b)]
    assert list(o["e"]) == [int(x % 2 ** 64 < y % 2 ** 64) for x, y in zip(a, b)]
    assert list(o["f"]) == [int(i != 0) for i in range(32)]


@pytest.mark.parametrize("bop,f", [("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)])
def test_setp_combination_and_pair(bop, f):
    a = list(range(32))
    c = [(i // 2) & 1 for i in range(32)]
    o = run_snippet(f"setp.lt.{bop}.s32 %d|%e, %a, 16, %c;", {"a": (a, "s32"), "c": (c, "pred")},
                    {"d": "pred", "e": "pred"})
    assert list(o["d"]) == [int(f(x < 16, bool(y))) for x, y in zip(a, c)]
    assert list(o["e"]) == [int(f(not x < 16, bool(y))) for x, y in zip(a, c)]


def test_setp_pair_without_combination_gives_complement():
    o = run_snippet("setp.gt.f32 %d|%e, %a, 0f00000000;", {"a": np.float32(FA)}, {"d": "pred", "e": "pred"})
    assert list(o["d"]) == [int(fref("gt", a, 0.0)) for a in FA]
    assert list(o["e"]) == [1 - int(fref("gt", a, 0.0)) for a in FA]   # q = !(a > 0), NaN included


def test_selp():
    p = [i % 3 == 0 for i in range(32)]
    o = run_snippet("selp.s32 %d, %a, %b, %p; selp.f32 %e, %x, 0fBF800000, %p;",
                    {"a": (list(range(32)), "s32"), "b": (list(range(-1, -33, -1)), "s32"),
                     "p": ([int(v) for v in p], "pred"), "x": np.float32(FA)}, {"d": "s32", "e": "f32"})
    assert list(o["d"]) == [i if p[i] else -(i + 1) for i in range(32)]
    want = np.array([FA[i] if p[i] else -1.0 for i in range(32)], dtype=np.float32)
    np.testing.assert_array_equal(o["e"].view(np.uint32), want.view(np.uint32))


def test_set_gives_all_ones():
    o = run_snippet("set.lt.u32.s32 %d, %a, %b;", {"a": (IA, "s32"), "b": (IB, "s32")}, {"d": "u32"})
    assert list(o["d"]) == [0xFFFFFFFF if a < b else 0 for a, b in zip(IA, IB)]


def test_set_f32_destination_gives_one_point_zero():
    o = run_snippet("set.gtu.f32.f32 %d, %a, %b;", {"a": np.float32(FA), "b": np.float32(FB)}, {"d": "f32"})
    want = np.array([1.0 if fref("gtu", a, b) else 0.0 for a, b in zip(FA, FB)], dtype=np.float32)
    np.testing.assert_array_equal(o["d"].view(np.uint32), want.view(np.uint32))


def test_slct_selects_on_the_sign_of_c():
    c = [1.0, 0.0, -0.0, -1.0, float("nan"), float("inf"), -float("inf"), 1e-45]
    o = run_snippet("slct.u32.f32 %d, 10, 20, %c; slct.s32.s32 %e, 10, 20, %i;",
                    {"c": np.float32(c * 4), "i": ([5, 0, -1, -(2 ** 31), 7, 1, -3, 2] * 4, "s32")},
                    {"d": "u32", "e": "s32"})
    assert list(o["d"][:8]) == [10, 10, 10, 20, 20, 10, 20, 10]      # -0.0 >= 0; NaN is not
    assert list(o["e"][:8]) == [10, 10, 20, 20, 10, 10, 20, 10]
