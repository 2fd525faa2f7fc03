"""Memory: ld/st on .global .shared .local .const .param (vectors, 8/16-bit widths), cvta and generic
ld/st, atom/red with colliding addresses on global and shared."""
import numpy as np
import pytest
from snippet import kernel, run_snippet

import gpusim
from gpusim.errors import UnsupportedError

TID = "mov.u32 %r0, %tid.x;\n mul.wide.u32 %rd0, %r0, {size};\n"


def test_ld_st_global_widths_sign_and_zero_extension():
    raw = np.array([0x80, 0x7F, 0xFF, 0x01] * 8, dtype=np.uint8)
    body = """
    .reg .b32 %r<8>; .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_in]; ld.param.u64 %rd2, [p_out];
    mov.u32 %r0, %tid.x; cvt.u64.u32 %rd0, %r0; add.s64 %rd3, %rd1, %rd0;
    ld.global.s8 %r1, [%rd3]; ld.global.u8 %r2, [%rd3];
    mul.wide.u32 %rd4, %r0, 8; add.s64 %rd5, %rd2, %rd4;
    st.global.v2.u32 [%rd5], {%r1, %r2};
    """
    res = gpusim.run(kernel(body, ".param .u64 p_in, .param .u64 p_out"), grid=1, block=32,
                     args=[raw, np.zeros(64, np.uint32)])
    out = res.args[1].reshape(32, 2)
    assert [int(v) for v in out[:4, 0]] == [0xFFFFFF80, 0x7F, 0xFFFFFFFF, 1]     # .s8: sign-extended
    assert [int(v) for v in out[:4, 1]] == [0x80, 0x7F, 0xFF, 1]                 # .u8: zero-extended
    assert res.inputs[0] is not raw and (raw == np.array([0x80, 0x7F, 0xFF, 0x01] * 8)).all()


def test_ld_st_16_bit_and_vectors_v4():
    src = np.arange(128, dtype=np.float32) * 1.5
    h = np.array([0x8001, 0x7FFF] * 16, dtype=np.uint16)
    body = """
    .reg .b32 %r<8>; .reg .f32 %f<5>; .reg .b64 %rd<10>; .reg .b16 %h<2>;
    ld.param.u64 %rd1, [p_src]; ld.param.u64 %rd2, [p_dst]; ld.param.u64 %rd6, [p_h]; ld.param.u64 %rd7, [p_o];
    mov.u32 %r0, %tid.x; mul.wide.u32 %rd0, %r0, 16;
    add.s64 %rd3, %rd1, %rd0; add.s64 %rd4, %rd2, %rd0;
    ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3];
    st.global.v4.f32 [%rd4], {%f4, %f3, %f2, %f1};
    mul.wide.u32 %rd0, %r0, 2; add.s64 %rd8, %rd6, %rd0;
    ld.global.s16 %r1, [%rd8]; ld.global.u16 %r2, [%rd8];
    mul.wide.u32 %rd0, %r0, 8; add.s64 %rd9, %rd7, %rd0;
    st.global.v2.u32 [%rd9], {%r1, %r2};
    ld.global.b16 %h0, [%rd8]; st.global.u16 [%rd8+64], %h0;
    """
    res = gpusim.run(kernel(body, ".param .u64 p_src, .param .u64 p_dst, .param .u64 p_h, .param .u64 p_o"),
                     grid=1, block=16, args=[src, np.zeros(128, np.float32), np.concatenate([h, h]),
                                             np.zeros(32, np.uint32)])
    np.testing.assert_array_equal(res.args[1][:64].reshape(16, 4), src[:64].reshape(16, 4)[:, ::-1])
    o = res.args[3].reshape(16, 2)
    assert [int(v) for v in o[:2, 0]] == [0xFFFF8001, 0x7FFF] and [int(v) for v in o[:2, 1]] == [0x8001, 0x7FFF]


def test_shared_const_local_param_spaces_and_generic():
    ptx = """.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b32 ctab[4] = {10, 20, 30, 40};
.global .align 4 .u32 gvar[2] = {7, 9};
.visible .entry k(.param .u64 p_out, .param .u32 p_k)
{
    .reg .b32 %r<16>; .reg .b64 %rd<16>;
    .shared .align 4 .b32 sh[32];
    .local .align 4 .b32 loc[2];
    ld.param.u64 %rd1, [p_out]; ld.param.u32 %r9, [p_k];
    mov.u32 %r0, %tid.x; mul.wide.u32 %rd0, %r0, 4;
    mov.u64 %rd2, sh; add.s64 %rd3, %rd2, %rd0;
    st.shared.u32 [%rd3], %r0;
    bar.sync 0;
    xor.b32 %r1, %r0, 31; mul.wide.u32 %rd4, %r1, 4; add.s64 %rd5, %rd2, %rd4;
    ld.shared.u32 %r2, [%rd5];                       // the mirror lane's value
    and.b32 %r3, %r0, 3; mul.wide.u32 %rd6, %r3, 4; mov.u64 %rd7, ctab; add.s64 %rd7, %rd7, %rd6;
    ld.const.u32 %r4, [%rd7];
    st.local.u32 [loc+4], %r0; ld.local.u32 %r5, [loc+4];
    cvta.shared.u64 %rd8, %rd5; ld.u32 %r6, [%rd8];   // generic load through the shared window
    cvta.local.u64 %rd9, %rd0; mov.u64 %rd9, loc; cvta.local.u64 %rd9, %rd9; st.u32 [%rd9], %r9;
    ld.local.u32 %r7, [loc];
    cvta.to.shared.u64 %rd10, %rd8; ld.shared.u32 %r8, [%rd10];
    mov.u64 %rd11, gvar; ld.global.u32 %r10, [%rd11+4];
    ld.const.u32 %r11, [ctab+12];
    mul.wide.u32 %rd12, %r0, 32; add.s64 %rd13, %rd1, %rd12;
    st.global.v4.u32 [%rd13], {%r2, %r4, %r5, %r6};
    st.global.v4.u32 [%rd13+16], {%r7, %r8, %r10, %r11};
    ret;
}
"""
    res = gpusim.run(ptx, grid=1, block=32, args=[np.zeros(32 * 8, np.uint32), np.uint32(77)])
    o = res.args[0].reshape(32, 8)
    t = np.arange(32)
    np.testing.assert_array_equal(o[:, 0], t ^ 31)
    np.testing.assert_array_equal(o[:, 1], np.array([10, 20, 30, 40])[t & 3])
    np.testing.assert_array_equal(o[:, 2], t)
    np.testing.assert_array_equal(o[:, 3], t ^ 31)
    np.testing.assert_array_equal(o[:, 4], 77)
    np.testing.assert_array_equal(o[:, 5], t ^ 31)
    np.testing.assert_array_equal(o[:, 6], 9)
    np.testing.assert_array_equal(o[:, 7], 40)


def test_global_symbols_written_before_and_read_after():
    ptx = """.version 8.0
.target sm_90
.address_size 64
.const .align 4 .f32 Mc[8];
.global .align 4 .u32 counter;
.visible .entry k(.param .u64 p_out)
{
    .reg .b32 %r<4>; .reg .f32 %f<2>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p_out]; mov.u32 %r0, %tid.x; and.b32 %r1, %r0, 7;
    mul.wide.u32 %rd0, %r1, 4; mov.u64 %rd2, Mc; add.s64 %rd2, %rd2, %rd0; ld.const.f32 %f1, [%rd2];
    mul.wide.u32 %rd0, %r0, 4; add.s64 %rd3, %rd1, %rd0; st.global.f32 [%rd3], %f1;
    atom.global.add.u32 %r2, [counter], 1;
    ret;
}
"""
    mc = np.arange(8, dtype=np.float32) / 4
    res = gpusim.run(ptx, grid=2, block=32, args=[np.zeros(64, np.float32)], symbols={"Mc": mc})
    np.testing.assert_array_equal(res.args[0], np.concatenate([np.tile(mc, 4), np.zeros(32, np.float32)]))
    assert int(res.symbols["counter"].view(np.uint32)[0]) == 64


ATOM_BODY = """
    .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p1;
    .shared .align 4 .b32 sc[2];
    ld.param.u64 %rd1, [p_ctr]; ld.param.u64 %rd2, [p_old]; ld.param.u32 %r7, [p_v];
    mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mad.lo.u32 %r3, %r1, %r2, %r0;
    mul.wide.u32 %rd0, %r3, 4; add.s64 %rd3, %rd2, %rd0;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 st.shared.u32 [sc], %r7;
    bar.sync 0;
    atom.{space}.{op}.{t} %r4, [{addr}], {operand};
    st.global.u32 [%rd3], %r4;
    bar.sync 0;
    @%p1 ld.shared.u32 %r5, [sc];
    @%p1 mul.wide.u32 %rd4, %r1, 4;
    @%p1 add.s64 %rd5, %rd1, %rd4;
    @%p1 st.global.u32 [%rd5+64], %r5;
"""


def _atom(op, t, space, operand, init, warps=2, blocks=1):
    addr = "%rd1" if space == "global" else "sc"
    body = ATOM_BODY.replace("{space}", space).replace("{op}", op).replace("{t}", t) \
        .replace("{addr}", addr).replace("{operand}", operand)
    n = 32 * warps * blocks
    ctr = np.zeros(16 + blocks, np.uint32)
    ctr[0] = init
    res = gpusim.run(kernel(body, ".param .u64 p_ctr, .param .u64 p_old, .param .u32 p_v"), grid=blocks,
                     block=32 * warps, args=[ctr, np.zeros(n, np.uint32), np.uint32(init)])
    final = int(res.args[0][0]) if space == "global" else int(res.args[0][16])
    return final, [int(v) for v in res.args[1]]


@pytest.mark.parametrize("space", ["global", "shared"])
def test_atom_add_colliding_counter(space):
    final, old = _atom("add", "u32", space, "1", 0, warps=3)
    assert final == 32 * 3                                   # every lane of 3 warps added 1
    assert sorted(old) == list(range(96))                    # each saw a distinct old value


@pytest.mark.parametrize("space", ["global", "shared"])
@pytest.mark.parametrize("op,t,operand,init,want_final", [
    ("min", "u32", "%r3", 1000, 0), ("max", "u32", "%r3", 3, 63), ("min", "s32", "%r3", 5, 0),
    ("and", "b32", "%r3", 0xFFFFFFFF, 0), ("or", "b32", "%r3", 0, 63), ("xor", "b32", "%r3", 0, 0),
    ("inc", "u32", "20", 0, (64 % 21)), ("dec", "u32", "20", 5, None), ("exch", "b32", "%r3", 999, None)])
def test_atom_ops(space, op, t, operand, init, want_final):
    final, old = _atom(op, t, space, operand, init)
    if want_final is not None:
        assert final == want_final
    if op == "exch":
        # the old values and the final value are the initial value and the 64 operands, each exactly once
        assert sorted(old + [final]) == sorted([999] + list(range(64)))
    if op == "inc":
        assert sorted(old) == sorted([k % 21 for k in range(64)])
    if op == "dec":    # 5,4,..,0 then wraps to 20: ((old == 0) | (old > 20)) ? 20 : old - 1
        seq, v = [], 5
        for _ in range(64):
            seq.append(v)
            v = 20 if v == 0 or v > 20 else v - 1
        assert sorted(old) == sorted(seq) and final == v


@pytest.mark.parametrize("space", ["global", "shared"])
def test_atom_cas_only_one_winner(space):
    body = ATOM_BODY.replace("atom.{space}.{op}.{t} %r4, [{addr}], {operand};",
                             "add.u32 %r6, %r3, 100; atom.{space}.cas.b32 %r4, [{addr}], 7, %r6;")
    body = body.replace("{space}", space).replace("{addr}", "%rd1" if space == "global" else "sc")
    ctr = np.zeros(17, np.uint32)
    ctr[0] = 7
    res = gpusim.run(kernel(body, ".param .u64 p_ctr, .param .u64 p_old, .param .u32 p_v"), grid=1, block=64,
                     args=[ctr, np.zeros(64, np.uint32), np.uint32(7)])
    old = [int(v) for v in res.args[1]]
    final = int(res.args[0][0] if space == "global" else res.args[0][16])
    assert old.count(7) == 1                                  # one lane swapped
    winner = old.index(7)
    assert final == winner + 100 and set(old) - {7} == {final}


def test_red_add_float_and_64_bit():
    body = """
    .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .f32 %f1;
    ld.param.u64 %rd1, [p_ctr]; mov.u32 %r0, %tid.x; cvt.rn.f32.u32 %f1, %r0;
    red.global.add.f32 [%rd1], %f1;
    cvt.u64.u32 %rd2, %r0; red.global.add.u64 [%rd1+8], %rd2;
    """
    res = gpusim.run(kernel(body, ".param .u64 p_ctr"), grid=1, block=64, args=[np.zeros(4, np.uint32)])
    raw = res.args[0]
    assert float(raw[:1].view(np.float32)[0]) == sum(range(64))
    assert int(raw[2:4].view(np.uint64)[0]) == sum(range(64))


# ---- atomics on 16/64-bit and float types, cp.async, 32-bit address wrap-around, isspacep ----------------
ATOM_ONE = """
    .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .b16 %h<4>; .reg .f32 %f<4>; .reg .f64 %fd<4>;
    ld.param.u64 %rd1, [p_buf]; cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [p_old]; cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r0, %tid.x;
{body}
"""


def _run_atom(body, buf, old, block=32):
    res = gpusim.run(kernel(ATOM_ONE.format(body=body), ".param .u64 p_buf, .param .u64 p_old"), grid=1, block=block,
                     args=[buf, old])
    return res.args[0], res.args[1]


def test_atom_cas_b16_neighbouring_halves_stay_apart():
    """16-bit CAS on the two halves of one word: each half changes alone."""
    body = """
    and.b32 %r1, %r0, 1; mul.wide.u32 %rd3, %r1, 2; add.s64 %rd4, %rd1, %rd3;
    cvt.u16.u32 %h1, %r0; mov.b16 %h2, 0x1234;
    atom.global.cas.b16 %h3, [%rd4], %h2, %h1;
    cvt.u32.u16 %r2, %h3; mul.wide.u32 %rd5, %r0, 4; add.s64 %rd6, %rd2, %rd5; st.global.u32 [%rd6], %r2;
"""
    buf, old = _run_atom(body, np.array([0x1234, 0x1234], np.uint16), np.zeros(32, np.uint32))
    assert buf[0] == 0 and buf[1] == 1            # lanes 0 and 1 won (lane order); the others saw them
    assert list(old[:4]) == [0x1234, 0x1234, 0, 1]


def test_atom_64_bit_cas_exch_min_max_add():
    body = """
    cvt.u64.u32 %rd3, %r0;
    atom.global.add.u64 %rd4, [%rd1], %rd3;
    atom.global.max.s64 %rd5, [%rd1+8], %rd3;
    neg.s64 %rd6, %rd3;
    atom.global.min.s64 %rd5, [%rd1+16], %rd6;
    atom.global.exch.b64 %rd5, [%rd1+24], %rd3;
    atom.global.cas.b64 %rd5, [%rd1+32], 0x100000000, %rd3;
    mul.wide.u32 %rd7, %r0, 8; add.s64 %rd7, %rd2, %rd7; st.global.u64 [%rd7], %rd5;
"""
    buf = np.array([2 ** 40, -5, 3, 77, 2 ** 32], np.int64).view(np.uint64)
    buf, old = _run_atom(body, buf, np.zeros(32, np.uint64))
    s = buf.view(np.int64)
    assert s[0] == 2 ** 40 + sum(range(32)) and s[1] == 31 and s[2] == -31
    assert s[3] in range(32) and s[4] == 0                 # lane 0 swapped 2^32 for 0
    assert int(old[0]) == 2 ** 32 and set(int(v) for v in old[1:]) == {0}


@pytest.mark.parametrize("form", ["atom.global.min.f32 %f2, [%rd1], %f1;", "atom.global.max.f64 %fd2, [%rd1], %fd1;",
                                  "atom.global.min.noftz.f16 %h2, [%rd1], %h1;"])
def test_float_min_max_atomics_that_ptx_does_not_have_are_rejected(form):
    """PTX has float .min/.max atomics only on 16-bit floats, as vectors; ptxas rejects the others, so a
    module using them never runs on a GPU: gpusim says so when the kernel is launched."""
    with pytest.raises(UnsupportedError, match=r"\.m(in|ax) atomic|are vectors"):
        _run_atom(form, np.zeros(4, np.float32), np.zeros(32, np.uint32))


def test_atom_add_f32_flushes_subnormals_on_global_not_on_shared():
    tiny = np.float32(1e-40)                  # subnormal
    body = """
    .shared .align 4 .f32 s;
    mov.f32 %f1, 0f00011CE4;                 // a subnormal (about 1e-40)
    setp.eq.u32 %p1, %r0, 0;
    @%p1 st.shared.f32 [s], %f1;
    bar.sync 0;
    @%p1 atom.global.add.f32 %f2, [%rd1], %f1;
    @%p1 atom.shared.add.f32 %f3, [s], %f1;
    bar.sync 0;
    @%p1 ld.shared.f32 %f3, [s];
    @%p1 st.global.f32 [%rd1+4], %f3;
"""
    body = body.replace(".shared .align 4 .f32 s;", "")
    src = ATOM_ONE.format(body=body).replace("    .reg .b32 %r<8>;", "    .shared .align 4 .f32 s;\n    .reg .pred %p1;\n    .reg .b32 %r<8>;")
    res = gpusim.run(kernel(src, ".param .u64 p_buf, .param .u64 p_old"), grid=1, block=32,
                     args=[np.array([tiny, 0], np.float32), np.zeros(32, np.uint32)])
    assert res.args[0][0] == 0.0                         # global: 1e-40 + 1e-40 flushed
    sub = np.array([0x00011CE4], np.uint32).view(np.float32)[0]
    assert res.args[0][1] == 2 * sub                     # shared keeps subnormals (doubling is exact)


def test_atom_add_f16_bf16_and_packed_pairs():
    body = """
    mov.b16 %h1, 0x3C00;                     // f16 1.0
    atom.global.add.noftz.f16 %h2, [%rd1], %h1;
    mov.b16 %h1, 0x3F80;                     // bf16 1.0
    atom.global.add.noftz.bf16 %h2, [%rd1+2], %h1;
    mov.b32 %r1, 0x40003C00;                 // f16x2 {1.0, 2.0}
    atom.global.add.noftz.f16x2 %r2, [%rd1+4], %r1;
"""
    buf = np.array([0x3C00, 0x3F80, 0, 0], np.uint16)   # 1.0 (f16), 1.0 (bf16), {0, 0}
    buf, _ = _run_atom(body, buf, np.zeros(32, np.uint32))
    assert buf[0:1].view(np.float16)[0] == 33.0
    assert (np.uint32(buf[1]) << 16).view(np.float32) == 33.0
    assert buf[2:4].view(np.float16).tolist() == [32.0, 64.0]


def test_cp_async_copies_and_zero_fills_past_the_source_size():
    body = """
    .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
    .shared .align 16 .b8 sm[512];
    ld.param.u64 %rd1, [p_in]; cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [p_out]; cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r0, %tid.x; mul.wide.u32 %rd3, %r0, 16; add.s64 %rd4, %rd1, %rd3;
    mov.u32 %r1, sm; mul.lo.u32 %r2, %r0, 16; add.u32 %r3, %r1, %r2;
    and.b32 %r4, %r0, 3; shl.b32 %r4, %r4, 2;          // source size 0, 4, 8, 12 bytes
    cp.async.cg.shared.global [%r3], [%rd4], 16, %r4;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    ld.shared.v4.f32 {%f0, %f1, %f2, %f3}, [%r3];
    add.s64 %rd5, %rd2, %rd3;
    st.global.v4.f32 [%rd5], {%f0, %f1, %f2, %f3};
"""
    src = np.arange(128, dtype=np.float32) + 1
    res = gpusim.run(kernel(body, ".param .u64 p_in, .param .u64 p_out"), grid=1, block=32,
                     args=[src, np.zeros(128, np.float32)], mode="timing")
    out = res.args[1].reshape(32, 4)
    for lane in range(32):
        keep = lane & 3
        assert out[lane].tolist() == [float(4 * lane + k + 1) if k < keep else 0.0 for k in range(4)]
    cp = [i for i in res.trace.instructions if i.opcode.startswith("cp.async.cg")][0]
    assert cp.is_load and cp.mem_space == "global" and cp.access_bytes == 16


def test_shared_address_wraps_modulo_2_to_32():
    """nvcc strength-reduces a shared index into a 32-bit register below the array's base and adds the
    offset back in the address ([%r5+64]): the sum wraps modulo 2^32, as on the GPU."""
    body = """
    .reg .b32 %r<8>; .reg .b64 %rd<4>;
    .shared .align 4 .b32 tile[32];
    mov.u32 %r0, %tid.x; mov.u32 %r1, tile; shl.b32 %r2, %r0, 2; add.u32 %r3, %r1, %r2;
    st.shared.u32 [%r3], %r0;
    bar.sync 0;
    sub.u32 %r5, %r3, 64;                   // below the base when tid < 16: wraps to ~4 GB
    ld.shared.u32 %r6, [%r5+64];
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1; mul.wide.u32 %rd2, %r0, 4; add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
"""
    res = gpusim.run(kernel(body, ".param .u64 p_out"), grid=1, block=32, args=[np.zeros(32, np.uint32)])
    assert res.args[0].tolist() == list(range(32))


def test_isspacep_and_cache_hints():
    body = """
    .reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .pred %p<4>;
    .shared .b32 sv;
    ld.param.u64 %rd1, [p_out];
    mov.u64 %rd2, sv; cvta.shared.u64 %rd3, %rd2;
    isspacep.global %p1, %rd1; isspacep.shared %p2, %rd3; isspacep.global %p3, %rd3;
    prefetch.global.L2 [%rd1]; prefetchu.L1 [%rd1];
    selp.u32 %r1, 1, 0, %p1; selp.u32 %r2, 2, 0, %p2; selp.u32 %r3, 4, 0, %p3;
    or.b32 %r1, %r1, %r2; or.b32 %r1, %r1, %r3;
    cvta.to.global.u64 %rd4, %rd1; st.global.u32 [%rd4], %r1;
"""
    res = gpusim.run(kernel(body, ".param .u64 p_out"), grid=1, block=1, args=[np.zeros(1, np.uint32)])
    assert res.args[0][0] == 3


def test_a_float64_array_read_as_f32_warns():
    from gpusim.functional.host import DtypeMismatchWarning
    body = """
    .reg .b32 %r<2>; .reg .b64 %rd<4>; .reg .f32 %f<2>;
    ld.param.u64 %rd1, [p_x]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; mul.wide.u32 %rd2, %r0, 4; add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3]; add.f32 %f1, %f1, 0f3F800000; st.global.f32 [%rd3], %f1;
"""
    ptx = kernel(body, ".param .u64 p_x")
    with pytest.warns(DtypeMismatchWarning, match=r"argument 0 \(p_x\) is a float64 array, but kernel 'k' "
                                                  r"accesses it as \.f32.*pass a float32 array"):
        gpusim.run(ptx, grid=1, block=32, args=[np.zeros(32, np.float64)])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gpusim.run(ptx, grid=1, block=32, args=[np.zeros(32, np.float32)])       # the right dtype: silent


def test_vector_atomics_on_16_bit_floats_and_f32():
    body = """
    .reg .b16 %v<8>;
    mov.b16 %v0, 0x3C00; mov.b16 %v1, 0x4000;                       // f16 1.0, 2.0
    atom.global.v2.f16.add.noftz {%v2, %v3}, [%rd1], {%v0, %v1};
    mov.f32 %f0, 0f3F800000; mov.f32 %f1, 0f40400000;
    red.global.v2.f32.add [%rd1+8], {%f0, %f1};
    mov.b16 %v4, 0xC000;                                             // f16 -2.0
    atom.global.v2.f16.min.noftz {%v5, %v6}, [%rd1+4], {%v4, %v4};
"""
    buf = np.zeros(4, np.float32)
    buf[1:2].view(np.float16)[:] = [5.0, -7.0]
    buf, _ = _run_atom(body, buf, np.zeros(32, np.uint32))
    assert buf[0:1].view(np.float16).tolist() == [32.0, 64.0]
    assert buf[1:2].view(np.float16).tolist() == [-2.0, -7.0]
    assert buf[2:4].tolist() == [32.0, 96.0]


def test_st_async_and_red_async_complete_an_mbarrier_transaction():
    """A block is a cluster of one: st.async/red.async land in its own shared memory and count their bytes
    off the mbarrier, whose phase completes when the expected bytes arrived."""
    body = """
    .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
    .shared .align 8 .b64 bar;
    .shared .align 8 .b32 box[64];
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; mov.u32 %r1, bar; mov.u32 %r2, box;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 mbarrier.init.shared.b64 [%r1], 1;
    bar.sync 0;
    @%p1 mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r1], 192;     // 32 x 4 bytes + 32 x 2 x ... see below
    bar.sync 0;
    shl.b32 %r3, %r0, 2; add.u32 %r4, %r2, %r3; add.u32 %r5, %r0, 7;
    st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r4], %r5, [%r1];
    add.u32 %r6, %r2, 128;
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r6], 1, [%r1];
    mov.u64 %rd3, 0;
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p2, [%r1], 0;
    @!%p2 bra WAIT;
    ld.shared.u32 %r7, [%r4]; ld.shared.u32 %r8, [%r2+128]; add.u32 %r7, %r7, %r8;
    mul.wide.u32 %rd4, %r0, 4; add.s64 %rd5, %rd1, %rd4; st.global.u32 [%rd5], %r7;
"""
    body = body.replace("192;     // 32 x 4 bytes + 32 x 2 x ... see below", "256;     // 32 x 4 + 32 x 4 bytes")
    res = gpusim.run(kernel(body, ".param .u64 p_out"), grid=1, block=32, args=[np.zeros(32, np.uint32)])
    assert res.args[0].tolist() == [t + 7 + 32 for t in range(32)]


@pytest.mark.parametrize("vec, t, offset, ok", [(2, "f32", 8, True), (2, "f32", 4, False),
                                                (4, "f32", 16, True), (4, "f32", 8, False),
                                                (2, "f64", 16, True), (2, "f64", 8, False)])
def test_a_vector_access_is_aligned_to_its_whole_size(vec, t, offset, ok):
    # the H100 faults on ld.v2.f32 at a 4-byte aligned address: the alignment is the vector's size
    regs = ", ".join(f"%v{k}" for k in range(vec))
    width = 64 if t == "f64" else 32
    ptx = kernel(f"""
    .reg .b64 %rd<2>; .reg .b{width} %v<{vec}>;
    ld.param.u64 %rd1, [p_in];
    ld.global.v{vec}.{t} {{{regs}}}, [%rd1+{offset}];
    """, ".param .u64 p_in", name="vec")
    args = [np.zeros(16, np.float64) if t == "f64" else np.zeros(32, np.float32)]
    if ok:
        gpusim.run(ptx, grid=1, block=1, args=args)
    else:
        from gpusim.errors import IllegalAddressError
        with pytest.raises(IllegalAddressError, match=f"misaligned {vec * width // 8}-byte access"):
            gpusim.run(ptx, grid=1, block=1, args=args)


@pytest.mark.parametrize("op,t", [("add", "f32ftz"), ("add", "u32"), ("min", "s32"), ("exch", "u32"),
                                  ("cas", "u32"), ("inc", "u32")])
def test_atomic_rmw_fast_path_for_distinct_addresses_matches_lane_by_lane(op, t):
    """atomic_rmw applies distinct addresses all at once (inst_memory._distinct) and colliding ones in rounds:
    both give what the lanes applied one after another, in lane order, give."""
    from gpusim.functional.inst_memory import DT, _atomic_apply, _distinct, atomic_rmw
    rng = np.random.default_rng(11)
    dt = DT["f32" if t == "f32ftz" else t]
    for n, span in [(0, 4), (1, 4), (5, 64), (32, 1000), (32, 40), (32, 3), (300, 100_000)]:
        idx = rng.integers(0, span, n).astype(np.int64)
        assert _distinct(idx) == (np.unique(idx).size == n)
        init = rng.integers(0, 50, span).astype(dt)
        if t == "f32ftz":
            init[:3] = np.array([1e-40, -0.0, 0.0], dtype=np.float32)   # subnormal and signed zeros
        val = rng.integers(0, 50, n).astype(dt)
        cmpv = init[idx] if op == "cas" else None
        view, ref = init.copy(), init.copy()
        old = atomic_rmw(view, idx, op, t, val, cmpv)
        want = np.empty(n, dtype=dt)
        for lane in range(n):
            i = idx[lane]
            want[lane] = ref[i]
            ref[i] = _atomic_apply(op, t, ref[i:i + 1], val[lane:lane + 1],
                                   None if cmpv is None else cmpv[lane:lane + 1])[0]
        assert old.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()
        assert view.view(np.uint8).tobytes() == ref.view(np.uint8).tobytes()


def test_flush_subnormals_keeps_signs_and_returns_normal_values_unchanged():
    from gpusim.functional import floatops as fo
    x = np.array([1e-40, -1e-40, 0.0, -0.0, 1.0, np.nan, -np.inf, 1.2e-38], dtype=np.float32)
    got = fo.flush_subnormals(x)
    want = np.array([0.0, -0.0, 0.0, -0.0, 1.0, np.nan, -np.inf, 1.2e-38], dtype=np.float32)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    normal = np.array([1.0, -2.0, 0.0], dtype=np.float32)
    assert fo.flush_subnormals(normal) is normal
    assert np.signbit(fo.flush_subnormals(np.float32(-1e-40))) and fo.flush_subnormals(np.float64(3.0)) == 3.0
