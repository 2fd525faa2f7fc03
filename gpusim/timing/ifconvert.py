"""What ptxas makes of a short ``if`` body, as the timing model sees it: predicated instructions every warp
issues, and no branch.

``@p bra L`` over a body of a few instructions that falls through to ``L`` becomes, in the SASS, the body
with each instruction guarded by ``!p`` and no branch (if-conversion): a warp whose lanes all skip the body
still issues it, with no lane on.  ptxas 13.0 ``-arch=sm_90`` on the bundled and suite programs
(``python benchmarks/ifconvert_vs_sass.py``: the forward conditional branches over one basic block, not to an
exit; a body counts as predicated when most of its SASS instructions carry ``@P``/``@!P``): of 124 bodies of at
most 6 PTX instructions ptxas predicated 102, of 40 longer ones 13; the rule below agrees on 129 of 164.  The
case that matters: the lecture reductions' ``if (tid < s)`` loop body (``IMAD``, ``LDS``, ``LDS``, ``FADD``,
``STS`` under ``@!P``), issued by every warp of the block at every trip; following the PTX's branch instead,
the model issued 0.74x the warp instructions ncu counted on ``reduce_sequential`` (``gpusim/hw/README.md``
items 21 and 22).

Two places convert: :mod:`isa.ifconvert` rewrites the PTX at link time for arithmetic-only blocks (its probes:
up to 7 instructions a triangle, no memory access), so the emulator runs them as guarded instructions and the
trace holds their rows for every warp; this pass, in the timing model only, takes the short bodies that one
keeps, those with a memory access (the reductions' ``LDS``/``STS``), which the suites' SASS shows predicated
too.  One rule in one place, with the memory kinds told apart, is left to do (issue 14).

The rule (:func:`find_if_converted`): a guarded forward branch whose target is not an exit (ptxas makes
``@p bra`` to a ``ret`` a predicated ``EXIT``: the warps whose lanes all leave issue nothing more) and whose
body up to its target is at most :data:`MAX_BODY` instructions, none of them a branch, exit, barrier, memory
barrier, warp-wide exchange (``shfl``, ``vote``, ...), guarded instruction or writer of the branch's predicate,
and none a branch target (one block), is if-converted (none of the 124 bodies it converts in the bundled
programs holds one of those kinds).

Design: the pass **edits trace rows** (:func:`if_convert`): the branch's rows go; a warp whose lanes all took
the branch (its next row is the target) gets the body's rows in their place, with no lane executing and no
memory access (``mem_slot`` -1: the LSU pipe still takes a memory instruction, as for a guard false on every
lane); a warp whose lanes fell through, or split, keeps the rows it recorded.  Each body instruction reads
the predicate (``guard_reg``: it waits the guard latency, ``gpusim.timing.decode``).  The branch is marked
``if_converted`` in the static code, so that the hoisting scheduler (:func:`gpusim.timing.decode.static_schedule`)
takes the code before the body, the body and the code after it as one block, as ptxas schedules the predicated
SASS: the image blur's nine ``if``-guarded pixel loads are nine ``@!P LDG`` issued before the first add
(``gpusim/hw/README.md`` item 23).  Under the no-divergence
what-if (:func:`gpusim.timing.idealize.compact_divergence`, lanes packed into full warps) no body is put in:
the warps the packing emptied issue nothing, which is the what-if.  Simplification: the branch's PC stays in
the static code, issued by no row.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from gpusim.functional.trace import KernelTrace, StaticInstr

__all__ = ["MAX_BODY", "find_if_converted", "if_convert"]

MAX_BODY = 6
# what isa.ifconvert's probes showed ptxas never predicates either: warp-wide exchanges
_WARP_SYNCHRONOUS = frozenset({"shfl", "vote", "match", "redux", "activemask", "elect"})


def find_if_converted(instrs: list[StaticInstr], max_body: int = MAX_BODY) -> dict[int, int]:
    """Branch PC -> its target, for the branches of ``instrs`` ptxas if-converts (module docstring)."""
    targets = {i.branch_target for i in instrs if i.branch_target >= 0}
    out = {}
    for ins in instrs:
        t = ins.branch_target
        if not (ins.is_branch and ins.guard_reg >= 0 and t > ins.pc + 1 and not ins.is_exit
                and ins.opcode.startswith("bra")):
            continue
        body = instrs[ins.pc + 1:t]
        if len(body) > max_body or t >= len(instrs) or instrs[t].is_exit:
            continue
        if any(b.is_branch or b.is_exit or b.is_barrier or b.is_membar or b.pc in targets or b.guard_reg >= 0
               or ins.guard_reg in b.dst_regs or b.opcode.split(".")[0] in _WARP_SYNCHRONOUS for b in body):
            continue
        out[ins.pc] = t
    return out


def if_convert(trace: KernelTrace, found: dict[int, int] | None = None) -> KernelTrace:
    """``trace`` with the branches ``found`` (default: :func:`find_if_converted`) if-converted (module
    docstring); the trace itself when there are none."""
    if found is None:
        found = find_if_converted(trace.instructions)
    if not found:
        return trace
    instrs = trace.instructions
    n = len(instrs)
    pc = np.asarray(trace.pc, dtype=np.int64)
    rows = pc.size
    is_conv = np.zeros(n, dtype=bool)
    is_conv[list(found)] = True
    target = np.full(n, -1, dtype=np.int64)
    for b, t in found.items():
        target[b] = t
    starts = np.asarray(trace.warp_start, dtype=np.int64)
    last_of_warp = np.zeros(rows, dtype=bool)
    last_of_warp[starts[1:][starts[1:] > 0] - 1] = True
    conv_rows = np.flatnonzero(is_conv[pc])
    nxt = np.where(last_of_warp[conv_rows], -1, pc[np.minimum(conv_rows + 1, rows - 1)])
    taken = nxt == target[pc[conv_rows]]                     # every lane skipped the body
    if trace.meta.get("divergence_packed"):
        taken[:] = False        # the no-divergence what-if: a warp the packing emptied issues nothing
    reps = np.ones(rows, dtype=np.int64)
    reps[conv_rows] = 0
    body_len = target[pc[conv_rows]] - pc[conv_rows] - 1
    reps[conv_rows[taken]] = body_len[taken]
    src = np.repeat(np.arange(rows), reps)
    first = np.concatenate(([0], np.cumsum(reps)))[:-1]
    step = np.arange(src.size) - np.repeat(first, reps)
    inserted = is_conv[pc[src]]                              # the body rows put in place of a taken branch
    new_pc = np.where(inserted, pc[src] + 1 + step, pc[src])
    exec_mask = np.asarray(trace.exec_mask)[src].copy()
    exec_mask[inserted] = 0
    slot = np.asarray(trace.mem_slot, dtype=np.int64)[src]
    slot[inserted] = -1
    row_end = np.concatenate(([0], np.cumsum(reps)))
    warp_start = row_end[starts]
    guard = {}
    for b, t in found.items():
        for p in range(b + 1, t):
            guard[p] = instrs[b].guard_reg
    static = [dataclasses.replace(ins, guard_reg=guard[ins.pc],
                                  src_regs=(guard[ins.pc], *ins.src_regs))
              if ins.pc in guard and ins.guard_reg < 0 else
              dataclasses.replace(ins, if_converted=True) if ins.pc in found else ins for ins in instrs]
    meta = {**trace.meta, "if_converted": {int(b): int(t) for b, t in sorted(found.items())}}
    return dataclasses.replace(
        trace, instructions=static, warp_start=warp_start.astype(trace.warp_start.dtype),
        pc=new_pc.astype(trace.pc.dtype), active_mask=np.asarray(trace.active_mask)[src],
        exec_mask=exec_mask, mem_slot=slot.astype(trace.mem_slot.dtype), meta=meta)
