"""Warp schedules of the functional emulator: the order in which blocks and warps execute.

A GPU promises no order between the warps of a block (between barriers) nor between blocks, so a kernel
whose result depends on one has a bug.  The emulator's default order, :class:`Lockstep`, runs whole batches
of blocks and at each step the lowest PC any warp stands at, for every warp standing there: fast (one numpy
operation for thousands of warps), and it happens to make many races come out right.  The other schedules
run one block at a time (blocks in their order) and one warp at a time within it, so that order-dependent
bugs change the results:

* :class:`Reversed`: the last block first; within a block the highest-numbered warp that can run runs
  until it waits at a barrier or exits, then the next.
* :class:`Random` (seeded): blocks in a random order; within a block a random warp runs for a random
  number of instructions (on average ``1 / switch_probability``) before another is picked.

A schedule gives the emulator its batches (:meth:`Schedule.batches`: ``(first block, number of blocks)``)
and, at each step, the PC and the warps to execute (:meth:`Schedule.pick`).  Every non-lockstep schedule
uses independent-thread barriers (see :mod:`gpusim.functional.simt`).  Simplification: lanes of one warp
still execute together (the SIMT stack decides their order); only the order of warps and blocks changes.
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import LaunchError
from gpusim.functional.simt import NEVER, SimtStack

SCHEDULES = ("lockstep", "reversed", "random")


class Schedule:
    """The order of blocks and warps (see the module docstring)."""

    name = "lockstep"
    independent_threads = False

    def batches(self, n_blocks: int, per_batch: int):
        """``(first block, number of blocks)`` of each batch, in execution order."""
        for b0 in range(0, n_blocks, per_batch):
            yield b0, min(per_batch, n_blocks - b0)

    def pick(self, simt: SimtStack):
        """``(pc, warps)`` to execute next; ``(NEVER, None)`` when no warp can run."""
        pc = int(simt.ready_pc.min())
        if pc == NEVER:
            return NEVER, None
        return pc, np.flatnonzero(simt.ready_pc == pc)

    def __str__(self) -> str:
        return self.name


class Lockstep(Schedule):
    """The default: batches of blocks, the lowest PC first, every warp standing at it at once."""


class _OneWarp(Schedule):
    """One block per batch and one warp per step."""

    independent_threads = True

    def order(self, n_blocks: int) -> np.ndarray:
        raise NotImplementedError

    def batches(self, n_blocks: int, per_batch: int):
        for b in self.order(n_blocks):
            yield int(b), 1


class Reversed(_OneWarp):
    """The last block first; the highest-numbered runnable warp runs until it cannot."""

    name = "reversed"

    def order(self, n_blocks: int) -> np.ndarray:
        return np.arange(n_blocks)[::-1]

    def pick(self, simt: SimtStack):
        ready = np.flatnonzero(simt.ready_pc != NEVER)
        if ready.size == 0:
            return NEVER, None
        w = ready[-1:]
        return int(simt.ready_pc[w[0]]), w


class Random(_OneWarp):
    """Blocks in a random order; a random runnable warp runs for a random stretch (seeded)."""

    name = "random"

    def __init__(self, seed: int = 0, switch_probability: float = 0.125):
        self.seed = int(seed)
        self.switch_probability = switch_probability
        self.rng = np.random.default_rng([self.seed, 2])
        self._current = -1

    def order(self, n_blocks: int) -> np.ndarray:
        self._current = -1
        return self.rng.permutation(n_blocks)

    def pick(self, simt: SimtStack):
        w = self._current
        if w < 0 or simt.ready_pc[w] == NEVER or self.rng.random() < self.switch_probability:
            ready = np.flatnonzero(simt.ready_pc != NEVER)
            if ready.size == 0:
                return NEVER, None
            w = self._current = int(ready[self.rng.integers(ready.size)])
        return int(simt.ready_pc[w]), np.array([w])

    def __str__(self) -> str:
        return f"random (seed {self.seed})"


def schedule(name: str | Schedule | None, seed: int = 0) -> Schedule:
    """The schedule a name gives (``lockstep``, ``reversed``, ``random``; ``random`` takes ``seed``)."""
    if name is None:
        return Lockstep()
    if isinstance(name, Schedule):
        return name
    if name == "lockstep":
        return Lockstep()
    if name == "reversed":
        return Reversed()
    if name == "random":
        return Random(seed)
    raise LaunchError(f"schedule must be one of {', '.join(SCHEDULES)}, not {name!r}")
