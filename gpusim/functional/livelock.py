"""Spotting a batch of blocks that can never finish, long before the instruction budget would.

A kernel that waits for a flag nothing sets (``while (flag == 0);``) runs until the budget stops it: at the
default 500M warp instructions that took more than two minutes.  In the lockstep schedule the emulator is a
deterministic function of the batch's state (PCs, SIMT stacks and barrier state, registers, shared and local
memory) and of global memory, so if that state comes back to a value it had before, and no instruction that
can write global memory ran in between, every step from there repeats forever.  :class:`LivelockWatch`
finds such a repeat with Brent's cycle-finding scheme: it keeps the state of one step and compares later
steps with it, moving the kept step forward at doubling distances, so a loop of any period is found within
about twice its period of steps once the watch starts.
"""
from __future__ import annotations

import time

import numpy as np

WATCH_FROM_STEPS = 2048   # steps of a batch before the watch starts: kernels that end sooner pay nothing
COST_SHARE = 0.02         # at most about this share of a batch's run time is spent keeping and comparing states


class LivelockWatch:
    """Watches one batch for a repeated state (see the module docstring).

    Models: a state repeat with no global write in between, which proves the batch cannot end.
    Simplifies: it is used only where the proof holds cheaply: the lockstep schedule, no clock reads
    (``%clock``/``%globaltimer`` change every step), no calls (the call stack is not compared) and no
    checker; a spinning loop that also writes global memory, even the same value, is left to the budget.
    Keeping and comparing a state copies and compares the batch's registers and memories exactly, so it is
    done only while the time it took stays under ``COST_SHARE`` of the batch's run time: a spin is still
    found (it repeats forever), a long legitimate loop pays at most about that share.
    """

    def __init__(self, fr, writes_global: list[bool], start_step: int | None = None):
        self.fr = fr
        self.writes_global = writes_global      # per PC: the instruction may write global memory
        self.start_step = WATCH_FROM_STEPS if start_step is None else start_step
        self._saved_pc = -1                     # the PC picked at the kept step
        self._saved: list[np.ndarray] | None = None
        self._saved_step = 0
        self._power = 1
        self._distance = 0
        self._t0 = time.perf_counter()
        self._spent_s = 0.0
        self._cost_s = sum(a.nbytes for a in self._arrays()) / 1e9   # a first guess: about 1 GB/s

    def _arrays(self) -> list[np.ndarray]:
        fr, simt = self.fr, self.fr.simt
        return [simt.pc, simt.mask, simt.rpc, simt.sp, simt.stack_pc, simt.stack_mask, simt.stack_rpc,
                simt.waiting, simt.parked, simt.done, simt.alive, simt.bar_lanes, simt.live,
                *fr.regs, fr.shared, fr.local, fr.pframe, fr.cc, fr.stack_sp]

    def _affordable(self) -> bool:
        return self._spent_s + self._cost_s <= COST_SHARE * (time.perf_counter() - self._t0)

    def _same_as_saved(self) -> bool:
        t = time.perf_counter()
        same = all(np.array_equal(a, b) for a, b in zip(self._arrays(), self._saved))
        self._spent_s += time.perf_counter() - t
        return same

    def _keep(self, n_step: int, pc: int) -> None:
        t = time.perf_counter()
        self._saved = [a.copy() for a in self._arrays()]
        self._saved_pc, self._saved_step, self._distance = pc, n_step, 0
        self._cost_s = time.perf_counter() - t
        self._spent_s += self._cost_s

    def step(self, n_step: int, pc: int) -> int | None:
        """Called before the instruction at ``pc`` runs as step ``n_step``; the loop's period in steps when
        the batch is proven to spin forever, else None."""
        if self.writes_global[pc]:
            self._saved = None                   # global memory may change: start again from a later step
            return None
        if n_step < self.start_step:
            return None
        if self._saved is None:
            if self._affordable():
                self._keep(n_step, pc)
            return None
        self._distance += 1
        if pc == self._saved_pc and self._affordable() and self._same_as_saved():
            return n_step - self._saved_step
        if self._distance >= self._power and self._affordable():
            self._power *= 2
            self._keep(n_step, pc)
        return None


def global_writers(static) -> list[bool]:
    """Per PC of ``static`` (the kernel's :class:`~gpusim.functional.trace.StaticInstr` list): whether the
    instruction may write global memory (stores and atomics to any space but shared and local)."""
    return [bool((s.is_store or s.is_atomic) and s.mem_space not in ("shared", "local")) for s in static]
