"""Merged vector accesses (gpusim.timing.vector_merge): neighbouring ``ld/st.shared.f32`` at constant offsets
from one base become the ``LDS.64``/``LDS.128`` (``STS``) ptxas makes of them, when aligned and nothing in
between forbids it; each test is a small PTX kernel with the groups it must (or must not) give."""
from __future__ import annotations

import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.timing import simulate
from gpusim.timing.vector_merge import find_merge_groups, merge_vector_accesses

HEAD = """
.version 8.0
.target sm_90
.address_size 64
.shared .align 16 .b8 s[4096];
.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<16>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 5;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
"""
TAIL = """
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f9;
  ret;
}
"""


def trace_of(body: str, threads: int = 64):
    out = np.zeros(threads, dtype=np.float32)
    res = gpusim.run(HEAD + body + TAIL, "k", grid=1, block=threads, args=[out], mode="emulate", record_trace=True)
    return res.trace


def groups(body: str):
    t = trace_of(body)
    return [(tuple(t.instructions[p].ptx_line for p in g.pcs), g.width_bytes) for g in find_merge_groups(t)], t


def loads(offsets, reg="%r4", first=1) -> str:
    return "".join(f"  ld.shared.f32 %f{first + i}, [{reg}+{o}];\n" for i, o in enumerate(offsets))


SUM = "  add.f32 %f9, %f1, %f2;\n  add.f32 %f9, %f9, %f3;\n  add.f32 %f9, %f9, %f4;\n"


def test_four_aligned_neighbours_become_one_128_bit_load():
    g, _ = groups(loads([0, 4, 8, 12]) + SUM)
    assert [w for _, w in g] == [16] and len(g[0][0]) == 4


def test_interleaved_loads_of_another_base_do_not_stop_a_merge():
    """matmul_tiled's shape: Ms[ty][k..k+3] merge around the Ns[k][tx] loads between them."""
    body = ("  add.u32 %r5, %r3, 2048;\n"
            "  ld.shared.f32 %f1, [%r4];\n  ld.shared.f32 %f5, [%r5];\n"
            "  ld.shared.f32 %f2, [%r4+4];\n  ld.shared.f32 %f6, [%r5+128];\n"
            "  ld.shared.f32 %f3, [%r4+8];\n  ld.shared.f32 %f4, [%r4+12];\n" + SUM)
    g, _ = groups(body)
    assert [w for _, w in g] == [16]


def test_an_8_byte_aligned_start_gives_pairs():
    g, _ = groups(loads([8, 12, 16, 20]) + SUM)          # base+8 is 8- but not 16-byte aligned
    assert [w for _, w in g] == [8, 8]


def test_a_4_byte_aligned_start_leaves_the_first_alone():
    g, _ = groups(loads([4, 8, 12, 16]) + SUM)           # 4 alone, then 8..12 a pair, 16 alone
    assert [w for _, w in g] == [8]


def test_a_shared_store_between_keeps_loads_apart():
    body = loads([0, 4]) + "  st.shared.f32 [%r4+64], %f1;\n" + loads([8, 12], first=3) + SUM
    g, _ = groups(body)
    assert [w for _, w in g] == [8, 8]                   # each side of the store merges on its own


def test_a_rewritten_address_register_stops_the_merge():
    body = loads([0, 4]) + "  add.u32 %r4, %r4, 0;\n" + loads([8, 12], first=3) + SUM
    g, _ = groups(body)
    assert [w for _, w in g] == [8, 8]


def test_different_lane_masks_do_not_merge():
    body = ("  setp.lt.u32 %p1, %r1, 16;\n  ld.shared.f32 %f1, [%r4];\n  @%p1 ld.shared.f32 %f2, [%r4+4];\n"
            "  add.f32 %f9, %f1, %f2;\n")
    g, _ = groups(body)
    assert g == []


def test_stores_merge_like_loads():
    body = ("  mov.f32 %f9, 0f3F800000;\n" +
            "".join(f"  st.shared.f32 [%r4+{o}], %f9;\n" for o in (0, 4, 8, 12)))
    g, _ = groups(body)
    assert [w for _, w in g] == [16]


def test_global_loads_stay_scalar():
    body = ("  ld.param.u64 %rd5, [out];\n  cvta.to.global.u64 %rd6, %rd5;\n"
            "  ld.global.f32 %f1, [%rd6];\n  ld.global.f32 %f2, [%rd6+4];\n  add.f32 %f9, %f1, %f2;\n")
    g, _ = groups(body)
    assert g == []


def test_merged_trace_issues_one_instruction_with_all_registers_and_the_lowest_address():
    t = trace_of(loads([12, 8, 4, 0]) + SUM)             # program order is not address order
    gs = find_merge_groups(t)
    m = merge_vector_accesses(t, gs)
    assert t.n_instructions - m.n_instructions == 3 * t.n_warps
    lead = m.instructions[gs[0].pcs[0]]
    assert lead.opcode == "ld.shared.v4.f32" and lead.access_bytes == 16
    assert len(lead.dst_regs) == 4
    rows = np.flatnonzero(m.pc == gs[0].pcs[0])
    assert (m.addresses[m.mem_slot[rows]][:, 0] % 16 == 0).all()
    assert m.meta["origin_pc"][gs[0].pcs[0]] == gs[0].pcs[0]
    assert m.addresses.shape[0] == int((m.mem_slot >= 0).sum())


def test_simulation_counts_one_instruction_and_half_the_wavefronts_of_four_broadcasts():
    body = ("  mov.u32 %r4, s;\n" + loads([0, 4, 8, 12]) + SUM)          # every lane reads the same 16 B
    t = trace_of(body)
    on = simulate(t, load_gpu("h100"), memory="fixed")
    off = simulate(t, load_gpu("h100", overrides={"merge_vector_accesses": False}), memory="fixed")
    assert off.counters["smsp__inst_executed.sum"] - on.counters["smsp__inst_executed.sum"] == 3 * t.n_warps
    assert off.counters["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 4 * t.n_warps
    assert on.counters["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 2 * t.n_warps
    assert set(on.stalls_by_pc) <= set(range(len(t.instructions)))


@pytest.mark.parametrize("size, merged", [("small", 4), ("small_tile32", 8)])
def test_matmul_tiled_gets_the_lds128_of_ptxas(size, merged):
    """ptxas 13.0 -arch=sm_90 makes LDS.128 of Ms[ty][k..k+3]: 4 per 16-step tile, 8 per 32-step tile."""
    res = gpusim.run("matmul_tiled", size=size, mode="emulate", record_trace=True)
    gs = find_merge_groups(res.trace)
    assert len(gs) == merged and all(g.width_bytes == 16 and g.vector == 4 for g in gs)
