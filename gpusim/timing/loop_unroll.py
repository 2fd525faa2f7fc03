"""What ptxas does to a short counted loop, as the timing model sees it: the body unrolled, its registers renamed.

NVVM already unrolls a counted loop by 4 in the PTX (a main loop of four copies of the source body, then a
``.pragma "nounroll"`` remainder loop).  ptxas unrolls that main loop by 4 again and its list scheduler then
issues the loads of all the copies before the first use of their data.  A loop whose trips are independent
(``sum += a[i * n + k] * a[i * n + k]``, ``t += val[j] * x[col[j]]``) so keeps 16 source iterations' loads in
flight where the PTX keeps 4: one thread of gramschmidt_1 sums a column at 57 SM cycles per element on the H100
(ncu), where the model issuing the PTX's body gave 168.  The microbenchmark ``benchmarks/micro/walk`` measures
it on the device (``tests/golden/h100/micro/walk.json``, clock64 at 1980 MHz): the same walk takes 59-65 cycles
per element as compiled (256 B and 8 KB strides), 693-702 with ``#pragma unroll 1`` (the DRAM latency: one load
per trip) and 57-62 with 16 loads written out by hand; the model without this pass took 2.9x the H100's
cycles on it.

The rule (:func:`find_unrolled_loops`): a loop whose body is one basic block (a branch at its end back to its
first instruction, no other block leader inside), not marked ``.pragma "nounroll"``, with no barrier, memory
barrier, atomic or exit, at most :data:`MAX_BODY_INSTRUCTIONS` instructions before the branch and a multiple
of 4 global or local loads (the mark of NVVM's unrolled main loop; its remainder loop holds one copy), is
unrolled by the config's factor.
Against ptxas 13.0's SASS (``python benchmarks/loop_unroll_vs_sass.py``, 2026-11-22) the rule and ptxas agree
on 80 of the 91 such loops (with a global or local load) of the bundled programs: 28 both unroll, 52 both keep
rolled; the rule unrolls 6 that ptxas keeps (5 in programs/bugs, and hecbench/layernorm's 35-instruction
body) and keeps 5 single-load loops ptxas unrolls.

:func:`unroll_loops` applies it to a trace: each unrolled loop gets ``factor`` copies of its body appended as
new PCs (one contiguous region: ``meta["origin_pc"]`` maps each back to the body's PC), and every run of
``factor`` consecutive trips of the loop by one warp is issued through the copies, trip ``c`` of the run through
copy ``c``.  Copy ``c`` writes its own names for the registers the body writes (ptxas's renaming), so a later
copy's loads neither wait for an earlier copy's loads to land (WAW) nor are held behind its uses (WAR); the last
copy writes the original names, so the trips after the run, the remainder trips and the code after the loop
read what they read before.  A register a copy reads before writing it is the previous copy's (or, in copy 0,
the original).  The branches of copies 0 .. factor-2 no longer branch (ptxas's unrolled body has one branch),
so the hoisting scheduler (:func:`gpusim.timing.decode.static_schedule`) sees the region as one segment.
Trips that do not fill a run (the first ``trips mod factor`` trips are left as they are) keep the body's PCs.

Simplifications: the warp still issues every PTX instruction of every copy (ptxas drops the copies' branches
and folds their counter updates into immediates: the instruction count is the PTX's); a warp whose lanes leave
the loop at different trips runs its last trips with fewer lanes, as recorded.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from gpusim.functional.trace import KernelTrace, StaticInstr
from gpusim.timing.decode import _block_leaders, _is_fence
from isa.units import MemSpace

MAX_BODY_INSTRUCTIONS = 36
_LOAD_SPACES = (MemSpace.GLOBAL.value, MemSpace.LOCAL.value, MemSpace.GENERIC.value)


@dataclass(frozen=True)
class UnrolledLoop:
    """A loop the pass unrolls: its body's PCs ``first .. last`` (``last`` the back branch), and the factor."""

    first: int
    last: int
    factor: int

    @property
    def length(self) -> int:
        return self.last - self.first + 1


def find_unrolled_loops(trace: KernelTrace, factor: int) -> list[UnrolledLoop]:
    """The loops of ``trace``'s static code that ptxas unrolls by ``factor`` (the rule in the module
    docstring); none when ``factor`` < 2."""
    if factor < 2 or trace.meta.get("unrolled_loops") is not None:
        return []                       # a trace already unrolled: its copies are loops of the same kind
    instrs = trace.instructions
    n = len(instrs)
    leader = np.zeros(n + 1, dtype=bool)
    leader[_block_leaders(trace)] = True
    out = []
    for ins in instrs:
        t = ins.branch_target
        if (not ins.is_branch or not ins.opcode.startswith("bra") or t < 0 or t > ins.pc
                or ins.pc - t > MAX_BODY_INSTRUCTIONS):
            continue
        body = instrs[t:ins.pc]
        if not body or body[0].no_unroll or leader[t + 1:ins.pc + 1].any() or any(_is_fence(b) for b in body):
            continue
        loads = sum(1 for b in body if b.is_load and not b.is_store and b.mem_space in _LOAD_SPACES)
        if loads and loads % 4 == 0:
            out.append(UnrolledLoop(first=t, last=ins.pc, factor=factor))
    return out


def _copies(body: list[StaticInstr], factor: int, base_pc: int, next_reg: int) -> tuple[list[StaticInstr], int]:
    """``factor`` copies of ``body`` (the back branch last) at PCs ``base_pc``.., registers renamed."""
    written = list(dict.fromkeys(r for ins in body for r in ins.dst_regs))
    names = []                                   # names[c][r]: copy c's name for a register the body writes
    for c in range(factor - 1):
        names.append({r: next_reg + k for k, r in enumerate(written)})
        next_reg += len(written)
    names.append({r: r for r in written})        # the last copy writes the original names
    out = []
    for c in range(factor):
        mine = names[c]
        before = names[c - 1] if c else {r: r for r in written}
        seen: set[int] = set()
        for k, ins in enumerate(body):
            src = tuple(mine[r] if r in seen else before.get(r, r) for r in ins.src_regs)
            g = ins.guard_reg
            guard = g if g < 0 else mine[g] if g in seen else before.get(g, g)
            dst = tuple(mine[r] for r in ins.dst_regs)
            seen.update(ins.dst_regs)
            pc = base_pc + c * len(body) + k
            if ins.is_branch:
                last = c == factor - 1
                ins = dataclasses.replace(ins, is_branch=last, branch_target=base_pc if last else -1)
            out.append(dataclasses.replace(ins, pc=pc, src_regs=src, dst_regs=dst, guard_reg=guard))
    return out, next_reg


def unroll_loops(trace: KernelTrace, loops: list[UnrolledLoop]) -> KernelTrace:
    """``trace`` with ``loops`` unrolled (see the module docstring); the trace itself when there are none."""
    if not loops:
        return trace
    instrs = list(trace.instructions)
    origin = list(trace.meta.get("origin_pc") or range(len(instrs)))
    next_reg = 1 + max((r for ins in instrs for r in (*ins.src_regs, *ins.dst_regs)), default=-1)
    pc = np.asarray(trace.pc, dtype=np.int64)
    new_pc = pc.copy()
    rows = pc.size
    starts = np.asarray(trace.warp_start, dtype=np.int64)
    warp_of = np.zeros(rows, dtype=np.int64)
    inner = starts[1:-1][starts[1:-1] < rows]
    np.add.at(warp_of, inner, 1)
    warp_of = np.cumsum(warp_of)
    step = np.zeros(rows, dtype=np.int64)
    if rows:
        step[1:] = (pc[1:] == pc[:-1] + 1) & (warp_of[1:] == warp_of[:-1])
    run = np.concatenate(([0], np.cumsum(step)))
    for loop in loops:
        body = instrs[loop.first:loop.last + 1]
        base = len(instrs)
        made, next_reg = _copies(body, loop.factor, base, next_reg)
        instrs += made
        origin += [origin[loop.first + k % loop.length] for k in range(len(made))]
        length = loop.length
        trip = np.flatnonzero(pc == loop.first)
        trip = trip[trip + length <= rows]
        trip = trip[run[trip + length] - run[trip + 1] == length - 1]      # the whole body, in one warp
        if trip.size == 0:
            continue
        # a trip continues the one before it when it starts right after it in the same warp
        cont = np.zeros(trip.size, dtype=bool)
        cont[1:] = (trip[1:] == trip[:-1] + length) & (warp_of[trip[1:]] == warp_of[trip[:-1]])
        chain = np.cumsum(~cont) - 1
        chain_start = np.flatnonzero(~cont)
        pos = np.arange(trip.size) - chain_start[chain]
        n_trips = np.diff(np.append(chain_start, trip.size))[chain]
        lead = n_trips % loop.factor            # the first trips of a chain that fill no run keep their PCs
        unrolled = pos >= lead
        copy = (pos - lead) % loop.factor
        sel = trip[unrolled]
        offs = base + copy[unrolled] * length
        new_pc[sel[:, None] + np.arange(length)] = offs[:, None] + np.arange(length)
    meta = {**trace.meta, "origin_pc": origin,
            "unrolled_loops": [[lp.first, lp.last, lp.factor] for lp in loops]}
    return dataclasses.replace(trace, instructions=instrs, pc=new_pc.astype(trace.pc.dtype), meta=meta)
