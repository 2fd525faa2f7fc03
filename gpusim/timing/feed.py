"""Where the timing model's warps find their instructions: the trace's rows, loaded chunk by chunk as the
block scheduler reaches their blocks, and dropped once the warps have issued them.

A trace reaches the timing model whole (one chunk: ``gpusim simulate`` of a saved trace) or in chunks of
whole blocks in linear block order, as the functional emulator runs them batch by batch
(:class:`gpusim.functional.stream.LaunchStream`).  :class:`BlockFeed` keeps the rows of the blocks loaded
and not yet retired in flat arrays that the SM's hot loop indexes by row (``trace_pc``, ``mem_slot``, as
``array('i')``, 4 bytes a row, which the compiled SM reads as typed memoryviews) and the memory requests of their slots
(``requests``, built per chunk by the LSU front end, :mod:`gpusim.timing.lsu`).  When the block scheduler
needs a block that is not loaded, the next chunk is loaded; when the arrays have doubled since they were
last compacted, the rows no warp will issue again (those of retired blocks, and those a resident warp has
already issued) are dropped and the live ones moved down, each warp's row numbers moved with them, whenever
a chunk loads and at least a quarter of the rows held are such (so each row is copied a bounded number of
times: a compaction copies at most three live rows per dead row it frees).  So what
the timing model holds follows the resident warps' remaining instructions plus one chunk, not the kernel's
length.  The compiled SMs read the arrays through typed memoryviews, which pin an array's size: to grow
them by half, the feed lets the holders read empty stand-ins (``rebind()``, :meth:`GpuTimingModel.rebind`),
resizes the arrays in place (the C library moves large blocks' pages rather than copying them, so the rows
are never held twice) and binds them again; a compaction moves the live rows down in place and gives the
slots a new state array and request list, and rebinds them too.

Each chunk goes through the ptxas-like passes before it is timed (:func:`gpusim.timing.apply_passes`:
merged vector accesses, unrolled loops, constant operands, integer divisions) with the groups and loops decided once, on the
first chunk (or the whole trace), as ptxas
decides once for the code: every chunk then has the same static instructions.  A whole trace gets exactly
the passes :func:`gpusim.timing.simulate` gives it; a streamed one gets the groups its first chunk shows
(whose executions are the only ones known when timing starts).

The order rows are issued in (``gpu.instruction_schedule``, :func:`gpusim.timing.decode.schedule_rows`) is
decided per chunk: it depends only on the static code and each warp's own rows, so chunking does not change
it; nor does it change the requests (values, built from each slot's addresses), nor the counters (sums).
"""
from __future__ import annotations

import ctypes
from array import array
from typing import Iterator

import numpy as np

from gpusim.errors import GpusimError
from gpusim.functional.trace import KernelTrace
from gpusim.timing.decode import schedule_rows, slot_states

# The row arrays' element (array('i'): what the compiled SM's memoryviews read).  PCs and slot numbers fit
# in 32 bits, and rows are most of what a large launch holds (matmul 1024: 40M rows resident at once).
_ROW, _ROW_CODE = np.int32, "i"
_MAX_ROWS = np.iinfo(_ROW).max
_STATE_CODE = "b"                        # slot_state (one per memory slot): a StallReason, int8

_MIN_COMPACT_ROWS = 1 << 16
_GROWTH = 1.5                           # an array that must grow grows to at least this times its size
_MIN_DEAD_FRACTION = 0.25               # compact only when at least this share of the rows held is dead
_COMPACT_BATCH_ROWS = 1 << 20           # rows a compaction moves at once (its index arrays: 8 bytes a row)


class Warming:
    """Global-memory sectors that blocks not timed touched (a sampled simulation,
    :mod:`gpusim.timing.sampling`): an item of a feed's chunk stream, handed to the memory model's
    ``warm(now, sectors, **options)`` when the feed reaches it (``options``: ``dirty``, ``write_back``)."""

    __slots__ = ("sectors", "options")

    def __init__(self, sectors: list[int], **options) -> None:
        self.sectors = sectors
        self.options = options


class BlockFeed:
    """The rows of the loaded blocks of one kernel (see the module docstring).

    ``first`` is the first chunk (or the whole trace), ``rest`` the later chunks in block order.  ``lsu``
    builds each chunk's requests (and counts them); ``memory`` sees the first chunk's in ``begin`` and each
    later chunk's in ``admit`` (the :mod:`gpusim.memory.request` contract).  ``warps`` is the timing model's
    list of resident :class:`~gpusim.timing.sm.Warp` objects by launch warp index (None until a warp
    starts, and again once it has retired), which compaction reads and updates.  ``merge_groups``: the
    ptxas-like passes' decision (:func:`gpusim.timing.merge_groups`), applied to every chunk, and
    ``loops`` the loops they unroll (:func:`gpusim.timing.unrolled_loops`); ``constant_operands``: whether they
    fold fixed-address constant loads into operands (:mod:`gpusim.timing.const_fold`); ``divisions``: whether
    they issue integer div/rem as their SASS sequences (:mod:`gpusim.timing.divrem`).  ``rebind``:
    called after the row or slot arrays or the request list were replaced or resized, and before a resize
    with empty stand-ins in their place (the timing model sets it).
    """

    def __init__(self, first: KernelTrace, rest: Iterator[KernelTrace], *, lsu, memory, schedule: str,
                 warps: list, merge_groups: list | None = None, loops: list | None = None,
                 constant_operands: bool = False, divisions: bool = False, fuse: bool = False,
                 if_convert: int = 0, launch=None, merged_first: KernelTrace | None = None) -> None:
        self.merge_groups = merge_groups
        self.loops = loops
        self.constant_operands = constant_operands
        self.divisions = divisions
        self.fuse = fuse
        self.if_convert = if_convert
        self.launch = launch          # the LaunchResources the memory model's begin() gets
        self.recorded_instructions = first.n_instructions   # warp instructions as recorded (before the passes)
        self.recorded_thread_instructions = first.thread_instructions()     # ... and thread instructions
        first = self.passes(first, merged_first)
        self.first = first                                # as timed: after the passes
        self._rest = rest
        self.lsu = lsu
        self.memory = memory
        self.schedule = schedule
        self.warps = warps
        self.n_blocks = first.n_blocks
        self.trace_pc = array(_ROW_CODE)                  # rows 0 .. n_rows - 1 in use, the rest spare
        self.mem_slot = array(_ROW_CODE)
        self.n_rows = 0
        self.requests: list = []
        self.slot_state = array(_STATE_CODE)              # slots 0 .. len(requests) - 1 in use
        self.rebind = _nothing
        self.block_warps: dict[int, list[int]] = {}       # loaded blocks not yet retired: their warps
        self.warp_rows: dict[int, tuple[int, int]] = {}   # ... and those warps' rows (until they start)
        self.live: dict[int, list[int]] = {}              # loaded blocks not yet retired: their warps
        self.loaded_blocks = 0                            # blocks 0 .. loaded_blocks - 1 have been loaded
        self.thread_instructions = 0
        self.warp_instructions = 0                        # ... and as timed
        self.chunks_loaded = 0
        self.warmed_sectors = 0
        self.peak_rows = 0                                # most rows held at once
        self.compactions = 0
        self._append(first, begin=True)

    # -- loading -------------------------------------------------------------------------------------------
    def load(self, bid: int, now: int = 0) -> None:
        """Make block ``bid``'s rows available (loading chunks up to the one that holds it) at cycle ``now``.
        A :class:`Warming` between chunks goes to the memory model's ``warm`` as it is passed."""
        checked_rows = -1
        while bid >= self.loaded_blocks:
            if self.n_rows >= _MIN_COMPACT_ROWS and self.n_rows != checked_rows:
                # before the next chunk is recorded, so that what each holds at its peak does not add up; once
                # per chunk: no warp moves between the Warming items of one call, so their rows stay as counted
                self.compact(_MIN_DEAD_FRACTION)
                checked_rows = self.n_rows
            chunk = next(self._rest, None)
            if isinstance(chunk, Warming):
                self.memory.warm(now, chunk.sectors, **chunk.options)
                self.warmed_sectors += len(chunk.sectors)
                continue
            if chunk is None:
                raise GpusimError(f"the trace stream ended at block {self.loaded_blocks} of {self.n_blocks}")
            self.recorded_instructions += chunk.n_instructions
            self.recorded_thread_instructions += chunk.thread_instructions()
            chunk = self.passes(chunk)        # the recorded rows go here (when the passes copied them)
            self._append(chunk, begin=False)
            del chunk
            _return_freed_memory()

    def passes(self, trace: KernelTrace, merged: KernelTrace | None = None) -> KernelTrace:
        """``trace`` (a chunk, or the whole recorded trace) as the timing model runs it: after the
        ptxas-like passes this feed applies to every chunk; ``merged``: ``trace`` with the vector merges
        already applied (the caller had to make it), so they are not made twice."""
        from gpusim.timing import apply_passes
        if merged is not None:
            trace = merged
        return apply_passes(trace, None if merged is not None else self.merge_groups, self.loops,
                            self.constant_operands, self.divisions, self.fuse, self.if_convert)

    def _append(self, chunk: KernelTrace, begin: bool) -> None:
        first_block = chunk.first_warp // chunk.warps_per_block if chunk.warps_per_block else 0
        if chunk.n_warps % chunk.warps_per_block or first_block != self.loaded_blocks:
            raise GpusimError(f"a trace chunk must hold whole blocks in order: expected block "
                              f"{self.loaded_blocks}, got warps {chunk.first_warp}.. ({chunk.n_warps} warps)")
        pcs, slots = schedule_rows(chunk, self.schedule)
        requests = self.lsu.requests(chunk)
        if begin:
            self.memory.begin(requests, self.launch)
        else:
            admit = getattr(self.memory, "admit", None)
            if admit is None:
                raise GpusimError(f"memory model {type(self.memory).__name__} has no admit(): it cannot time a "
                                  f"trace that streams in chunks (gpusim.memory.request); time the whole trace")
            admit(requests)
        row_base = self.n_rows
        slot_base = len(self.requests)
        n = int(pcs.size)
        m = len(requests)
        if row_base + n > _MAX_ROWS or slot_base + m > _MAX_ROWS:
            raise GpusimError(f"the resident blocks' trace holds more than {_MAX_ROWS:,} rows or memory slots: "
                              f"too large to time in full detail (time it sampled: --sample)")
        grown = False
        if row_base + n > len(self.trace_pc) or slot_base + m > len(self.slot_state):
            self._resize(rows=_capacity(len(self.trace_pc), row_base + n),
                         slots=_capacity(len(self.slot_state), slot_base + m))
            grown = True
        # Writing into the arrays' spare room (not resizing them) is allowed while memoryviews hold them.
        if n:
            _view(self.trace_pc)[row_base:row_base + n] = pcs
            _view(self.mem_slot)[row_base:row_base + n] = np.where(slots >= 0, slots + slot_base, -1)
        if m:
            _view(self.slot_state)[slot_base:slot_base + m] = slot_states(chunk.mem_space)
        self.n_rows = row_base + n
        self.requests.extend(requests)
        if grown:
            self.rebind()
        ws = (np.asarray(chunk.warp_start, dtype=np.int64) + row_base).tolist()
        order = np.lexsort((chunk.warp_in_block, chunk.warp_block))
        for i, bid in zip(order.tolist(), chunk.warp_block[order].tolist()):
            gid = chunk.first_warp + i
            self.block_warps.setdefault(bid, []).append(gid)
            self.warp_rows[gid] = (ws[i], ws[i + 1])
        for bid in range(first_block, first_block + chunk.n_warps // chunk.warps_per_block):
            self.live[bid] = self.block_warps.setdefault(bid, [])
        self.loaded_blocks = first_block + chunk.n_warps // chunk.warps_per_block
        self.thread_instructions += chunk.thread_instructions()
        self.warp_instructions += chunk.n_instructions
        self.chunks_loaded += 1
        if self.n_rows > self.peak_rows:
            self.peak_rows = self.n_rows

    # -- life cycle ---------------------------------------------------------------------------------------
    def retired(self, bid: int) -> None:
        """Block ``bid`` retired: no warp will read its rows again."""
        for gid in self.live.pop(bid, ()):
            self.warp_rows.pop(gid, None)
        self.block_warps.pop(bid, None)

    # -- compaction ---------------------------------------------------------------------------------------
    def compact(self, min_dead_fraction: float = 0.0) -> None:
        """Drop the rows no warp will issue again and move the live ones down (see the module docstring);
        unless fewer than ``min_dead_fraction`` of the rows held would go (counting them is cheap: a pass over
        the resident warps)."""
        starts, ends, owners = [], [], []
        warps = self.warps
        for gids in self.live.values():
            for gid in gids:
                w = warps[gid]
                if w is None:
                    a, e = self.warp_rows[gid]
                elif w.done:
                    continue
                else:
                    a, e = w.row, w.end
                if e > a:
                    starts.append(a)
                    ends.append(e)
                    owners.append(gid)
        a = np.asarray(starts, dtype=np.int64)
        lengths = np.asarray(ends, dtype=np.int64) - a
        total = int(lengths.sum())
        if total > (1.0 - min_dead_fraction) * self.n_rows:
            return
        by_row = np.argsort(a, kind="stable")       # in the order they lie, so that each moves down
        a, lengths, owners = a[by_row], lengths[by_row], [owners[i] for i in by_row.tolist()]
        ends_at = np.cumsum(lengths)
        new_starts = ends_at - lengths
        # In place, a batch of warps at a time (each batch is gathered before it is written, and lands below
        # the rows later batches read), so that no row array is held twice and the index arrays (8 bytes a
        # row) stay small; the slots get a new state array and request list (a warp's slots need not lie in
        # its rows' order), 9 bytes a live slot.
        pcs, slots, old_states = _view(self.trace_pc), _view(self.mem_slot), _view(self.slot_state)
        requests = self.requests
        new_requests: list = []
        states = []
        i = 0
        while i < lengths.size:
            j = max(i + 1, int(np.searchsorted(ends_at, new_starts[i] + _COMPACT_BATCH_ROWS, side="right")))
            lo, hi = int(new_starts[i]), int(ends_at[j - 1])
            idx = np.repeat(a[i:j] - new_starts[i:j], lengths[i:j]) + np.arange(lo, hi, dtype=np.int64)
            pcs[lo:hi] = pcs[idx]
            slot = slots[idx]
            del idx
            live = slot >= 0
            keep = slot[live]
            slots[lo:hi] = np.where(live, np.cumsum(live) - 1 + len(new_requests), -1)
            states.append(old_states[keep])
            new_requests.extend(map(requests.__getitem__, keep.tolist()))
            i = j
        del pcs, slots, old_states, requests
        self.n_rows = total
        # New slot arrays (the holders' views of the old ones go with rebind), never a list resized in place.
        self.requests = new_requests
        self.slot_state = _array_of(np.concatenate(states) if states else np.zeros(0, np.int8), _STATE_CODE)
        shift = (new_starts - a).tolist()
        for gid, d, ns, ne in zip(owners, shift, new_starts.tolist(), (new_starts + lengths).tolist()):
            w = warps[gid]
            if w is None:
                self.warp_rows[gid] = (ns, ne)
            else:
                w.row += d
                w.end += d
        self.compactions += 1
        self.rebind()


    def _resize(self, rows: int, slots: int) -> None:
        """Make the row arrays ``rows`` long and the slot-state array ``slots`` (contents kept, the rest zero).
        In place where no one holds a view of them: the timing model's views are let go first (the compiled
        SMs' memoryviews pin an array's size), so that the C library can move the pages instead of copying
        them (no second copy of the rows at the peak); a copy where something else still holds one."""
        held = self.trace_pc, self.mem_slot, self.slot_state
        self.trace_pc, self.mem_slot, self.slot_state = array(_ROW_CODE), array(_ROW_CODE), array(_STATE_CODE)
        self.rebind()
        self.trace_pc, self.mem_slot, self.slot_state = (_resized(x, size)
                                                         for x, size in zip(held, (rows, rows, slots)))


def _capacity(held: int, needed: int) -> int:
    """What an array of ``held`` elements grows to when ``needed`` must fit: ``held`` while they do."""
    return held if needed <= held else max(needed, min(_MAX_ROWS, int(_GROWTH * held)))


def _nothing() -> None:
    pass


def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()


def _return_freed_memory() -> None:
    """Give the heap's free pages back to the system.  A chunk's temporaries (the recorded batch, its
    addresses and requests being built) are tens of MB each, which glibc serves from its heap once its
    mmap threshold has grown (it does after the first such array is freed); freed, they stay in the heap
    and in the resident set unless trimmed (tiled matmul 512 streamed: 1.8 GB resident for 0.8 GB live)."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _view(a: array) -> np.ndarray:
    """``a``'s elements as a numpy array sharing its memory."""
    dtype = np.dtype(a.typecode)
    return np.frombuffer(a, dtype=dtype) if len(a) else np.zeros(0, dtype=dtype)


def _array_of(values: np.ndarray, code: str) -> array:
    """A new array of typecode ``code`` holding ``values``."""
    out = array(code, [0]) * int(values.size)
    if values.size:
        _view(out)[:] = values
    return out


def _resized(a: array, size: int) -> array:
    """``a`` made ``size`` long (zero-filled beyond its old length; cut where shorter): in place when nothing
    holds a view of it, else a new array."""
    grow = size - len(a)
    try:
        if grow > 0:
            a.frombytes(bytes(grow * a.itemsize))
        elif grow < 0:
            del a[size:]
        return a
    except BufferError:
        new = array(a.typecode, [0]) * size
        keep = min(size, len(a))
        if keep:
            _view(new)[:keep] = _view(a)[:keep]
        return new
