"""The trace recorder: builds a :class:`~gpusim.functional.trace.KernelTrace` while the emulator runs.

At every step (one PC executed by a set of warps of a batch) :meth:`TraceRecorder.record` keeps the PC, the
warps, their active and executing masks, and, for memory instructions, the lanes' state-space addresses the
step left behind (``st.addr``, one per executing lane; ``st.space``, the :class:`isa.units.MemSpace` code).
Nothing is converted per step: steps are buffered as the numpy arrays they are (plain lists, one batch at a
time), and :meth:`TraceRecorder.finish_batch` lays a batch out once as a *chunk* of the launch's trace (a
:class:`KernelTrace` of the batch's warps), grouped by warp in issue order (the trace's CSR layout), each
memory step becoming one ``addresses`` row per warp (``[32]`` lanes, -1 for lanes that did not access);
:meth:`KernelTrace.join` makes the launch's whole trace of its chunks.

A batch records at one of three levels (what a consumer of the stream asks of it, see
:mod:`gpusim.functional.stream`):

* :data:`FULL`: every warp instruction (the trace the timing model replays);
* :data:`MEMORY`: only the memory instructions (a chunk whose rows are the batch's memory accesses, which is
  what warming a cache needs), plus the counts below;
* :data:`COUNTS`: only how often each block ran each PC, and its thread instructions (a block's
  instruction-count *signature*, :class:`BlockCounts`);
* :data:`SECTORS`: only the 32-byte global sectors each block read and wrote (:class:`BlockSectors`: what
  warming a cache needs, with no trace laid out), plus the counts.
"""
from __future__ import annotations

import numpy as np

from dataclasses import dataclass

from gpusim.functional.trace import KernelTrace, StaticInstr, popcount32, timed_as_red
from isa.opcodes import TYPE_BITS
from isa.program import Imm, Instruction
from isa.units import MemSpace

FULL, MEMORY, COUNTS, SECTORS = "full", "memory", "counts", "sectors"
LEVELS = (FULL, MEMORY, COUNTS, SECTORS)
SECTOR_BYTES = 32
_GLOBAL = MemSpace.GLOBAL.code
CACHE_OPS = ("ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt")
_MEMORY_OPS = ("ld", "st", "atom", "red", "ldu", "st.async", "red.async")


def static_instruction(ins: Instruction) -> StaticInstr:
    """What the timing model needs to know of one PC (see :class:`StaticInstr`).

    Device-function parameter moves (``ld/st.param`` of a call sequence) are register moves (the ABI passes
    parameters in registers); ``cp.async`` is a global load (its shared-memory write is not timed); a
    device function's ``call`` and ``ret`` are branches."""
    if ins.frame_param:
        return StaticInstr(pc=ins.pc, opcode=ins.opcode, unit="int", latency_class="alu",
                           dst_regs=tuple(r.id for r in ins.regs_written()),
                           src_regs=tuple(r.id for r in ins.regs_read()), guard_reg=_guard(ins), ptx_line=ins.line,
                           src_file=ins.src_file, src_line=ins.src_line)
    if ins.base == "mbarrier" or (ins.base == "cp.async" and "mbarrier" in ins.mods):
        # an atomic update (or read) of the 8-byte barrier object in shared memory
        return StaticInstr(pc=ins.pc, opcode=ins.opcode, unit=ins.unit.value, latency_class=ins.latency_class.value,
                           dst_regs=tuple(r.id for r in ins.regs_written()),
                           src_regs=tuple(r.id for r in ins.regs_read()), guard_reg=_guard(ins),
                           mem_space="shared", access_bytes=8,
                           is_load=True, is_atomic="wait" not in " ".join(ins.mods) and "pending_count" not in ins.mods,
                           ptx_line=ins.line, src_file=ins.src_file, src_line=ins.src_line)
    if ins.base == "cp.async" and ins.space is not None:
        size = int(ins.operands[2].value) if len(ins.operands) > 2 and hasattr(ins.operands[2], "value") else 16
        return StaticInstr(pc=ins.pc, opcode=ins.opcode, unit=ins.unit.value, latency_class=ins.latency_class.value,
                           src_regs=tuple(r.id for r in ins.regs_read()), guard_reg=_guard(ins),
                           mem_space="global", access_bytes=size,
                           is_load=True, cache_op=next(("." + m for m in ins.mods if m in CACHE_OPS), None),
                           ptx_line=ins.line, src_file=ins.src_file, src_line=ins.src_line)
    mem = ins.base in _MEMORY_OPS
    elem = max(1, TYPE_BITS.get(ins.type or "b32", 32) // 8) if mem else 0
    static = StaticInstr(
        pc=ins.pc, opcode=ins.opcode, unit=ins.unit.value, latency_class=ins.latency_class.value,
        dst_regs=tuple(r.id for r in ins.regs_written()), src_regs=tuple(r.id for r in ins.regs_read()),
        guard_reg=_guard(ins), mem_space=ins.space if mem else None, access_bytes=elem * ins.vec if mem else 0,
        is_load=ins.base in ("ld", "ldu", "atom"), is_store=ins.base in ("st", "red", "st.async", "red.async"),
        is_atomic=ins.base in ("atom", "red", "red.async"), aggregated=ins.aggregated,
        cache_op=next(("." + m for m in ins.mods if m in CACHE_OPS), None) if mem else None,
        is_barrier=ins.base in ("bar", "barrier") and "warp" not in ins.mods,
        is_membar=ins.base in ("membar", "fence"),
        is_branch=ins.base in ("bra", "brx", "call") or (ins.base == "ret" and ins.target >= 0),
        # brx.idx has a table of targets, which this one field cannot hold: -1 makes the hoisting
        # scheduler take the targets such a kernel's trace shows (timing.decode._block_leaders)
        branch_target=ins.target if ins.base in ("bra", "call", "ret") and ins.target >= 0 else -1,
        is_exit=ins.base in ("exit", "trap") or (ins.base == "ret" and ins.target < 0), ptx_line=ins.line,
        src_file=ins.src_file, src_line=ins.src_line, no_unroll=ins.nounroll,
        imm_srcs=sum(isinstance(op, Imm) for op in ins.operands[1:]) if ins.operands else 0)
    return timed_as_red(static) if ins.result_unread else static


def _guard(ins: Instruction) -> int:
    return ins.guard.id if ins.guard is not None else -1


class _Batch:
    """The steps of one batch, as recorded."""

    __slots__ = ("first_warp", "n_warps", "level", "pc", "warps", "active", "executing", "mem_step", "addr",
                 "space", "rows", "nbytes", "sector_block", "sector", "sector_store")

    def __init__(self, first_warp: int, n_warps: int, level: str):
        self.first_warp, self.n_warps, self.level = first_warp, n_warps, level
        self.pc: list[int] = []
        self.warps: list[np.ndarray] = []
        self.active: list[np.ndarray] = []
        self.executing: list[np.ndarray] = []
        self.mem_step: list[int] = []           # step index of each memory step
        self.addr: list[np.ndarray] = []        # its [warps, 32] address rows
        self.space: list[int] = []              # its MemSpace code
        self.rows = 0                           # warp instructions recorded
        self.nbytes = 0                         # what the buffers hold, roughly (for the memory guard)
        self.sector_block: list[np.ndarray] = []  # SECTORS: batch-local block of each global lane access
        self.sector: list[np.ndarray] = []      # ... its sector (byte address // 32)
        self.sector_store: list[bool] = []      # ... per step: a store (else a load)


@dataclass
class BlockCounts:
    """The instruction-count signature of the blocks of one batch: ``warp_counts[i, pc]`` is how many times
    the warps of block ``first_block + i`` executed ``pc``; ``thread_counts[i]`` its thread instructions
    (active lanes summed over its warp instructions)."""

    first_block: int
    warp_counts: np.ndarray      # int64 [blocks, pcs]
    thread_counts: np.ndarray    # int64 [blocks]

    def piece(self, lo: int, hi: int) -> BlockCounts:
        i, j = lo - self.first_block, hi - self.first_block
        return BlockCounts(lo, self.warp_counts[i:j], self.thread_counts[i:j])

    def join(self, after: BlockCounts) -> BlockCounts:
        return BlockCounts(self.first_block, np.concatenate([self.warp_counts, after.warp_counts]),
                           np.concatenate([self.thread_counts, after.thread_counts]))


@dataclass
class BlockSectors:
    """The global sectors the blocks ``first_block .. first_block + n_blocks - 1`` accessed: ``read_block[i]``
    read ``read_sector[i]``; likewise the writes (stores and reductions).  One entry per run of a warp's
    lanes on one sector (repeats across runs kept)."""

    first_block: int
    n_blocks: int
    read_block: np.ndarray       # int32
    read_sector: np.ndarray      # int64
    write_block: np.ndarray
    write_sector: np.ndarray

    def of_blocks(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """(sectors read, sectors written) by blocks ``lo .. hi - 1``, repeats kept."""
        r = (self.read_block >= lo) & (self.read_block < hi)
        w = (self.write_block >= lo) & (self.write_block < hi)
        return self.read_sector[r], self.write_sector[w]

    def piece(self, lo: int, hi: int) -> BlockSectors:
        r = (self.read_block >= lo) & (self.read_block < hi)
        w = (self.write_block >= lo) & (self.write_block < hi)
        return BlockSectors(lo, hi - lo, self.read_block[r], self.read_sector[r], self.write_block[w],
                            self.write_sector[w])

    def join(self, after: BlockSectors) -> BlockSectors:
        """These blocks and the next ones' (``after``: from ``first_block + n_blocks``)."""
        return BlockSectors(self.first_block, self.n_blocks + after.n_blocks,
                            *(np.concatenate([getattr(self, f), getattr(after, f)])
                              for f in ("read_block", "read_sector", "write_block", "write_sector")))


@dataclass
class BatchRecord:
    """What one batch of blocks (``first_block .. first_block + n_blocks - 1``) left behind: its chunk of the
    trace (:data:`FULL`: every row; :data:`MEMORY`: its memory rows only; else None) and its blocks'
    signatures (:data:`MEMORY` and :data:`COUNTS`; for a full chunk :func:`block_counts` derives them)."""

    first_block: int
    n_blocks: int
    level: str
    trace: KernelTrace | None = None
    counts: BlockCounts | None = None
    sectors: BlockSectors | None = None

    def piece(self, lo: int, hi: int) -> BatchRecord:
        """Blocks ``lo .. hi - 1`` of a :data:`SECTORS` or :data:`COUNTS` record, as their own batch's."""
        if self.trace is not None:
            raise ValueError("a record with a trace is not cut into pieces")
        return BatchRecord(lo, hi - lo, self.level, None, self.counts.piece(lo, hi),
                           None if self.sectors is None else self.sectors.piece(lo, hi))

    def join(self, after: BatchRecord) -> BatchRecord:
        """This record and the next blocks' (same level, from ``first_block + n_blocks``)."""
        return BatchRecord(self.first_block, self.n_blocks + after.n_blocks, self.level, None,
                           self.counts.join(after.counts),
                           None if self.sectors is None else self.sectors.join(after.sectors))


def block_counts(trace: KernelTrace, first_block: int, n_blocks: int) -> BlockCounts:
    """The signatures of the blocks of a full chunk (see :class:`BlockCounts`)."""
    n_pc = len(trace.instructions)
    per_warp = np.diff(trace.warp_start)
    block = np.repeat(trace.warp_block.astype(np.int64) - first_block, per_warp)
    warp_counts = np.bincount(block * n_pc + trace.pc, minlength=n_blocks * n_pc).reshape(n_blocks, n_pc)
    threads = np.bincount(block, weights=popcount32(trace.active_mask), minlength=n_blocks)
    return BlockCounts(first_block, warp_counts.astype(np.int64), threads.astype(np.int64))


class TraceRecorder:
    """Records the steps of a launch's batches, one batch at a time, and lays each out as a chunk."""

    def __init__(self, **static) -> None:
        """``static``: the :class:`KernelTrace` fields every chunk shares (kernel, grid, block, shared_bytes,
        regs_per_thread, instructions, meta, local_bytes_per_thread), and ``warps_per_block``."""
        self.static = static
        self._cur: _Batch | None = None
        self._is_store = [bool(getattr(i, "is_store", False)) for i in static.get("instructions", ())]
        self._wpb = static.get("warps_per_block", 1)

    def begin_batch(self, first_warp: int, n_warps: int, level: str = FULL) -> None:
        """Warps ``first_warp .. first_warp + n_warps - 1`` of the launch run next (batch-local ids from 0)."""
        if level not in LEVELS:
            raise ValueError(f"record level must be one of {', '.join(LEVELS)}, not {level!r}")
        self._cur = _Batch(first_warp, n_warps, level)

    @property
    def batch_rows(self) -> int:
        """Warp instructions the current batch has recorded."""
        return self._cur.rows if self._cur is not None else 0

    @property
    def batch_bytes(self) -> int:
        """Roughly what the current batch's buffers hold (bytes)."""
        return self._cur.nbytes if self._cur is not None else 0

    def record(self, st) -> None:
        """One step: ``st.pc`` executed by warps ``st.selw`` with masks ``st.act``/``st.exe``."""
        b = self._cur
        n = st.selw.size
        b.pc.append(st.pc)
        b.warps.append(st.selw)
        b.active.append(st.act)
        b.rows += n
        full = b.level == FULL
        # numpy arrays of a few warps are mostly object header: ~100 bytes each, and the list's pointer
        if full:
            b.executing.append(st.exe)
            b.nbytes += 360 + 16 * n
        else:
            b.nbytes += 240 + 12 * n
        if st.addr is not None and b.level == SECTORS:
            if st.space == _GLOBAL and st.addr.size:
                # the lanes of a warp are adjacent, so a run of one sector (a coalesced or broadcast access)
                # is kept once: ~4 entries a warp instead of 32
                block = np.repeat(st.selw // self._wpb, popcount32(st.exe))
                sector = st.addr >> 5
                keep = np.ones(sector.size, dtype=bool)
                keep[1:] = (sector[1:] != sector[:-1]) | (block[1:] != block[:-1])
                b.sector_block.append(block[keep])
                b.sector.append(sector[keep])
                b.sector_store.append(self._is_store[st.pc])
                b.nbytes += 240 + 16 * int(keep.sum())
        elif st.addr is not None and b.level != COUNTS:
            E = st.exec_matrix()
            rows = np.full(E.shape, -1, dtype=np.int64)
            rows[E] = st.addr
            b.mem_step.append(len(b.pc) - 1)
            b.addr.append(rows)
            b.space.append(st.space)
            b.nbytes += 120 + rows.nbytes
            if not full:
                b.executing.append(st.exe)
                b.nbytes += 120 + 4 * n

    def finish_batch(self) -> BatchRecord:
        """The current batch, laid out (see :class:`BatchRecord`); its buffers are released."""
        b, self._cur = self._cur, None
        wpb = self.static["warps_per_block"]
        first_block, n_blocks = b.first_warp // wpb, b.n_warps // wpb
        rec = BatchRecord(first_block, n_blocks, b.level)
        counts = np.array([len(w) for w in b.warps], dtype=np.int64)
        if b.level != FULL:
            rec.counts = self._counts(b, counts, first_block, n_blocks)
        if b.level == FULL:
            rec.trace = self._chunk(b, counts)
        elif b.level == SECTORS:
            rec.sectors = self._sectors(b, first_block, n_blocks)
        elif b.level == MEMORY:
            mem = np.array(b.mem_step, dtype=np.int64)
            b.pc = [b.pc[i] for i in b.mem_step]
            b.warps = [b.warps[i] for i in b.mem_step]
            b.active = [b.active[i] for i in b.mem_step]
            b.mem_step = list(range(len(mem)))
            rec.trace = self._chunk(b, counts[mem])
            rec.trace.meta = dict(rec.trace.meta, memory_only=True)
        return rec

    def _sectors(self, b: _Batch, first_block: int, n_blocks: int) -> BlockSectors:
        """The batch's global lane accesses as (block, sector), loads apart from stores."""
        parts = []
        for store in (False, True):
            pick = [i for i, s in enumerate(b.sector_store) if s == store]
            if pick:
                block = np.concatenate([b.sector_block[i] for i in pick])
                sector = np.concatenate([b.sector[i] for i in pick]).astype(np.int64)
            else:
                block, sector = np.zeros(0, np.int64), np.zeros(0, np.int64)
            keep = sector >= 0
            parts += [(first_block + block[keep]).astype(np.int32), sector[keep]]
        b.sector_block, b.sector = [], []
        return BlockSectors(first_block, n_blocks, *parts)

    def _counts(self, b: _Batch, counts: np.ndarray, first_block: int, n_blocks: int) -> BlockCounts:
        """Per block: warp executions of each PC, thread instructions."""
        wpb = self.static["warps_per_block"]
        n_pc = len(self.static["instructions"])
        if not b.warps:
            return BlockCounts(first_block, np.zeros((n_blocks, n_pc), np.int64), np.zeros(n_blocks, np.int64))
        block = np.concatenate(b.warps).astype(np.int64) // wpb
        pc = np.repeat(np.array(b.pc, dtype=np.int64), counts)
        warp_counts = np.bincount(block * n_pc + pc, minlength=n_blocks * n_pc).reshape(n_blocks, n_pc)
        threads = np.bincount(block, weights=popcount32(np.concatenate(b.active)), minlength=n_blocks)
        return BlockCounts(first_block, warp_counts.astype(np.int64), threads.astype(np.int64))

    def _chunk(self, b: _Batch, counts: np.ndarray) -> KernelTrace:
        """The batch's steps as a trace chunk: its warps' rows grouped by warp in issue order; memory slots
        numbered from 0 in step order."""
        static = dict(self.static)
        wpb = static.pop("warps_per_block")
        pc_all = np.repeat(np.array(b.pc, dtype=np.int32), counts)
        w_all = np.concatenate(b.warps).astype(np.int64) if b.warps else np.zeros(0, np.int64)
        slot = np.full(counts.sum(), -1, dtype=np.int64)
        addrs = np.zeros((0, 32), np.int64)
        spaces = np.zeros(0, np.uint8)
        if b.mem_step:
            starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
            ms = np.asarray(b.mem_step, dtype=np.int64)
            n_rows = counts[ms]
            # each memory step's rows, step after step (one arange per step, built at once)
            rows = np.repeat(starts[ms] - np.concatenate(([0], np.cumsum(n_rows)[:-1])), n_rows) + \
                np.arange(int(n_rows.sum()), dtype=np.int64)
            slot[rows] = np.arange(rows.size)
            sizes = np.array([a.shape[0] for a in b.addr], dtype=np.int64)
            addrs = np.concatenate(b.addr)
            b.addr = []                  # the steps' rows, now copied: not held twice while the chunk is built
            spaces = np.repeat(np.array(b.space, dtype=np.uint8), sizes)
        order = np.argsort(w_all, kind="stable")
        per_warp = np.bincount(w_all, minlength=b.n_warps)
        warps = np.arange(b.first_warp, b.first_warp + b.n_warps)
        return KernelTrace(
            **static,
            warp_block=(warps // wpb).astype(np.int32), warp_in_block=(warps % wpb).astype(np.int32),
            warp_start=np.concatenate(([0], np.cumsum(per_warp))).astype(np.int64),
            pc=pc_all[order].astype(np.int32),
            active_mask=np.concatenate(b.active)[order].astype(np.uint32) if b.active else np.zeros(0, np.uint32),
            exec_mask=np.concatenate(b.executing)[order].astype(np.uint32) if b.executing else np.zeros(0, np.uint32),
            mem_slot=slot[order].astype(np.int32), addresses=addrs, mem_space=spaces, first_warp=b.first_warp)
