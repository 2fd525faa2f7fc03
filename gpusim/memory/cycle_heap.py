"""A min-heap of cycles, for the memory system's "which of these frees first" questions (MSHRs, L1 lines in
flight)."""
from __future__ import annotations

from array import array


class CycleHeap:
    """A binary min-heap of cycles (numbers), as :mod:`heapq` keeps one in a list, here in an ``array('d')``
    so that the compiled build (``cycle_heap.pxd``) sifts C doubles instead of comparing Python objects.

    Pops return the cycles in ascending order whatever the heap's internal arrangement, so it answers as
    ``heapq`` would.  Cycles are exact as doubles up to 2^53.
    """

    __slots__ = ("items", "size")

    def __init__(self) -> None:
        self.items = array("d", [0.0]) * 16
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def first(self) -> float:
        """The earliest cycle (the heap must not be empty)."""
        return self.items[0]

    def push(self, cycle: float) -> None:
        if self.size == len(self.items):
            self._grow()
        items = self.items
        i = self.size
        self.size += 1
        while i > 0:                        # move the hole up past later parents
            parent = (i - 1) >> 1
            if items[parent] <= cycle:
                break
            items[i] = items[parent]
            i = parent
        items[i] = cycle

    def pop(self) -> float:
        """Remove and return the earliest cycle (the heap must not be empty)."""
        items = self.items
        top = items[0]
        self.size -= 1
        n = self.size
        last = items[n]
        i = 0
        while True:                         # move the hole down past earlier children
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and items[child + 1] < items[child]:
                child += 1
            if last <= items[child]:
                break
            items[i] = items[child]
            i = child
        if n:
            items[i] = last
        return top

    def clear(self) -> None:
        self.size = 0

    def _grow(self) -> None:
        n = len(self.items)
        bigger = array("d", [0.0]) * (2 * n)
        bigger[:n] = self.items
        self.items = bigger
