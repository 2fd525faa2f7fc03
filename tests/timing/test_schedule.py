"""The "ptxas-like" static schedule (gpu.instruction_schedule = "hoist"): loads, with the arithmetic that
computes their operands, move above the uses of earlier loads within a basic block, never across a fence,
a register dependence or an aliasing store; each dynamic execution of a block is permuted the same way and
a memory slot stays with its instruction."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gpusim.config import load_gpu
from gpusim.errors import ConfigError
from gpusim.timing import simulate
from gpusim.timing.decode import hoist_permutation, schedule_rows, static_schedule
from gpusim.timing.synthetic import ins, make_trace


def order_of(program):
    trace = make_trace(program)
    return hoist_permutation(trace.instructions)


def unrolled_dot(steps=4):
    """r0 = address; per step: ld a, ld b, fma into the accumulator r9; address += 4 (as matmul_naive)."""
    prog = []
    for k in range(steps):
        a, b = 10 + 2 * k, 11 + 2 * k
        prog += [ins("ld.global", dst=[a], src=[0]), ins("ld.global", dst=[b], src=[0]),
                 ins("fma", dst=[9], src=[a, b, 9]), ins("alu", dst=[0], src=[0])]
    return prog + [ins("exit")]


def test_independent_loads_go_above_the_fma_of_earlier_loads():
    prog = unrolled_dot(4)
    order = order_of(prog[:-1])
    kinds = [prog[i]["opcode"].split(".")[0] for i in order]
    # every load and the address adds it needs come before the first fma
    first_fma = kinds.index("fma")
    assert kinds[:first_fma].count("ld") == 8
    assert kinds[first_fma:].count("ld") == 0
    # the fmas keep their relative order (they chain through r9)
    fmas = [i for i in order if prog[i]["opcode"].startswith("fma")]
    assert fmas == sorted(fmas)


def test_a_load_never_passes_its_producer_or_an_aliasing_store():
    prog = [ins("alu", dst=[1], src=[0]),          # 0: address of the load
            ins("st.global", src=[2, 3]),           # 1: may alias the load below
            ins("ld.global", dst=[4], src=[1])]     # 2
    order = order_of(prog)
    assert order.index(0) < order.index(2)
    assert order.index(1) < order.index(2)
    # a load in another space passes a store; one that may alias it does not
    assert order_of([ins("st.global", src=[2, 3]), ins("ld.shared", dst=[5], src=[0])]) == [1, 0]
    assert order_of([ins("st.shared", src=[2, 3]), ins("ld.shared", dst=[5], src=[0])]) == [0, 1]


def test_war_and_waw_hold():
    prog = [ins("fma", dst=[7], src=[1, 2]),        # reads r1
            ins("fma", dst=[3], src=[7, 7]),        # writes r3
            ins("ld.global", dst=[1], src=[0]),     # writes r1: may not pass the read of r1 (WAR)
            ins("ld.global", dst=[3], src=[0])]     # writes r3: may not pass the write of r3 (WAW)
    order = order_of(prog)
    assert order.index(2) > order.index(0)
    assert order.index(3) > order.index(1)


def test_nothing_crosses_a_barrier_or_a_branch():
    prog = [ins("fma", dst=[1], src=[1, 1]), ins("fma", dst=[2], src=[1, 1]), ins("bar"),
            ins("ld.shared", dst=[3], src=[0]), ins("fma", dst=[4], src=[2, 2]),
            ins("ld.global", dst=[5], src=[0]), ins("bra", src=[4]),
            ins("ld.global", dst=[6], src=[0]), ins("exit")]
    trace = make_trace(prog)
    segs = static_schedule(trace)
    for first, perm in segs.items():
        assert sorted(perm) == list(range(first, first + len(perm)))
        for pc in (2, 6, 8):
            assert pc not in perm[1:-1] or perm.index(pc) == pc - first
    assert segs == {3: [3, 5, 4]}


def test_each_dynamic_execution_is_permuted_and_slots_follow_their_instruction():
    prog = unrolled_dot(2)
    n = len(prog)
    body = list(range(n - 1))
    # two warps: one runs the block twice (as a loop would, via a trace that repeats it), one once
    trace = make_trace(prog, n_blocks=1, warps_per_block=2, warp_pcs=[body + body + [n - 1], body + [n - 1]])
    pc, slot = schedule_rows(trace, "hoist")
    ptx_pc, ptx_slot = schedule_rows(trace, "ptx")
    np.testing.assert_array_equal(ptx_pc, trace.pc)
    perm = static_schedule(trace)[0]
    np.testing.assert_array_equal(pc[:len(body)], perm)
    np.testing.assert_array_equal(pc[len(body):2 * len(body)], perm)
    # the same multiset of rows per warp, each slot still on a row of its own PC
    for a, b in ((0, 2 * len(body) + 1), (2 * len(body) + 1, len(pc))):
        assert sorted(pc[a:b]) == sorted(trace.pc[a:b])
    pc_of_slot = {int(s): int(p) for p, s in zip(trace.pc, trace.mem_slot) if s >= 0}
    assert all(pc_of_slot[int(s)] == int(p) for p, s in zip(pc, slot) if s >= 0)


def test_hoisting_overlaps_the_loads_and_is_faster():
    prog = unrolled_dot(4)
    trace = make_trace(prog, n_blocks=1, warps_per_block=1)
    gpu = load_gpu("h100").replace(**{"sm.count": 1})
    ptx = simulate(trace, gpu.replace(instruction_schedule="ptx"), memory="fixed").cycles
    hoist = simulate(trace, gpu.replace(instruction_schedule="hoist"), memory="fixed").cycles
    assert hoist < ptx
    # program order waits one load latency per step; hoisted, about one for all four
    lat = gpu.latency("global")
    assert ptx - hoist >= 2 * lat


def test_an_unknown_schedule_is_a_config_error_when_the_simulation_is_built():
    gpu = load_gpu("h100").replace(instruction_schedule="fast")       # plain data: loads
    trace = make_trace([ins("alu", dst=[1]), ins("exit")])
    with pytest.raises(ConfigError, match="instruction_schedule: expected one of ptx, hoist, got 'fast'"):
        simulate(trace, gpu, memory="fixed")


def test_a_branch_target_starts_a_basic_block_whether_or_not_a_warp_takes_the_branch():
    # 0: ld a; 1: fma on a; 2: (label T) ld b; 3: fma on b; 4: exit, and a bra at 5 to T that no warp runs.
    # ptxas sees T as a block boundary, so ld b may not rise above it, however the launch branches.
    prog = [ins("ld.global", dst=[1], src=[0]), ins("fma", dst=[2], src=[1, 1]),
            ins("ld.global", dst=[3], src=[0]), ins("fma", dst=[4], src=[3, 3]), ins("exit"), ins("bra")]
    untaken = make_trace(prog, warp_pcs=[[0, 1, 2, 3, 4]])
    assert static_schedule(untaken) == {0: [0, 2, 1, 3]}       # no target known: one block, ld b hoisted
    untaken.instructions[5] = dataclasses.replace(untaken.instructions[5], branch_target=2)
    assert static_schedule(untaken) == {}                      # T splits it: nothing left to reorder
