"""Every memory model keeps the contract of gpusim.memory.request: begin once, then access in nondecreasing
time returns (ready >= now, busy >= 0) and leaves the request as it was; counters are named numbers or
tables.  A new model joins ``MODELS`` to be held to it."""
import numpy as np
import pytest

from gpusim.config import load_gpu
from gpusim.memory.fixed_latency import FixedLatencyMemory
from gpusim.memory.request import ATOMIC, LOAD, STORE, MemoryModel, MemoryRequest
from gpusim.memory.system import MemorySystem
from gpusim.timing.lsu import LsuFrontEnd
from isa.units import MemSpace

from memtrace import make_trace

H100 = load_gpu("h100", overrides={"sm.count": 4})
LANES = np.arange(32, dtype=np.int64)
MODELS = {"full": MemorySystem, "fixed": FixedLatencyMemory}

ACCESSES = [
    ("global", LANES * 4, {}), ("global", LANES * 128, {}), ("global", LANES * 4, {"is_store": True, "is_load": False}),
    ("global", np.full(32, 512), {"is_atomic": True, "is_load": False}), ("global", [], {}),
    ("global", LANES * 4, {"cache_op": ".cg"}), ("shared", LANES * 4, {}), ("shared", LANES * 128, {}),
    ("shared", np.zeros(32, np.int64), {"is_atomic": True}), ("shared", [], {"is_store": True, "is_load": False}),
    ("const", np.full(32, 8), {}), ("const", LANES * 4, {}), ("param", np.zeros(32, np.int64), {}),
    ("local", np.full(32, 4), {}), ("local", np.full(32, 4), {"is_store": True, "is_load": False}),
]


def requests():
    return LsuFrontEnd(H100).requests(make_trace(ACCESSES))


def fields(r: MemoryRequest):
    return tuple(getattr(r, f) for f in MemoryRequest.__slots__)


def test_the_lsu_front_end_builds_requests_that_keep_their_invariants():
    reqs = requests()
    assert len(reqs) == len(ACCESSES)
    for (space, addr, f), r in zip(ACCESSES, reqs):
        assert r.space is MemSpace(space)
        assert r.op == (ATOMIC if f.get("is_atomic") else STORE if f.get("is_store") else LOAD)
        assert r.active_lanes == len(addr)
        assert r.lines <= len(r.sectors) and r.ideal_wavefronts <= r.wavefronts
        assert list(r.sectors) == sorted(set(r.sectors))
        if not r.active_lanes:
            assert r.sectors == ()
        if r.space is MemSpace.SHARED:
            assert r.sectors == () and (r.wavefronts >= 1) == (r.active_lanes > 0)
    assert reqs[3].atomics == ((512 // 32, 512, 32),)
    assert reqs[5].bypass_l1 and not reqs[0].bypass_l1
    assert (reqs[7].wavefronts, reqs[7].ideal_wavefronts) == (32, 1)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_memory_model_keeps_the_contract(name):
    model = MODELS[name](H100)
    assert isinstance(model, MemoryModel)
    reqs = requests()
    before = [fields(r) for r in reqs]
    model.begin(reqs)
    now = 0
    for k, r in enumerate(reqs * 3):
        sm = k % H100.sm.count
        ready, busy = model.access(now, sm, r)
        assert isinstance(ready, int) and isinstance(busy, int)
        assert ready >= now and busy >= 0, (r, ready, busy)
        now += k % 3                  # nondecreasing, several accesses in one cycle
    assert [fields(r) for r in reqs] == before
    for key, value in model.counters().items():
        assert isinstance(value, (int, float)) or (isinstance(value, list) and "." in key.split("__")[0]), key
