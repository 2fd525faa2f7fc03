"""Shadow memory: what the checker remembers about every byte or word the kernel can touch.

* :class:`WrittenBytes` (initcheck): one flag per byte of a memory buffer, laid out exactly as the
  emulator's buffer (the same byte index), true once something wrote the byte since it was allocated.
* :class:`AccessTable` (racecheck): per *granule* (a word, or a smaller unit where the kernel makes smaller
  accesses), the last write and up to two reads: who (the thread's lane id in the launch) and which
  instruction (PC, with a flag for atomics), packed in one id that is 0 for no record (so that a zeroed
  table is an empty one, and costs nothing until touched), and when (the thread's *synchronisation
  stamp*: the block's barrier epoch in the high 32 bits, the warp's ``__syncwarp`` count in the low 32).  Two reads are kept, by different
  threads, so that a later write by either of them still finds the other.

Both are numpy arrays updated for all the lanes of a step at once (gather, compare, scatter).  Where the
lanes of one step name the same granule, numpy's scatter keeps the last lane's value; the detectors rely on
that and read the table back to see who won.
"""
from __future__ import annotations

import numpy as np

ATOMIC = 1        # low bit of a recorded PC word: the access was an atomic


class WrittenBytes:
    """Per-byte "written since allocation" flags of one buffer (see the module docstring)."""

    def __init__(self, size_bytes: int, written: bool = False):
        self.flags = np.full(size_bytes, written, dtype=bool)

    def unwritten(self, phys: np.ndarray, size: int) -> np.ndarray:
        """Per lane: some byte of ``[phys, phys + size)`` was never written.  ``phys`` is aligned to ``size``
        (an element of the access: the emulator's own indexing relies on it too)."""
        if size in _WORD:
            view, full = self._words(size)
            return view[phys >> _SHIFT[size]] != full
        f = self.flags.view(np.uint8)
        bad = np.zeros(phys.shape, dtype=bool)
        for k in range(size):
            bad |= f[phys + k] == 0
        return bad

    def write(self, phys: np.ndarray, size: int) -> None:
        if size in _WORD:
            view, full = self._words(size)
            view[phys >> _SHIFT[size]] = full
            return
        for k in range(size):
            self.flags[phys + k] = True

    def _words(self, size: int):
        """The flags as ``size``-byte words, and the value of a word all written."""
        return self.flags.view(np.uint8).view(_WORD[size]), _FULL[size]


_WORD = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
_SHIFT = {1: 0, 2: 1, 4: 2, 8: 3}
_FULL = {k: dt.type(0x0101010101010101 >> (64 - 8 * k)) for k, dt in _WORD.items()}


class AccessTable:
    """The last write and two reads of every granule (see the module docstring).

    Each record is two numbers: an *id*, ``(launch lane + 1) << 24 | pc << 1 | atomic`` (0: no record; one
    array to gather and scatter for who and where), and the synchronisation stamp."""

    def __init__(self, n_granules: int):
        n = max(int(n_granules), 1)
        # np.zeros: pages of a large (global) table are only committed where the kernel accesses
        self.w_id, self.w_ep = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        self.r1_id, self.r1_ep = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        self.r2_id, self.r2_ep = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)

    def clear(self) -> None:
        """Forget every access."""
        for a in (self.w_id, self.r1_id, self.r2_id):
            a.fill(0)

    def record_write(self, g, ids, ep) -> None:
        self.w_id[g] = ids
        self.w_ep[g] = ep

    def record_read(self, g, ids, ep, lanes_per_block: int, other_blocks_live: bool = True) -> None:
        """Keep this read in a slot: the first slot unless it holds a live read by another thread (then the
        second, which always holds the newest read by a thread other than the first slot's).  A read before
        the reader's block's last barrier is dead; so is another block's unless ``other_blocks_live``."""
        r1 = self.r1_id[g]
        me = ids >> ID_SHIFT
        take1 = (r1 == 0) | ((r1 >> ID_SHIFT) == me)
        if not take1.all():
            same_block = block_of(r1 >> ID_SHIFT, lanes_per_block, 1) == block_of(me, lanes_per_block, 1)
            take1 |= same_block & ((self.r1_ep[g] >> 32) < (ep >> 32))
            if not other_blocks_live:
                take1 |= ~same_block
        if take1.all():
            self.r1_id[g], self.r1_ep[g] = ids, ep
            if increasing(g):           # one lane per granule: none lost the slot to another
                return
            other = (self.r1_id[g] >> ID_SHIFT) != me   # lanes of this step that lost the first slot
            if not other.any():
                return
        else:
            g1 = g[take1]
            self.r1_id[g1], self.r1_ep[g1] = _at(ids, take1), _at(ep, take1)
            other = (self.r1_id[g] >> ID_SHIFT) != me
        g2 = g[other]
        self.r2_id[g2], self.r2_ep[g2] = _at(ids, other), _at(ep, other)


ID_SHIFT = 24                   # an id's low bits: pc << 1 | atomic


def make_ids(who: np.ndarray, pcw: int) -> np.ndarray:
    """Record ids of launch lanes ``who`` at the PC word ``pcw`` (pc << 1 | atomic)."""
    return ((who + 1) << ID_SHIFT) | pcw


def who_of(ids: np.ndarray) -> np.ndarray:
    """The launch lanes of record ids (-1: no record)."""
    return (ids >> ID_SHIFT) - 1


def pcw_of(ids: np.ndarray) -> np.ndarray:
    return ids & ((1 << ID_SHIFT) - 1)


def increasing(g: np.ndarray) -> bool:
    """The granules of a step are strictly increasing (a coalesced access: no two lanes share one)."""
    return g.size < 2 or bool((g[1:] > g[:-1]).all())


def block_of(who: np.ndarray, lanes_per_block: int, plus: int = 0) -> np.ndarray:
    """The block of launch lane ids (given plus ``plus``; a shift where the block's lanes are a power of
    two)."""
    if plus:
        who = who - plus
    if lanes_per_block & (lanes_per_block - 1) == 0:
        return who >> (lanes_per_block.bit_length() - 1)
    return who // lanes_per_block


def _at(v, mask):
    return v[mask] if isinstance(v, np.ndarray) and v.ndim else v
