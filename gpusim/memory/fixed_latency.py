"""A memory model with unloaded latencies only: the reference for tests that must not depend on caches, and
a way to see the core's behaviour alone (``simulate(..., memory="fixed")``).

It implements the :class:`~gpusim.memory.request.MemoryModel` contract.
"""
from __future__ import annotations

from typing import Sequence

from gpusim.memory.request import LOAD, STORE, LaunchResources, MemoryRequest
from isa.units import LatencyClass, MemSpace

# Which configured latency applies to each resolved state space.
_SPACE_LATENCY = {MemSpace.GLOBAL: LatencyClass.GLOBAL, MemSpace.LOCAL: LatencyClass.GLOBAL,
                  MemSpace.SHARED: LatencyClass.SHARED, MemSpace.CONST: LatencyClass.CONST,
                  MemSpace.PARAM: LatencyClass.CONST}
_COUNTED = (MemSpace.GLOBAL, MemSpace.SHARED, MemSpace.LOCAL)


class FixedLatencyMemory:
    """Every access completes after its state space's unloaded latency from the GPU config (global and
    local: ``latency("global")``; shared; const and param: ``latency("const")``) and occupies the SM's
    LSU/MIO pipe for one cycle.

    Simplifies away everything that makes memory interesting: no coalescing (a warp access is one request
    however many sectors it touches), no bank conflicts, no caches, no bandwidth limits or queueing. Use it
    to isolate the core's behaviour; use :class:`gpusim.memory.system.MemorySystem` for real numbers.

    Counters: warp-level memory instructions by space and direction (atomics count as stores).
    """

    def __init__(self, gpu) -> None:
        self.gpu = gpu
        self._latency = {s: int(round(gpu.latency(c))) for s, c in _SPACE_LATENCY.items()}
        self._count = {_counter(s, op): 0 for s in _COUNTED for op in (LOAD, STORE)}
        # (latency, counter name or None) per request object, filled by begin()
        self._plan: dict[MemoryRequest, tuple[int, str | None]] = {}

    def begin(self, requests: Sequence[MemoryRequest], launch: LaunchResources | None = None) -> None:
        plan = self._plan
        for r in requests:
            if r not in plan:
                plan[r] = (self._latency[r.space], _counter(r.space, r.op) if r.space in _COUNTED else None)

    admit = begin

    def warm(self, now: int, sectors, dirty=(), write_back: bool = True) -> None:
        """Nothing to warm: no cache here (a sampled simulation's other SMs leave no trace)."""

    def access(self, now: int, sm: int, request: MemoryRequest) -> tuple[int, int]:
        latency, name = self._plan[request]
        if name is not None:
            self._count[name] += 1
        return now + latency, 1

    def counters(self) -> dict[str, int]:
        return dict(self._count)


def _counter(space: MemSpace, op: int) -> str:
    """Nsight's name for warp instructions of ``space`` in one direction (an atomic counts as a store)."""
    return f"smsp__inst_executed_op_{space.value}_{'ld' if op == LOAD else 'st'}.sum"
