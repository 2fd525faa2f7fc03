"""What ptxas does to neighbouring scalar accesses, as the timing model sees it: one vector access.

ptxas turns ``ld.shared.f32`` at ``[%r8]``, ``[%r8+4]``, ``[%r8+8]``, ``[%r8+12]`` into one ``LDS.128`` when it
can prove the first address 16-byte aligned (``LDS.64`` for a pair at an 8-byte boundary), and likewise stores
(``STS.64``/``STS.128``).  A warp then issues one instruction, not four, and the shared-memory pipe serves one
16-byte-per-lane access (its wavefronts: :class:`~gpusim.memory.shared_banks.SharedMemoryBanks`) instead of four
4-byte ones: the tiled matmul's shared loads cost ncu 0.75x the wavefronts of the scalar ones.

The rule (:func:`find_merge_groups`), over each straight-line segment of the kernel (a basic block cut at
branches, barriers, memory barriers, atomics and exits, as the hoisting scheduler cuts it):

1. candidates are non-atomic, non-volatile ``shared`` loads (or stores) of 4 or 8 bytes per lane of one opcode;
2. two candidates belong together when, in every execution by every warp, their lanes' addresses differ by the
   same constant and they execute under the same lane mask: the same base register plus two immediates, which
   is what ptxas sees;
3. no instruction between the first and the last member writes a register a member reads, or reads or writes
   a register a later member writes (so the merged access can issue where the first one stood), and nothing
   between them stores to shared memory (loads) or accesses it at all (stores);
4. runs of contiguous offsets are cut from the lowest: 16 bytes where the run's first address is 16-byte aligned
   in every lane of every execution, else 8 bytes where it is 8-byte aligned, else that member stays alone.

Simplifications: alignment is read from the addresses the emulator saw (ptxas proves it from where it placed
the shared variables and from the index arithmetic); global accesses are left alone, since ptxas cannot prove
a pointer argument's alignment and keeps scalar global accesses scalar (ptxas 13.0 merges none of the scalar
global loads of the bundled and suite programs; where it vectorises, the PTX already has ``.v2``/``.v4``).
Where ptxas and nvdisasm are installed, :mod:`gpusim.cuda.sass` says which groups ptxas really merged, and
``decide`` takes that answer instead of rule 4's.

:func:`merge_vector_accesses` applies the groups to a trace: each group becomes one instruction at its first
member's place (reading and writing all the members' registers, addressed by its lowest member), the other
members' rows go, and the PCs are renumbered densely, branch targets with them (``meta["origin_pc"]`` maps each
back).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpusim.functional.trace import KernelTrace, StaticInstr
from gpusim.timing.decode import _block_leaders, _is_fence
from isa.units import MemSpace

MERGE_SPACES = (MemSpace.SHARED.value,)
MAX_VECTOR_BYTES = 16


@dataclass(frozen=True)
class MergeGroup:
    """PTX accesses one SASS vector access performs."""

    pcs: tuple[int, ...]        # members, in program order; the merged access issues at pcs[0]
    base_pc: int                # the member with the lowest address: the merged access's lane addresses
    width_bytes: int            # bytes per lane of the merged access (8 or 16)

    @property
    def vector(self) -> int:
        return len(self.pcs)


def _segments(trace: KernelTrace) -> list[tuple[int, int]]:
    """[start, end) PC ranges of the straight-line segments (as :func:`gpusim.timing.decode.static_schedule`)."""
    instrs = trace.instructions
    n = len(instrs)
    bounds = [*_block_leaders(trace).tolist(), n]
    out = []
    for b in range(len(bounds) - 1):
        start = bounds[b]
        for pc in range(bounds[b], bounds[b + 1] + 1):
            if pc == bounds[b + 1] or _is_fence(instrs[pc]):
                if pc - start > 1:
                    out.append((start, pc))
                start = pc + 1
    return out


def _candidate(ins: StaticInstr) -> bool:
    return (ins.mem_space in MERGE_SPACES and ins.access_bytes in (4, 8) and not ins.is_atomic
            and ins.is_load != ins.is_store and "volatile" not in ins.opcode)


class _Executions:
    """Where each PC's executions are: rows of the trace, and a test that a segment ran through in one run."""

    def __init__(self, trace: KernelTrace):
        self.trace = trace
        pc = np.asarray(trace.pc, dtype=np.int64)
        self.pc = pc
        rows = pc.size
        new_warp = np.zeros(rows, dtype=bool)
        starts = np.asarray(trace.warp_start, dtype=np.int64)
        new_warp[starts[:-1][starts[:-1] < rows]] = True
        step = np.zeros(rows, dtype=np.int64)
        if rows:
            step[1:] = (pc[1:] == pc[:-1] + 1) & ~new_warp[1:]
        self.run = np.concatenate(([0], np.cumsum(step)))
        self._rows: dict[int, np.ndarray] = {}
        order = np.argsort(pc, kind="stable")
        pcs, first = np.unique(pc[order], return_index=True)
        bounds = [*first.tolist(), rows]
        for k, p in enumerate(pcs.tolist()):
            self._rows[p] = order[bounds[k]:bounds[k + 1]]

    def rows(self, pc: int) -> np.ndarray:
        return self._rows.get(pc, np.zeros(0, dtype=np.int64))

    def through(self, first: np.ndarray, length: int) -> np.ndarray:
        """Which of the rows ``first`` start a consecutive run of ``length`` PCs in one warp."""
        ok = first + length <= self.pc.size
        out = np.zeros(first.size, dtype=bool)
        f = first[ok]
        out[ok] = self.run[f + length - 1] - self.run[f] == length - 1
        return out


def _offsets(ex: _Executions, first_pc: int, pcs: list[int]) -> dict[int, int] | None:
    """Each PC's constant byte offset from ``first_pc``'s address, or None for a PC that has none."""
    t = ex.trace
    rows0 = ex.rows(first_pc)
    if rows0.size == 0:
        return None
    span = max(pcs) - first_pc + 1
    if not ex.through(rows0, span).all() or (t.mem_slot[rows0] < 0).any():
        return None
    a0 = t.addresses[t.mem_slot[rows0]]
    m0 = t.exec_mask[rows0]
    out: dict[int, int] = {first_pc: 0}
    for p in pcs:
        if p == first_pc:
            continue
        r = rows0 + (p - first_pc)
        if not np.array_equal(t.exec_mask[r], m0) or (t.mem_slot[r] < 0).any():
            continue
        a = t.addresses[t.mem_slot[r]]
        on = a0 >= 0
        if not np.array_equal(on, a >= 0) or not on.any():
            continue
        d = (a - a0)[on]
        if (d == d[0]).all():            # one offset in every lane of every execution (no sort needed)
            out[p] = int(d[0])
    return out


def _order_allows(instrs: list[StaticInstr], members: list[int]) -> bool:
    """Rule 3: the members can all issue where the first stands."""
    lo, hi = min(members), max(members)
    mset = set(members)
    is_store = instrs[lo].is_store
    reads = {r for p in members for r in instrs[p].src_regs}
    for q in range(lo + 1, hi + 1):
        ins = instrs[q]
        if q in mset:
            continue
        if reads & set(ins.dst_regs):
            return False
        later_dsts = {r for p in members if p > q for r in instrs[p].dst_regs}
        if later_dsts & (set(ins.src_regs) | set(ins.dst_regs)):
            return False
        if ins.mem_space in (MemSpace.SHARED.value, MemSpace.GENERIC.value) and (ins.is_store or is_store):
            return False
    return True


def _aligned(ex: _Executions, pc: int, width: int) -> bool:
    t = ex.trace
    slots = t.mem_slot[ex.rows(pc)]
    if (slots < 0).any():
        return False
    a = t.addresses[slots]
    return bool(((a < 0) | (a % width == 0)).all())


Decide = Callable[[MergeGroup], bool]


def find_merge_groups(trace: KernelTrace, decide: Decide | None = None) -> list[MergeGroup]:
    """The groups of accesses ptxas merges into one vector access (the rule in the module docstring).
    ``decide``, when given, says for each group rules 1-3 allow (at its widest, and its halves) whether
    ptxas merged it, instead of the alignment test."""
    instrs = trace.instructions
    if not any(_candidate(i) for i in instrs) or trace.pc.size == 0:
        return []
    ex = _Executions(trace)
    groups: list[MergeGroup] = []
    for start, end in _segments(trace):
        by_kind: dict[tuple, list[int]] = {}
        for p in range(start, end):
            if _candidate(instrs[p]):
                i = instrs[p]
                by_kind.setdefault((i.opcode, i.is_store, i.access_bytes, i.cache_op), []).append(p)
        for (_op, _st, size, _c), pcs in by_kind.items():
            left = list(pcs)
            while len(left) > 1:
                offs = _offsets(ex, left[0], left)
                if offs is None:
                    left = left[1:]
                    continue
                family = sorted(offs, key=lambda p: (offs[p], p))
                left = [p for p in left if p not in offs]
                groups += _cut(ex, instrs, family, offs, size, decide)
    return groups


def _cut(ex, instrs, family: list[int], offs: dict[int, int], size: int, decide: Decide | None) -> list[MergeGroup]:
    """Rule 4 over one family of accesses at constant offsets from each other."""
    at = {}
    for p in family:
        at.setdefault(offs[p], p)           # a repeated offset (the same word twice) keeps its first access
    out = []
    keys = sorted(at)
    i = 0
    while i < len(keys):
        made = None
        for width in (16, 8):
            k = width // size
            if width > MAX_VECTOR_BYTES or k < 2:
                continue
            want = [keys[i] + j * size for j in range(k)]
            if not all(w in at for w in want):
                continue
            members = sorted(at[w] for w in want)
            if not _order_allows(instrs, members):
                continue
            g = MergeGroup(pcs=tuple(members), base_pc=at[keys[i]], width_bytes=width)
            if (decide(g) if decide is not None else _aligned(ex, g.base_pc, width)):
                made = g
                break
        if made is None:
            i += 1
            continue
        out.append(made)
        i += made.vector
    return out


def _vector_opcode(opcode: str, k: int) -> str:
    parts = opcode.split(".")
    return ".".join([*parts[:-1], f"v{k}", parts[-1]])


def merge_vector_accesses(trace: KernelTrace, groups: list[MergeGroup]) -> KernelTrace:
    """``trace`` with each group issued as one vector access (see the module docstring); the trace itself when
    there is nothing to merge."""
    if not groups:
        return trace
    instrs = trace.instructions
    n = len(instrs)
    drop = np.zeros(n, dtype=bool)
    leader_of: dict[int, MergeGroup] = {}
    for g in groups:
        leader_of[g.pcs[0]] = g
        drop[list(g.pcs[1:])] = True
    kept = []
    for p in np.flatnonzero(~drop).tolist():
        ins = instrs[p]
        g = leader_of.get(p)
        if g is not None:
            members = [instrs[q] for q in g.pcs]
            ins = dataclasses.replace(
                ins, opcode=_vector_opcode(ins.opcode, g.vector), access_bytes=g.width_bytes,
                dst_regs=tuple(dict.fromkeys(r for m in members for r in m.dst_regs)),
                src_regs=tuple(dict.fromkeys(r for m in members for r in m.src_regs)))
        kept.append(ins)

    slot = np.asarray(trace.mem_slot, dtype=np.int64).copy()
    ex = _Executions(trace)
    for g in groups:
        first = ex.rows(g.pcs[0])
        base_rows = first + (g.base_pc - g.pcs[0])
        slot[first] = slot[base_rows]
    trace = drop_instructions(trace, drop, kept, slot)
    trace.meta["merged_accesses"] = [[int(p) for p in g.pcs] for g in groups]
    return trace


def drop_instructions(trace: KernelTrace, drop: np.ndarray, kept: list[StaticInstr],
                      slot: np.ndarray | None = None) -> KernelTrace:
    """``trace`` without the PCs ``drop`` marks (and their rows); ``kept``: the instructions of the PCs that stay,
    in order (as they are, or as a pass rewrote them), renumbered densely here, a branch to a dropped PC going
    to the next kept one; each row's memory slot from ``slot`` (default: the trace's).  The accesses of the
    dropped rows go, and ``meta["origin_pc"]`` maps each new PC to the PC it came from in the trace the
    passes began with."""
    pc = np.asarray(trace.pc, dtype=np.int64)
    if slot is None:
        slot = np.asarray(trace.mem_slot, dtype=np.int64)
    new_pc = np.cumsum(~drop) - 1
    kept_before = np.concatenate(([0], np.cumsum(~drop)))
    static = [dataclasses.replace(ins, pc=k, branch_target=int(kept_before[ins.branch_target])
                                  if ins.branch_target >= 0 else ins.branch_target)
              for k, ins in enumerate(kept)]
    prior = np.asarray(trace.meta.get("origin_pc") or range(len(trace.instructions)), dtype=np.int64)
    origin = prior[np.flatnonzero(~drop)]
    keep = ~drop[pc]
    slot = slot[keep]
    used = np.flatnonzero(slot >= 0)
    # addresses rows of the accesses that remain, in row order; dropped members' slots go
    old_slots = slot[used]
    new_slot = np.full(slot.shape, -1, dtype=np.int64)
    new_slot[used] = np.arange(used.size)
    counts = np.bincount(np.searchsorted(np.asarray(trace.warp_start, dtype=np.int64)[1:], np.flatnonzero(keep),
                                         side="right"), minlength=trace.n_warps)
    warp_start = np.concatenate(([0], np.cumsum(counts))).astype(trace.warp_start.dtype)
    meta = {**trace.meta, "origin_pc": origin.tolist()}
    if old_slots.size == len(trace.addresses) and np.array_equal(old_slots, np.arange(old_slots.size)):
        addresses, mem_space = trace.addresses, trace.mem_space     # every access stays: no copy (ALU drops)
    else:
        addresses, mem_space = trace.addresses[old_slots], trace.mem_space[old_slots]
    return dataclasses.replace(
        trace, instructions=static, warp_start=warp_start, pc=new_pc[pc[keep]].astype(trace.pc.dtype),
        active_mask=trace.active_mask[keep], exec_mask=trace.exec_mask[keep],
        mem_slot=new_slot.astype(trace.mem_slot.dtype), addresses=addresses, mem_space=mem_space, meta=meta)
