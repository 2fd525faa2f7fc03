"""Control flow and errors: divergence and reconvergence (passes counted with pc_warp_counts), loops with
per-thread trip counts, bar.sync, and the emulator's errors (illegal address, barrier deadlock, budget,
unsupported instructions)."""
import re

import numpy as np
import pytest
from snippet import kernel, run_snippet, snippet_kernel

import gpusim
from gpusim.errors import BarrierDeadlockError, BudgetExceededError, IllegalAddressError, UnsupportedError
from isa.errors import PtxError
from isa.parser import parse_ptx

IF_ELSE = """
    setp.gt.u32 %p, %a, 2;          // if (tid > 2)
    @!%p bra ELSE;
    mov.u32 %d, 100;
    bra.uni DONE;
ELSE:
    mov.u32 %d, 200;                // the taken path falls through to the reconvergence point
DONE:
    add.u32 %d, %d, %a;
"""


def _pc_of(body, ins_in, outs, text):
    k = parse_ptx(snippet_kernel(body, ins_in, outs)).kernel()
    return [i.pc for i in k.instructions if text in f"{i.opcode} {i.operands}"]


def test_if_else_both_paths_then_reconverge_once():
    o = run_snippet(IF_ELSE, {"a": (list(range(64)), "u32")}, {"d": "u32", "p": "pred"}, threads=64)
    assert [int(v) for v in o["d"]] == [200 + k if k <= 2 else 100 + k for k in range(64)]
    st = o.result.stats
    k = parse_ptx(snippet_kernel(IF_ELSE, {"a": "u32"}, {"d": "u32", "p": "pred"})).kernel()
    pcs = {(i.opcode, str(i.operands[1]) if len(i.operands) > 1 else ""): i.pc for i in k.instructions}
    movs = [i.pc for i in k.instructions if i.opcode == "mov.u32" and i.operands[0].name == "%d"]
    add = [i.pc for i in k.instructions if i.opcode == "add.u32"][0]
    assert k.instructions[movs[0] - 1].reconverge == add
    # warp 0 diverges (lanes 0-2 vs 3-31): both paths run once; warp 1 takes only the then-path
    assert st.pc_warp_counts[movs[0]] == 2 and st.pc_warp_counts[movs[1]] == 1
    assert st.pc_warp_counts[add] == 2            # each warp passes the join point once: reconverged
    assert st.divergent_branches == 1
    assert pcs


def test_loop_with_per_thread_trip_counts():
    body = """
    .reg .b32 %k;
    mov.u32 %k, 0;
    mov.u32 %d, 0;
LOOP:
    add.u32 %d, %d, %k;
    add.u32 %k, %k, 1;
    setp.lt.u32 %p, %k, %a;
    @%p bra LOOP;
    """
    trips = [1 + (k % 7) for k in range(32)] + [3] * 32
    o = run_snippet(body, {"a": (trips, "u32")}, {"d": "u32", "p": "pred"}, threads=64)
    assert [int(v) for v in o["d"]] == [t * (t - 1) // 2 for t in trips]
    k = parse_ptx(snippet_kernel(body, {"a": "u32"}, {"d": "u32", "p": "pred"})).kernel()
    first = k.labels["LOOP"]
    # the loop body runs max(trip) times per warp: 7 for warp 0, 3 for warp 1
    assert o.result.stats.pc_warp_counts[first] == 7 + 3
    assert o.result.stats.pc_warp_counts[first + 4] == 2     # after the loop: once per warp


def test_nested_divergence_and_early_exit():
    body = """
    .reg .pred %q;
    .reg .b32 %m;
    mov.u32 %d, 1;
    setp.lt.u32 %p, %a, 16;
    @%p bra LOW;
    and.b32 %m, %a, 1;
    setp.eq.u32 %q, %m, 0;
    @%q bra EVEN_HIGH;
    mov.u32 %d, 3;
    bra.uni JOIN;
EVEN_HIGH:
    mov.u32 %d, 2;
    bra.uni JOIN;
LOW:
    setp.eq.u32 %q, %a, 5;
    @%q bra JOIN;
    mul.lo.u32 %d, %a, 10;
JOIN:
    add.u32 %d, %d, 1000;
    """
    o = run_snippet(body, {"a": (list(range(32)), "u32")}, {"d": "u32", "p": "pred"})
    want = [1001 if k == 5 else 1000 + 10 * k if k < 16 else 1002 if k % 2 == 0 else 1003 for k in range(32)]
    assert [int(v) for v in o["d"]] == want


def test_guarded_ret_lanes_finish_early():
    ptx = kernel("""
    .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p;
    ld.param.u64 %rd1, [p_out]; mov.u32 %r0, %tid.x; mul.wide.u32 %rd0, %r0, 4; add.s64 %rd2, %rd1, %rd0;
    setp.lt.u32 %p, %r0, 10;
    @%p ret;
    st.global.u32 [%rd2], %r0;
    """, ".param .u64 p_out")
    res = gpusim.run(ptx, grid=1, block=32, args=[np.zeros(32, np.uint32)])
    assert list(res.args[0]) == [0] * 10 + list(range(10, 32))


def test_bar_sync_orders_shared_memory_between_warps():
    ptx = kernel("""
    .reg .b32 %r<6>; .reg .b64 %rd<6>;
    .shared .align 4 .b32 buf[128];
    ld.param.u64 %rd1, [p_out]; mov.u32 %r0, %tid.x; mul.wide.u32 %rd0, %r0, 4;
    mov.u64 %rd2, buf; add.s64 %rd3, %rd2, %rd0;
    mul.lo.u32 %r1, %r0, 3; st.shared.u32 [%rd3], %r1;
    bar.sync 0;
    sub.u32 %r2, 127, %r0; mul.wide.u32 %rd4, %r2, 4; add.s64 %rd4, %rd2, %rd4;
    ld.shared.u32 %r3, [%rd4];                       // written by another warp before the barrier
    add.s64 %rd5, %rd1, %rd0; st.global.u32 [%rd5], %r3;
    """, ".param .u64 p_out")
    res = gpusim.run(ptx, grid=2, block=128, args=[np.zeros(128, np.uint32)])
    assert list(res.args[0]) == [3 * (127 - k) for k in range(128)]
    assert res.stats.barriers == 2


# ---- errors ---------------------------------------------------------------------------------------------
OOB = kernel("""
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p_out]; mov.u32 %r0, %tid.x; mov.u32 %r1, %tid.y; mov.u32 %r2, %ntid.x;
    mad.lo.u32 %r0, %r1, %r2, %r0; mul.wide.u32 %rd0, %r0, 4; add.s64 %rd2, %rd1, %rd0;
    st.global.u32 [%rd2], %r0;
    """, ".param .u64 p_out", name="oob_kernel")


def test_out_of_bounds_global_access_names_everything():
    with pytest.raises(IllegalAddressError) as ei:
        gpusim.run(OOB, grid=2, block=(8, 2), args=[np.zeros(12, np.uint32)])
    msg = str(ei.value)
    line = OOB.splitlines().index("    st.global.u32 [%rd2], %r0;") + 1
    assert "oob_kernel" in msg
    assert "block (0, 0, 0)" in msg and "thread (4, 1, 0)" in msg        # the first lane past 12 elements
    assert f":{line}" in msg
    assert re.search(r"address 0x[0-9a-f]+", msg)
    assert "p_out" in msg and "past the end" in msg                      # the nearest allocation


def test_barrier_in_divergent_code_is_a_deadlock_error():
    ptx = kernel("""
    .reg .b32 %r<2>; .reg .pred %p;
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p, %r0, 40;
    @%p bra SKIP;
    bar.sync 0;
SKIP:
    ret;
    """, "", name="bad_sync")
    with pytest.raises(BarrierDeadlockError) as ei:
        gpusim.run(ptx, grid=1, block=64, args=[])
    msg = str(ei.value)
    bar_pc = [i.pc for i in parse_ptx(ptx).kernel().instructions if i.base == "bar"][0]
    assert "bad_sync" in msg and "block (0, 0, 0)" in msg
    assert "warp 1" in msg and f"pc {bar_pc}" in msg and "lanes 8-31" in msg


def test_infinite_loop_stops_at_the_budget():
    ptx = kernel("""
    .reg .b32 %r<2>;
    mov.u32 %r0, 0;
LOOP:
    add.u32 %r0, %r0, 1;
    bra.uni LOOP;
    """, "", name="spin")
    with pytest.raises(BudgetExceededError, match="spin.*budget of 10,000"):
        gpusim.run(ptx, grid=1, block=32, args=[], budget=10_000)


def test_unsupported_instructions_fail_at_launch_with_their_line():
    ptx = kernel("    .reg .b32 %r<2>;\n    mov.u32 %r0, 1;\n    frob.b32 %r1, %r0, %r0, %r0;", "", name="k")
    with pytest.raises(PtxError) as ei:
        gpusim.run(ptx, grid=1, block=32, args=[])
    assert (ei.value.line, ei.value.col) == (8, 5) and "unknown opcode 'frob.b32'" in str(ei.value)
    # an instruction of the PTX ISA that gpusim leaves out says why
    ptx = kernel("    wgmma.fence.sync.aligned;", "", name="k")
    with pytest.raises(PtxError, match="'wgmma.fence.sync.aligned' is not supported: tensor-core"):
        gpusim.run(ptx, grid=1, block=32, args=[])
    # known to the parser but not modelled: rejected before the kernel runs, with its line
    ptx = kernel("    .reg .f64 %fd<3>;\n    mov.f64 %fd1, 0d3FF0000000000000;\n    add.rz.f64 %fd2, %fd1, %fd1;",
                 "", name="k")
    with pytest.raises(UnsupportedError, match=r":8:\d+: add.rz.f64"):
        gpusim.run(ptx, grid=1, block=32, args=[])
