"""Where the timing model's warps find their instructions: the trace's rows, loaded chunk by chunk as the
block scheduler reaches their blocks, and dropped once the warps have issued them.

A trace reaches the timing model whole (one chunk: ``gpusim simulate`` of a saved trace) or in chunks of
whole blocks in linear block order, as the functional emulator runs them batch by batch
(:class:`gpusim.functional.stream.LaunchStream`).  :class:`BlockFeed` keeps the rows of the blocks loaded
and not yet retired in flat arrays that the SM's hot loop indexes by row (``trace_pc``, ``mem_slot``, as
``array('q')``, which the compiled SM reads as typed memoryviews) and the memory requests of their slots
(``requests``, built per chunk by the LSU front end, :mod:`gpusim.timing.lsu`).  When the block scheduler
needs a block that is not loaded, the next chunk is loaded; when the arrays have doubled since they were
last compacted, the rows no warp will issue again (those of retired blocks, and those a resident warp has
already issued) are dropped and the live ones moved down, each warp's row numbers moved with them.  So what
the timing model holds follows the resident warps' remaining instructions plus one chunk, not the kernel's
length.  The arrays are never resized in place (an array a memoryview holds cannot be): they grow by
doubling into new arrays and compact by copying into new ones, and each time the feed calls ``rebind()`` so
the timing model, its SMs and sub-partitions read the new ones (:meth:`GpuTimingModel.rebind`).

Each chunk goes through the ptxas-like passes before it is timed (:func:`gpusim.timing.apply_passes`:
merged vector accesses, unrolled loops) with the groups and loops decided once, on the first chunk (or the whole trace), as ptxas
decides once for the code: every chunk then has the same static instructions.  A whole trace gets exactly
the passes :func:`gpusim.timing.simulate` gives it; a streamed one gets the groups its first chunk shows
(whose executions are the only ones known when timing starts).

The order rows are issued in (``gpu.instruction_schedule``, :func:`gpusim.timing.decode.schedule_rows`) is
decided per chunk: it depends only on the static code and each warp's own rows, so chunking does not change
it; nor does it change the requests (values, built from each slot's addresses), nor the counters (sums).
"""
from __future__ import annotations

from array import array
from typing import Iterator

import numpy as np

from gpusim.errors import GpusimError
from gpusim.functional.trace import KernelTrace
from gpusim.timing.decode import schedule_rows, slot_states

_ROW = np.int64            # the arrays' element (array('q'): what the compiled SM's memoryviews read)

_MIN_COMPACT_ROWS = 1 << 16


class Warming:
    """Global-memory sectors that blocks not timed touched (a sampled simulation,
    :mod:`gpusim.timing.sampling`): an item of a feed's chunk stream, handed to the memory model's
    ``warm(now, sectors)`` when the feed reaches it."""

    __slots__ = ("sectors",)

    def __init__(self, sectors: list[int]) -> None:
        self.sectors = sectors


class BlockFeed:
    """The rows of the loaded blocks of one kernel (see the module docstring).

    ``first`` is the first chunk (or the whole trace), ``rest`` the later chunks in block order.  ``lsu``
    builds each chunk's requests (and counts them); ``memory`` sees the first chunk's in ``begin`` and each
    later chunk's in ``admit`` (the :mod:`gpusim.memory.request` contract).  ``warps`` is the timing model's
    list of resident :class:`~gpusim.timing.sm.Warp` objects by launch warp index (None until a warp
    starts, and again once it has retired), which compaction reads and updates.  ``merge_groups``: the
    ptxas-like passes' decision (:func:`gpusim.timing.merge_groups`), applied to every chunk, and
    ``loops`` the loops they unroll (:func:`gpusim.timing.unrolled_loops`).  ``rebind``:
    called after the row or slot arrays were replaced (the timing model sets it).
    """

    def __init__(self, first: KernelTrace, rest: Iterator[KernelTrace], *, lsu, memory, schedule: str,
                 warps: list, merge_groups: list | None = None, loops: list | None = None,
                 launch=None) -> None:
        self.merge_groups = merge_groups
        self.loops = loops
        self.launch = launch          # the LaunchResources the memory model's begin() gets
        self.recorded_instructions = first.n_instructions   # warp instructions as recorded (before the passes)
        first = self.passes(first)
        self.first = first                                # as timed: after the passes
        self._rest = rest
        self.lsu = lsu
        self.memory = memory
        self.schedule = schedule
        self.warps = warps
        self.n_blocks = first.n_blocks
        self.trace_pc = array("q")                        # rows 0 .. n_rows - 1 in use, the rest spare
        self.mem_slot = array("q")
        self.n_rows = 0
        self.requests: list = []
        self.slot_state = array("q")                      # slots 0 .. len(requests) - 1 in use
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
        self._rows_at_compaction = _MIN_COMPACT_ROWS
        self._append(first, begin=True)

    # -- loading -------------------------------------------------------------------------------------------
    def load(self, bid: int, now: int = 0) -> None:
        """Make block ``bid``'s rows available (loading chunks up to the one that holds it) at cycle ``now``.
        A :class:`Warming` between chunks goes to the memory model's ``warm`` as it is passed."""
        while bid >= self.loaded_blocks:
            chunk = next(self._rest, None)
            if isinstance(chunk, Warming):
                self.memory.warm(now, chunk.sectors)
                self.warmed_sectors += len(chunk.sectors)
                continue
            if chunk is None:
                raise GpusimError(f"the trace stream ended at block {self.loaded_blocks} of {self.n_blocks}")
            if self.n_rows >= 2 * self._rows_at_compaction:
                self.compact()
            self.recorded_instructions += chunk.n_instructions
            self._append(self.passes(chunk), begin=False)

    def passes(self, trace: KernelTrace) -> KernelTrace:
        """``trace`` (a chunk, or the whole recorded trace) as the timing model runs it: after the
        ptxas-like passes this feed applies to every chunk."""
        from gpusim.timing import apply_passes
        return apply_passes(trace, self.merge_groups, self.loops)

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
        grown = False
        if row_base + n > len(self.trace_pc):
            cap = max(row_base + n, 2 * len(self.trace_pc))
            self.trace_pc = _copied(self.trace_pc, row_base, cap)
            self.mem_slot = _copied(self.mem_slot, row_base, cap)
            grown = True
        if slot_base + m > len(self.slot_state):
            self.slot_state = _copied(self.slot_state, slot_base, max(slot_base + m, 2 * len(self.slot_state)))
            grown = True
        # Writing into the arrays' spare room (not resizing them) is allowed while memoryviews hold them.
        if n:
            np.frombuffer(self.trace_pc, dtype=_ROW)[row_base:row_base + n] = pcs
            np.frombuffer(self.mem_slot, dtype=_ROW)[row_base:row_base + n] = np.where(slots >= 0, slots + slot_base,
                                                                                       -1)
        if m:
            np.frombuffer(self.slot_state, dtype=_ROW)[slot_base:slot_base + m] = slot_states(chunk.mem_space)
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
    def compact(self) -> None:
        """Drop the rows no warp will issue again and move the live ones down (see the module docstring)."""
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
        e = np.asarray(ends, dtype=np.int64)
        lengths = e - a
        new_starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if lengths.size else lengths
        total = int(lengths.sum())
        idx = np.repeat(a - new_starts, lengths) + np.arange(total, dtype=np.int64)
        pcs = _view(self.trace_pc)[idx]
        slot = _view(self.mem_slot)[idx]
        live_slot = slot >= 0
        keep = slot[live_slot].tolist()
        requests, states = self.requests, self.slot_state
        new_requests = [requests[s] for s in keep]
        new_states = _view(states)[np.asarray(keep, dtype=np.int64)]
        new_slot = np.where(live_slot, np.cumsum(live_slot) - 1, -1)
        # New arrays, not the old ones resized: the compiled SMs hold memoryviews of those.
        self.trace_pc = _array_of(pcs)
        self.mem_slot = _array_of(new_slot)
        self.n_rows = total
        self.requests[:] = new_requests
        self.slot_state = _array_of(new_states)
        shift = (new_starts - a).tolist()
        for gid, d, ns, ne in zip(owners, shift, new_starts.tolist(), (new_starts + lengths).tolist()):
            w = warps[gid]
            if w is None:
                self.warp_rows[gid] = (ns, ne)
            else:
                w.row += d
                w.end += d
        self._rows_at_compaction = max(_MIN_COMPACT_ROWS, total)
        self.rebind()


def _nothing() -> None:
    pass


def _view(a: array) -> np.ndarray:
    return np.frombuffer(a, dtype=_ROW) if len(a) else np.zeros(0, dtype=_ROW)


def _array_of(values: np.ndarray) -> array:
    out = array("q")
    out.frombytes(np.ascontiguousarray(values, dtype=_ROW).tobytes())
    return out


def _copied(old: array, used: int, capacity: int) -> array:
    """A new array of ``capacity`` elements holding ``old``'s first ``used`` (the rest zero)."""
    new = array("q", bytes(8 * capacity))
    if used:
        np.frombuffer(new, dtype=_ROW)[:used] = np.frombuffer(old, dtype=_ROW)[:used]
    return new
