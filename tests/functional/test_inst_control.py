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
    membar.cta;                     // keeps ptxas's if-conversion (isa.ifconvert) from predicating the moves
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


def _spin_kernel() -> str:
    """A kernel that never ends: one counter incremented in an endless loop."""
    return kernel("""
    .reg .b32 %r<2>;
    mov.u32 %r0, 0;
LOOP:
    add.u32 %r0, %r0, 1;
    bra.uni LOOP;
    """, "", name="spin")


def test_infinite_loop_stops_at_the_budget():
    ptx = _spin_kernel()
    with pytest.raises(BudgetExceededError, match="spin.*budget of 10,000"):
        gpusim.run(ptx, grid=1, block=32, args=[], budget=10_000)


def test_an_endless_loop_in_timing_mode_stops_at_the_trace_memory_limit_before_the_budget():
    # the trace streams to the timing model per batch of blocks (the first recording batch is one block), and
    # a batch that never finishes only grows: the limit on what one batch may record stops it (here 4 MiB)
    ptx = _spin_kernel()
    with pytest.raises(BudgetExceededError, match=r"spin': the trace of block \(0, 0, 0\) reached "
                                                  r"0\.00 GiB .* a loop that does not end\?"):
        gpusim.run(ptx, grid=32, block=256, args=[], mode="timing", trace_memory_limit=4 << 20)


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


# ---- device functions: call/ret, divergence through calls, recursion, function pointers, builtins --------
CALLS = str(__import__("pathlib").Path(__file__).parents[1] / "fixtures" / "calls.ptx")


def _early(v):
    return v - 10 if v > 10 else sum(range(v))


def test_calls_on_divergent_paths_reconverge_before_the_ballot_and_barrier():
    """Odd lanes call twice(), even lanes negate(); every lane calls early() (two returns: lanes return on
    different paths); the ballot after sees all 32 lanes, the barrier releases, fact() loops."""
    import math
    a = np.array([k - 5 for k in range(32)], np.int32)
    res = gpusim.run(CALLS, kernel="divergent_calls", grid=1, block=32,
                     args=[a, np.zeros(32, np.int32), np.zeros(32, np.uint32)])
    want = [(2 * v if i & 1 else -v) + _early(int(v)) + math.factorial(i % 8) for i, v in enumerate(a)]
    assert res.args[1].tolist() == want
    assert set(res.args[2].tolist()) == {0xFFFFFFFF}
    st = res.stats
    assert st.divergent_branches > 0 and st.barriers == 1


def _deep(n, stop):
    return 0 if n >= stop else _deep(n + 1, stop) * 3 + (n & 1)


def test_recursion_with_a_different_depth_per_lane():
    stop = np.array([i + (i % 7) * 3 for i in range(32)], np.int32)     # 0 to 18 nested calls
    res = gpusim.run(CALLS, kernel="recurse", grid=1, block=32, args=[stop, np.zeros(32, np.int32)])
    assert res.args[1].tolist() == [_deep(i, int(s)) for i, s in enumerate(stop)]


def test_recursion_past_the_depth_limit_is_a_clear_error():
    from gpusim.functional.calls import MAX_CALL_DEPTH, CallDepthError
    stop = np.arange(32, dtype=np.int32)
    stop[5] = 5000
    with pytest.raises(CallDepthError, match=rf"call depth above {MAX_CALL_DEPTH}.*recursion") as ei:
        gpusim.run(CALLS, kernel="recurse", grid=1, block=32, args=[stop, np.zeros(32, np.int32)])
    assert str(ei.value).startswith("calls.cu:7:")          # the CUDA line of the recursive call


def test_indirect_calls_through_function_pointers_diverge_by_target():
    a = np.arange(32, dtype=np.int32) * 7 - 50
    res = gpusim.run(CALLS, kernel="pointers", grid=1, block=32, args=[a, np.zeros(32, np.int32)])
    assert res.args[1].tolist() == [2 * v if i % 3 == 0 else -v for i, v in enumerate(a.tolist())]


def test_printf_prints_each_lane_in_order(capsys):
    gpusim.run(CALLS, kernel="say", grid=1, block=32, args=[np.zeros(32, np.int32)])
    assert capsys.readouterr().out == "lane 0:  0.00 ok ff\nlane 1:  1.50 ok 100\n"


def test_assert_failure_names_the_thread_and_the_cuda_line():
    from gpusim.functional.calls import DeviceTrapError
    a = np.arange(32, dtype=np.int32)
    gpusim.run(CALLS, kernel="check", grid=1, block=32, args=[a])               # holds: runs
    a[7] = -1
    with pytest.raises(DeviceTrapError, match=r"Assertion `a\[threadIdx.x\] >= 0` failed; block \(0, 0, 0\), "
                                              r"thread \(7, 0, 0\)"):
        gpusim.run(CALLS, kernel="check", grid=1, block=32, args=[a])


def test_the_linked_program_lays_functions_after_the_kernel():
    from isa.link import link
    m = parse_ptx(open(CALLS).read(), "calls.ptx")
    prog = link(m, m.kernel("divergent_calls"))
    names = set(prog.functions)
    assert {"_Z5twicei", "_Z6negatei", "_Z5earlyi", "_Z4facti"} <= names and "_Z4deepii" not in names
    early = prog.functions["_Z5earlyi"]
    assert prog.instructions[early.return_pc].base == "ret" and not early.recursive
    deep = link(m, m.kernel("recurse")).functions["_Z4deepii"]
    assert deep.recursive


BRX = """
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; rem.u32 %r1, %r0, 3;
    ts: .branchtargets L0, L1, L2;
    brx.idx %r1, ts;
L0: mov.u32 %r2, 100; bra.uni DONE;
L1: mov.u32 %r2, 200; bra.uni DONE;
L2: mov.u32 %r2, 300;
DONE:
    activemask.b32 %r3; add.u32 %r2, %r2, %r3;
    mul.wide.u32 %rd2, %r0, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r2;
"""


def test_brx_idx_three_way_divergence_reconverges():
    res = gpusim.run(kernel(BRX, ".param .u64 p_out"), grid=1, block=32, args=[np.zeros(32, np.uint32)])
    assert res.args[0].tolist() == [(100 * (1 + i % 3) + 0xFFFFFFFF) & 0xFFFFFFFF for i in range(32)]


def test_trap_aborts_with_the_thread():
    from gpusim.functional.calls import DeviceTrapError
    body = ".reg .pred %p; .reg .b32 %r; mov.u32 %r, %tid.x; setp.eq.u32 %p, %r, 3; @%p trap;"
    with pytest.raises(DeviceTrapError, match=r"thread \(3, 0, 0\) executed trap"):
        gpusim.run(kernel(body, ""), grid=1, block=32, args=[])


BROKEN = HEADER_BROKEN = """.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) uses_tensor_cores(.param .b32 x)
{
    .reg .b32 %a;
    ld.param.b32 %a, [x];
    wgmma.fence.sync.aligned;
    st.param.b32 [r], %a;
    ret;
}
.visible .entry fine(.param .u64 out)
{
    .reg .b64 %rd<2>; .reg .b32 %r;
    ld.param.u64 %rd0, [out]; cvta.to.global.u64 %rd1, %rd0; mov.u32 %r, 42; st.global.u32 [%rd1], %r;
}
.visible .entry needs_tensor_cores(.param .u64 out)
{
    .reg .b32 %r<2>;
    { .param .b32 p0; st.param.b32 [p0], %r0;
      .param .b32 r0;
      call.uni (r0), uses_tensor_cores, (p0);
      ld.param.b32 %r1, [r0]; }
}
"""


def test_a_module_with_an_unsupported_function_still_runs_its_other_kernels():
    res = gpusim.run(BROKEN, kernel="fine", grid=1, block=1, args=[np.zeros(1, np.uint32)])
    assert res.args[0][0] == 42
    with pytest.raises(PtxError, match=r":8:\d+: 'wgmma.fence.sync.aligned' is not supported: tensor-core"):
        gpusim.run(BROKEN, kernel="needs_tensor_cores", grid=1, block=1, args=[np.zeros(1, np.uint32)])
    with pytest.raises(PtxError, match="wgmma"):       # the parser's own strict mode still fails at once
        parse_ptx(BROKEN)


BAR_RED = """
    .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p_a]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mad.lo.u32 %r3, %r1, %r2, %r0;
    mul.wide.u32 %rd2, %r3, 4; add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r4, [%rd3];
    setp.gt.s32 %p1, %r4, 10;
    bar.red.popc.u32 %r5, 0, %p1;            // __syncthreads_count(v > 10)
    setp.lt.s32 %p2, %r4, 0;
    bar.red.and.pred %p3, 0, !%p2;            // __syncthreads_and(v >= 0)
    selp.u32 %r6, 10, 0, %p3;
    add.u32 %r5, %r5, %r6;
    st.global.u32 [%rd3], %r5;
"""


def test_bar_red_counts_and_ands_over_the_block():
    a = (np.arange(256) % 40 - 3).astype(np.int32)
    a[200:] = np.abs(a[200:])                          # block 1 ... still has negatives before 200
    res = gpusim.run(kernel(BAR_RED, ".param .u64 p_a"), grid=2, block=128, args=[a.copy()])
    for b in range(2):
        blk = a[128 * b:128 * (b + 1)]
        assert set(res.args[0][128 * b:128 * (b + 1)].view(np.int32).tolist()) == \
            {int((blk > 10).sum()) + 10 * bool((blk >= 0).all())}


def test_bar_red_released_by_the_exit_of_the_other_threads():
    """Threads that exit before the barrier do not count; the last exit releases the others."""
    body = BAR_RED.replace("    ld.global.u32 %r4, [%rd3];", "    ld.global.u32 %r4, [%rd3];\n    setp.ge.u32 %p0, %r0, 96;\n"
                                                          "    @%p0 exit;")
    a = np.full(128, 20, np.int32)
    res = gpusim.run(kernel(body, ".param .u64 p_a"), grid=1, block=128, args=[a.copy()])
    assert set(res.args[0][:96].tolist()) == {96 + 10} and set(res.args[0][96:].tolist()) == {20}


MBAR = """
    .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .b32 box[128];
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; mov.u32 %r1, bar;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 mbarrier.init.shared.b64 [%r1], {count};
    bar.sync 0;
    // phase 0: every thread writes its box, arrives, waits; then reads its neighbour's
    mov.u32 %r2, box; shl.b32 %r3, %r0, 2; add.u32 %r4, %r2, %r3; add.u32 %r5, %r0, 1000;
    st.shared.u32 [%r4], %r5;
    mbarrier.arrive.shared.b64 %rd2, [%r1];
WAIT:
    mbarrier.try_wait.shared.b64 %p2, [%r1], %rd2;
    @!%p2 bra WAIT;
    xor.b32 %r6, %r0, 127; shl.b32 %r6, %r6, 2; add.u32 %r6, %r2, %r6; ld.shared.u32 %r7, [%r6];
    // phase 1 through .parity: the lowest warp arrives last (the others wait on parity 1)
    mbarrier.pending_count.b64 %r8, %rd2;
    mbarrier.arrive.shared.b64 %rd3, [%r1];
WAIT1:
    mbarrier.test_wait.parity.shared.b64 %p3, [%r1], 1;
    @!%p3 bra WAIT1;
    mul.wide.u32 %rd4, %r0, 8; add.s64 %rd5, %rd1, %rd4; st.global.v2.u32 [%rd5], {%r7, %r8};
"""


def test_mbarrier_arrive_and_wait_across_warps():
    res = gpusim.run(kernel(MBAR.replace("{count}", "128"), ".param .u64 p_out"), grid=1, block=128,
                     args=[np.zeros(256, np.uint32)])
    out = res.args[0].reshape(128, 2)
    assert out[:, 0].tolist() == [1000 + (t ^ 127) for t in range(128)]   # every write was seen after the wait
    # the state an arrive returns is the object before it; a warp's lanes arrive together (as on the H100):
    # the 4 warps saw 128, 96, 64 and 32 pending arrivals, 32 lanes each
    assert sorted(out[:, 1].tolist()) == sorted([32, 64, 96, 128] * 32)
    assert all(len(set(out[32 * w:32 * w + 32, 1].tolist())) == 1 for w in range(4))


def test_mbarrier_arrive_nocomplete_goes_lane_by_lane():
    """.noComplete arrivals are not combined (on the H100 each lane reads its own pending count: case
    mbarrier_nocomplete of tests/hw/test_isa_device.py); here each of 64 lanes arrives twice at once."""
    src = """
    .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
    .shared .align 8 .b64 obj;
    ld.param.u64 %rd1, [p_out]; cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r0, %tid.x; mov.u32 %r1, obj; setp.eq.u32 %p1, %r0, 63;
    @%p1 mbarrier.init.shared::cta.b64 [%r1], 130;
    bar.sync 0;
    mbarrier.arrive.noComplete.shared::cta.b64 %rd2, [%r1], 2;
    mbarrier.pending_count.b64 %r2, %rd2;
    bar.sync 0;
    @%p1 mbarrier.arrive.release.cta.shared::cta.b64 %rd3, [%r1], 2;
POLL:
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r1], 0;
    @!%p2 bra POLL;
    mul.wide.u32 %rd4, %r0, 4; add.s64 %rd5, %rd1, %rd4; st.global.u32 [%rd5], %r2;
"""
    res = gpusim.run(kernel(src, ".param .u64 p_out"), grid=1, block=64, args=[np.zeros(64, np.uint32)])
    assert sorted(res.args[0].tolist()) == list(range(4, 131, 2))


def test_mbarrier_wait_that_cannot_complete_is_a_deadlock():
    with pytest.raises(BarrierDeadlockError, match=r"mbarrier deadlock.*too few arrivals"):
        gpusim.run(kernel(MBAR.replace("{count}", "129"), ".param .u64 p_out"), grid=1, block=128,
                   args=[np.zeros(256, np.uint32)])


def test_barriers_shuffles_and_shared_memory_inside_device_functions():
    """__syncthreads in a called function (a block reduction over a __shared__ array nvcc moved into the
    function) and __shfl_down_sync in one called from both sides of a branch."""
    a = np.arange(256, dtype=np.float32)
    res = gpusim.run(CALLS, kernel="in_functions", grid=1, block=256,
                     args=[a, np.zeros(256, np.float32), np.zeros(256, np.int32)])
    assert set(res.args[1].tolist()) == {float(a.sum())}
    want = []
    for wp in range(8):
        v = [(i if i & 32 else 2 * i) for i in range(32 * wp, 32 * wp + 32)]
        for o in (16, 8, 4, 2, 1):           # shfl.down: a lane past the end reads its own value
            v = [v[lane] + (v[lane + o] if lane + o < 32 else v[lane]) for lane in range(32)]
        want += v
    assert res.args[2].tolist() == want
