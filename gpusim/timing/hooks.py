"""Observing the timing model: typed events and the one protocol that receives them.

An observer is given to the model when it is built (``simulate(trace, gpu, observer=...)``); the model
hands it to each component that emits events (the SMs, the memory system, its DRAM channels).  With no
observer every emission point costs one ``is not None`` test; with one, each event is built as a small
named tuple and passed to the observer's method for its type.  Subclass :class:`TimingObserver` and
override the methods you need; :func:`combine_observers` fans events out to several.

Events (all fields ints; cycles are SM cycles unless the name says otherwise):

* :class:`WarpIssue` (``cycle, sm, smsp, warp, pc``): warp ``warp`` (index in the trace) issued the
  instruction at ``pc`` from sub-partition ``smsp``.
* :class:`WarpStateChange` (``cycle, sm, warp, pc, state``): from ``cycle`` on the warp is in ``state``
  (a :class:`~gpusim.timing.warp_states.StallReason`), waiting to issue ``pc``.  A warp's issues and state
  changes come in cycle order.
* :class:`SharedAccess` (``cycle, sm, warp, pc, wavefronts, ideal_wavefronts, ready``): a shared-memory
  instruction the SM's LSU/MIO pipe took at ``cycle`` (its issue cycle, or later when it waited in the LSU
  queue), its bank wavefronts with and without conflicts, and the cycle its
  result is ready (from the memory model).
* :class:`GlobalAccess` (``cycle, sm, warp, pc, sectors, ready``): a global or local instruction with at
  least one active lane sent to L1TEX at ``cycle`` (as for shared accesses), its sector count and ready
  cycle.
* :class:`~gpusim.memory.dram.DramCommand` (``ck, channel, bank, command, outcome``): a DRAM command
  (``ACT``, ``PRE``, ``RD``, ``WR``) at DRAM clock ``ck`` and the row-buffer outcome (hit, miss, conflict)
  of the access it serves, as the channel decided it.

Memory-access events come from the SM's LSU, so they are the same whatever memory model runs; DRAM
commands come from the full memory system only.
"""
from __future__ import annotations

from typing import NamedTuple

from gpusim.memory.dram import DramCommand

__all__ = ["WarpIssue", "WarpStateChange", "SharedAccess", "GlobalAccess", "DramCommand", "TimingObserver",
           "combine_observers"]


class WarpIssue(NamedTuple):
    cycle: int
    sm: int
    smsp: int
    warp: int
    pc: int


class WarpStateChange(NamedTuple):
    cycle: int
    sm: int
    warp: int
    pc: int
    state: int


class SharedAccess(NamedTuple):
    cycle: int
    sm: int
    warp: int
    pc: int
    wavefronts: int
    ideal_wavefronts: int
    ready: int


class GlobalAccess(NamedTuple):
    cycle: int
    sm: int
    warp: int
    pc: int
    sectors: int
    ready: int


class TimingObserver:
    """The observer protocol: one method per event type, each a no-op here."""

    def on_issue(self, e: WarpIssue) -> None:
        pass

    def on_warp_state(self, e: WarpStateChange) -> None:
        pass

    def on_shared_access(self, e: SharedAccess) -> None:
        pass

    def on_global_access(self, e: GlobalAccess) -> None:
        pass

    def on_dram_command(self, e: DramCommand) -> None:
        pass


class _FanOut(TimingObserver):
    """Several observers as one: each event goes to each of them, in order."""

    def __init__(self, observers) -> None:
        self.observers = tuple(observers)
        for name in ("on_issue", "on_warp_state", "on_shared_access", "on_global_access", "on_dram_command"):
            methods = tuple(getattr(o, name) for o in self.observers)
            setattr(self, name, _fan(methods))


def _fan(methods):
    def call(e) -> None:
        for m in methods:
            m(e)
    return call


def combine_observers(*observers) -> TimingObserver | None:
    """One observer that forwards every event to each of ``observers`` (``None`` entries skipped; ``None``
    if none is left)."""
    obs = [o for o in observers if o is not None]
    if not obs:
        return None
    return obs[0] if len(obs) == 1 else _FanOut(obs)
