"""Data movement and conversion: mov (registers, immediates, special registers), cvt (every rounding mode,
saturation, NaN, int<->float, f32<->f64, f16, integer width changes)."""
import struct
from fractions import Fraction

import numpy as np
import pytest
from snippet import kernel, round_fraction_to_f32, run_snippet

import gpusim
import gpusim.errors

NAN = float("nan")
INF = float("inf")


def test_mov_register_immediate_and_float_bits():
    o = run_snippet("mov.u32 %d, %a; mov.b32 %e, 0f3F800000; mov.f32 %f, 0fBF000000; mov.u64 %g, -1;",
                    {"a": (list(range(100, 132)), "u32")}, {"d": "u32", "e": "b32", "f": "f32", "g": "u64"})
    assert list(o["d"]) == list(range(100, 132))
    assert set(o["e"]) == {0x3F800000}
    assert set(o["f"].view(np.uint32)) == {0xBF000000}
    assert set(o["g"]) == {2 ** 64 - 1}


SPECIALS = ["%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
            "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid"]


def test_special_registers_multi_dim_block_and_grid():
    block, grid = (8, 4, 3), (2, 3, 2)
    outs = {f"s{k}": "u32" for k in range(len(SPECIALS))}
    body = "\n".join(f"mov.u32 %s{k}, {name};" for k, name in enumerate(SPECIALS))
    o = run_snippet(body, {}, outs, block=block, grid=grid)
    n_per_block = 8 * 4 * 3
    got = {name: o[f"s{k}"] for k, name in enumerate(SPECIALS)}
    for i in range(2 * 3 * 2 * n_per_block):
        b, t = divmod(i, n_per_block)
        cx, cy, cz = b % 2, (b // 2) % 3, b // 6
        tx, ty, tz = t % 8, (t // 8) % 4, t // 32
        want = {"%tid.x": tx, "%tid.y": ty, "%tid.z": tz, "%ntid.x": 8, "%ntid.y": 4, "%ntid.z": 3,
                "%ctaid.x": cx, "%ctaid.y": cy, "%ctaid.z": cz, "%nctaid.x": 2, "%nctaid.y": 3, "%nctaid.z": 2,
                "%laneid": t % 32, "%warpid": t // 32}
        assert {k: int(v[i]) for k, v in got.items()} == want, i


def test_laneid_with_partial_warp():
    # 40 threads: the second warp has 8 lanes, their laneid is 0..7, warpid 1
    o = run_snippet("mov.u32 %d, %laneid; mov.u32 %e, %warpid;", {}, {"d": "u32", "e": "u32"}, threads=40)
    assert list(o["d"]) == list(range(32)) + list(range(8))
    assert list(o["e"]) == [0] * 32 + [1] * 8


# ---- cvt float -> int -----------------------------------------------------------------------------------
F2I = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.7, -2.7, 0.49999997, -0.49999997, 3e9, -3e9, NAN, INF, -INF, -0.0,
       8388607.5, 1e-45, 2147483520.0, -2147483648.0, 123.0, -123.75, 4294967040.0, 5e9, 0.0, 1.0, -1.0,
       65535.5, 99.5, 100.5, -99.5, 2 ** 31]


def _ref_round(x, mode):
    import math
    if mode == "rzi":
        return math.trunc(x)
    if mode == "rmi":
        return math.floor(x)
    if mode == "rpi":
        return math.ceil(x)
    return round(x)             # Python's round() is round-half-even


def _f2i(x, mode, lo, hi):
    if x != x:
        return 0
    if x in (INF, -INF):
        return hi if x > 0 else lo
    return max(lo, min(hi, _ref_round(x, mode)))


@pytest.mark.parametrize("mode", ["rni", "rzi", "rmi", "rpi"])
@pytest.mark.parametrize("t,lo,hi", [("s32", -2 ** 31, 2 ** 31 - 1), ("u32", 0, 2 ** 32 - 1),
                                     ("s64", -2 ** 63, 2 ** 63 - 1), ("s16", -2 ** 15, 2 ** 15 - 1),
                                     ("u8", 0, 255)])
def test_cvt_float_to_int_rounding_saturation_nan(mode, t, lo, hi):
    xs = [float(np.float32(x)) for x in F2I]
    o = run_snippet(f"cvt.{mode}.{t}.f32 %d, %a;", {"a": np.float32(xs)}, {"d": t})
    assert [int(v) for v in o["d"]] == [_f2i(x, mode, lo, hi) for x in xs]


def test_cvt_f64_to_s32_and_u64():
    xs = [2.5, -2.5, 1e300, -1e300, NAN, 4294967295.7, 2.0 ** 63, 1.8e19, 2.0 ** 64] + [7.25] * 23
    o = run_snippet("cvt.rni.s32.f64 %d, %a; cvt.rzi.u64.f64 %e, %a;", {"a": np.float64(xs)},
                    {"d": "s32", "e": "u64"})
    assert [int(v) for v in o["d"]] == [_f2i(x, "rni", -2 ** 31, 2 ** 31 - 1) for x in xs]
    assert [int(v) for v in o["e"]] == [_f2i(x, "rzi", 0, 2 ** 64 - 1) for x in xs]


# ---- cvt int -> float -----------------------------------------------------------------------------------
I2F = [0, 1, -1, 2 ** 24, 2 ** 24 + 1, 2 ** 24 + 3, -(2 ** 24 + 1), 2 ** 31 - 1, -2 ** 31, 123456789,
       -123456789, 33554435, 7, 1 << 30, (1 << 30) + 65, -((1 << 30) + 65)] * 2


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_s32_to_f32_rounding(mode):
    o = run_snippet(f"cvt.{mode}.f32.s32 %d, %a;", {"a": (I2F, "s32")}, {"d": "f32"})
    assert [hex(int(v)) for v in o["d"].view(np.uint32)] == \
        [hex(round_fraction_to_f32(Fraction(x), mode)) for x in I2F]


def test_cvt_unsigned_and_64_bit_to_float():
    u = [2 ** 32 - 1, 2 ** 31, 16777217, 0] * 8
    w = [2 ** 63 - 1, -2 ** 63, 2 ** 53 + 1, 3] * 8
    o = run_snippet("cvt.rn.f32.u32 %d, %a; cvt.rn.f64.s64 %e, %w; cvt.rn.f64.u32 %f, %a;",
                    {"a": (u, "u32"), "w": (w, "s64")}, {"d": "f32", "e": "f64", "f": "f64"})
    assert [float(v) for v in o["d"][:4]] == [4294967296.0, 2147483648.0, 16777216.0, 0.0]
    assert [float(v) for v in o["e"][:4]] == [float(2 ** 63), -float(2 ** 63), float(2 ** 53), 3.0]
    assert [float(v) for v in o["f"][:4]] == [float(x) for x in u[:4]]


# ---- cvt float <-> float --------------------------------------------------------------------------------
F64S = [1.0 / 3, -1.0 / 3, 2.0 ** -130, 1e39, -1e39, 3.4028235677973366e38, 1.0000000596046448,
        1.0000001788139343, NAN, INF, -0.0, 0.1, -0.1, 5e-324, 2.0 ** -149 * 1.5, 65504.0] * 2


@pytest.mark.parametrize("mode", ["rn", "rz", "rm", "rp"])
def test_cvt_f64_to_f32_rounding(mode):
    o = run_snippet(f"cvt.{mode}.f32.f64 %d, %a;", {"a": np.float64(F64S)}, {"d": "f32"})
    got = o["d"].view(np.uint32)
    for x, g in zip(F64S, got):
        if x != x:
            assert np.isnan(np.uint32(g).view(np.float32))
        elif x in (INF, -INF):
            assert int(g) == (0x7F800000 if x > 0 else 0xFF800000)
        elif abs(x) > 3.4028235677973366e38 * 1.0000001:   # overflow: inf or max finite by direction
            big = {"rn": True, "rz": False, "rp": x > 0, "rm": x < 0}[mode]
            want = (0x7F800000 if big else 0x7F7FFFFF) | (0x80000000 if x < 0 else 0)
            assert int(g) == want, (x, mode)
        else:
            assert int(g) == round_fraction_to_f32(Fraction(x), mode) | (0x80000000 if str(x)[0] == "-" else 0), \
                (x, mode)


def test_cvt_f32_to_f64_exact_and_f16():
    xs = np.float32([1.0 / 3, -2.5, 1e-40, 65504.0, 65520.0, 1e-8, 0.1, -0.0] * 4)
    o = run_snippet("cvt.f64.f32 %d, %a; cvt.rn.f16.f32 %h, %a; cvt.f32.f16 %e, %h;", {"a": xs},
                    {"d": "f64", "h": "f16", "e": "f32"})
    np.testing.assert_array_equal(o["d"], xs.astype(np.float64))
    # f16 via struct's IEEE half packing (round to nearest even)
    want_h = [struct.unpack("<H", struct.pack("<e", float(x)))[0] if abs(float(x)) < 65520 else 0x7C00
              for x in xs]
    assert [int(v) for v in o["h"].view(np.uint16)] == want_h
    want_e = [struct.unpack("<e", struct.pack("<H", h))[0] for h in want_h]
    assert [float(v) for v in o["e"]] == want_e


def test_cvt_round_to_integral_float_and_sat():
    xs = [0.5, 1.5, 2.5, -0.5, -2.7, 2.7, NAN, -3.0, 0.25, 1.75, 7.0, -0.0] + [3.5] * 20
    o = run_snippet("cvt.rni.f32.f32 %d, %a; cvt.rmi.f32.f32 %e, %a; cvt.sat.f32.f32 %f, %a;",
                    {"a": np.float32(xs)}, {"d": "f32", "e": "f32", "f": "f32"})
    import math
    for x, d, e, f in zip(xs, o["d"], o["e"], o["f"]):
        if x != x:
            assert np.isnan(d) and np.isnan(e) and float(f) == 0.0     # .sat: NaN -> 0
            continue
        assert float(d) == round(x) and float(e) == math.floor(x)
        assert float(f) == min(1.0, max(0.0, x))
    assert o["d"].view(np.uint32)[3] == 0x80000000           # rni(-0.5) = -0.0


# ---- cvt int <-> int ------------------------------------------------------------------------------------
def test_cvt_integer_widths_sign_extension_and_sat():
    a = [-1, 0x7FFF, 0x8000, -32768, 70000, -70000, 255, 256, -129, 2 ** 31 - 1] + list(range(-11, 11))
    body = ("cvt.s32.s16 %d, %h; cvt.u32.u16 %e, %h; cvt.s16.s32 %f, %a; cvt.sat.s16.s32 %g, %a; "
            "cvt.s64.s32 %k, %a; cvt.u64.u32 %l, %a; cvt.sat.u32.s32 %m, %a; cvt.sat.s8.s32 %n, %a; "
            "cvt.u8.s32 %q, %a;")
    h = [x & 0xFFFF for x in a]
    o = run_snippet(body, {"a": (a, "s32"), "h": (h, "s16")},
                    {"d": "s32", "e": "u32", "f": "s16", "g": "s16", "k": "s64", "l": "u64", "m": "u32",
                     "n": "s8", "q": "u8"})

    def sx(v, bits):
        v &= (1 << bits) - 1
        return v - (1 << bits) if v >> (bits - 1) else v
    assert [int(v) for v in o["d"]] == [sx(x, 16) for x in a]
    assert [int(v) for v in o["e"]] == [x & 0xFFFF for x in a]
    assert [int(v) for v in o["f"]] == [sx(x, 16) for x in a]
    assert [int(v) for v in o["g"]] == [max(-32768, min(32767, x)) for x in a]
    assert [int(v) for v in o["k"]] == a
    assert [int(v) for v in o["l"]] == [x & 0xFFFFFFFF for x in a]
    assert [int(v) for v in o["m"]] == [max(0, x) for x in a]
    assert [int(v) for v in o["n"]] == [max(-128, min(127, x)) for x in a]
    assert [int(v) for v in o["q"]] == [x & 0xFF for x in a]


def test_mov_pack_and_unpack():
    """mov.b64 {lo, hi}, a splits a 64-bit register (the first part is the low one) and mov.b64 d, {lo, hi}
    joins; b32 from two b16 likewise (what __shfl of a double or a long long, and half2, compile to)."""
    o = run_snippet(".reg .b32 %lo, %hi; .reg .b16 %h0, %h1;\n"
                    "mov.b64 {%lo, %hi}, %a; mov.b64 %d, {%hi, %lo}; mov.b32 %e, %lo;\n"
                    "mov.b32 {%h0, %h1}, %lo; mov.b32 %f, {%h1, %h0};",
                    {"a": ([0x1122334455667788, 2 ** 64 - 1] * 16, "b64")}, {"d": "b64", "e": "b32", "f": "b32"})
    assert int(o["d"][0]) == 0x5566778811223344 and int(o["e"][0]) == 0x55667788
    assert int(o["f"][0]) == 0x77885566 and int(o["d"][1]) == 2 ** 64 - 1


def test_cvt_to_and_from_bf16_and_the_f16x2_pack():
    x = np.float32([1.0, 3.14159, -2.5e-3, 65536.5, np.inf, np.nan, 1.00390625, 1.01171875] * 4)
    o = run_snippet(".reg .b16 %h; cvt.rn.bf16.f32 %h, %a; cvt.f32.bf16 %d, %h; cvt.rz.bf16.f32 %h, %a;"
                    " cvt.u32.u16 %f, %h; cvt.rn.f16x2.f32 %e, %a, %b;",
                    {"a": x, "b": np.float32([0.5] * 32)}, {"d": "f32", "e": "b32", "f": "u32"})
    bits = x.view(np.uint32).astype(np.int64)
    rne = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16                  # round to nearest even on the bits
    want = (rne << 16).astype(np.uint32).view(np.float32)
    finite = np.isfinite(x)
    assert o["d"][:8][finite[:8]].tolist() == want[:8][finite[:8]].tolist()
    assert o["d"][6] == 1.0 and o["d"][7] == np.float32(1.015625)        # ties to even, then up
    assert list(o["f"][:3]) == [0x3F80, 0x4049, 0xBB23]                   # .rz: the high 16 bits
    assert int(o["e"][0]) == 0x3C003800                                   # {a: 1.0 high, b: 0.5 low}


STACK = """
    .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1; ld.param.u32 %r1, [p_n];
    mov.u32 %r0, %tid.x;
    stacksave.u64 %rd2;
    mul.wide.u32 %rd3, %r1, 4;
    alloca.u64 %rd4, %rd3, 16;
    st.local.u32 [%rd4], %r0; add.u32 %r2, %r0, 100; st.local.u32 [%rd4+4], %r2;
    ld.local.u32 %r3, [%rd4]; ld.local.u32 %r4, [%rd4+4]; add.u32 %r5, %r3, %r4;
    and.b64 %rd6, %rd4, 15; cvt.u32.u64 %r6, %rd6; add.u32 %r5, %r5, %r6;      // 16-byte aligned: + 0
    stackrestore.u64 %rd2; stacksave.u64 %rd5; sub.s64 %rd6, %rd5, %rd2; cvt.u32.u64 %r6, %rd6;
    add.u32 %r5, %r5, %r6;                                                      // restored: + 0
    mul.wide.u32 %rd7, %r0, 4; add.s64 %rd7, %rd1, %rd7; st.global.u32 [%rd7], %r5;
"""


def test_alloca_stacksave_stackrestore():
    ptx = kernel(STACK, ".param .u64 p_out, .param .u32 p_n")
    res = gpusim.run(ptx, grid=1, block=32, args=[np.zeros(32, np.uint32), np.uint32(8)])
    assert res.args[0].tolist() == [2 * t + 100 for t in range(32)]
    with pytest.raises(gpusim.errors.KernelError, match="stack overflow.*1024-byte stack"):
        gpusim.run(ptx, grid=1, block=32, args=[np.zeros(32, np.uint32), np.uint32(1000)])


def test_mapa_and_getctarank_in_a_cluster_of_one_block():
    body = """
    .reg .b32 %r<6>; .reg .b64 %rd<4>;
    .shared .b32 sv[4];
    mov.u32 %r0, sv; add.u32 %r0, %r0, 8;
    mapa.shared::cluster.u32 %r1, %r0, 0;
    getctarank.shared::cluster.u32 %r2, %r0;
    sub.u32 %r3, %r1, %r0; add.u32 %r3, %r3, %r2;
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1; st.global.u32 [%rd1], %r3;
"""
    res = gpusim.run(kernel(body, ".param .u64 p_out"), grid=1, block=1, args=[np.full(1, 7, np.uint32)])
    assert res.args[0][0] == 0
    with pytest.raises(gpusim.errors.KernelError, match="clusters of one block"):
        gpusim.run(kernel(body.replace("%r0, 0;", "%r0, 1;"), ".param .u64 p_out"), grid=1, block=1,
                   args=[np.zeros(1, np.uint32)])


def test_cvt_fp8_pairs_and_tf32():
    """e4m3 (max 448, no infinities, NaN 0x7F) and e5m2 (max 57344) with .satfinite, round to nearest even;
    the first operand goes to the upper byte; back to .f16x2 exactly; tf32 keeps 10 mantissa bits."""
    a = np.float32([1.0, 500.0, -3.3, 1.0625, 1.1875, np.nan, -0.0, 2.0 ** -10] * 4)
    b = np.float32([0.5] * 32)
    o = run_snippet(".reg .b16 %h, %g; cvt.rn.satfinite.e4m3x2.f32 %h, %a, %b; cvt.u32.u16 %d, %h;"
                    " cvt.rn.satfinite.e5m2x2.f32 %g, %a, %b; cvt.u32.u16 %e, %g; cvt.rn.f16x2.e4m3x2 %f, %h;"
                    " cvt.rna.tf32.f32 %k, %c;",
                    {"a": a, "b": b, "c": np.float32([1 + 2 ** -11, 1 + 2 ** -12, 1 + 3 * 2 ** -11, -np.inf] * 8)},
                    {"d": "u32", "e": "u32", "f": "b32", "k": "b32"})
    # e4m3 codes: 1.0 0x38, 500 -> 448 0x7E, -3.3 -> -3.25 0xC5, 1.0625 ties to 1.0, 1.1875 ties to 1.25 (0x3A),
    # NaN 0x7F, -0.0 0x80, 2^-10 ties to 0; 0.5 is 0x30
    assert [int(v) >> 8 for v in o["d"][:8]] == [0x38, 0x7E, 0xC5, 0x38, 0x3A, 0x7F, 0x80, 0x00]
    assert set(int(v) & 0xFF for v in o["d"]) == {0x30}
    # e5m2: 1.0 0x3C, 500 -> 512 0x60, -3.3 -> -3.5 0xC3 (nearer than -3.0), 1.0625 -> 1.0, 1.1875 -> 1.25
    assert [int(v) >> 8 for v in o["e"][:5]] == [0x3C, 0x60, 0xC3, 0x3C, 0x3D]
    halves = [float(np.uint16(int(v) >> 16).view(np.float16)) for v in o["f"][:5]]
    assert halves == [1.0, 448.0, -3.25, 1.0, 1.25]
    assert [int(v) for v in o["k"][:4]] == [0x3F802000, 0x3F800000, 0x3F804000, 0xFF800000]   # ties away
