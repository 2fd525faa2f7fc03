"""A sectored, set-associative, LRU cache with MSHRs: the building block of L1, L2 and the constant cache."""
from __future__ import annotations

from array import array

from gpusim.memory.cycle_heap import CycleHeap

# ``ready`` of a sector with no fill in flight (below any cycle)
NO_FILL = -(1 << 62)
# The set index hashes the line number: (line * _SET_HASH >> 16) % sets.
_SET_HASH = 2654435761
_LOW16 = 0xFFFF


class SectoredCache:
    """Tags per line, valid/dirty bits per sector, LRU replacement per set, and miss-status holding registers.

    Models: a line (``sectors_per_line`` sectors) is allocated on the first missing sector and only missing
    sectors are filled (NCU-PG: "a miss fetches only the missing sectors"); a sector whose fill is still in
    flight is an MSHR *merge*: the second request waits for the same fill instead of sending another; at most
    ``mshrs`` fills are outstanding and a further miss waits for the earliest one to return (``mshrs`` 0: the
    cache does not count them, its owner limits misses in flight).  ``write``
    marks sectors dirty (write-back: they go down a level when their line is evicted, or earlier under a
    dirty limit).

    Dirty limit (``dirty_limit_sectors`` > 0; the H100's L2, measured in ``benchmarks/micro/l2wb``): the
    cache keeps at most that many dirty sectors.  A write that dirties one more writes back the line that
    became dirty longest ago (its sectors stay valid, now clean), so a store stream larger than the limit
    goes to DRAM during the kernel, in the order it was written (DRAM rows stay open for it), instead of
    staying in the cache until an eviction.  Simplifies: the hardware's choice of line is not public;
    oldest-dirtied-first matches the H100's write-back bytes and DRAM write rate on streams
    (``benchmarks/micro/l2wb/compare.py``).

    The set index is a multiplicative hash of the line number (GPUs hash set indices; a plain modulo
    makes strides that share a factor with the set count thrash a few sets).

    Simplifies: the tag array is updated at request time, not at fill time (a line evicted before its fill
    returns just loses the fill); LRU order is by line, not by sector; no set-dueling, no streaming hints.
    Addresses are sector numbers (byte address // sector size); the caller picks the cache (slice) first.

    The tag array is a way per (set, associativity) slot: ``tag[w]`` the line way ``w`` holds (-1: empty),
    ``valid[w]``/``dirty[w]`` its sectors' bits, ``used[w]`` when it was last touched (a counter: the
    least recently used way of a full set is the victim), ``ready[w * spl + k]`` the cycle sector ``k``'s
    fill is usable (:data:`NO_FILL`: none in flight).  A line is found by comparing the tags of its set
    (:meth:`_find`: ``associativity`` integers side by side), and ``last_line`` / ``last_way`` remember the
    last line found (a request's sectors come line by line: the three after a line's first find it without
    a search).  (Arrays of integers, not objects per line, so that the compiled build, ``cache.pxd``, works
    on C integers; a dict from line to way was measured slower in the compiled build: an L2's hundreds of
    thousands of entries miss the CPU's caches on every lookup, 15-20% of a scattered kernel's time.)
    """

    __slots__ = ("n_sets", "ways", "spl", "last_line", "last_way", "tag", "valid", "dirty", "used",
                 "ready", "clock", "outstanding", "mshrs", "_hash_mod", "hits", "misses", "mshr_merges",
                 "mshr_stall_cycles", "evicted_dirty", "dirty_count", "dirty_limit_sectors", "early_written_back",
                 "dirtied", "dirty_order", "dirty_head")

    def __init__(self, size_bytes: int, associativity: int, mshrs: int, line_bytes: int = 128,
                 sector_bytes: int = 32, dirty_limit_sectors: int = 0) -> None:
        self.n_sets = max(1, size_bytes // (line_bytes * associativity))
        self.ways = associativity
        self.spl = line_bytes // sector_bytes
        self.outstanding = CycleHeap()               # fill cycles occupying MSHRs
        self.clock = 0
        self.invalidate()                            # the tag array: every way empty
        self.mshrs = mshrs
        self._hash_mod = _SET_HASH % self.n_sets
        self.hits = self.misses = self.mshr_merges = self.mshr_stall_cycles = self.evicted_dirty = 0
        self.dirty_limit_sectors = dirty_limit_sectors
        self.early_written_back = 0                  # sectors written back under the dirty limit

    def set_of(self, line: int) -> int:
        """The set of ``line``: ``(line * 2654435761 >> 16) % n_sets``, a multiplicative hash, computed in
        two halves of ``line`` so that no intermediate exceeds 63 bits (lines of 2^47-byte addresses would)."""
        n = self.n_sets
        return ((line >> 16) % n * self._hash_mod + ((line & _LOW16) * _SET_HASH >> 16)) % n

    def probe(self, now: int, sector: int) -> int:
        """-1 on a miss; else the cycle the sector's data is there (``now``, or a pending fill's cycle)."""
        spl = self.spl
        line = sector // spl
        sub = sector - line * spl
        w = self._where(line)
        if w < 0 or not self.valid[w] >> sub & 1:
            self.misses += 1
            return -1
        self.clock += 1
        self.used[w] = self.clock
        self.hits += 1
        k = w * spl + sub
        r = self.ready[k]
        if r > now:
            self.mshr_merges += 1
            return r
        self.ready[k] = NO_FILL
        return now

    def mshr_start(self, now: int) -> int:
        """The cycle a new miss at ``now`` gets an MSHR."""
        heap = self.outstanding
        while heap.size and heap.first() <= now:
            heap.pop()
        if heap.size >= self.mshrs:
            t = int(heap.pop())
            self.mshr_stall_cycles += t - now
            return t
        return now

    def _find(self, line: int) -> int:
        """The way holding ``line``, -1 if none: the tags of its set compared (a line is in at most one way)."""
        first = self.set_of(line) * self.ways
        for w in range(first, first + self.ways):
            if self.tag[w] == line:
                return w
        return -1

    def _where(self, line: int) -> int:
        """The way holding ``line``, -1 if none (:meth:`_find`, remembering the last line found)."""
        if line == self.last_line:
            return self.last_way
        w = self._find(line)
        if w >= 0:
            self.last_line = line
            self.last_way = w
        return w

    def _way(self, line: int, evicted: list[int] | None) -> int:
        """The way holding ``line``, allocated (empty) if it has none, made most recently used."""
        w = self._where(line)
        if w < 0:
            spl = self.spl
            first = self.set_of(line) * self.ways
            w = first
            for x in range(first, first + self.ways):
                if self.tag[x] < 0:             # an empty way
                    w = x
                    break
                if self.used[x] < self.used[w]:
                    w = x
            else:                               # the set is full: evict its least recently used line
                victim = self.tag[w]
                if victim == self.last_line:
                    self.last_line = -1
                v_valid = self.valid[w]
                v_dirty = self.dirty[w]
                base = victim * spl
                for k in range(spl):
                    if v_valid >> k & 1:
                        self.ready[w * spl + k] = NO_FILL
                    if v_dirty >> k & 1:
                        self.dirty_count -= 1
                        if evicted is not None:
                            evicted.append(base + k)
                            self.evicted_dirty += 1
            self.tag[w] = line
            self.valid[w] = 0
            self.dirty[w] = 0
            self.last_line = line
            self.last_way = w
        self.clock += 1
        self.used[w] = self.clock
        return w

    def fill(self, sector: int, ready: int, evicted: list[int] | None = None) -> None:
        """Allocate the sector, usable from cycle ``ready``; dirty sectors of an evicted line go to ``evicted``."""
        spl = self.spl
        line = sector // spl
        sub = sector - line * spl
        w = self._way(line, evicted)
        self.valid[w] |= 1 << sub
        self.ready[w * spl + sub] = ready
        if self.mshrs:
            self.outstanding.push(ready)

    def warm(self, sector: int, ready: int, evicted: list[int] | None = None) -> bool:
        """A fill that a requester outside the simulation started: the sector is allocated (usable from
        ``ready``) as :meth:`fill` would, or made most recent if present; no counter moves and no MSHR is
        taken (the requester's own).  Returns whether it was allocated (not present before)."""
        spl = self.spl
        line = sector // spl
        sub = sector - line * spl
        w = self._where(line)
        if w >= 0 and self.valid[w] >> sub & 1:
            self.clock += 1
            self.used[w] = self.clock
            return False
        w = self._way(line, evicted)
        self.valid[w] |= 1 << sub
        self.ready[w * spl + sub] = ready
        return True

    def holds(self, sector: int) -> bool:
        """Whether the sector is valid here (its fill may still be in flight); no counter moves, LRU unchanged."""
        line = sector // self.spl
        w = self._where(line)
        return w >= 0 and self.valid[w] >> (sector - line * self.spl) & 1 != 0

    def discard_line(self, line: int) -> bool:
        """Drop ``line``, a clean copy that another cache's write made stale (its way becomes empty; no counter
        moves); returns whether it was here.  A dirty line is never discarded: its data would be lost."""
        w = self._where(line)
        if w < 0:
            return False
        if self.dirty[w]:
            raise ValueError(f"line {line} is dirty: only a clean copy may be discarded")
        self.last_line = -1
        self.tag[w] = -1
        self.valid[w] = 0
        self.used[w] = 0
        spl = self.spl
        for k in range(spl):
            self.ready[w * spl + k] = NO_FILL
        return True

    def write(self, sector: int, allocate: bool, evicted: list[int] | None = None) -> bool:
        """Write a whole sector: returns whether it was present.  With ``allocate`` a missing sector is
        allocated dirty without fetching it (the write covers it); without, a miss changes nothing."""
        spl = self.spl
        line = sector // spl
        sub = sector - line * spl
        w = self._where(line)
        present = w >= 0 and self.valid[w] >> sub & 1 != 0
        if present or allocate:
            w = self._way(line, evicted)
            self.valid[w] |= 1 << sub
            if allocate and not self.dirty[w] >> sub & 1:
                if self.dirty_limit_sectors and not self.dirty[w]:   # the line becomes dirty: note when
                    self.dirtied[w] = self.clock
                    if len(self.dirty_order) - self.dirty_head > 4 * self.n_sets * self.ways:
                        self._compact_order()               # more stale pairs than ways: drop them
                    self.dirty_order.append(line)
                    self.dirty_order.append(self.clock)
                self.dirty[w] |= 1 << sub
                self.dirty_count += 1
                if self.dirty_limit_sectors and self.dirty_count > self.dirty_limit_sectors:
                    self._clean_one(w, evicted)
        return present

    def _clean_one(self, keep: int, out: list[int] | None) -> None:
        """The dirty limit: write back the line dirtied longest ago, other than ``keep`` (its dirty sectors
        go to ``out``; the line stays valid, clean).  ``dirty_order`` lists (line, dirtied) pairs in the
        order lines became dirty; a pair whose line has since been evicted, cleaned or dirtied again is
        stale and skipped.  ``keep``'s own pair, when it comes first, goes back to the head: that line is
        still the oldest dirty one for the next write past the limit."""
        order = self.dirty_order
        n = len(order)
        kept_line = -1
        kept_stamp = 0
        while self.dirty_head < n:
            line = order[self.dirty_head]
            stamp = order[self.dirty_head + 1]
            self.dirty_head += 2
            w = self._find(line)            # not _where: the line being written stays the remembered one
            if w < 0 or self.dirtied[w] != stamp or not self.dirty[w]:
                continue
            if w == keep:
                kept_line = line
                kept_stamp = stamp
                continue
            d = self.dirty[w]
            base = line * self.spl
            for k in range(self.spl):
                if d >> k & 1:
                    self.dirty_count -= 1
                    self.early_written_back += 1
                    if out is not None:
                        out.append(base + k)
            self.dirty[w] = 0
            break
        if kept_line >= 0:                  # in the slot of the last pair taken: ahead of every pair left
            self.dirty_head -= 2
            order[self.dirty_head] = kept_line
            order[self.dirty_head + 1] = kept_stamp
        if self.dirty_head > 4096 and self.dirty_head * 2 > n:
            del order[:self.dirty_head]
            self.dirty_head = 0

    def _compact_order(self) -> None:
        """Drop ``dirty_order``'s stale pairs (at most one pair a way is not stale): lines dirtied and then
        evicted keep adding pairs while the limit is not reached, and only a write past it takes them off."""
        order = self.dirty_order
        live = array("q")
        for i in range(self.dirty_head, len(order), 2):
            line = order[i]
            stamp = order[i + 1]
            w = self._find(line)
            if w >= 0 and self.dirtied[w] == stamp and self.dirty[w]:
                live.append(line)
                live.append(stamp)
        self.dirty_order = live
        self.dirty_head = 0

    def dirty_sectors(self) -> list[int]:
        """Every dirty sector, set by set, least recently used line first."""
        out = []
        for first in range(0, self.n_sets * self.ways, self.ways):
            for w in sorted(range(first, first + self.ways), key=self.used.__getitem__):
                if self.tag[w] >= 0:
                    out.extend(self.tag[w] * self.spl + k for k in range(self.spl) if self.dirty[w] >> k & 1)
        return out

    def invalidate(self) -> None:
        n = self.n_sets * self.ways
        self.last_line = -1
        self.last_way = -1
        self.tag = array("q", [-1]) * n
        self.valid = array("q", [0]) * n
        self.dirty = array("q", [0]) * n
        self.used = array("q", [0]) * n
        self.ready = array("q", [NO_FILL]) * (n * self.spl)
        self.dirtied = array("q", [0]) * n           # the clock when each way's line last became dirty
        self.dirty_order = array("q")                # (line, dirtied) pairs, oldest first, from dirty_head
        self.dirty_head = 0
        self.dirty_count = 0
        self.outstanding.clear()
