"""The functional SIMT emulator: runs a kernel launch and (optionally) records its trace.

How it executes: blocks are run in *batches* (as many whole blocks as fit in ``max_lanes`` lanes, 64 K by
default).  Every warp of a batch has a SIMT stack (:mod:`gpusim.functional.simt`); at each step the emulator
picks the lowest PC at which some runnable warp stands and executes that instruction for *all* warps standing
there at once, as one numpy operation over their active lanes (the instruction's handler, from
:mod:`gpusim.functional.registry`).  Regular kernels therefore run in lock step, one numpy call per
instruction for thousands of warps; divergent warps simply execute at different steps.  This is the "whole
block/grid at once where the instruction is uniform" choice of the design notes (measured in
``benchmarks/emulate.py``).

The parts: :mod:`~gpusim.functional.host` (launch checks, device memory, results),
:mod:`~gpusim.functional.kernel` (handlers per PC), :mod:`~gpusim.functional.state` (what a handler sees),
:mod:`~gpusim.functional.specials` (special registers), :mod:`~gpusim.functional.simt` (divergence and
barriers), :mod:`~gpusim.functional.recorder` (the trace), :mod:`~gpusim.functional.faults` (errors).

Simplifications: one PC order among warps (no model of time); memory is sequentially consistent in that
order (races resolve in it); ``%clock`` counts emulator steps.  ``schedule=`` runs another order
(:mod:`gpusim.functional.schedule`: one warp at a time, reversed or random) so that order-dependent results
show; ``checker=`` attaches the checker (:mod:`gpusim.check`): it instruments the compiled kernel and sees
every batch's frame, and the plain path carries no test for it.
"""
from __future__ import annotations

import time

import numpy as np

from gpusim.errors import LaunchError
from gpusim.functional import faults
from gpusim.functional.calls import CallStack
from gpusim.functional.kernel import CompiledKernel, compile_kernel
from gpusim.functional.host import (DeviceImage, EmulationStats, LaunchOutput, check_launch, dim3,
                                    select_kernel)
from gpusim.functional.recorder import FULL, TraceRecorder
from gpusim.functional.schedule import Lockstep, Schedule
from gpusim.functional.stream import LaunchStream
from gpusim.functional.simt import NEVER, SimtStack
from gpusim.functional.specials import special_registers
from gpusim.functional.livelock import LivelockWatch
from gpusim.functional.state import AR32, FULL_MASK, Frame, Step
from gpusim.functional.trace import KernelTrace, popcount32
from isa.program import Module

DEFAULT_BUDGET = 500_000_000   # warp instructions per launch
DEFAULT_TRACE_MEMORY_LIMIT = 2 << 30   # bytes one batch's trace buffers may hold
_LANE = AR32.astype(np.int64)

__all__ = ["Emulator", "EmulationStats", "LaunchOutput", "LaunchStream", "DEFAULT_BUDGET",
           "DEFAULT_TRACE_MEMORY_LIMIT", "dim3", "select_kernel"]


class Emulator:
    """Runs launches of the kernels of one :class:`Module`.

    ``max_lanes``: threads per batch (whole blocks, at least one); ``budget``: warp instructions a launch may
    execute; ``trace_memory_limit``: bytes one batch's trace may take while it records (see
    :mod:`gpusim.functional.stream`); ``fmad``: contract mul + add into fma as ptxas does (False: as
    --fmad=false)."""

    def __init__(self, module: Module, *, max_lanes: int = 65536, budget: int = DEFAULT_BUDGET,
                 fmad: bool = True, trace_memory_limit: int = DEFAULT_TRACE_MEMORY_LIMIT):
        self.module = module
        self.max_lanes = max_lanes
        self.budget = budget
        self.fmad = fmad
        self.trace_memory_limit = trace_memory_limit
        self._compiled: dict[tuple, CompiledKernel] = {}

    def stream(self, kernel: str | None, grid, block, args: list, *, symbols: dict | None = None,
               shared_mem: int = 0, regs_per_thread: int | None = None, progress=None,
               image=None, schedule: Schedule | None = None, checker=None) -> LaunchStream:
        """The launch as a :class:`LaunchStream`: nothing runs until its consumer asks for a batch.
        ``image``: a :class:`~gpusim.functional.host.ModuleImage` of this module in a heap that outlives the
        launch (pointer arguments are then its addresses); default: a fresh heap holding the arguments.
        ``schedule``: the warp order (default :class:`Lockstep`); ``checker``: a
        :class:`gpusim.check.Checker` that watches it."""
        k = select_kernel(self.module, kernel)
        grid3 = dim3(grid, "grid")
        block3 = dim3(block, "block")
        check_launch(k, grid3, block3, args, shared_mem)
        schedule = schedule or Lockstep()
        dev = DeviceImage(self.module, k, args, symbols, image)
        ck = self._compile(k, dev.global_addr, checker)
        dev.warn_dtypes(ck.program)
        shared_static = ck.ctx.shared_static_bytes
        shared_total = _align(shared_static, 16) + int(shared_mem) if shared_mem else shared_static
        tpb = block3[0] * block3[1] * block3[2]
        wpb = (tpb + 31) // 32
        per_batch = max(1, self.max_lanes // (wpb * 32))
        if checker is not None:
            checker.begin_launch(self.module, ck, dev, grid3, block3, shared_total)
        return LaunchStream(self, ck, dev, grid3, block3, shared_total, per_batch, regs_per_thread, progress,
                            schedule=schedule, checker=checker)

    def launch(self, kernel: str | None, grid, block, args: list, *, symbols: dict | None = None,
               shared_mem: int = 0, record: bool = False, regs_per_thread: int | None = None,
               progress=None, image=None, schedule: Schedule | None = None, checker=None) -> LaunchOutput:
        """Run the whole launch (``image``, ``schedule``, ``checker``: see :meth:`stream`); with ``record``
        its whole trace comes back in ``trace``."""
        if record and schedule is not None and schedule.independent_threads:
            raise LaunchError(f"a trace is recorded in the lockstep schedule, not {schedule}")
        s = self.stream(kernel, grid, block, args, symbols=symbols, shared_mem=shared_mem,
                        regs_per_thread=regs_per_thread, progress=progress, image=image, schedule=schedule,
                        checker=checker)
        chunks = list(s.chunks(FULL)) if record else []
        out = s.finish()
        if record:
            out.trace = KernelTrace.join(chunks)
        return out

    def _compile(self, k, global_addr: dict[str, int], checker=None) -> CompiledKernel:
        instrument = None if checker is None else checker.instrument
        key = (k.name, tuple(sorted(global_addr.items())), self.fmad,
               None if instrument is None else id(instrument))
        ck = self._compiled.get(key)
        if ck is None:
            ck = self._compiled[key] = compile_kernel(self.module, k, global_addr, self.fmad, instrument)
        return ck

    def _frame(self, ck: CompiledKernel, dev: DeviceImage, b0, nb, grid3, block3, shared_total,
               independent_threads: bool = False) -> Frame:
        """Registers, memory spaces, special registers and SIMT stacks of blocks ``b0 .. b0+nb-1``."""
        k = ck.kernel
        prog = ck.program
        tpb = block3[0] * block3[1] * block3[2]
        wpb = (tpb + 31) // 32
        lpb = wpb * 32
        T = nb * lpb
        fr = Frame(T, [r.bits for r in prog.registers])
        fr.mem, fr.const, fr.params = dev.mem, dev.const, dev.params
        fr.const_bytes = self.module.const_bytes
        fr.param_bytes = k.param_bytes
        fr.shared_size = max(shared_total, 0)
        fr.shared = np.zeros(_align(max(nb * shared_total, 16), 16), dtype=np.uint8)
        fr.local_size = _align(prog.local_bytes, 16)
        fr.local = np.zeros(max(T * fr.local_size, 16), dtype=np.uint8)
        fr.local2d = fr.local[: T * fr.local_size].reshape(T, fr.local_size)
        fr.pframe = np.zeros((T, _align(prog.frame_bytes, 8)), dtype=np.uint8)
        fr.calls = CallStack(T) if prog.has_calls else None
        fr.cc = np.zeros(T, dtype=np.uint8)      # the carry flag CC.CF of add.cc/addc ...
        fr.stack_sp = np.full(T, prog.stack_range[1], dtype=np.int64)   # alloca's stack pointer (local address)
        fr.lanes_per_block = lpb
        fr.block0, fr.grid, fr.block = b0, grid3, block3
        fr.lane_block_all = np.arange(T, dtype=np.int64) // lpb
        fr.special = special_registers(T, lpb, b0, grid3, block3, shared_total, ck.ctx.shared_static_bytes)
        fr.simt = SimtStack(nb * wpb, wpb, tpb, independent_threads=independent_threads)
        fr.simt.has_calls = prog.has_calls
        return fr

    def _run_batch(self, ck: CompiledKernel, dev: DeviceImage, b0, nb, grid3, block3, shared_total,
                   stats: EmulationStats, recorder: TraceRecorder | None, schedule: Schedule,
                   checker=None, stream: LaunchStream | None = None) -> None:
        k = ck.ctx.kernel
        instrs = ck.instructions
        fr = self._frame(ck, dev, b0, nb, grid3, block3, shared_total,
                         schedule.independent_threads or checker is not None)
        fr.recording = recorder is not None
        if checker is not None:
            checker.begin_batch(fr)
        simt = fr.simt
        pick = schedule.pick
        W = simt.pc.size
        st = Step()
        handlers, is_control = ck.handlers, ck.is_control
        pc_counts = stats.pc_warp_counts
        special = fr.special
        clock = ck.uses_clock
        watch, watch_from = None, 0
        if not (clock or ck.program.has_calls or checker is not None or schedule.independent_threads):
            watch = LivelockWatch(fr, ck.writes_global)
            watch_from = watch.start_step          # before it the watch keeps nothing: no call per step
        n_steps = 0
        while True:
            pc, selw = pick(simt)
            if pc == NEVER:
                if simt.finished:
                    break
                if simt.parked.any() and not simt.waiting.any():
                    raise faults.mbarrier_deadlock(self.module, k, fr, simt)
                raise faults.barrier_deadlock(self.module, k, fr, simt)
            if watch is not None and n_steps >= watch_from:
                period = watch.step(n_steps, pc)
                if period:
                    raise faults.livelock(self.module, k, fr, simt, instrs[pc], period, n_steps)
            n = selw.size
            ins = instrs[pc]
            act = simt.mask[selw]
            st.pc, st.selw, st.act, st.addr, st.E = pc, selw, act, None, None
            if ins.guard is None:
                st.exe = act
                if n == W and bool((act == FULL_MASK).all()):
                    st.sel = slice(None)
                    st.lanes = None
                else:
                    E = ((act[:, None] >> AR32) & 1).astype(bool)
                    st.E = E
                    st.sel = st.lanes = ((selw[:, None] * 32) + _LANE)[E]
            else:
                lm = (selw[:, None] * 32) + _LANE
                P = fr.regs[ins.guard.id][lm]
                if ins.guard_negated:
                    P = ~P
                E = (((act[:, None] >> AR32) & 1).astype(bool)) & P
                st.E = E
                st.exe = np.packbits(E, axis=1, bitorder="little").view("<u4")[:, 0]
                st.sel = st.lanes = lm[E]
            n_steps += 1
            stats.warp_instructions += n
            if stats.warp_instructions > self.budget:
                raise faults.budget_exceeded(self.module, k, ins, self.budget)
            if not n_steps & 255:
                if recorder is not None and recorder.batch_bytes > self.trace_memory_limit:
                    raise faults.trace_memory_exceeded(self.module, k, ins, self.trace_memory_limit,
                                                       recorder.batch_rows, b0, nb, grid3)
                if stream is not None and stream.progress is not None:
                    stream.tick()
            stats.thread_instructions += int(popcount32(act).sum())
            pc_counts[pc] += n
            if is_control[pc]:
                handlers[pc](fr, st)
            else:
                if st.lanes is None or st.lanes.size:
                    if clock:
                        special["%clock"] = np.uint32(n_steps & 0xFFFFFFFF)
                        special["%clock64"] = special["%globaltimer"] = np.uint64(n_steps)
                        special["%globaltimer_lo"] = special["%clock"]
                    handlers[pc](fr, st)
                simt.advance(selw)
            if recorder is not None:
                recorder.record(st)
        if checker is not None:
            checker.end_batch(fr)
        stats.steps += n_steps
        stats.branches += simt.branches
        stats.divergent_branches += simt.divergent_branches
        stats.barriers += simt.barriers


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a
