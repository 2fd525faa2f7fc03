"""Datasheet of the if-conversion pass: the short ``if`` bodies ptxas predicates, issued by every warp."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import gpusim
from gpusim.config import load_gpu
from gpusim.functional.recorder import static_instruction
from gpusim.timing.ifconvert import find_if_converted, if_convert
from isa import parse_ptx

ROOT = Path(__file__).resolve().parents[2]


def _static(body: str):
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
           ".reg .b32 %r<20>;\n.reg .pred %p<4>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [a];\n"
           "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 16;\n" + body + "\n}\n")
    return [static_instruction(i) for i in parse_ptx(ptx).kernels["k"].instructions]


def test_a_short_body_is_predicated_a_long_one_or_one_with_a_barrier_is_not():
    short = _static("@%p1 bra L;\nadd.s32 %r2, %r1, 1;\nst.global.u32 [%rd1], %r2;\nL:\nret;")
    assert find_if_converted(short) == {}                       # its target is the exit: a predicated EXIT
    short = _static("@%p1 bra L;\nadd.s32 %r2, %r1, 1;\nst.global.u32 [%rd1], %r2;\nL:\n"
                    "st.global.u32 [%rd1+4], %r1;\nret;")
    (b, t), = find_if_converted(short).items()
    assert short[b].opcode == "bra" and t - b - 1 == 2
    long = _static("@%p1 bra L;\n" + "add.s32 %r2, %r2, 1;\n" * 7 + "L:\nst.global.u32 [%rd1], %r2;\nret;")
    assert find_if_converted(long) == {}
    barrier = _static("@%p1 bra L;\nbar.sync 0;\nL:\nst.global.u32 [%rd1], %r1;\nret;")
    assert find_if_converted(barrier) == {}
    shuffle = _static("@%p1 bra L;\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\nL:\nst.global.u32 [%rd1], %r2;\nret;")
    assert find_if_converted(shuffle) == {}                      # warp-wide: never predicated
    rewrites = _static("@%p1 bra L;\nsetp.eq.u32 %p1, %r1, 3;\nL:\nst.global.u32 [%rd1], %r1;\nret;")
    assert find_if_converted(rewrites) == {}                     # writes the branch's own predicate


def test_every_warp_issues_the_body_the_skipping_ones_with_no_lane_on():
    # reduce_sequential: `if (tid < s)` in its loop; warps whose lanes all skip it issue it anyway
    t = gpusim.run("reduce_sequential", size="small", mode="emulate", record_trace=True).trace
    found = find_if_converted(t.instructions)
    loop_branch = [b for b, tg in found.items() if any(i.mem_space == "shared" for i in t.instructions[b + 1:tg])]
    assert loop_branch
    b = loop_branch[0]
    tg = found[b]
    conv = if_convert(t, found)
    assert not np.isin(conv.pc, list(found)).any()                 # the branches issue no more
    body = np.arange(b + 1, tg)
    pc, ex = np.asarray(conv.pc), np.asarray(conv.exec_mask)
    on_body = np.isin(pc, body)
    assert (ex[on_body] == 0).any()                                  # skipping warps: no lane on
    assert (np.asarray(conv.mem_slot)[on_body & (ex == 0)] == -1).all()   # and no memory access
    # each body row beyond the recorded ones stands for a branch row a warp took
    taken = int(np.isin(pc, body).sum() - np.isin(np.asarray(t.pc), body).sum())
    assert taken % len(body) == 0 and taken > 0
    def lanes_on(masks):
        return int(sum(bin(int(m)).count("1") for m in np.asarray(masks)))
    branch_rows = np.isin(np.asarray(t.pc), list(found))
    # the lanes executing: those of the recorded rows but the branches'; the body put in adds none
    assert lanes_on(conv.exec_mask) == lanes_on(t.exec_mask) - lanes_on(np.asarray(t.exec_mask)[branch_rows])
    # the active lanes (smsp__thread_inst_executed, predicated-off lanes included) count the body put in
    assert conv.thread_instructions() > t.thread_instructions() - lanes_on(np.asarray(t.active_mask)[branch_rows])
    assert all(conv.instructions[p].guard_reg == t.instructions[b].guard_reg for p in body)


def test_reduce_sequential_issues_about_what_the_h100_executed():
    hw = json.loads((ROOT / "tests/golden/h100/reduce_sequential__default.json").read_text())
    measured = hw["counters"]["smsp__inst_executed.sum"]               # 3,440,640
    on = gpusim.run("reduce_sequential", size="default", mode="timing", gpu="h100").timing
    off = gpusim.run("reduce_sequential", size="default", mode="timing",
                     gpu=load_gpu("h100").replace(if_convert_max_instructions=0)).timing
    assert off.counters["smsp__inst_executed.sum"] < 0.8 * measured
    assert abs(on.counters["smsp__inst_executed.sum"] / measured - 1) < 0.1


def test_the_hoisting_scheduler_runs_through_a_predicated_body():
    """ptxas schedules a predicated body with the code around it: the image blur's nine ``if``-guarded pixel
    loads are ``@!P LDG`` issued ahead of the adds (its SASS, ``gpusim/hw/README.md`` item 23).  The model's
    hoisting scheduler takes them as one segment too, so eight of the nine issue before the first add that
    reads one (the first body's load writes the sum's own register, which a ``mov`` zeroes before it: the
    scheduler does not rename registers, ptxas does); without the if-conversion each load waits in its own
    block."""
    from gpusim.timing.decode import schedule_rows, static_schedule
    t = gpusim.run("blur", size="small", mode="emulate", record_trace=True).trace
    conv = if_convert(t)
    instrs = conv.instructions
    assert sum(i.if_converted for i in instrs) == 9 and not np.isin(conv.pc, [i.pc for i in instrs
                                                                              if i.if_converted]).any()
    loads = [i.pc for i in instrs if i.is_load and i.mem_space == "global"]
    assert len(loads) == 9
    order = next(seq for seq in static_schedule(conv).values() if set(loads) <= set(seq))
    first_use = min(order.index(i.pc) for i in instrs if set(i.src_regs) & {r for p in loads
                                                                            for r in instrs[p].dst_regs})
    assert sum(order.index(p) < first_use for p in loads) == 8
    # every warp's rows follow that order (the rows of the branch-free trace, reordered)
    pcs, _ = schedule_rows(conv, "hoist")
    w0 = pcs[:int(conv.warp_start[1])].tolist()
    assert [p for p in w0 if p in order] == order
    # the branches of the recorded trace split it: each load waits in its block before its add
    assert not any(set(loads) <= set(seq) for seq in static_schedule(t).values())
