"""One memory system for a sequence of kernel launches: the L2 and DRAM keep their state from one kernel
to the next, as they do on a GPU running a program.

The :mod:`~gpusim.memory.request` contract is per kernel: ``begin`` then ``access`` calls whose ``now`` is
the kernel's own SM cycle, starting near 0.  :class:`PersistentMemory` puts the kernels of a program on one
time line: :meth:`start_launch` gives the launch's start cycle on the program's clock, and every ``access``
is passed to the memory system it wraps at ``start + now`` (and its answer brought back to the kernel's
clock), so that what the previous kernel left busy (an L2 slice, a DRAM bank, a row buffer) is seen at the
right distance in time, and what it left in L2 (lines, dirty sectors) is still there.

At each launch the SMs' L1 and constant caches are invalidated (a launch does so on the GPU: the L1s are not
coherent), L2 and DRAM are kept.  ``counters()`` are the launch's own: the wrapped model's running totals
minus those at the launch's start, per-channel and per-bank tables element by element, and the hit-rate
percentages recomputed from the launch's own hits and misses (:data:`RATES`).
"""
from __future__ import annotations

from typing import Sequence

from gpusim.memory.request import LaunchResources, MemoryRequest

# percentage counters: (numerator counters, denominator counters), each summed, of the launch's own deltas
RATES = {
    "l1tex__t_sector_hit_rate.pct": (("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",),
                                     ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
                                      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum")),
    "lts__t_sector_hit_rate.pct": (("lts__t_sectors_lookup_hit.sum",),
                                   ("lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum")),
    "gpusim__dram_row_hit_rate.pct": (("gpusim__dram_row_hits.sum",),
                                      ("gpusim__dram_row_hits.sum", "gpusim__dram_row_misses.sum",
                                       "gpusim__dram_row_conflicts.sum")),
}

# what the launch configured rather than counted (the lines an SM may keep in flight): the launch's own value
LAUNCH_SETTINGS = frozenset({"gpusim__l1_inflight_lines"})


def _minus(now, before):
    if isinstance(now, list):
        return [_minus(a, b) for a, b in zip(now, before)]
    return now - before


class PersistentMemory:
    """A :class:`~gpusim.memory.request.MemoryModel` that keeps one wrapped model (normally the full
    :class:`~gpusim.memory.system.MemorySystem`) across launches (see the module docstring).

    Simplifies: launches follow each other with no gap (the host's launch overhead is not modelled), and a
    launch's accesses are not overlapped with the previous launch's (the program clock only moves on when a
    kernel has finished).
    """

    def __init__(self, inner) -> None:
        self.inner = inner
        self.start_cycle = 0
        self._before: dict = {}

    def start_launch(self, start_cycle: int) -> None:
        """A kernel starts at ``start_cycle`` of the program's clock (not before the previous one's)."""
        if start_cycle < self.start_cycle:
            raise ValueError(f"launches go forward in time: {start_cycle} < {self.start_cycle}")
        self.start_cycle = int(start_cycle)
        invalidate = getattr(self.inner, "invalidate_l1", None)
        if invalidate is not None:
            invalidate()
        self._before = self.inner.counters()

    def begin(self, requests: Sequence[MemoryRequest], launch: LaunchResources | None = None) -> None:
        self.inner.begin(requests, launch)

    def access(self, now: int, sm: int, request: MemoryRequest) -> tuple[int, int]:
        base = self.start_cycle
        ready, busy = self.inner.access(now + base, sm, request)
        return ready - base, busy

    def counters(self) -> dict:
        now = self.inner.counters()
        before = self._before
        out: dict = {}
        for k, v in now.items():
            if k in RATES:
                continue
            if k.endswith(".sum") or isinstance(v, list):
                out[k] = _minus(v, before[k]) if k in before else v
            elif k in LAUNCH_SETTINGS:
                out[k] = v
        for k, (num, den) in RATES.items():
            if k in now:
                n = sum(out.get(x, 0.0) for x in num)
                d = sum(out.get(x, 0.0) for x in den)
                out[k] = 100.0 * n / d if d else 0.0
        return out

    def unhandled_counters(self) -> list[str]:
        """Counters of the wrapped model that are neither sums, tables, launch settings nor in :data:`RATES`: they cannot be
        split per launch, so :meth:`counters` leaves them out (a test keeps this list empty)."""
        return sorted(k for k, v in self.inner.counters().items()
                      if not (k.endswith(".sum") or isinstance(v, list) or k in RATES or k in LAUNCH_SETTINGS))

    def __getattr__(self, name):
        # what the timing model or an observer asks of the memory system beyond the contract
        return getattr(self.inner, name)
