"""What-if idealisations: the same trace timed again with one mechanism of the model made perfect.

A simulator can do what a profiler cannot: re-run the *same* dynamic instruction stream with one cost
taken away and measure what that cost was.  :class:`Idealization` names the mechanisms to take away;
``simulate(trace, gpu, ideal=Idealization.of("banks"))`` applies it at the few places where the model
builds that cost (and nowhere in the hot loop):

==============  =====================================================================================
name            where it acts
==============  =====================================================================================
``launch``      the GPU config: ``kernel_launch_cycles = 0``, ``kernel_launch_ns = 0``
``occupancy``   occupancy: the register and shared-memory limits are lifted
``coalescing``  the trace: global addresses renamed so each request touches the fewest sectors
``banks``       the LSU front end: every shared access takes its conflict-free wavefront count
``reuse``       the LSU front end: every global load is served as a shared-memory load
``latency``     the memory system: reads below L1 take no fixed latency, only their queueing
``divergence``  the trace: the threads of a block that run an instruction packed into full warps
``dram``        the memory system: DRAM bursts at the idle-bank latency, no bandwidth limit
``atomics``     the LSU front end and the memory system: same-address atomics do not serialise
``barriers``    the decoder: ``bar.sync`` issues like an ALU instruction and waits for nobody
==============  =====================================================================================

What each one keeps and what it cannot do is in :data:`IDEALIZATIONS` (it is printed with every what-if
result, so that a speed-up is never read as more than it is).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from gpusim.errors import GpusimError
from gpusim.functional.trace import KernelTrace, popcount32
from isa.units import MemSpace


@dataclass(frozen=True)
class WhatIfSpec:
    """One idealisation as the user reads it: its title, what it changes, what it keeps or cannot do."""

    name: str
    title: str
    changes: str
    cannot: str


IDEALIZATIONS: dict[str, WhatIfSpec] = {s.name: s for s in (
    WhatIfSpec(
        "launch", "zero launch overhead",
        "the kernel's first blocks are dispatched at cycle 0 instead of after the kernel launch latency "
        "(kernel_launch_cycles = kernel_launch_ns = 0); each block's own launch latency stays",
        "it cannot remove the fixed cost of a launch on a real GPU; a kernel gains this only by doing more "
        "work per launch (a bigger problem, fused kernels, CUDA graphs hide the host side only)"),
    WhatIfSpec(
        "occupancy", "full occupancy",
        "as many blocks per SM as the warp slots and block slots allow: the register-file and shared-memory "
        "limits are lifted",
        "it keeps the block size and the grid: a grid with fewer blocks than the SMs can hold gains nothing, "
        "and the registers or shared memory the extra blocks would need are not modelled"),
    WhatIfSpec(
        "coalescing", "perfect coalescing",
        "every global access keeps the bytes it moves and every reuse of them, but the data is laid out in "
        "the order the warps first touch it, so the lanes of one request use the fewest 32-byte sectors and "
        "128-byte lines their bytes need",
        "data that a request gathers from what earlier requests first touched keeps its earlier place, so "
        "such a request may still touch several sectors; local memory is left as it is"),
    WhatIfSpec(
        "banks", "conflict-free shared memory",
        "every shared-memory access takes its conflict-free wavefront count (one per 128 bytes returned, "
        "broadcasts merged), as if the data were padded or swizzled perfectly",
        "it keeps every shared access and its latency; the extra instructions a padded or swizzled index "
        "may need are not added"),
    WhatIfSpec(
        "reuse", "global loads from shared memory",
        "every global load is served as a conflict-free shared-memory load of the same lanes (shared "
        "latency and wavefronts, no L1, L2 or DRAM trip), as if all the data the kernel reads had been "
        "staged in shared memory by a perfect tiling",
        "it is an upper bound on what tiling gains: a tiled kernel still reads each tile from global "
        "memory once per block, waits for it at a barrier, and stores it to shared memory; none of that is "
        "charged here; stores and atomics are unchanged"),
    WhatIfSpec(
        "latency", "no memory latency",
        "every global or local load (and constant-cache miss) that misses L1 is usable the L1 hit latency "
        "plus the time it queued after its L1 tag stage: the crossbar's traversal, the L2 slice's pipeline, "
        "the far partition's extra cycles and the DRAM's controller and idle-bank read time are zero, while "
        "every crossbar port, L2 slice, MSHR, DRAM bank and the DRAM bus is held as long as before, so the "
        "bandwidth limits stay",
        "a kernel cannot remove latency, only hide it: this is the most that more resident warps, more "
        "independent loads per thread (ILP) or prefetching could gain; L1 hits, shared memory, stores and "
        "atomics keep their latency"),
    WhatIfSpec(
        "divergence", "no divergence",
        "the threads of a block that execute an instruction (its k-th execution in each warp) are packed "
        "into as few full warps as hold them, as if the threads taking each path were grouped into the same "
        "warps; memory addresses move with their threads",
        "it cannot invent the work of paths not taken: every thread instruction is still executed, only by "
        "fewer warp instructions; packed accesses may coalesce worse or conflict more (as reordered threads "
        "would); barriers and exits stay in every warp; threads are never moved between blocks"),
    WhatIfSpec(
        "dram", "infinite DRAM bandwidth",
        "every DRAM burst completes after the idle-bank (unloaded) DRAM latency: no bus, bank, row-buffer "
        "or refresh waiting",
        "L2 slices, the crossbar and L1 keep their bandwidth; the DRAM latency itself is not removed"),
    WhatIfSpec(
        "atomics", "no atomic contention",
        "atomics to one address do not serialise: all lanes of a warp on one word cost one operation, and "
        "warps do not wait for each other's updates of a word",
        "each atomic still travels to L2 (or the shared banks) and back; only the waiting for other "
        "updates of the same word is removed, so the results would be wrong"),
    WhatIfSpec(
        "barriers", "no barrier waits",
        "bar.sync issues like an ALU instruction: a warp never waits for the rest of its block",
        "the program would be incorrect without its barriers; this only measures what the waiting at them "
        "costs (load imbalance between the warps of a block, and latency exposed at every barrier)"),
)}

WHAT_IF_NAMES: tuple[str, ...] = tuple(IDEALIZATIONS)


@dataclass(frozen=True)
class Idealization:
    """The mechanisms to idealise in one simulation (each a flag; all False: the model as it is)."""

    launch: bool = False
    occupancy: bool = False
    coalescing: bool = False
    banks: bool = False
    reuse: bool = False
    latency: bool = False
    divergence: bool = False
    dram: bool = False
    atomics: bool = False
    barriers: bool = False

    @classmethod
    def of(cls, *names: str) -> "Idealization":
        """``Idealization.of("banks", "launch")``; an unknown name is a :class:`GpusimError` naming them."""
        bad = [n for n in names if n not in IDEALIZATIONS]
        if bad:
            raise GpusimError(f"unknown what-if {bad[0]!r}; known: {', '.join(WHAT_IF_NAMES)}")
        return cls(**{n: True for n in names})

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n in WHAT_IF_NAMES if getattr(self, n))

    def __bool__(self) -> bool:
        return bool(self.names)

    def __str__(self) -> str:
        return ", ".join(IDEALIZATIONS[n].title for n in self.names) or "none"

    # -- where each acts --------------------------------------------------------------------------------
    def apply_to_gpu(self, gpu):
        return gpu.replace(kernel_launch_cycles=0, kernel_launch_ns=0.0) if self.launch else gpu

    def apply_to_trace(self, trace: KernelTrace) -> KernelTrace:
        if self.divergence:
            trace = compact_divergence(trace)
        if self.coalescing:
            trace = coalesce_addresses(trace)
        return trace


def _slot_rows(trace: KernelTrace) -> tuple[np.ndarray, np.ndarray]:
    """(rows, slots) of the memory instructions of ``trace``, in row order."""
    rows = np.flatnonzero(np.asarray(trace.mem_slot) >= 0)
    return rows, np.asarray(trace.mem_slot, dtype=np.int64)[rows]


# -- perfect coalescing ---------------------------------------------------------------------------------
WORD = 4
SECTOR_WORDS = 8
LINE_WORDS = 32


def coalesce_addresses(trace: KernelTrace) -> KernelTrace:
    """``trace`` with its global addresses renamed (see ``IDEALIZATIONS["coalescing"]``).

    Words (4 bytes) are numbered in the order the trace first touches them (warp by warp, request by
    request, lane by lane); the words a request touches first are placed together at the next free
    position, moved up to a sector boundary (or a line boundary when they need more than one sector) when
    that saves a sector or a line.  A word keeps its new place for every later access, so reuse, sharing
    between warps and same-address atomics are what they were.  A lane's byte offset in its word is kept.
    """
    rows, slots = _slot_rows(trace)
    space = np.asarray(trace.mem_space)
    glob = slots[space[slots] == MemSpace.GLOBAL.code]
    if glob.size == 0:
        return trace
    size = np.array([max(1, i.access_bytes) for i in trace.instructions], dtype=np.int64)
    pcs = np.asarray(trace.pc, dtype=np.int64)
    slot_pc = np.zeros(trace.addresses.shape[0], dtype=np.int64)
    slot_pc[slots] = pcs[rows]
    addr = trace.addresses[glob].astype(np.int64)                  # [G, 32], in first-touch order
    on = addr >= 0
    nwords = np.maximum(1, -(-size[slot_pc[glob]] // WORD))         # words per lane of each request
    span = int(nwords.max())
    k = np.arange(span, dtype=np.int64)
    words = np.where(on[:, :, None] & (k[None, None, :] < nwords[:, None, None]),
                     addr[:, :, None] // WORD + k[None, None, :], -1).reshape(len(glob), -1)
    flat = words.ravel()
    valid = flat >= 0
    ids = flat[valid]
    uniq, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    req_of = np.flatnonzero(valid) // words.shape[1]                 # request of each valid entry
    # order of first touch: the position of each distinct word's first use
    by_first = np.argsort(first, kind="stable")
    first_req = req_of[first[by_first]]
    new_per_req = np.bincount(first_req, minlength=len(glob))
    base = _place(new_per_req)
    rank = np.arange(by_first.size) - np.concatenate(([0], np.cumsum(new_per_req)))[first_req]
    new_word = np.empty(uniq.size, dtype=np.int64)
    new_word[by_first] = base[first_req] + rank
    start = int(addr[on].min()) // 4096 * 4096 // WORD
    renamed = np.full(flat.size, -1, dtype=np.int64)
    renamed[valid] = (start + new_word[inverse]) * WORD
    lane_word = renamed.reshape(len(glob), 32, span)[:, :, 0]
    out = trace.addresses.copy()
    out[glob] = np.where(on, lane_word + addr % WORD, -1)
    return dataclasses.replace(trace, addresses=out)


def _place(n_words: np.ndarray) -> np.ndarray:
    """Start word of each request's new words, packed densely, moved up to a sector (line) boundary where
    that lets them take their minimum number of sectors (lines)."""
    out = np.zeros(n_words.size, dtype=np.int64)
    cur = 0
    for j, n in enumerate(n_words.tolist()):
        if not n:
            continue
        if (cur % SECTOR_WORDS + n + SECTOR_WORDS - 1) // SECTOR_WORDS > (n + SECTOR_WORDS - 1) // SECTOR_WORDS:
            cur = -(-cur // SECTOR_WORDS) * SECTOR_WORDS
        if (cur % LINE_WORDS + n + LINE_WORDS - 1) // LINE_WORDS > (n + LINE_WORDS - 1) // LINE_WORDS:
            cur = -(-cur // LINE_WORDS) * LINE_WORDS
        out[j] = cur
        cur += n
    return out


# -- no divergence --------------------------------------------------------------------------------------
def compact_divergence(trace: KernelTrace) -> KernelTrace:
    """``trace`` with each block's partial-warp executions packed (see ``IDEALIZATIONS["divergence"]``).

    Rows are grouped by (block, pc, k) where k counts a warp's executions of that pc; a group whose warps
    ran T threads in all keeps ceil(T / 32) rows (those of its first warps), the others are dropped.  The
    kept rows carry the group's threads in order (warp by warp, lane by lane): full masks, the last one
    partial, and for memory instructions those threads' addresses.  Barrier and exit rows are never
    dropped (every warp must still reach them), nor are groups whose rows resolved to different state
    spaces.
    """
    n = trace.n_instructions
    if n == 0:
        return trace
    pcs = np.asarray(trace.pc, dtype=np.int64)
    starts = np.asarray(trace.warp_start, dtype=np.int64)
    warp = np.repeat(np.arange(trace.n_warps, dtype=np.int64), np.diff(starts))
    block = np.asarray(trace.warp_block, dtype=np.int64)[warp]
    fixed = np.array([i.is_barrier or i.is_exit for i in trace.instructions] or [False], dtype=bool)
    # k: the how-many-th execution of its pc by its warp
    order = np.lexsort((np.arange(n), pcs, warp))
    wp = warp[order] * (len(trace.instructions) + 1) + pcs[order]
    new = np.ones(n, dtype=bool)
    new[1:] = wp[1:] != wp[:-1]
    grp_start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    k = np.empty(n, dtype=np.int64)
    k[order] = np.arange(n) - grp_start
    lanes = popcount32(trace.active_mask).astype(np.int64)
    # groups (block, pc, k), rows of a group in warp order (warp ids rise with warp_in_block in a block)
    gorder = np.lexsort((warp, k, pcs, block))
    gb, gp, gk = block[gorder], pcs[gorder], k[gorder]
    gnew = np.ones(n, dtype=bool)
    gnew[1:] = (gb[1:] != gb[:-1]) | (gp[1:] != gp[:-1]) | (gk[1:] != gk[:-1])
    gid = np.cumsum(gnew) - 1
    n_groups = int(gid[-1]) + 1
    total = np.bincount(gid, weights=lanes[gorder], minlength=n_groups).astype(np.int64)
    rows_in = np.bincount(gid, minlength=n_groups)
    keep_n = np.maximum(1, -(-total // 32))
    first_of = np.flatnonzero(gnew)
    pos = np.arange(n) - first_of[gid]                                  # position of the row in its group
    slots = np.asarray(trace.mem_slot, dtype=np.int64)
    space = np.asarray(trace.mem_space)
    mixed = np.zeros(n_groups, dtype=bool)
    mem_rows = slots[gorder] >= 0
    if mem_rows.any():
        sp = np.where(mem_rows, space[np.maximum(slots[gorder], 0)].astype(np.int64), -1)
        lo = np.full(n_groups, 1 << 40, dtype=np.int64)
        hi = np.full(n_groups, -1, dtype=np.int64)
        np.minimum.at(lo, gid, sp)
        np.maximum.at(hi, gid, sp)
        mixed = lo != hi
    compact = (keep_n < rows_in) & ~fixed[gp[first_of]] & ~mixed
    if not compact.any():
        return trace
    in_compact = compact[gid]                                            # per sorted row
    drop_sorted = in_compact & (pos >= keep_n[gid])
    keep = np.ones(n, dtype=bool)
    keep[gorder[drop_sorted]] = False
    active = trace.active_mask.astype(np.uint64)
    execm = trace.exec_mask.astype(np.uint64)
    addresses = trace.addresses.copy()
    # every thread of a compacted group goes to row (its index in the group) // 32, lane ... % 32
    src_sorted = np.flatnonzero(in_compact)
    src = gorder[src_sorted]
    lane_bits = (trace.active_mask[src, None] >> np.arange(32, dtype=np.uint32)) & 1
    r, lane = np.nonzero(lane_bits)
    per_row = lanes[src]
    row_off = np.cumsum(per_row) - per_row                               # threads before the row ...
    grp = gid[src_sorted]
    grp_off = row_off - row_off[np.searchsorted(grp, grp)]               # ... within its group
    idx = grp_off[r] + (np.arange(r.size) - (np.cumsum(per_row) - per_row)[r])
    dest = gorder[first_of[grp[r]] + idx // 32]
    dlane = (idx % 32).astype(np.uint64)
    executed = (trace.exec_mask[src[r]] >> lane.astype(np.uint32)) & 1
    kept_rows = gorder[src_sorted[pos[src_sorted] < keep_n[grp]]]
    active[kept_rows] = 0
    execm[kept_rows] = 0
    np.add.at(active, dest, np.uint64(1) << dlane)
    np.add.at(execm, dest[executed == 1], np.uint64(1) << dlane[executed == 1])
    if (slots[src] >= 0).any():
        mem = slots[src[r]] >= 0
        kept_mem = slots[kept_rows]
        addresses[kept_mem[kept_mem >= 0]] = -1
        addresses[slots[dest[mem]], dlane[mem].astype(np.int64)] = trace.addresses[slots[src[r][mem]], lane[mem]]
    # drop the rows (and their memory slots), renumbering the slots that stay densely in row order
    old_slot = slots[keep]
    has = old_slot >= 0
    new_slot = np.full(old_slot.size, -1, dtype=np.int64)
    new_slot[has] = np.arange(int(has.sum()))
    counts = np.bincount(warp[keep], minlength=trace.n_warps)
    warp_start = np.concatenate(([0], np.cumsum(counts))).astype(trace.warp_start.dtype)
    return dataclasses.replace(
        trace, pc=trace.pc[keep], active_mask=active[keep].astype(trace.active_mask.dtype),
        exec_mask=execm[keep].astype(trace.exec_mask.dtype), mem_slot=new_slot.astype(trace.mem_slot.dtype),
        addresses=addresses[old_slot[has]], mem_space=np.asarray(trace.mem_space)[old_slot[has]],
        warp_start=warp_start, meta={**trace.meta, "divergence_packed": True})
