"""Logic, shifts and bit manipulation: and or xor not cnot shl shr popc clz brev bfe bfi prmt lop3."""
import random

import numpy as np
import pytest
from snippet import run_snippet

rng = random.Random(7)
A32 = [0, 0xFFFFFFFF, 0x80000000, 1, 0x12345678, 0xDEADBEEF, 0x7FFFFFFF, 0x00010000] + \
      [rng.getrandbits(32) for _ in range(24)]
B32 = [rng.getrandbits(32) for _ in range(32)]
C32 = [rng.getrandbits(32) for _ in range(32)]
A64 = [0, 2 ** 64 - 1, 2 ** 63, 1, 0x0123456789ABCDEF] + [rng.getrandbits(64) for _ in range(27)]


def u32(v):
    return np.array(v, dtype=np.uint64).astype(np.uint32)


def u64(v):
    return np.array(v, dtype=np.uint64)


def test_and_or_xor_not_cnot():
    o = run_snippet("and.b32 %d, %a, %b; or.b32 %e, %a, %b; xor.b32 %f, %a, %b; not.b32 %g, %a; "
                    "cnot.b32 %h, %a;", {"a": (A32, "b32"), "b": (B32, "b32")},
                    {"d": "b32", "e": "b32", "f": "b32", "g": "b32", "h": "b32"})
    np.testing.assert_array_equal(o["d"], u32([a & b for a, b in zip(A32, B32)]))
    np.testing.assert_array_equal(o["e"], u32([a | b for a, b in zip(A32, B32)]))
    np.testing.assert_array_equal(o["f"], u32([a ^ b for a, b in zip(A32, B32)]))
    np.testing.assert_array_equal(o["g"], u32([a ^ 0xFFFFFFFF for a in A32]))
    np.testing.assert_array_equal(o["h"], u32([int(a == 0) for a in A32]))


def test_logic_64_bit():
    o = run_snippet("and.b64 %d, %a, %b; not.b64 %e, %a;", {"a": (A64, "b64"), "b": (A64[::-1], "b64")},
                    {"d": "b64", "e": "b64"})
    np.testing.assert_array_equal(o["d"], u64([a & b for a, b in zip(A64, A64[::-1])]))
    np.testing.assert_array_equal(o["e"], u64([a ^ (2 ** 64 - 1) for a in A64]))


def test_predicate_logic():
    a = [i & 1 for i in range(32)]
    b = [(i >> 1) & 1 for i in range(32)]
    o = run_snippet("and.pred %d, %a, %b; or.pred %e, %a, %b; xor.pred %f, %a, %b; not.pred %g, %a;",
                    {"a": (a, "pred"), "b": (b, "pred")}, {"d": "pred", "e": "pred", "f": "pred", "g": "pred"})
    assert list(o["d"]) == [x & y for x, y in zip(a, b)]
    assert list(o["e"]) == [x | y for x, y in zip(a, b)]
    assert list(o["f"]) == [x ^ y for x, y in zip(a, b)]
    assert list(o["g"]) == [1 - x for x in a]


SHIFTS = list(range(0, 34)) [:30] + [32, 33]   # includes shifts >= width


def test_shifts_32_including_width_and_beyond():
    s = SHIFTS[:28] + [31, 32, 40, 0xFFFFFFFF]
    a = [0x80000001 if i % 2 else 0x7000000F for i in range(32)]
    o = run_snippet("shl.b32 %d, %a, %s; shr.u32 %e, %a, %s; shr.s32 %f, %a, %s; shr.b32 %g, %a, %s;",
                    {"a": (a, "b32"), "s": (s, "u32")}, {"d": "b32", "e": "u32", "f": "s32", "g": "b32"})

    def sra(v, k):
        v = v - 2 ** 32 if v >= 2 ** 31 else v
        return v >> min(k, 31)
    np.testing.assert_array_equal(o["d"], u32([(x << k) & 0xFFFFFFFF if k < 32 else 0 for x, k in zip(a, s)]))
    np.testing.assert_array_equal(o["e"], u32([x >> k if k < 32 else 0 for x, k in zip(a, s)]))
    np.testing.assert_array_equal(o["g"], u32([x >> k if k < 32 else 0 for x, k in zip(a, s)]))
    np.testing.assert_array_equal(o["f"], np.array([sra(x, k) for x, k in zip(a, s)], dtype=np.int32))
    # >= width: 0 for shl/shr.u, sign fill for shr.s (lane 29: a = 0x80000001, shift 32)
    assert o["d"][29] == 0 and o["e"][29] == 0 and o["f"][29] == -1 and o["f"][28] == 0


def test_shifts_64_and_16():
    s = list(range(0, 64, 2)) 
    s[-1], s[-2] = 64, 1000
    o = run_snippet("shl.b64 %d, %a, %s; shr.s64 %e, %a, %s; shr.u16 %f, %h, %s; shl.b16 %g, %h, %s;",
                    {"a": (A64, "b64"), "s": (s, "u32"), "h": ([0x8421] * 32, "u16")},
                    {"d": "b64", "e": "s64", "f": "u16", "g": "b16"})
    m = 2 ** 64 - 1
    np.testing.assert_array_equal(o["d"], u64([(x << k) & m if k < 64 else 0 for x, k in zip(A64, s)]))
    sv = [x - 2 ** 64 if x >= 2 ** 63 else x for x in A64]
    assert [int(v) for v in o["e"]] == [x >> min(k, 63) for x, k in zip(sv, s)]
    assert [int(v) for v in o["f"]] == [0x8421 >> k if k < 16 else 0 for k in s]
    assert [int(v) for v in o["g"]] == [(0x8421 << k) & 0xFFFF if k < 16 else 0 for k in s]


def test_popc_clz_brev():
    o = run_snippet("popc.b32 %d, %a; clz.b32 %e, %a; brev.b32 %f, %a; popc.b64 %g, %w; clz.b64 %h, %w; "
                    "brev.b64 %k, %w;", {"a": (A32, "b32"), "w": (A64, "b64")},
                    {"d": "u32", "e": "u32", "f": "b32", "g": "u32", "h": "u32", "k": "b64"})
    assert list(o["d"]) == [bin(x).count("1") for x in A32]
    assert list(o["e"]) == [32 - x.bit_length() for x in A32]
    assert list(o["f"]) == [int(f"{x:032b}"[::-1], 2) for x in A32]
    assert list(o["g"]) == [bin(x).count("1") for x in A64]
    assert list(o["h"]) == [64 - x.bit_length() for x in A64]
    assert [int(v) for v in o["k"]] == [int(f"{x:064b}"[::-1], 2) for x in A64]


def _bfe(a, pos, ln, bits, signed):
    """PTX ISA bfe: d[i] = (i < len && pos+i <= msb) ? a[pos+i] : sbit."""
    msb = bits - 1
    pos &= 0xFF
    ln &= 0xFF
    sbit = (a >> min(pos + ln - 1, msb)) & 1 if signed and ln else 0
    d = 0
    for i in range(bits):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


BFE_CASES = [(0x12345678, 4, 8), (0xF0F0F0F0, 0, 32), (0xF0F0F0F0, 4, 4), (0x80000000, 28, 8),
             (0x80000000, 31, 1), (0x7FFFFFFF, 31, 1), (0xABCDEF01, 40, 3), (0xABCDEF01, 8, 0),
             (0xFFFF0000, 12, 8), (0x00FF0000, 16, 8), (0x00800000, 16, 8), (0xDEADBEEF, 0, 255),
             (0xDEADBEEF, 0x104, 4), (0x12345678, 20, 20), (0x8000000F, 0, 4), (0x00000008, 0, 4)]


@pytest.mark.parametrize("t", ["u32", "s32"])
def test_bfe_32(t):
    a = [c[0] for c in BFE_CASES] * 2
    p = [c[1] for c in BFE_CASES] * 2
    ln = [c[2] for c in BFE_CASES] * 2
    o = run_snippet(f"bfe.{t} %d, %a, %p, %l;", {"a": (a, "b32" if t == "u32" else "s32"), "p": (p, "u32"),
                                                   "l": (ln, "u32")}, {"d": "b32"})
    want = [_bfe(x, q, n, 32, t == "s32") for x, q, n in zip(a, p, ln)]
    assert [hex(int(v)) for v in o["d"]] == [hex(w) for w in want]


@pytest.mark.parametrize("t", ["u64", "s64"])
def test_bfe_64(t):
    cases = [(2 ** 63, 60, 8), (0x0123456789ABCDEF, 12, 40), (2 ** 64 - 1, 70, 3), (0xF << 32, 32, 4),
             (0x8 << 32, 32, 4), (0xFFFF, 0, 64)] * 5 + [(1, 0, 1), (3, 1, 1)]
    o = run_snippet(f"bfe.{t} %d, %a, %p, %l;", {"a": ([c[0] for c in cases], t), "p": ([c[1] for c in cases], "u32"),
                                                   "l": ([c[2] for c in cases], "u32")}, {"d": "b64"})
    want = [_bfe(x, q, n, 64, t == "s64") for x, q, n in cases]
    assert [hex(int(v)) for v in o["d"]] == [hex(w) for w in want]


def _bfi(a, b, pos, ln, bits):
    pos &= 0xFF
    ln &= 0xFF
    f = b
    for i in range(ln):
        if pos + i > bits - 1:
            break
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return f


def test_bfi_32():
    cases = [(0xF, 0, 4, 4), (0xFFFFFFFF, 0x12345678, 8, 8), (0xABCD, 0xFFFFFFFF, 28, 8),
             (0x1, 0, 31, 1), (0x5, 0xF0F0F0F0, 40, 3), (0x12345678, 0, 0, 32), (0x3, 0x0, 30, 0),
             (0xFF, 0x11111111, 0x104, 4)] * 4
    o = run_snippet("bfi.b32 %d, %a, %b, %p, %l;",
                    {"a": ([c[0] for c in cases], "b32"), "b": ([c[1] for c in cases], "b32"),
                     "p": ([c[2] for c in cases], "u32"), "l": ([c[3] for c in cases], "u32")}, {"d": "b32"})
    assert [hex(int(v)) for v in o["d"]] == [hex(_bfi(*c, 32)) for c in cases]


def _prmt(a, b, c):
    tmp = (b << 32) | a
    d = 0
    for k in range(4):
        nib = (c >> (4 * k)) & 0xF
        byte = (tmp >> (8 * (nib & 7))) & 0xFF
        if nib & 8:
            byte = 0xFF if byte & 0x80 else 0
        d |= byte << (8 * k)
    return d


def test_prmt_default_mode():
    sel = [0x3210, 0x7654, 0x0123, 0x4444, 0x8888, 0xCDEF, 0x1054, 0x0000] + \
          [rng.getrandbits(16) for _ in range(24)]
    a = [0x80FF7F01] * 8 + A32[8:]
    b = [0x11C2F380] * 8 + B32[8:]
    o = run_snippet("prmt.b32 %d, %a, %b, %c;", {"a": (a, "b32"), "b": (b, "b32"), "c": (sel, "b32")},
                    {"d": "b32"})
    assert [hex(int(v)) for v in o["d"]] == [hex(_prmt(x, y, z)) for x, y, z in zip(a, b, sel)]
    assert int(o["d"][0]) == a[0] and int(o["d"][1]) == b[1]


@pytest.mark.parametrize("lut", [0x96, 0xE8, 0x80, 0xFE, 0x00, 0xFF, 0xF0, 0xCC, 0xAA, 0x1B, 0x6A])
def test_lop3(lut):
    def ref(a, b, c):
        d = 0
        for i in range(32):
            idx = ((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1)
            d |= ((lut >> idx) & 1) << i
        return d
    a = [0xF0F0F0F0] + A32[1:]
    b = [0xCCCCCCCC] + B32[1:]
    c = [0xAAAAAAAA] + C32[1:]
    o = run_snippet(f"lop3.b32 %d, %a, %b, %c, {lut};", {"a": (a, "b32"), "b": (b, "b32"), "c": (c, "b32")},
                    {"d": "b32"})
    assert [int(v) for v in o["d"]] == [ref(x, y, z) for x, y, z in zip(a, b, c)]
    assert int(o["d"][0]) == lut * 0x01010101     # the canonical operands give the table itself


# ---- bfind, fns, bmsk, szext, shf, prmt modes (edge cases as the PTX ISA's pseudo-code gives them) ------
def test_bfind_unsigned_signed_shiftamt_and_zero():
    a = [0, 1, 0x80000000, 0xFFFFFFFF, 0x00010000, 0x7FFFFFFF, 5, 0x12345678]
    o = run_snippet("bfind.u32 %d, %a; bfind.shiftamt.u32 %e, %a; bfind.s32 %f, %a; bfind.shiftamt.s32 %g, %a;",
                    {"a": (a * 4, "b32")}, {"d": "u32", "e": "u32", "f": "u32", "g": "u32"})
    none = 0xFFFFFFFF
    assert list(o["d"][:8]) == [none, 0, 31, 31, 16, 30, 2, 28]          # bfind of 0: 0xffffffff
    assert list(o["e"][:8]) == [none, 31, 0, 0, 15, 1, 29, 3]            # __clz-like: 31 - position
    # signed: a negative value's most significant 0 (-1 and 0 have no non-sign bit)
    assert list(o["f"][:8]) == [none, 0, 30, none, 16, 30, 2, 28]
    assert list(o["g"][:8]) == [none, 31, 1, none, 15, 1, 29, 3]


def test_bfind_64_bit():
    a = [0, 1, 2 ** 63, 2 ** 64 - 1, 2 ** 40 + 7, 2 ** 63 - 1, 0xFF, 2 ** 33]
    o = run_snippet("bfind.u64 %d, %a; bfind.s64 %e, %a;", {"a": (a * 4, "b64")}, {"d": "u32", "e": "u32"})
    assert list(o["d"][:8]) == [0xFFFFFFFF, 0, 63, 63, 40, 62, 7, 33]
    assert list(o["e"][:8]) == [0xFFFFFFFF, 0, 62, 0xFFFFFFFF, 40, 62, 7, 33]


def test_ffs_is_brev_then_bfind_shiftamt():
    """What nvcc makes of __ffs(x): brev, then bfind.shiftamt (0xffffffff for x = 0, +1 in C)."""
    a = [0, 1, 8, 0x80000000, 0x00F0, 6] + [1 << k for k in range(26)]
    o = run_snippet(".reg .b32 %t; brev.b32 %t, %a; bfind.shiftamt.u32 %d, %t;", {"a": (a, "b32")}, {"d": "u32"})
    assert list(o["d"][:6]) == [0xFFFFFFFF, 0, 3, 31, 4, 1]
    assert list(o["d"][6:]) == list(range(26))


def test_fns_examples_of_the_ptx_isa():
    o = run_snippet("fns.b32 %d, 0xaaaaaaaa, %b, %c;",
                    {"b": ([3, 3, 2, 2, 0, 31, 0, 1] * 4, "u32"), "c": ([1, -1, 1, -1, 0, 1, 16, 2] * 4, "s32")},
                    {"d": "b32"})
    # 3 and 3 (bit 3 is set), 3 and 1 (the first set bit above/below 2), 0xffffffff (bit 0 is clear),
    # 31, the 16th set bit from 0 (bit 31), the 2nd set bit from 1 (bit 3)
    assert list(o["d"][:8]) == [3, 3, 3, 1, 0xFFFFFFFF, 31, 31, 3]


def test_bmsk_clamp_and_wrap():
    a = [1, 0, 4, 31, 30, 32, 33, 0]
    b = [2, 32, 8, 1, 5, 1, 1, 0]
    o = run_snippet("bmsk.wrap.b32 %d, %a, %b; bmsk.clamp.b32 %e, %a, %b;", {"a": (a * 4, "u32"), "b": (b * 4, "u32")},
                    {"d": "b32", "e": "b32"})
    assert list(o["d"][:8]) == [0x6, 0, 0xFF0, 0x80000000, 0xC0000000, 0x1, 0x2, 0]
    assert list(o["e"][:8]) == [0x6, 0xFFFFFFFF, 0xFF0, 0x80000000, 0xC0000000, 0, 0, 0]


def test_szext_sign_and_zero_extension():
    a = [0xFF, 0x7F, 0xFFFFFFFF, 0x80, 0x1234, 0xABCD, 0xFFFFFFFF, 5]
    b = [8, 8, 0, 8, 12, 16, 32, 40]
    o = run_snippet("szext.wrap.s32 %d, %a, %b; szext.clamp.s32 %e, %a, %b; szext.wrap.u32 %f, %a, %b;",
                    {"a": (a * 4, "u32"), "b": (b * 4, "u32")}, {"d": "s32", "e": "s32", "f": "u32"})
    assert list(o["d"][:8]) == [-1, 127, 0, -128, 0x234, -0x5433, 0, 5]       # .wrap: 32 -> 0, 40 -> 8
    assert list(o["e"][:8]) == [-1, 127, 0, -128, 0x234, -0x5433, -1, 5]      # .clamp: >= 32 keeps all
    assert list(o["f"][:8]) == [0xFF, 0x7F, 0, 0x80, 0x234, 0xABCD, 0, 5]


def test_shf_funnel_shift_clamp_and_wrap():
    hi, lo = 0xDEADBEEF, 0x01234567
    c = [0, 4, 31, 32, 33, 36, 64, 100]
    o = run_snippet("shf.l.wrap.b32 %d, %a, %b, %c; shf.l.clamp.b32 %e, %a, %b, %c; "
                    "shf.r.wrap.b32 %f, %a, %b, %c; shf.r.clamp.b32 %g, %a, %b, %c;",
                    {"a": ([lo] * 32, "b32"), "b": ([hi] * 32, "b32"), "c": (c * 4, "u32")},
                    {"d": "b32", "e": "b32", "f": "b32", "g": "b32"})
    v = hi << 32 | lo

    def left(n):
        return ((v << n) >> 32) & 0xFFFFFFFF

    def right(n):
        return (v >> n) & 0xFFFFFFFF
    assert list(o["d"][:8]) == [left(n & 31) for n in c]
    assert list(o["e"][:8]) == [left(min(n, 32)) for n in c]
    assert list(o["f"][:8]) == [right(n & 31) for n in c]
    assert list(o["g"][:8]) == [right(min(n, 32)) for n in c]
    assert o["e"][3] == lo and o["g"][3] == hi          # clamp at 32: the other word


PRMT = {   # mode: result bytes (b0, b1, b2, b3) as byte numbers of {b, a}, for c[1:0] = 0..3
    "f4e": [(0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)],
    "b4e": [(0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)],
    "rc8": [(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)],
    "ecl": [(0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)],
    "ecr": [(0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)],
    "rc16": [(0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)],
}


@pytest.mark.parametrize("mode", sorted(PRMT))
def test_prmt_modes(mode):
    a, b = 0x33221100, 0x77665544          # byte k of {b, a} is 0xkk
    c = [0, 1, 2, 3, 4, 0xFFFF, 0x12345679, 6] * 4     # only c[1:0] counts
    o = run_snippet(f"prmt.b32.{mode} %d, %a, %b, %c;", {"a": ([a] * 32, "b32"), "b": ([b] * 32, "b32"),
                                                         "c": (c, "b32")}, {"d": "b32"})
    for lane in range(8):
        sel = PRMT[mode][c[lane] & 3]
        assert o["d"][lane] == sum((0x11 * s) << (8 * k) for k, s in enumerate(sel)), (mode, lane)


def test_prmt_default_mode_sign_replication():
    o = run_snippet("prmt.b32 %d, %a, %b, %c;", {"a": ([0x80FF7F01] * 32, "b32"), "b": ([0x00008000] * 32, "b32"),
                                                 "c": ([0x3210, 0x7654, 0x8888, 0xBA98, 0x0123] * 6 + [0, 0], "b32")},
                    {"d": "b32"})
    # nibble 8..B: byte 0..3 of a with its sign replicated (0x01 and 0x7F give 0x00, 0xFF and 0x80 0xFF)
    assert list(o["d"][:5]) == [0x80FF7F01, 0x00008000, 0x00000000, 0xFFFF0000, 0x017FFF80]
