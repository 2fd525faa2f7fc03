"""SlotCalendar, the DRAM data bus's taken slots: it answers as the path-compressed dict it replaced did."""
import random

import pytest

from gpusim.memory.dram.controller import SlotCalendar


class DictCalendar:
    """The reference: every taken slot -> a later slot to try (path-compressed), pruned as SlotCalendar is."""

    def __init__(self, prune_slots):
        self.bus, self.newest, self.prune_slots = {}, 0, prune_slots

    def first_free(self, slot):
        free = slot
        while free in self.bus:
            free = self.bus[free]
        while slot != free:
            self.bus[slot], slot = free, self.bus[slot]
        return free

    def claim(self, slot):
        self.bus[slot] = slot + 1
        if slot > self.newest:
            self.newest = slot
            if len(self.bus) > self.prune_slots:
                horizon = slot - self.prune_slots // 2
                self.bus = {s: n for s, n in self.bus.items() if s >= horizon}


@pytest.mark.parametrize("seed", range(6))
def test_free_slots_are_those_of_the_path_compressed_dict_through_growth_and_pruning(seed):
    rng = random.Random(seed)
    prune = rng.choice([8, 40, 300])
    cal, ref = SlotCalendar(prune), DictCalendar(prune)
    now = 0
    for _ in range(6000):
        now += rng.choice([0, 0, 1, 2, 5])
        # mostly near the newest slot; sometimes far behind it, into what was forgotten
        ask = now - (rng.randrange(prune * 2) if rng.random() < 0.1 else rng.randrange(8))
        free = ref.first_free(ask)
        assert cal.first_free(ask) == free
        if rng.random() < 0.8:
            cal.claim(free)
            ref.claim(free)
        assert cal.taken == len(ref.bus)
    assert cal.newest == ref.newest


def test_a_claim_joins_the_runs_on_either_side():
    cal = SlotCalendar()
    for slot in (3, 5, 7):
        cal.claim(slot)
    cal.claim(4)                                   # 3-5 one run
    assert cal.n == 2 and cal.first_free(3) == 6 and cal.first_free(6) == 6 and cal.first_free(7) == 8
    cal.claim(6)                                   # 3-7
    assert cal.n == 1 and cal.first_free(2) == 2 and cal.first_free(4) == 8 and cal.taken == 5
