"""Warp-aggregated atomics as ptxas makes them: one atomic per warp for an atomic to a warp-uniform address.

For an integer atomic whose address ptxas proves the same in every lane of a warp, ptxas does not send one
update per lane: it combines the lanes' operands in the SM (``REDUX.SUM``/``.MIN``/``.MAX``/``.AND``/``.OR``/
``.XOR``, or ``POPC`` of the active mask times a uniform operand) and the first active lane (``VOTEU.ANY`` +
``UFLO``) sends one ``RED``/``ATOM`` for the warp.  The L2 then serialises one update per warp on that word,
not 32.  The rule, learnt from the SASS ptxas 13.0 writes for sm_90 (the probes are
``tests/isa/test_aggregate.py``'s cases, checked against the real SASS where ptxas is installed):

* only ``atom``/``red`` with ``.add``, ``.min``, ``.max``, ``.and``, ``.or``, ``.xor`` on 32-bit integers
  (``.u32``, ``.s32``, ``.b32``), in global, shared or generic space, any scope; never 64-bit or
  floating-point types, ``.inc``/``.dec``, ``.exch``, ``.cas``;
* the address is warp-uniform: computed only from kernel parameters, ``%ctaid``/``%ntid``/``%nctaid`` and
  the like, constants, shared-variable addresses, and loads from warp-uniform addresses (not ``%tid``,
  ``%laneid``, ``%lanemask_*``, ``%clock``, loads from local memory, shuffles or atomic results);
* a ``red``, or an ``atom`` whose result no instruction reads (ptxas makes it a ``RED``): aggregated, in
  every execution (:data:`LEADER`);
* an ``atom`` whose result is read: ``.add`` with a warp-uniform operand is aggregated (the leader adds the
  operand times the active lanes; each lane's result is the old value plus its rank times the operand:
  :data:`LEADER`); ``.add`` with a per-lane operand is aggregated only when all 32 lanes execute it (ptxas
  emits an inclusive ``SHFL.UP`` scan and lane 31 sends the sum; with fewer lanes every lane sends its own:
  :data:`FULL_WARP`); ``.min``/``.max``/logic ops with a result are not aggregated.

Independently of the aggregation, ptxas gives an ``atom`` whose result no instruction of the function reads
no result (:func:`mark_unread_results`, :func:`result_can_be_dropped`): a global one becomes ``RED`` (no data
comes back, the L2's cheaper no-return path, counted under Nsight's ``op_red``), a shared integer one an
``ATOMS`` into ``RZ``; either way nothing waits on a register for it.  nvcc writes every ``atomicAdd`` as
``atom`` whether or not its value is used (the float one through an inlined function that returns it), so
this is most atomics in practice: in the SASS of ptxas 13.0 for the bundled and suite programs, all 39 such
global ``atom`` are ``REDG`` and all 14 whose result is read are ``ATOMG`` (``tests/cuda/test_sass.py``).
Not dropped, as ptxas 13.0's SASS of probes shows (``tests/isa/test_aggregate.py``): ``exch`` and ``cas``
(``RED`` has neither), ``.acquire``/``.acq_rel`` ordering, generic addresses (``ATOM.E``), scalar ``f16``/
``bf16`` adds (a CAS loop) and shared floating-point adds (an ``ATOMS.CAST.SPIN`` loop).

Simplifications: uniformity follows the data flow only (a register written under a per-lane guard, or from a
per-lane source, is per-lane), not control dependence (a value chosen by a divergent branch); the timing
model applies the mark only to executions whose active lanes do address one word
(:func:`gpusim.timing.lsu.aggregate_atomic_rows`), which covers what the data flow misses.  ptxas skips the
aggregation in a region only lanes of one ``%tid.x`` or ``%laneid`` reach (``if (threadIdx.x == 0)``): the rule
skips the atomics a branch on ``%tid.x``/``%laneid`` != a constant jumps over (not ``%tid.y``, nor ``<``, as
ptxas).  The functional result is unchanged: the emulator
still updates lane by lane, and integer add/min/max/logic give the same word in any order.
"""
from __future__ import annotations

import dataclasses

from isa.program import Imm, Instruction, Mem, Reg, SpecialReg, Vec

LEADER = "leader"          # one atomic per warp execution, sent by a leader lane
FULL_WARP = "full_warp"    # one per warp execution when all 32 lanes execute it, else one per lane

AGGREGATED_OPS = ("add", "min", "max", "and", "or", "xor")
AGGREGATED_TYPES = ("u32", "s32", "b32")
AGGREGATED_SPACES = ("global", "shared", "shared::cta", "generic", None)
# special registers with one value per warp (every lane of a warp reads the same)
UNIFORM_SPECIALS = frozenset({
    "%ntid", "%ctaid", "%nctaid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%nclusterid",
    "%clusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
    "%is_explicit_cluster", "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size",
    "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
    "%warpid_in_cluster"})
# results that differ per lane whatever the operands
_PER_LANE_RESULTS = ("atom", "shfl", "match", "mbarrier")
# loads whose value is per-lane even from one address: a thread's own local memory, or what a generic
# address might resolve to
_PER_LANE_LOAD_SPACES = ("local", "generic", None)


def _per_lane_operand(op, varying: set[int]) -> bool:
    if isinstance(op, Reg):
        return op.id in varying
    if isinstance(op, SpecialReg):
        return op.name not in UNIFORM_SPECIALS
    if isinstance(op, Mem):
        return isinstance(op.base, Reg) and op.base.id in varying
    if isinstance(op, Vec):
        return any(isinstance(r, Reg) and r.id in varying for r in op.items)
    return False        # Imm, SymbolAddr, Label


def varying_registers(instrs: list[Instruction]) -> set[int]:
    """Ids of the registers of one function that may hold a different value in different lanes of a warp (the
    data-flow part of ptxas's uniformity analysis; see the module docstring)."""
    varying: set[int] = set()
    changed = True
    while changed:
        changed = False
        for ins in instrs:
            dsts = ins.regs_written()
            if not dsts or all(r.id in varying for r in dsts):
                continue
            per_lane = (ins.base in _PER_LANE_RESULTS or ins.frame_param
                        or (ins.base in ("ld", "ldu") and ins.space in _PER_LANE_LOAD_SPACES)
                        or (ins.guard is not None and ins.guard.id in varying)
                        or any(_per_lane_operand(op, varying) for op in _sources(ins)))
            if per_lane:
                for r in dsts:
                    if r.id not in varying:
                        varying.add(r.id)
                        changed = True
    return varying


def _sources(ins: Instruction) -> tuple:
    """The operands an instruction reads (its destination left out)."""
    if not ins.regs_written():
        return ins.operands
    return ins.operands[1:]


def aggregation_of(ins: Instruction, varying: set[int], read: set[int]) -> str:
    """How ptxas aggregates ``ins`` across a warp: :data:`LEADER`, :data:`FULL_WARP` or "" (not at all);
    ``varying``: :func:`varying_registers` of its function; ``read``: ids of the registers some instruction
    of the function reads."""
    if ins.base not in ("atom", "red") or ins.vec != 1:
        return ""
    ops = ins.mods & set(AGGREGATED_OPS)
    if len(ops) != 1 or ins.type not in AGGREGATED_TYPES or ins.space not in AGGREGATED_SPACES:
        return ""
    if ins.base == "red":
        addr, value, result = ins.operands[0], ins.operands[1], None
    else:
        result, addr, value = ins.operands[0], ins.operands[1], ins.operands[2]
    if not isinstance(addr, Mem) or _per_lane_operand(addr, varying):
        return ""
    if not isinstance(result, Reg) or result.id not in read:
        return LEADER
    if ops != {"add"}:
        return ""
    return LEADER if not _per_lane_operand(value, varying) else FULL_WARP


def _one_lane_regions(instrs: list[Instruction]) -> list[tuple[int, int]]:
    """[start, end) PC ranges only the lanes of one ``%tid.x`` or ``%laneid`` value reach: what a forward
    ``@%p bra`` jumps over when ``%p`` says the lane's ``%tid.x``/``%laneid`` differs from a constant."""
    lane_regs = {i.operands[0].id for i in instrs
                 if i.base == "mov" and len(i.operands) == 2 and isinstance(i.operands[0], Reg)
                 and isinstance(i.operands[1], SpecialReg)
                 and (i.operands[1].name, i.operands[1].component) in (("%tid", "x"), ("%laneid", ""))}
    if not lane_regs:
        return []
    # predicate id -> True when it is "lane != constant", False when "lane == constant"
    differs: dict[int, bool] = {}
    for i in instrs:
        if i.base != "setp" or i.pred_out is not None or len(i.operands) != 3 or not isinstance(i.operands[0], Reg):
            continue
        a, b = i.operands[1], i.operands[2]
        if isinstance(b, Reg) and isinstance(a, Imm):
            a, b = b, a
        cmp = i.mods & {"eq", "ne"}
        if isinstance(a, Reg) and a.id in lane_regs and isinstance(b, Imm) and cmp:
            differs[i.operands[0].id] = "ne" in cmp
    out = []
    for i in instrs:
        if i.base == "bra" and i.guard is not None and i.guard.id in differs and i.target > i.pc:
            if differs[i.guard.id] != i.guard_negated:
                out.append((i.pc + 1, i.target))
    return out


RED_OPS = ("add", "inc", "dec", "min", "max", "and", "or", "xor")     # what SASS RED can do
_CAS_LOOP_TYPES = ("f16", "bf16", "f16x2", "bf16x2")


def result_can_be_dropped(mods, space: str | None, type_: str | None) -> bool:
    """Whether ptxas emits an ``atom`` of these modifiers, state space and type without its result when
    nothing reads it (the module docstring): a RED-able operation, no acquire ordering, a global address or
    a shared integer one, not a half-precision type."""
    mods = set(mods)
    if not mods & set(RED_OPS) or mods & {"acquire", "acq_rel"} or type_ in _CAS_LOOP_TYPES:
        return False
    if space == "global":
        return True
    return space in ("shared", "shared::cta") and not (type_ or "").startswith("f")


def mark_unread_results(instrs: list[Instruction]) -> tuple[list[Instruction], int]:
    """The instructions of one function with ``result_unread`` set on each ``atom`` whose destination
    register(s) no instruction of the function reads and whose result ptxas can drop
    (:func:`result_can_be_dropped`), and how many are.  A register read anywhere counts as read (no path-wise
    liveness; an atom whose value a device function returns counts as read, though ptxas may drop it after
    inlining)."""
    if not any(i.base == "atom" for i in instrs):
        return instrs, 0
    read = {r.id for i in instrs for r in i.regs_read()}
    out, n = [], 0
    for ins in instrs:
        dst = ins.operands[0] if ins.base == "atom" and ins.operands else None
        regs = [dst] if isinstance(dst, Reg) else list(dst.items) if isinstance(dst, Vec) else []
        if regs and all(isinstance(r, Reg) and r.id not in read for r in regs) \
                and result_can_be_dropped(ins.mods, ins.space, ins.type):
            ins = dataclasses.replace(ins, result_unread=True)
            n += 1
        out.append(ins)
    return out, n


def mark_aggregated(instrs: list[Instruction]) -> tuple[list[Instruction], int]:
    """The instructions of one function with ``aggregated`` set on each atomic ptxas aggregates across a warp
    (the module docstring's rule), and how many are."""
    if not any(i.base in ("atom", "red") for i in instrs):
        return instrs, 0
    varying = varying_registers(instrs)
    read = {r.id for i in instrs for r in i.regs_read()}
    one_lane = _one_lane_regions(instrs)
    out, n = [], 0
    for ins in instrs:
        how = aggregation_of(ins, varying, read)
        if how and any(a <= ins.pc < b for a, b in one_lane):
            how = ""
        if how:
            ins = dataclasses.replace(ins, aggregated=how)
            n += 1
        out.append(ins)
    return out, n

