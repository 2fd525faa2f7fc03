"""DeviceMemory: allocation layout, free (an access faults afterwards), reuse of freed ranges, listeners."""
import numpy as np
import pytest

from gpusim.errors import GpusimError
from gpusim.functional.memory import ALIGN_BYTES, GAP_BYTES, GLOBAL_BASE, DeviceMemory


def test_allocations_are_aligned_with_a_guard_gap():
    m = DeviceMemory()
    a = m.allocate("a", 100)
    b = m.allocate("b", 4)
    assert a.address == GLOBAL_BASE and a.address % ALIGN_BYTES == 0
    assert b.address == GLOBAL_BASE + ALIGN_BYTES * -(-(100 + GAP_BYTES) // ALIGN_BYTES)
    assert not m.check(np.array([a.end], dtype=np.int64), 1)[0]      # the gap faults


def test_a_freed_allocation_faults_and_its_range_is_reused():
    m = DeviceMemory()
    a = m.allocate("a", 1000, np.arange(250, dtype=np.int32))
    b = m.allocate("b", 64)
    m.free(a)
    assert not m.check(np.array([a.address], dtype=np.int64), 4)[0]
    assert m.find(a.address) is None and m.find(b.address) is b
    assert "b" in m.nearest(a.address)
    c = m.allocate("c", 500)                   # fits in a's hole: first fit
    assert c.address == a.address
    assert m.view(c.address, 8).view(np.int32).tolist() == [0, 1]    # not cleared, as cudaMalloc
    d = m.allocate("d", 2000)                  # does not fit: above b
    assert d.address > b.address
    assert [x.name for x in m.allocations] == ["c", "b", "d"]
    with pytest.raises(GpusimError, match="freed twice"):
        m.free(a)


def test_adjacent_holes_merge():
    m = DeviceMemory()
    a, b = m.allocate("a", 256), m.allocate("b", 256)
    m.allocate("c", 16)
    m.free(a)
    m.free(b)
    big = m.allocate("big", 700)          # more than either hole alone (512 B each with its gap)
    assert big.address == a.address


def test_listeners_hear_of_allocations_and_frees():
    m = DeviceMemory()
    heard = []

    class L:
        def allocated(self, al):
            heard.append(("allocated", al.name))

        def freed(self, al):
            heard.append(("freed", al.name))
    m.listeners.append(L())
    x = m.allocate("x", 8)
    m.free(x)
    assert heard == [("allocated", "x"), ("freed", "x")]
