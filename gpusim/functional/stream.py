"""A kernel launch emulated batch by batch, its trace handed over in chunks of whole blocks.

The emulator runs a launch in batches of consecutive blocks (:mod:`gpusim.functional.emulator`); a
:class:`LaunchStream` runs one batch each time its consumer asks (:meth:`LaunchStream.next_batch`), in linear
block order, and hands over what that batch recorded (a :class:`~gpusim.functional.recorder.BatchRecord`: a
chunk of the trace, or only the batch's memory accesses, or only its blocks' instruction counts, as the
consumer asks per batch).  So the timing model can take blocks as its block scheduler needs them and drop
each block's rows once it retires: what the launch holds in memory follows the resident blocks and one
batch, not the kernel's length.  When the last batch has run, :meth:`LaunchStream.finish` gives the launch's
results (arguments, symbols, statistics), as :meth:`Emulator.launch` does.

Two guards stop a runaway kernel: the instruction budget (warp instructions of the launch), and, while a
batch records, the memory its trace buffers hold (``trace_memory_limit`` bytes): an endless loop that
records grows by about 20 bytes per warp instruction, so it meets this limit long before the budget.  (A
batch that comes back to a state it had, with no global write, is stopped at once:
:mod:`gpusim.functional.livelock`.)

A batch that records is sized by what the blocks before it recorded: the first is one block, each next one at
most twice the last, and none more than :data:`RECORD_BATCH_ROWS` warp instructions at the largest per-block
count seen so far.  So a kernel of a few long blocks (a million warp instructions each) records one or two
blocks at a time instead of a whole batch of them at once, and a kernel of many short blocks reaches the
emulator's full batch after a few doublings.
"""
from __future__ import annotations

import time
from typing import Iterator

import numpy as np

from gpusim.functional.host import EmulationStats, LaunchOutput
from gpusim.functional.recorder import COUNTS, FULL, LEVELS, MEMORY, SECTORS, BatchRecord, TraceRecorder
from gpusim.functional.trace import KernelTrace

__all__ = ["LaunchStream", "FULL", "MEMORY", "COUNTS", "SECTORS", "PROGRESS_INTERVAL_S"]

PROGRESS_INTERVAL_S = 0.5
# Warp instructions a recording batch aims at, at most.  A batch's trace and its copies while the timing
# model takes it in (the ptxas-like passes, the requests) cost ~250 bytes a row at their peak on a kernel
# with 40% memory rows (tiled matmul), on top of the resident blocks' rows.  Larger batches vectorise the
# emulator more (each step runs over more warps) and load fewer chunks.  Measured on the tiled matmul timed in
# full (benchmarks/scale.py --sample full, user+sys CPU, after the in-place compaction and feed growth):
# 512: 1M rows 24.3-24.9 s, 740 MB peak; 400k 27.6-28.7 s, 545 MB; 1024: 1M 241 s, 1,389 MB.
RECORD_BATCH_ROWS = 1_000_000
# Sector entries (12 bytes each) a batch run ahead may hold (run_ahead).
AHEAD_SECTOR_ENTRIES = 8_000_000


# What lets a block see another's work within the launch: atomics on global memory, and the loads, stores
# and fences with a memory order or volatile (flags, look-back).  Such a kernel's blocks may run differently
# in batches of another size (the lockstep order of a batch decides who comes first).
_CROSS_BLOCK_WORDS = ("volatile", "relaxed", "acquire", "release", "membar", "fence")


def blocks_communicate(instructions) -> bool:
    """Whether a kernel (its :class:`~gpusim.functional.trace.StaticInstr` list) has an instruction through
    which one block can see another's within a launch (:data:`_CROSS_BLOCK_WORDS`, global atomics)."""
    return any((i.is_atomic and i.mem_space in ("global", "generic"))
               or any(w in i.opcode for w in _CROSS_BLOCK_WORDS) for i in instructions)


class LaunchStream:
    """One launch, run batch by batch on demand (see the module docstring).

    The static facts every chunk shares (``kernel``, ``grid``, ``block``, ``shared_bytes``,
    ``regs_per_thread``, ``instructions``, ``n_blocks``, ``warps_per_block``, ``local_bytes_per_thread``,
    ``meta``) are known before the first batch runs.  ``progress(blocks_done, blocks_total,
    warp_instructions)`` is called after every batch and, inside a long batch, about every 0.5 s.
    """

    def __init__(self, emulator, ck, dev, grid3, block3, shared_total: int, blocks_per_batch: int,
                 regs_per_thread: int | None, progress=None, *, schedule=None, checker=None) -> None:
        self._emu = emulator
        self._ck = ck
        self._dev = dev
        self.grid, self.block = grid3, block3
        self.shared_bytes = int(shared_total)
        self.kernel = ck.ctx.kernel.name
        self.instructions = ck.static
        tpb = block3[0] * block3[1] * block3[2]
        self.warps_per_block = (tpb + 31) // 32
        self.n_blocks = grid3[0] * grid3[1] * grid3[2]
        self.blocks_per_batch = blocks_per_batch
        self._emulator_blocks_per_batch = blocks_per_batch
        self._communicate = blocks_communicate(self.instructions)
        self.regs_per_thread = regs_per_thread
        self.local_bytes_per_thread = int(ck.program.local_bytes)
        self.meta = {"source": emulator.module.source_name}
        self.stats = EmulationStats(pc_warp_counts=np.zeros(len(ck.instructions), dtype=np.int64))
        self.next_block = 0                # linear order: the next batch starts here
        self._rows_per_block = 0.0         # the most warp instructions per block a recording batch has seen
        self._last_recorded_blocks = 0     # blocks of the last recording batch (0: none yet)
        self._sector_entries_per_block = 0.0   # the most a SECTORS batch recorded per block
        self._ahead: BatchRecord | None = None  # blocks run ahead, not handed out yet (run_ahead)
        self.blocks_run = 0
        self.schedule = schedule
        self.checker = checker
        # A schedule other than lockstep runs the blocks in its own order (one at a time): such a stream
        # can be run to its end, but not recorded nor timed (a trace is recorded in lockstep order).
        linear = schedule is None or not schedule.independent_threads
        self._order = None if linear else iter(schedule.batches(self.n_blocks, blocks_per_batch))
        self.progress = progress
        self._last_progress = time.perf_counter()
        self._recorder = TraceRecorder(
            kernel=self.kernel, grid=grid3, block=block3, shared_bytes=self.shared_bytes,
            regs_per_thread=regs_per_thread, instructions=self.instructions, meta=self.meta,
            local_bytes_per_thread=self.local_bytes_per_thread, warps_per_block=self.warps_per_block)
        self._output: LaunchOutput | None = None

    @property
    def done(self) -> bool:
        """Every block has run."""
        return self.blocks_run >= self.n_blocks

    def next_batch(self, level: str | None = FULL) -> BatchRecord | None:
        """Run the next batch of blocks and return what it recorded at ``level`` (:data:`FULL`,
        :data:`MEMORY`, :data:`COUNTS`, or None: nothing, the record's ``trace`` and ``counts`` are None);
        None when every block has run."""
        if self.done:
            return None
        if level is not None and level not in LEVELS:
            raise ValueError(f"record level must be one of {', '.join(LEVELS)} or None, not {level!r}")
        t0 = time.perf_counter()
        if self._order is not None:
            if level is not None:
                raise ValueError(f"a trace is recorded in the lockstep schedule, not {self.schedule}")
            b0, nb = next(self._order)
        else:
            b0 = self.next_block
            nb = min(self._recording_blocks() if level is not None else self.blocks_per_batch, self.n_blocks - b0)
        if self._ahead is not None:
            out, rows = self._from_ahead(b0, nb, level)
        else:
            w0 = self.stats.warp_instructions
            out = self._emulate(b0, nb, level)
            rows = self.stats.warp_instructions - w0
        self.next_block = b0 + nb
        self.blocks_run += nb
        if level is not None:
            self._rows_per_block = max(self._rows_per_block, rows / nb)
            self._last_recorded_blocks = nb
        if out.sectors is not None:
            entries = out.sectors.read_sector.size + out.sectors.write_sector.size
            self._sector_entries_per_block = max(self._sector_entries_per_block, entries / nb)
        self.stats.wall_seconds += time.perf_counter() - t0
        if self.progress is not None:
            self.progress(self.blocks_run, self.n_blocks, self.stats.warp_instructions)
            self._last_progress = time.perf_counter()
        return out

    def _emulate(self, b0: int, nb: int, level: str | None) -> BatchRecord:
        """Blocks ``b0 .. b0 + nb - 1`` run as one batch, recorded at ``level``."""
        rec = self._recorder if level is not None else None
        if rec is not None:
            rec.begin_batch(b0 * self.warps_per_block, nb * self.warps_per_block, level)
        with np.errstate(all="ignore"):       # NaN, inf and integer wrap-around are GPU semantics here
            self._emu._run_batch(self._ck, self._dev, b0, nb, self.grid, self.block, self.shared_bytes,
                                 self.stats, rec, self.schedule, self.checker, self)
        return rec.finish_batch() if rec is not None else BatchRecord(b0, nb, "none")

    def run_ahead(self, level: str, n_blocks: int) -> int:
        """Run up to ``n_blocks`` next blocks at once, recorded at ``level`` (:data:`SECTORS` only), and hand
        them out to the next ``next_batch(level)`` calls in the pieces that batches of their own would have
        had, with the same records (each piece's sectors and counts are its blocks'): each emulator step runs
        over all their warps instead of one piece's.  A recording batch is cut to :data:`RECORD_BATCH_ROWS`
        warp instructions for the trace it lays out; the sectors a block touched are far fewer, so up to
        :data:`AHEAD_SECTOR_ENTRIES` of them are held.  Done only where a batch's size cannot change what
        its blocks do (:func:`blocks_communicate`), after a first batch at ``level`` measured how many
        sectors a block records, and at most the emulator's whole batch.  Returns the blocks run ahead (0:
        none)."""
        if (level != SECTORS or self._order is not None or self._communicate or self._ahead is not None
                or not self._sector_entries_per_block):
            return 0
        b0 = self.next_block
        cap = int(AHEAD_SECTOR_ENTRIES // max(1.0, self._sector_entries_per_block))
        nb = min(int(n_blocks), self._emulator_blocks_per_batch, cap, self.n_blocks - b0)
        if nb <= self._recording_blocks():
            return 0
        t0 = time.perf_counter()
        self._ahead = self._emulate(b0, nb, level)
        self.stats.wall_seconds += time.perf_counter() - t0
        return nb

    def _from_ahead(self, b0: int, nb: int, level: str | None) -> tuple[BatchRecord, int]:
        """The piece ``b0 .. b0 + nb - 1`` of what :meth:`run_ahead` ran (the blocks beyond it run now), and its
        warp instructions."""
        ahead = self._ahead
        if level not in (None, ahead.level):
            raise ValueError(f"blocks {b0}.. were run ahead recording {ahead.level}, not {level}")
        end = ahead.first_block + ahead.n_blocks
        hi = min(b0 + nb, end)
        if hi == end:
            self._ahead = None
        piece = ahead.piece(b0, hi)
        if b0 + nb > end:
            piece = piece.join(self._emulate(end, b0 + nb - end, ahead.level))
        rows = int(piece.counts.warp_counts.sum())
        return (piece if level is not None else BatchRecord(b0, nb, "none")), rows

    def _recording_blocks(self) -> int:
        """Blocks of the next recording batch (see the module docstring)."""
        if not self._last_recorded_blocks:
            return 1
        cap = int(RECORD_BATCH_ROWS // max(1.0, self._rows_per_block))
        return max(1, min(self.blocks_per_batch, 2 * self._last_recorded_blocks, cap))

    def tick(self) -> None:
        """Called by the emulator inside a batch: report progress when 0.5 s have passed since the last."""
        t = time.perf_counter()
        if t - self._last_progress >= PROGRESS_INTERVAL_S:
            self._last_progress = t
            self.progress(self.blocks_run, self.n_blocks, self.stats.warp_instructions)

    def chunks(self, level: str = FULL) -> Iterator[KernelTrace]:
        """The remaining batches' trace chunks, in block order (``level``: :data:`FULL` or :data:`MEMORY`)."""
        while not self.done:
            yield self.next_batch(level).trace

    def finish(self) -> LaunchOutput:
        """Run what is left without recording and return the launch's results (``trace`` is None).

        Nothing is recorded, so when the kernel's blocks cannot see one another (:func:`blocks_communicate`)
        the rest runs in the emulator's whole batches (``max_lanes``) even where a consumer cut the batches
        for what they record (a sample's blocks after its last timed one): each step then runs over more
        warps.  Measured on polybench syr2k standard (9 blocks a batch after the sample's cut): 36 ms a block
        at 9, 11 ms at 64, the same warp instructions."""
        if self._output is None:
            if self._order is None and not self._communicate:
                self.blocks_per_batch = max(self.blocks_per_batch, self._emulator_blocks_per_batch)
            while not self.done:
                self.next_batch(None)
            args, symbols = self._dev.outputs()
            self._output = LaunchOutput(args, symbols, self.stats, None)
        return self._output
