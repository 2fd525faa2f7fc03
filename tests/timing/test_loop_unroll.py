"""ptxas's unrolling of a short counted loop (gpu.loop_unroll_factor, :mod:`gpusim.timing.loop_unroll`): which
loops are unrolled, how a run of trips is issued through renamed copies of the body, and what it buys: the
loads of four trips in flight at once, where program order keeps one trip's."""
from __future__ import annotations

import dataclasses

import numpy as np

from gpusim.config import load_gpu
from gpusim.timing import simulate
from gpusim.timing.decode import MAX_LIVE_LOADS, hoist_permutation
from gpusim.timing.loop_unroll import find_unrolled_loops, unroll_loops
from gpusim.timing.synthetic import ins, make_trace


def loop_body(loads=4):
    """NVVM's unrolled main loop of ``sum += a[i]^2``: ``loads`` loads from r0 (+k), their fmas into r9, the
    address and the counter updated, the back branch to PC 0.  Then an exit."""
    prog = [ins("ld.global", dst=[10 + k], src=[0]) for k in range(loads)]
    prog += [ins("fma", dst=[9], src=[10 + k, 10 + k, 9]) for k in range(loads)]
    prog += [ins("alu", dst=[0], src=[0]), ins("alu", dst=[1], src=[1]), ins("bra", src=[1])]
    return prog + [ins("exit")]


def looping_trace(prog, trips, warps=1):
    body = list(range(len(prog) - 1))
    trace = make_trace(prog, warps_per_block=warps, warp_pcs=[body * trips + [len(prog) - 1]] * warps)
    back = len(prog) - 2
    trace.instructions[back] = dataclasses.replace(trace.instructions[back], branch_target=0)
    return trace


def test_a_one_block_loop_of_four_loads_is_unrolled_by_the_factor():
    trace = looping_trace(loop_body(4), trips=8)
    (loop,) = find_unrolled_loops(trace, 4)
    assert (loop.first, loop.last, loop.factor) == (0, 10, 4)
    assert find_unrolled_loops(trace, 1) == []


def test_nounroll_a_fence_or_a_remainder_loop_keeps_it_rolled():
    trace = looping_trace(loop_body(4), trips=8)
    pragma = dataclasses.replace(trace, instructions=[dataclasses.replace(trace.instructions[0], no_unroll=True),
                                                      *trace.instructions[1:]])
    assert find_unrolled_loops(pragma, 4) == []
    fenced = loop_body(4)
    fenced.insert(5, ins("bar"))
    assert find_unrolled_loops(looping_trace(fenced, trips=8), 4) == []
    # NVVM's remainder loop: one copy of the source body, one load
    assert find_unrolled_loops(looping_trace(loop_body(1), trips=8), 4) == []


def test_an_unrolled_trace_is_not_unrolled_again():
    # its copies form a one-block loop with 16 loads: passing it through the pass twice must not unroll them
    trace = looping_trace(loop_body(4), trips=8)
    out = unroll_loops(trace, find_unrolled_loops(trace, 4))
    assert find_unrolled_loops(out, 4) == []


def test_only_a_backward_bra_closes_a_loop():
    trace = looping_trace(loop_body(4), trips=8)
    # the same back edge made by a call to PC 0 (a short recursive function) is no loop
    trace.instructions[-2] = dataclasses.replace(trace.instructions[-2], opcode="call.uni")
    assert find_unrolled_loops(trace, 4) == []


def test_trips_run_through_renamed_copies_and_the_last_copy_writes_the_original_names():
    prog = loop_body(4)
    trace = looping_trace(prog, trips=6)          # 6 trips: the first 2 as they are, then one run of 4
    out = unroll_loops(trace, find_unrolled_loops(trace, 4))
    n, length = len(prog), 11
    assert len(out.instructions) == n + 4 * length
    pcs = np.asarray(out.pc)
    np.testing.assert_array_equal(pcs[:2 * length], np.tile(np.arange(length), 2))
    np.testing.assert_array_equal(pcs[2 * length:6 * length], n + np.arange(4 * length))
    assert pcs[-1] == n - 1
    # every copy maps back to the body's PC; rows, slots and masks are untouched
    origin = out.meta["origin_pc"]
    assert [origin[p] for p in range(n, n + 4 * length)] == list(range(length)) * 4
    np.testing.assert_array_equal(out.mem_slot, trace.mem_slot)
    copies = [out.instructions[n + c * length:n + (c + 1) * length] for c in range(4)]
    loads = [tuple(i.dst_regs[0] for i in copy[:4]) for copy in copies]
    assert loads[3] == (10, 11, 12, 13)                        # the last copy: original names
    assert len({r for ld in loads for r in ld}) == 16          # no two copies share a load's register
    # copy 1 reads the address copy 0 wrote; copy 0 reads the original; the copies' branches but the last
    # one no longer branch
    assert copies[0][0].src_regs == (0,)
    assert copies[1][0].src_regs == copies[0][8].dst_regs
    assert [c[10].is_branch for c in copies] == [False, False, False, True]


def test_unrolled_the_loads_of_four_trips_are_in_flight_together():
    """Every load misses to DRAM (distinct lines): rolled, a trip costs a DRAM round trip; unrolled by 4, a
    run of four trips costs about one.  Per-trip costs from 16 and 32 trips (the launch cancels)."""
    gpu = load_gpu("h100").replace(**{"sm.count": 1})

    def per_trip(g):
        t16, t32 = (simulate(looping_trace(loop_body(4), trips=t), g).cycles for t in (16, 32))
        return (t32 - t16) / 16
    rolled = per_trip(gpu.replace(loop_unroll_factor=1))
    unrolled = per_trip(gpu.replace(loop_unroll_factor=4))
    assert rolled > 3 * unrolled
    # program order (no hoisting) unrolls nothing
    trace = looping_trace(loop_body(4), trips=8)
    ptx = gpu.replace(instruction_schedule="ptx")
    assert simulate(trace, ptx.replace(loop_unroll_factor=4), memory="fixed").cycles == \
        simulate(trace, ptx.replace(loop_unroll_factor=1), memory="fixed").cycles


def test_a_load_whose_value_addresses_another_goes_first():
    """spmv_csr's row walk: per step ld val, ld col, the gather's address from col, the gather, an fma.  Every
    col load (a chain of two loads ahead) issues before the first gather."""
    prog = []
    for k in range(4):
        val, col, adr, x = 20 + 4 * k, 21 + 4 * k, 22 + 4 * k, 23 + 4 * k
        prog += [ins("ld.global", dst=[val], src=[0]), ins("ld.global", dst=[col], src=[1]),
                 ins("imad", dst=[adr], src=[col, 2]), ins("ld.global", dst=[x], src=[adr]),
                 ins("fma", dst=[9], src=[val, x, 9])]
    order = hoist_permutation(make_trace(prog).instructions)
    cols = [order.index(5 * k + 1) for k in range(4)]
    gathers = [order.index(5 * k + 3) for k in range(4)]
    assert max(cols) < min(gathers)


def test_at_most_max_live_loads_loaded_values_are_live_before_a_consumer_issues():
    """walk_ilp_32: 32 independent loads, then their 32 fmas: ptxas issues 16 loads, then one per fma."""
    k = 2 * MAX_LIVE_LOADS
    prog = [ins("ld.global", dst=[10 + j], src=[0]) for j in range(k)]
    prog += [ins("fma", dst=[9], src=[10 + j, 10 + j, 9]) for j in range(k)]
    order = hoist_permutation(make_trace(prog).instructions)
    first_fma = next(i for i, j in enumerate(order) if j >= k)
    assert first_fma == MAX_LIVE_LOADS
    assert sorted(order) == list(range(2 * k))


def test_a_guard_is_renamed_with_the_predicate_its_copy_wrote():
    # the counter update becomes setp p (reg 2) + @p add: each copy's add is guarded by its own copy's setp
    prog = loop_body(4)
    prog[9:9] = [ins("alu", dst=[2], src=[1]), dict(ins("alu", dst=[3], src=[3, 2]), guard_reg=2)]
    trace = looping_trace(prog, trips=4)
    out = unroll_loops(trace, find_unrolled_loops(trace, 4))
    n, length = len(prog), len(prog) - 1
    copies = [out.instructions[n + c * length:n + (c + 1) * length] for c in range(4)]
    assert [c[10].guard_reg for c in copies] == [c[9].dst_regs[0] for c in copies]
    assert copies[3][10].guard_reg == 2 and len({c[10].guard_reg for c in copies}) == 4
