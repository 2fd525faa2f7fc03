"""PersistentMemory: one memory system across launches on one program clock, with per-launch counters."""
import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.memory.persistent import PersistentMemory
from gpusim.memory.system import MemorySystem
from gpusim.timing import simulate

N = 4096


@pytest.fixture(scope="module")
def trace():
    a = np.arange(N, dtype=np.float32)
    return gpusim.run("programs/vector_add.cu", grid=N // 256, block=256,
                      args=[a, a, np.zeros_like(a), np.int32(N)], mode="timing")


def test_every_counter_of_the_memory_system_splits_per_launch():
    assert PersistentMemory(MemorySystem(load_gpu("h100"))).unhandled_counters() == []


def test_a_first_launch_is_the_standalone_simulation(trace):
    g = load_gpu("h100")
    pm = PersistentMemory(MemorySystem(g))
    pm.start_launch(0)
    t = simulate(trace.trace, g, memory=pm)
    assert t.cycles == trace.cycles and t.counters == trace.counters


def test_a_second_launch_finds_its_data_in_l2_and_counts_only_its_own(trace):
    g = load_gpu("h100")
    pm = PersistentMemory(MemorySystem(g))
    pm.start_launch(0)
    first = simulate(trace.trace, g, memory=pm)
    pm.start_launch(first.cycles)
    second = simulate(trace.trace, g, memory=pm)
    assert first.counters["dram__bytes_read.sum"] > 0 == second.counters["dram__bytes_read.sum"]
    assert second.counters["lts__t_sector_hit_rate.pct"] == 100.0
    # the same sectors come from the SMs; the first launch's misses homed in the far partition are looked up
    # there a second time (lts__t_sectors_srcunit_ltcfabric), the second launch's hits are not
    assert second.counters["lts__t_sectors_srcunit_tex.sum"] == first.counters["lts__t_sectors_srcunit_tex.sum"]
    assert second.counters["lts__t_sectors_op_read.sum"] < first.counters["lts__t_sectors_op_read.sum"]
    assert second.cycles < first.cycles
    with pytest.raises(ValueError, match="forward in time"):
        pm.start_launch(0)
