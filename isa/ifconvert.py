"""If-conversion as ptxas does it: a short conditional branch becomes predicated instructions.

A forward ``@p bra L`` over a few arithmetic instructions costs a warp a branch, and a divergence when its
lanes disagree; ptxas instead guards the skipped instructions with the branch's negated predicate and drops
the branch, so every lane runs the same straight-line code (``@P2 FFMA``): no branch, no divergence, no
reconvergence.  The rule, learnt from the SASS ptxas 13.0 writes for sm_90 at ``-O3`` (the probes are
``tests/isa/test_ifconvert.py``'s cases, checked against the real SASS where ptxas is installed):

* a triangle ``@p bra L; I1 .. In; L:`` is converted when the skipped block has at most
  :data:`MAX_TRIANGLE` SASS instructions (7 are converted, 8 keep the branch);
* a diamond ``@p bra L2; A; bra L1; L2: B; L1:`` is converted when each side has at most
  :data:`MAX_DIAMOND_SIDE` (6 each are converted, 7 keep both branches);
* a block with a memory access (even one load) keeps its branch; so, here, does any block with control
  flow, a barrier, a warp-synchronous instruction (shuffle, vote, ...), an instruction already guarded, an
  instruction that writes the branch's predicate, or an instruction another branch jumps to.

SASS instructions are counted as the PTX's, less a ``mov`` of an immediate (ptxas folds the constant into
the instruction that reads it: the probe with one ``mov`` + ``fma`` pair per SASS ``FFMA`` converts 7 pairs).
The functional result is unchanged: a guarded instruction writes only the lanes whose predicate is true,
which are the lanes that ran the block.  Simplifications: one pass, innermost patterns only (a block that
becomes convertible once its inner branch is converted keeps its branch); ptxas's own thresholds may depend
on the instructions' kind, which the probes (arithmetic only) do not show.  The suites' SASS shows short
blocks with shared-memory accesses predicated as well (the reductions' ``if (tid < s)`` body): the timing
model issues those as predicated bodies (:mod:`gpusim.timing.ifconvert`), the emulator runs their branch.
"""
from __future__ import annotations

import dataclasses

from isa.cfg import rewrite
from isa.program import Imm, Instruction

MAX_TRIANGLE = 7
MAX_DIAMOND_SIDE = 6

# what no guard may be added to: control flow, synchronisation, warp-wide exchanges, and anything with a
# state space (memory, and cvta/isspacep, kept conservatively)
_BLOCKING = frozenset({
    "bra", "brx", "ret", "exit", "call", "trap", "brkpt", "bar", "barrier", "membar", "fence", "mbarrier",
    "shfl", "vote", "match", "redux", "activemask", "elect", "nanosleep", "cp.async", "prefetch", "prefetchu",
    "ld", "st", "atom", "red", "ldu", "tex", "tld4", "suld", "sust", "sured", "applypriority", "discard",
    "griddepcontrol", "setmaxnreg", "stackrestore", "stacksave", "alloca", "pmevent", "wgmma", "mma", "wmma",
    "ldmatrix", "stmatrix", "movmatrix", "st.async", "red.async", "cp.async.bulk", "getctarank", "isspacep",
    "cvta",
})


def _sass_count(block: list[Instruction]) -> int:
    return sum(1 for i in block if not (i.base == "mov" and len(i.operands) > 1 and isinstance(i.operands[1], Imm)))


def _convertible(block: list[Instruction], pred_id: int, targeted: set[int]) -> bool:
    for i in block:
        if i.base in _BLOCKING or i.space is not None or i.guard is not None or i.pc in targeted:
            return False
        if any(r.id == pred_id for r in i.regs_written()):
            return False
    return True


def if_convert(instrs: list[Instruction]) -> tuple[list[Instruction], int]:
    """The instructions of one function with its short forward branches replaced by guarded instructions
    (the module docstring's rule), and how many branches were.  Branch targets and reconvergence points are
    recomputed."""
    n = len(instrs)
    # how many branches jump to each PC
    jumps: dict[int, int] = {}
    for ins in instrs:
        if ins.base == "bra" and ins.target >= 0:
            jumps[ins.target] = jumps.get(ins.target, 0) + 1
        for t in ins.targets:
            jumps[t] = jumps.get(t, 0) + 1
    targeted = set(jumps)
    guard_of: dict[int, tuple] = {}          # pc -> (guard register, negated) to add
    removed: set[int] = set()
    converted = 0
    pc = 0
    while pc < n:
        b = instrs[pc]
        if b.base != "bra" or b.guard is None or b.target <= pc + 1 or b.target > n:
            pc += 1
            continue
        p, neg = b.guard, b.guard_negated
        end = b.target
        fall = instrs[pc + 1:end]
        last = instrs[end - 1]
        # a diamond: the fall-through side ends with an unconditional forward branch past the target
        if (last.base == "bra" and last.guard is None and last.target > end and jumps.get(end) == 1
                and jumps.get(last.target, 0) >= 1):
            join = last.target
            side_a, side_b = instrs[pc + 1:end - 1], instrs[end:join]
            if (len(side_a) and len(side_b) and _sass_count(side_a) <= MAX_DIAMOND_SIDE
                    and _sass_count(side_b) <= MAX_DIAMOND_SIDE
                    and _convertible(side_a, p.id, targeted) and _convertible(side_b, p.id, targeted - {end})
                    and jumps.get(join) == 1):
                for i in side_a:
                    guard_of[i.pc] = (p, not neg)
                for i in side_b:
                    guard_of[i.pc] = (p, neg)
                removed |= {pc, end - 1}
                converted += 1
                pc = join
                continue
        if fall and _sass_count(fall) <= MAX_TRIANGLE and _convertible(fall, p.id, targeted):
            for i in fall:
                guard_of[i.pc] = (p, not neg)
            removed.add(pc)
            converted += 1
            pc = end
            continue
        pc += 1
    if not converted:
        return instrs, 0

    def guarded(ins: Instruction) -> Instruction:
        if ins.pc not in guard_of:
            return ins
        g, gneg = guard_of[ins.pc]
        return dataclasses.replace(ins, guard=g, guard_negated=gneg)
    out = rewrite(instrs, removed, guarded)
    return out, converted
