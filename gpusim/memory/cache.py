"""A sectored, set-associative, LRU cache with MSHRs: the building block of L1, L2 and the constant cache."""
from __future__ import annotations

import heapq


class SectoredCache:
    """Tags per line, valid/dirty bits per sector, LRU replacement per set, and miss-status holding registers.

    Models: a line (``sectors_per_line`` sectors) is allocated on the first missing sector and only missing
    sectors are filled (NCU-PG: "a miss fetches only the missing sectors"); a sector whose fill is still in
    flight is an MSHR *merge*: the second request waits for the same fill instead of sending another; at most
    ``mshrs`` fills are outstanding and a further miss waits for the earliest one to return (``mshrs`` 0: the
    cache does not count them, its owner limits misses in flight).  ``write``
    marks sectors dirty (write-back: they go down a level only when their line is evicted).

    The set index is a multiplicative hash of the line number (GPUs hash set indices; a plain modulo
    makes strides that share a factor with the set count thrash a few sets).

    Simplifies: the tag array is updated at request time, not at fill time (a line evicted before its fill
    returns just loses the fill); LRU order is by line, not by sector; no set-dueling, no streaming hints.
    Addresses are sector numbers (byte address // sector size); the caller picks the cache (slice) first.
    """

    __slots__ = ("n_sets", "ways", "spl", "sets", "pending", "outstanding", "mshrs",
                 "hits", "misses", "mshr_merges", "mshr_stall_cycles", "evicted_dirty")

    def __init__(self, size_bytes: int, associativity: int, mshrs: int, line_bytes: int = 128,
                 sector_bytes: int = 32) -> None:
        self.n_sets = max(1, size_bytes // (line_bytes * associativity))
        self.ways = associativity
        self.spl = line_bytes // sector_bytes
        self.sets: list[dict[int, list[int]]] = [{} for _ in range(self.n_sets)]  # line -> [valid, dirty]
        self.pending: dict[int, int] = {}      # sector -> cycle its fill is usable
        self.outstanding: list[int] = []       # heap of fill cycles occupying MSHRs
        self.mshrs = mshrs
        self.hits = self.misses = self.mshr_merges = self.mshr_stall_cycles = self.evicted_dirty = 0

    def probe(self, now: int, sector: int) -> int:
        """-1 on a miss; else the cycle the sector's data is there (``now``, or a pending fill's cycle)."""
        line, sub = divmod(sector, self.spl)
        s = self.sets[(line * 2654435761 >> 16) % self.n_sets]
        e = s.get(line)
        if e is None or not e[0] >> sub & 1:
            self.misses += 1
            return -1
        del s[line]                 # dicts keep insertion order: re-inserting makes it most recent
        s[line] = e
        self.hits += 1
        r = self.pending.get(sector)
        if r is not None:
            if r > now:
                self.mshr_merges += 1
                return r
            del self.pending[sector]
        return now

    def mshr_start(self, now: int) -> int:
        """The cycle a new miss at ``now`` gets an MSHR."""
        heap = self.outstanding
        while heap and heap[0] <= now:
            heapq.heappop(heap)
        if len(heap) >= self.mshrs:
            t = heapq.heappop(heap)
            self.mshr_stall_cycles += t - now
            return t
        return now

    def _line_entry(self, line: int, evicted: list[int] | None) -> list[int]:
        s = self.sets[(line * 2654435761 >> 16) % self.n_sets]
        e = s.get(line)
        if e is None:
            if len(s) >= self.ways:
                victim = next(iter(s))
                v_valid, v_dirty = s.pop(victim)
                base = victim * self.spl
                for k in range(self.spl):
                    if v_valid >> k & 1:
                        self.pending.pop(base + k, None)
                    if v_dirty >> k & 1 and evicted is not None:
                        evicted.append(base + k)
                        self.evicted_dirty += 1
            e = [0, 0]
        else:
            del s[line]
        s[line] = e
        return e

    def fill(self, sector: int, ready: int, evicted: list[int] | None = None) -> None:
        """Allocate the sector, usable from cycle ``ready``; dirty sectors of an evicted line go to ``evicted``."""
        line, sub = divmod(sector, self.spl)
        e = self._line_entry(line, evicted)
        e[0] |= 1 << sub
        self.pending[sector] = ready
        if self.mshrs:
            heapq.heappush(self.outstanding, ready)

    def warm(self, sector: int, ready: int, evicted: list[int] | None = None) -> None:
        """A fill that a requester outside the simulation started: the sector is allocated (usable from
        ``ready``) as :meth:`fill` would, or made most recent if present; no counter moves and no MSHR is
        taken (the requester's own)."""
        line, sub = divmod(sector, self.spl)
        s = self.sets[(line * 2654435761 >> 16) % self.n_sets]
        e = s.get(line)
        if e is not None and e[0] >> sub & 1:
            del s[line]
            s[line] = e
            return
        e = self._line_entry(line, evicted)
        e[0] |= 1 << sub
        self.pending[sector] = ready

    def write(self, sector: int, allocate: bool, evicted: list[int] | None = None) -> bool:
        """Write a whole sector: returns whether it was present.  With ``allocate`` a missing sector is
        allocated dirty without fetching it (the write covers it); without, a miss changes nothing."""
        line, sub = divmod(sector, self.spl)
        s = self.sets[(line * 2654435761 >> 16) % self.n_sets]
        e = s.get(line)
        present = e is not None and bool(e[0] >> sub & 1)
        if present or allocate:
            e = self._line_entry(line, evicted)
            e[0] |= 1 << sub
            if allocate:
                e[1] |= 1 << sub
        return present

    def dirty_sectors(self) -> list[int]:
        out = []
        for s in self.sets:
            for line, (_valid, dirty) in s.items():
                out.extend(line * self.spl + k for k in range(self.spl) if dirty >> k & 1)
        return out

    def invalidate(self) -> None:
        for s in self.sets:
            s.clear()
        self.pending.clear()
        self.outstanding.clear()
