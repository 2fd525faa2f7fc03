"""What ptxas makes of integer add chains, logic trees, shift-adds, wide address arithmetic and register
copies, as the timing model sees it: fewer instructions.

The SASS ALU has three-input instructions that PTX has not: ``IADD3`` (``a + b + c``, either operand
negated), ``LOP3.LUT`` (any boolean function of three inputs), ``LEA``/``LEA.HI`` (``(a << s) + b``, a rotate
and an add), ``IMAD``/``IMAD.WIDE`` (a multiply and an add, 32 x 32 -> 64 bits for an address).  ptxas
(13.0, ``-arch=sm_90``) folds a PTX instruction whose one reader can take its inputs into that reader, and
issues no instruction for a copy.  Measured on the SASS of ``benchmarks/micro/fusion/fusion.ptx`` (the
patterns one at a time; ``tests/golden/h100/micro/fusion.sass``, whose test checks every rule below against
it) and seen in the suites' kernels (SHOC md5hash: 8-9 PTX instructions a step, 4 SASS: ``LOP3.LUT``,
``IADD3``, ``VIADD``, ``LEA.HI``):

* **IADD3**: a 32-bit ``add``/``sub`` whose result one other 32-bit ``add``/``sub`` reads, and nothing else,
  is folded into it while the sum has at most three operands, one of them at most an immediate
  (``a + b + c``: one instruction; ``a + b + c + d``: two);
* **LOP3**: likewise a ``not``/``and``/``or``/``xor`` (``.b32``, ``.b16``) into a logic reader of the same
  width while the tree reads at most three distinct values, at most one immediate (MD5's
  ``(x & y) | (~x & z)``: one instruction; two immediates: two);
* **LEA**: a ``shl.b32`` by an immediate, or a rotate (``shf.l.wrap.b32 d, x, x, imm``), read only by a
  two-operand 32-bit ``add`` (``LEA``, ``LEA.HI``); a shift by a register is not folded;
* **IMAD**: a ``mul.lo`` (32 bits) read only by a two-operand 32-bit ``add``;
* **IMAD.WIDE**: a ``mul.wide`` read only by 64-bit ``add``s (each add becomes an ``IMAD.WIDE``, the
  multiply issued again in each);
* **two**: a 64-bit ``add``/``sub`` left (no ``IMAD.WIDE``) is ``IADD3`` + ``IADD3.X`` (a ``shl.b64`` by an
  immediate read only by it folds in: ``LEA`` + ``LEA.HI.X``), but in a loop the model unrolls
  (:mod:`gpusim.timing.loop_unroll`), where it counts one: ptxas unrolls NVVM's loops again and moves the
  pointer increments into the copies' address offsets, which the model does not do (PolyBench atax:
  ``add.s64`` two a trip in the PTX, three ``IADD3`` pairs for seven copies of the body in the SASS;
  counted two a trip in every loop, PolyBench 2mm small went from 1.12x to 1.32x the H100's warp instructions);
* **free**: a register copy (``mov`` of one register), ``cvta.to.global`` and ``cvt.u64.u32`` (the high word
  is ``RZ``) issue nothing, their readers read the source; a ``mov`` of an immediate whose readers are all
  ALU instructions without an immediate of their own becomes their immediate; a 64-bit ``add`` of an
  immediate read only by loads becomes the loads' address offset (``[R2.64+0x40]``).

A fold needs the two instructions in one basic block, neither guarded, the folded one's inputs not written
between them, and its result written by it alone (one static writer) and read by the reader alone (one
read).  The greedy order (each reader, in program order, takes its producers in operand order) is what the
measured SASS shows for the patterns above; trees ptxas reassociates (``(a - b) + (c - d)``) may fold further
than the rules.

Design: the pass **drops trace rows** (:func:`gpusim.timing.vector_merge.drop_instructions`, as
:mod:`gpusim.timing.const_fold` does): a folded PC's rows go, and its reader reads what it read (the
scoreboard waits for the folded instruction's inputs), so warp instructions, issue slots and the stall
states follow without a special case.  It runs after the other passes that decide on the PTX (vector
merging, loop unrolling, constant operands) and before the division sequences
(:func:`gpusim.timing.apply_passes`).

Not modelled: loops as ptxas rewrites them (unrolled again, pointer increments in address offsets, induction
variables strength-reduced), copies it cannot coalesce (a loop-carried value written by several
instructions is not dropped), and constant-bank operands of ``ld.param`` values.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from gpusim.functional.trace import KernelTrace, StaticInstr
from gpusim.timing.decode import static_block_leaders
from gpusim.timing.divrem import SassStep, expand_divisions
from gpusim.timing.vector_merge import drop_instructions

__all__ = ["FusionPlan", "plan_fusion", "fuse_instructions"]

_ADD32 = frozenset({"add.s32", "add.u32", "sub.s32", "sub.u32"})
_ADD64 = frozenset({"add.s64", "add.u64"})
_ADD64_SUB64 = _ADD64 | {"sub.s64", "sub.u64"}
_LOGIC = {w: frozenset(f"{op}.{w}" for op in ("and", "or", "xor", "not")) for w in ("b32", "b16")}
_MUL_LO = frozenset({"mul.lo.s32", "mul.lo.u32"})
_MUL_WIDE = frozenset({"mul.wide.s32", "mul.wide.u32"})
_MOVES = frozenset(f"mov.{t}" for t in ("b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64", "b16", "u16", "s16"))
_FREE_CONVERSIONS = frozenset({"cvta.to.global.u64", "cvt.u64.u32"})
_ALU_UNITS = frozenset({"int", "fp32"})
_WIDE_ADD = (SassStep("IADD3"), SassStep("IADD3.X"))      # the low words, then the high words with the carry
_FORMS = {"iadd3": "IADD3", "lop3": "LOP3", "lea": "LEA", "imad": "IMAD"}   # a fold's rule -> the reader's SASS


@dataclasses.dataclass
class FusionPlan:
    """The PCs ptxas folds or drops (``drop``), each kept PC's new source registers (``sources``, only those
    that changed), the SASS instruction a reader becomes by folding (``forms``: ``StaticInstr.sass_form``)
    and, by rule, how many PCs each folded."""

    drop: np.ndarray
    sources: dict[int, tuple[int, ...]]
    by_rule: dict[str, int]
    wide_adds: list[int] = dataclasses.field(default_factory=list)   # kept 64-bit adds: two SASS each
    forms: dict[int, str] = dataclasses.field(default_factory=dict)


def _blocks(instrs: list[StaticInstr]) -> np.ndarray | None:
    """Each PC's basic block (an id that changes at every leader, :func:`gpusim.timing.decode.static_block_leaders`),
    or None when a branch's target is not known (``brx.idx``)."""
    leaders = static_block_leaders(instrs)
    if leaders is None:
        return None
    start = np.zeros(len(instrs), dtype=np.int64)
    start[leaders] = 1
    return np.cumsum(start)


def plan_fusion(instrs: list[StaticInstr], origin: list[int] | None = None) -> FusionPlan:
    """Which PCs of ``instrs`` ptxas folds into a reader or issues as nothing (the module docstring's rules).
    ``origin``: each PC's PC in the trace before the passes (``meta["origin_pc"]``): PCs that share one are
    the copies of a loop body :mod:`gpusim.timing.loop_unroll` unrolled."""
    n = len(instrs)
    unrolled = np.zeros(n, dtype=bool)
    if origin is not None and len(origin) == n:
        o = np.asarray(origin, dtype=np.int64)
        unrolled = np.bincount(o)[o] > 1
    drop = np.zeros(n, dtype=bool)
    by_rule = {"iadd3": 0, "lop3": 0, "lea": 0, "imad": 0, "imad_wide": 0, "free": 0}
    block = _blocks(instrs)
    if block is None or n == 0:
        return FusionPlan(drop, {}, by_rule)
    src = [list(ins.src_regs) for ins in instrs]
    imms = [ins.imm_srcs for ins in instrs]

    def writers_and_readers():
        w: dict[int, list[int]] = {}
        r: dict[int, list[int]] = {}
        for p, ins in enumerate(instrs):
            if drop[p]:
                continue
            for d in ins.dst_regs:
                w.setdefault(d, []).append(p)
            for s in src[p]:
                r.setdefault(s, []).append(p)
        return w, r

    # -- free: copies, conversions that change no bits, immediates that become operands -------------------
    writers, readers = writers_and_readers()
    for p, ins in enumerate(instrs):
        if ins.guard_reg >= 0 or len(ins.dst_regs) != 1 or len(writers.get(ins.dst_regs[0], ())) != 1:
            continue
        d = ins.dst_regs[0]
        users = readers.get(d, [])
        if (ins.opcode in _MOVES or ins.opcode in _FREE_CONVERSIONS) and len(src[p]) == 1 and imms[p] == 0:
            s = src[p][0]
            for u in users:
                src[u] = [s if x == d else x for x in src[u]]
                readers.setdefault(s, []).append(u)
        elif ins.opcode in _MOVES and not src[p] and imms[p] == 1 and users and all(
                instrs[u].unit in _ALU_UNITS and instrs[u].mem_space is None and imms[u] == 0
                and src[u].count(d) == 1 for u in users):
            for u in users:
                src[u] = [x for x in src[u] if x != d]
                imms[u] += 1
        elif ins.opcode in _ADD64 and len(src[p]) == 1 and imms[p] == 1 and users and all(
                instrs[u].is_load and not instrs[u].is_atomic and src[u].count(d) == 1 for u in users):
            s = src[p][0]
            for u in users:
                src[u] = [s if x == d else x for x in src[u]]
        else:
            continue
        drop[p] = True
        by_rule["free"] += 1

    # -- folds into a reader ------------------------------------------------------------------------------
    writers, readers = writers_and_readers()
    kind: list[str | None] = [None] * n      # what each kept PC issues as: "add", "logic", or a fixed form
    width: list[str] = [""] * n
    for p, ins in enumerate(instrs):
        if drop[p] or ins.guard_reg >= 0:
            continue
        if ins.opcode in _ADD32:
            kind[p] = "add"
        elif ins.opcode in _LOGIC["b32"] or ins.opcode in _LOGIC["b16"]:
            kind[p], width[p] = "logic", ins.opcode[-3:]

    def producer(u: int, r: int) -> int | None:
        """The PC that alone writes ``r`` and whose result only ``u`` reads, once, in ``u``'s block, its own
        inputs not written in between; else None."""
        ws = writers.get(r, ())
        if len(ws) != 1 or readers.get(r, []) != [u]:
            return None
        p = ws[0]
        if p >= u or drop[p] or block[p] != block[u] or instrs[p].guard_reg >= 0 or len(instrs[p].dst_regs) != 1:
            return None
        leaves = set(src[p])
        for q in range(p + 1, u):
            if not drop[q] and leaves.intersection(instrs[q].dst_regs):
                return None
        return p

    forms: dict[int, str] = {}

    def fold(p: int, u: int, rule: str) -> None:
        drop[p] = True
        by_rule[rule] += 1
        forms[u] = _FORMS[rule]
        for x in set(src[p]):                   # ``u`` reads them now
            readers[x] = [u if y == p else y for y in readers.get(x, [])]

    for u, ins in enumerate(instrs):
        if drop[u] or ins.guard_reg >= 0:
            continue
        if kind[u] == "add":
            for r in list(src[u]):
                p = producer(u, r)
                if p is None:
                    continue
                if kind[p] == "add":
                    leaves = [x for x in src[u] if x != r] + src[p]
                    imm = imms[u] + imms[p]
                    if len(leaves) + imm <= 3 and imm <= 1 and src[u].count(r) == 1:
                        src[u], imms[u] = leaves, imm
                        fold(p, u, "iadd3")
                elif len(src[u]) + imms[u] == 2 and src[u].count(r) == 1 and (
                        (instrs[p].opcode == "shl.b32" and imms[p] == 1 and len(src[p]) == 1)
                        or (instrs[p].opcode == "shf.l.wrap.b32" and imms[p] == 1 and len(set(src[p])) == 1)
                        or (instrs[p].opcode in _MUL_LO and imms[p] + len(src[p]) == 2)):
                    rule = "imad" if instrs[p].opcode in _MUL_LO else "lea"
                    src[u] = [x for x in src[u] if x != r] + src[p]
                    kind[u] = rule            # a fixed form: it takes no more operands, and folds into nothing
                    fold(p, u, rule)
                    break
        elif kind[u] == "logic":
            for r in list(src[u]):
                p = producer(u, r)
                if p is None or kind[p] != "logic" or width[p] != width[u]:
                    continue
                leaves = set(x for x in src[u] if x != r) | set(src[p])
                imm = imms[u] + imms[p]
                if len(leaves) + imm <= 3 and imm <= 1:
                    src[u], imms[u] = [x for x in src[u] if x != r] + src[p], imm
                    fold(p, u, "lop3")
        elif ins.opcode in _ADD64:
            for r in list(src[u]):
                ws = writers.get(r, ())
                if len(ws) != 1 or instrs[ws[0]].opcode not in _MUL_WIDE or drop[ws[0]]:
                    continue
                p = ws[0]
                users = readers.get(r, [])
                if instrs[p].guard_reg >= 0 or not all(
                        instrs[x].opcode in _ADD64 and block[x] == block[p] and x > p and instrs[x].guard_reg < 0
                        for x in users):
                    continue
                for x in set(users):
                    src[x] = [y for y in src[x] if y != r] + src[p]
                    kind[x] = "imad_wide"
                    forms[x] = "IMAD.WIDE"
                drop[p] = True
                by_rule["imad_wide"] += 1
            if kind[u] is None and len(src[u]) + imms[u] == 2:
                for r in list(src[u]):
                    p = producer(u, r)
                    if p is not None and instrs[p].opcode == "shl.b64" and imms[p] == 1 and len(src[p]) == 1:
                        src[u] = [x for x in src[u] if x != r] + src[p]
                        kind[u] = "lea_wide"      # LEA + LEA.HI.X
                        fold(p, u, "lea")
                        break
    wide = [p for p in range(n) if not drop[p] and instrs[p].opcode in _ADD64_SUB64 and kind[p] != "imad_wide"
            and instrs[p].guard_reg < 0 and not unrolled[p]]
    changed = {p: tuple(src[p]) for p in range(n) if not drop[p] and tuple(src[p]) != instrs[p].src_regs}
    by_rule["wide_add"] = len(wide)
    return FusionPlan(drop, changed, by_rule, wide, {p: f for p, f in forms.items() if not drop[p]})


def fuse_instructions(trace: KernelTrace, plan: FusionPlan | None = None) -> KernelTrace:
    """``trace`` with the PCs ``plan`` (default: :func:`plan_fusion` of its instructions) drops gone (their
    rows too) and their readers reading what they read."""
    if plan is None:
        plan = plan_fusion(trace.instructions, trace.meta.get("origin_pc"))
    if not plan.drop.any() and not plan.wide_adds:
        return trace
    if plan.drop.any():
        kept = [dataclasses.replace(ins, src_regs=plan.sources.get(p, ins.src_regs),
                                    sass_form=plan.forms.get(p, ins.sass_form))
                if p in plan.sources or p in plan.forms else ins
                for p, ins in enumerate(trace.instructions) if not plan.drop[p]]
        trace = drop_instructions(trace, plan.drop, kept)
    if plan.wide_adds:
        new_pc = np.cumsum(~plan.drop) - 1
        trace = expand_divisions(trace, {int(new_pc[p]): _WIDE_ADD for p in plan.wide_adds}, meta_key="wide_adds")
    trace.meta["fused"] = dict(plan.by_rule)
    return trace
