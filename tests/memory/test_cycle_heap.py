"""CycleHeap: the memory system's min-heap of cycles answers as heapq does."""
import heapq
import random

import pytest

from gpusim.memory.cycle_heap import CycleHeap


@pytest.mark.parametrize("seed", range(5))
def test_pops_give_the_earliest_cycle_as_heapq_does_through_growth(seed):
    rng = random.Random(seed)
    heap, ref = CycleHeap(), []
    for _ in range(5000):
        if ref and rng.random() < 0.45:
            assert heap.first() == ref[0]
            assert heap.pop() == heapq.heappop(ref)
        else:
            cycle = rng.choice([rng.randrange(2000), rng.random() * 2000])
            heap.push(cycle)
            heapq.heappush(ref, cycle)
        assert len(heap) == len(ref)
    assert [heap.pop() for _ in range(len(heap))] == sorted(ref)


def test_clear_empties_it():
    heap = CycleHeap()
    for c in (5, 3, 9):
        heap.push(c)
    heap.clear()
    assert len(heap) == 0
    heap.push(7)
    assert heap.pop() == 7 and len(heap) == 0
