"""The GPU's heap of SM step cycles (gpusim.timing.sm.StepHeap): the order heapq gives (cycle, push order)."""
import heapq
import random

from gpusim.timing.sm import StepHeap


def test_pops_in_cycle_order_ties_in_push_order():
    heap = StepHeap(4)
    for cycle, item in ((7, 0), (3, 1), (7, 2), (3, 3)):
        heap.push(cycle, item)
    assert heap.first() == 3
    assert [heap.pop() for _ in range(4)] == [1, 3, 0, 2]
    assert heap.size == 0


def test_matches_heapq_of_cycle_sequence_item_tuples():
    rng = random.Random(7)
    heap, ref, seq = StepHeap(64), [], 0
    held = set()
    for _ in range(5000):
        if held and (len(held) == 64 or rng.random() < 0.5):
            assert heap.first() == ref[0][0]
            item = heap.pop()
            assert item == heapq.heappop(ref)[2]
            held.discard(item)
        else:
            item = rng.choice([i for i in range(64) if i not in held])
            cycle = rng.randrange(20)          # many ties
            heap.push(cycle, item)
            heapq.heappush(ref, (cycle, seq, item))
            seq += 1
            held.add(item)
    assert heap.size == len(ref)
