"""A table from sectors or word addresses to cycles, for the memory system's "when is this one's data back /
this word free" questions (reads in flight at the L2 slices, atomics per word)."""
from __future__ import annotations

from array import array

_EMPTY = -1
_MIN_CAPACITY = 1024


class CycleTable:
    """A dict from non-negative integers to cycles (numbers, kept as doubles): ``get``, ``put``, ``pop``,
    ``len``, and ``keep_from`` / ``keep_after`` (drop every entry whose cycle is before / at or before a
    cycle), answering as a dict would.

    Open addressing with linear probing in two arrays (keys, cycles), at most half full; a popped entry's
    place is filled by moving later entries of its probe run back (no tombstones), and a ``keep_*`` rebuilds
    the table at a size fit for what is left.  (The memory system kept these as dicts of Python ints and
    floats: with ~10^5 entries they missed the CPU's caches on every lookup, ~8% of a scattered-atomic
    kernel's time in the compiled build, where this table works on C integers and doubles.)
    """

    __slots__ = ("keys", "cycles", "size", "mask")

    def __init__(self, capacity: int = _MIN_CAPACITY) -> None:
        self.keys = array("q", [_EMPTY]) * capacity      # capacity: a power of two
        self.cycles = array("d", [0.0]) * capacity
        self.size = 0
        self.mask = capacity - 1

    def __len__(self) -> int:
        return self.size

    def _home(self, key: int) -> int:
        """The slot where ``key``'s probe run starts (a multiplicative hash; no intermediate exceeds 62 bits)."""
        x = (key ^ (key >> 30)) & 0x3FFFFFFF
        return (x * 2654435761 >> 12) & self.mask

    def _find(self, key: int) -> int:
        """The slot holding ``key``, or the empty slot that ends its probe run (where it would go)."""
        keys = self.keys
        i = self._home(key)
        while keys[i] != key and keys[i] != _EMPTY:
            i = (i + 1) & self.mask
        return i

    def get(self, key: int, default: float) -> float:
        i = self._find(key)
        return self.cycles[i] if self.keys[i] == key else default

    def put(self, key: int, cycle: float) -> None:
        i = self._find(key)
        self.cycles[i] = cycle
        if self.keys[i] != key:
            self.keys[i] = key
            self.size += 1
            if 2 * self.size > self.mask:
                self._rebuild(2 * (self.mask + 1), 1, 0.0)

    def pop(self, key: int) -> None:
        """Remove ``key`` if present."""
        keys = self.keys
        cycles = self.cycles
        mask = self.mask
        i = self._find(key)
        if keys[i] != key:
            return
        j = i
        while True:                      # move later entries of the run back over the hole at i
            j = (j + 1) & mask
            k = keys[j]
            if k == _EMPTY:
                break
            h = self._home(k)
            # the entry at j may fill the hole unless its home lies cyclically in (i, j]
            if (i < j and (h <= i or h > j)) or (i > j and h <= i and h > j):
                keys[i] = k
                cycles[i] = cycles[j]
                i = j
        keys[i] = _EMPTY
        self.size -= 1

    def keep_from(self, cycle: float) -> None:
        """Drop every entry whose cycle is before ``cycle``."""
        self._rebuild(0, 0, cycle)

    def keep_after(self, cycle: float) -> None:
        """Drop every entry whose cycle is at or before ``cycle``."""
        self._rebuild(0, 2, cycle)

    def _rebuild(self, capacity: int, rule: int, cycle: float) -> None:
        """Put the entries again into a table of ``capacity`` slots (0: twice what is kept, at least
        :data:`_MIN_CAPACITY`), keeping all of them (``rule`` 1), those from ``cycle`` on (0), or those after
        it (2)."""
        keys = self.keys
        cycles = self.cycles
        kept = 0
        for i in range(self.mask + 1):
            if keys[i] != _EMPTY and (rule == 1 or cycles[i] > cycle or (rule == 0 and cycles[i] == cycle)):
                kept += 1
            else:
                keys[i] = _EMPTY
        if capacity == 0:
            capacity = _MIN_CAPACITY
            while capacity < 4 * kept:
                capacity *= 2
        old = self.mask + 1
        self.keys = array("q", [_EMPTY]) * capacity
        self.cycles = array("d", [0.0]) * capacity
        self.mask = capacity - 1
        self.size = 0
        for i in range(old):
            if keys[i] != _EMPTY:
                self.put(keys[i], cycles[i])
