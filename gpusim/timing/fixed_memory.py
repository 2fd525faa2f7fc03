"""A memory model with unloaded latencies only: the timing model's default until (or instead of) the full
memory system, and the reference for tests that must not depend on caches.

It has the interface the timing model expects of any memory system (see
:class:`gpusim.memory.system.MemorySystem`): ``prepare(trace)`` once per kernel, then
``access(now, sm, slot) -> (ready_cycle, pipe_busy_cycles)`` for each memory instruction issued, and
``counters()``.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.trace import MEM_SPACES, KernelTrace
from isa.units import LatencyClass

# Which configured latency applies to each resolved state space.
_SPACE_LATENCY = {"global": LatencyClass.GLOBAL, "local": LatencyClass.GLOBAL, "shared": LatencyClass.SHARED,
                  "const": LatencyClass.CONST, "param": LatencyClass.CONST}


class FixedLatencyMemory:
    """Every access completes after its state space's unloaded latency from the GPU config (global and
    local: ``latency("global")``; shared; const and param: ``latency("const")``) and occupies the SM's
    LSU/MIO pipe for one cycle.

    Simplifies away everything that makes memory interesting: no coalescing (a warp access is one request
    however many sectors it touches), no bank conflicts, no caches, no bandwidth limits or queueing. Use it
    to isolate the core's behaviour; use :class:`gpusim.memory.system.MemorySystem` for real numbers.
    """

    def __init__(self, gpu) -> None:
        self.gpu = gpu
        self._latency_by_space = [int(round(gpu.latency(_SPACE_LATENCY[s]))) for s in MEM_SPACES]
        self._slot_latency: list[int] = []
        self._slot_kind: list[int] = []   # (space index) * 2 + is_store
        self.requests = [0] * (2 * len(MEM_SPACES))

    def prepare(self, trace: KernelTrace) -> None:
        spaces = np.asarray(trace.mem_space, dtype=np.int64)
        self._slot_latency = np.asarray(self._latency_by_space, dtype=np.int64)[spaces].tolist()
        stores = np.array([i.is_store or i.is_atomic for i in trace.instructions] or [False], dtype=bool)
        rows = np.flatnonzero(trace.mem_slot >= 0)
        slot_is_store = np.zeros(len(spaces), dtype=np.int64)
        slot_is_store[trace.mem_slot[rows]] = stores[trace.pc[rows]]
        self._slot_kind = (spaces * 2 + slot_is_store).tolist()
        self.requests = [0] * (2 * len(MEM_SPACES))

    def access(self, now: int, sm: int, slot: int) -> tuple[int, int]:
        self.requests[self._slot_kind[slot]] += 1
        return now + self._slot_latency[slot], 1

    def counters(self) -> dict[str, int]:
        """Warp-level memory instructions by space and direction (atomics count as stores)."""
        out = {}
        for i, space in enumerate(MEM_SPACES):
            if space in ("global", "shared", "local"):
                out[f"smsp__inst_executed_op_{space}_ld.sum"] = self.requests[2 * i]
                out[f"smsp__inst_executed_op_{space}_st.sum"] = self.requests[2 * i + 1]
        return out
