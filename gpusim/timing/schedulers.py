"""Warp-scheduling policies of an SM sub-partition (SMSP), registered by name.

Each cycle in which at least one of its warps is eligible, an SMSP asks its policy to pick one of the
eligible warps (given in warp-slot order) and issues it. A policy is a small object per SMSP with one
method, ``select(eligible) -> warp | None``; ``None`` means the policy declines to issue this cycle (the
two-level scheduler does that when only pending-pool warps are ready). Warps expose ``slot`` (hardware warp
slot in the SM), ``age`` (launch order on the GPU, smaller is older) and ``state`` (the current stall
state, a :class:`gpusim.timing.warp_states.StallReason` int).

Add a policy with::

    @register_scheduler("my_policy")
    class MyPolicy:
        def __init__(self, gpu): ...        # parameters: fields of gpu.scheduler (the [scheduler] table)
        def select(self, eligible): ...

This registry is the one list of policy names: ``make_scheduler`` checks a name against it when a
simulation is built (the config does not keep its own list).
"""
from __future__ import annotations

from typing import Callable

from gpusim.errors import ConfigError
from gpusim.timing.sm import SchedulingPolicy
from gpusim.timing.warp_states import StallReason

SCHEDULERS: dict[str, type] = {}


def register_scheduler(name: str) -> Callable[[type], type]:
    def deco(cls: type) -> type:
        SCHEDULERS[name] = cls
        if getattr(cls, "name", None) != name:     # a compiled class states its name in its body
            cls.name = name
        return cls
    return deco


def make_scheduler(name: str, gpu) -> object:
    try:
        cls = SCHEDULERS[name]
    except KeyError:
        raise ConfigError(f"scheduler: unknown warp-scheduling policy {name!r}; "
                          f"known: {', '.join(sorted(SCHEDULERS))}") from None
    return cls(gpu)


class LooseRoundRobin(SchedulingPolicy):
    """Loose round robin: the first eligible warp after the one issued last, in warp-slot order.

    "Loose" because warps that are not ready are skipped rather than given an empty turn.
    """

    __slots__ = ("last_slot",)
    name = "lrr"

    def __init__(self, gpu=None) -> None:
        self.last_slot = -1

    def select(self, eligible):
        last = self.last_slot
        pick = eligible[0]
        for w in eligible:
            if w.slot > last:
                pick = w
                break
        self.last_slot = pick.slot
        return pick


class GreedyThenOldest(SchedulingPolicy):
    """Greedy-then-oldest: keep issuing from the same warp while it is eligible, otherwise the oldest
    eligible warp (earliest launched). Favours one warp's locality and lets older warps finish first."""

    __slots__ = ("last",)
    name = "gto"

    def __init__(self, gpu=None) -> None:
        self.last = None

    def select(self, eligible):
        last = self.last
        if last is not None:
            for w in eligible:       # ``last in eligible``, by identity (warps have no equality of their own)
                if w is last:
                    return last
        pick = eligible[0]
        for w in eligible:
            if w.age < pick.age:
                pick = w
        self.last = pick
        return pick


# Stall states after which a warp will wait long: the two-level scheduler moves it to the pending pool.
_LONG_WAITS = frozenset({int(StallReason.LONG_SCOREBOARD), int(StallReason.BARRIER),
                         int(StallReason.MEMBAR), int(StallReason.DRAIN)})


class TwoLevel(SchedulingPolicy):
    """Two-level warp scheduling (Narasiman et al., MICRO 2011; as in GPGPU-Sim's ``two_level_active``):
    only warps in a small *active pool* may issue, round-robin among them. A warp in the active pool that
    waits on a long-latency event (global load, barrier, membar, drain) is demoted to the *pending pool*,
    and pending warps are promoted in FIFO order to refill the active pool.

    The active pool holds ``gpu.scheduler.active_pool_warps`` warps (the ``[scheduler]`` table; 8 in the
    presets).  Simplification: demotion and promotion happen when the policy is consulted (cycles where some warp is
    eligible), not at the exact cycle the warp stalls; warps that left the SM are dropped at that point too.
    """

    __slots__ = ("pool_size", "active", "pending", "rr", "_known")
    name = "two_level"

    def __init__(self, gpu) -> None:
        self.pool_size = gpu.scheduler.active_pool_warps
        self.active: list = []
        self.pending: list = []
        self._known: set = set()
        self.rr = LooseRoundRobin()

    def select(self, eligible):
        for w in eligible:
            if w not in self._known:
                self._known.add(w)
                self.pending.append(w)
        keep = []
        for w in self.active:
            if w.done:
                self._known.discard(w)
            elif w.state in _LONG_WAITS:
                self.pending.append(w)
            else:
                keep.append(w)
        self.active = keep
        while len(self.active) < self.pool_size and self.pending:
            w = self.pending.pop(0)
            if w.done:
                self._known.discard(w)
            else:
                self.active.append(w)
        ready = [w for w in eligible if w in self.active]
        return self.rr.select(ready) if ready else None


# The built-in policies, registered by the names in their bodies (a compiled class cannot take a decorator).
for _policy in (LooseRoundRobin, GreedyThenOldest, TwoLevel):
    register_scheduler(_policy.name)(_policy)
