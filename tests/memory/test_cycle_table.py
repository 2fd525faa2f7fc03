"""CycleTable: the memory system's table from sectors or words to cycles answers as a dict does."""
import random

import pytest

from gpusim.memory.cycle_table import CycleTable


@pytest.mark.parametrize("seed", range(6))
def test_it_answers_as_a_dict_through_growth_pops_and_pruning(seed):
    rng = random.Random(seed)
    table, ref = CycleTable(), {}
    span = rng.choice([64, 5000, 1 << 40])
    stride = rng.choice([1, 8, 32, 4096])                    # sectors, 8-byte words, a page apart
    now = 0.0
    for _ in range(20000):
        key = rng.randrange(span) * stride
        op = rng.random()
        if op < 0.4:
            assert table.get(key, -1.0) == ref.get(key, -1.0)
        elif op < 0.75:
            now += rng.random()
            cycle = now + rng.randrange(50)
            table.put(key, cycle)
            ref[key] = cycle
        elif op < 0.95:
            table.pop(key)
            ref.pop(key, None)
        elif op < 0.975:
            table.keep_from(now - 10)
            ref = {k: c for k, c in ref.items() if c >= now - 10}
        else:
            table.keep_after(now - 5)
            ref = {k: c for k, c in ref.items() if c > now - 5}
        assert len(table) == len(ref)
    for key, cycle in ref.items():
        assert table.get(key, -1.0) == cycle
