"""The GPU as the timing model sees it: a kernel launch, the block scheduler, and the SMs, advanced on one
SimPy clock.

SimPy owns simulated time (``env.now`` is the GPU cycle). The GPU runs as one SimPy process, a next-event
loop: a heap holds, for every SM that has something left to do, the next cycle at which anything can change
on it; the loop pops the earliest, lets that SM step (it returns its own next interesting cycle) and pushes
it back, and yields a SimPy timeout only when the clock moves. So idle cycles cost nothing, and there is one
SimPy event per distinct cycle, not one per SM, warp or cycle: an SM's warps, pipes and barriers are
scanned inside its step (see :mod:`gpusim.timing.sm`). One SimPy process per SM, resumed at every step,
cost 1.66 M events on the 256 matmul against 40 k this way (DESIGN.md, "Speed in Python"); whatever else
comes to run beside the SMs (further launches, host activity) joins the same environment as a process.
"""
from __future__ import annotations

import heapq
import math
import time
from collections import deque

import numpy as np
import simpy

from gpusim.functional.trace import KernelTrace
from gpusim.timing.decode import INF, SMSP_PIPES, DecodedKernel, int_array, schedule_rows
from gpusim.timing.schedulers import make_scheduler
from gpusim.timing.sm import StreamingMultiprocessor, Warp, step_sms
from gpusim.timing.warp_states import N_STALL_REASONS

PROGRESS_INTERVAL_S = 0.5


class BlockScheduler:
    """The GPU's block (CTA) dispatcher: hands out blocks in linear block order (x fastest).

    At launch it fills the SMs breadth first (one block to each SM in turn, then a second round, ...) up to
    the occupancy limit, one block every ``block_dispatch_interval_cycles`` GPU-wide; afterwards each block
    that retires frees room on its SM for exactly one more, so the next block goes there.  Retiring is a
    GPU-wide serial stage too: each retiring block occupies the scheduler for
    ``block_completion_interval_cycles``, and both the block that replaces it and the end of the kernel
    wait for that.  ``block_launch_cycles`` is then the delay until a dispatched block's warps can issue.

    Why at completion: on the H100 under ncu (``benchmarks/dispatch_probe.py``, 2026-11-22) 4,224 blocks
    that each spin 20,000 cycles start within ~420 ns of each other (%globaltimer: ~5 blocks per cycle),
    yet the kernel takes 3,928 cycles longer than 132 such blocks, as much as 4,224 empty blocks take over
    132 (0.96 cycles per block, calibration.json): the cost is paid when blocks finish.
    Simplification: one FIFO for all SMs, fractional cycles kept exactly and rounded up where used.
    """

    def __init__(self, n_blocks: int, dispatch_interval: float = 0.0, completion_interval: float = 0.0) -> None:
        self.queue = deque(range(n_blocks))
        self.n_blocks = n_blocks
        self.dispatch_interval = float(dispatch_interval)
        self.completion_interval = float(completion_interval)
        self.completion_free = 0.0
        self.last_completion = 0

    def next_block(self) -> int | None:
        return self.queue.popleft() if self.queue else None

    def initial_dispatch(self, sms: list[StreamingMultiprocessor], blocks_per_sm: int, now: int) -> None:
        k = 0
        for _ in range(blocks_per_sm):
            for sm in sms:
                bid = self.next_block()
                if bid is None:
                    return
                sm.dispatch(bid, now + math.ceil(k * self.dispatch_interval))
                k += 1

    def complete(self, now: int) -> int:
        """A block retires at ``now``: the cycle the scheduler has processed its completion."""
        c = max(float(now), self.completion_free)
        self.completion_free = c + self.completion_interval
        done = math.ceil(c)
        if done > self.last_completion:
            self.last_completion = done
        return done


class GpuTimingModel:
    """A whole-GPU timing simulation of one kernel trace: builds the SMs, runs the next-event loop to the end
    of the kernel and keeps the raw totals (per warp, per SM, per PC) that :func:`gpusim.timing.simulate`
    turns into counters.

    Simplifications: one kernel at a time; the kernel's cycle count starts at the launch (including
    ``kernel_launch_cycles``) and ends when the last block retires.
    """

    def __init__(self, trace: KernelTrace, gpu, *, scheduler: str, blocks_per_sm: int, memory, requests,
                 observer=None, progress=None, ideal=None) -> None:
        self.trace = trace
        self.gpu = gpu
        self.scheduler_name = scheduler
        make_scheduler(scheduler, gpu)     # fail early on an unknown name
        self.blocks_per_sm = blocks_per_sm
        self.memory = memory
        self.requests = requests             # a MemoryRequest per memory slot (gpusim.timing.lsu)
        self.observer = observer             # a gpusim.timing.hooks.TimingObserver, or None
        self.progress = progress
        self.kernel = DecodedKernel(trace, gpu, free_barriers=bool(ideal is not None and ideal.barriers))
        self.n_pipes = len(SMSP_PIPES)
        # The order each warp issues its recorded instructions in (gpu.instruction_schedule).
        pcs, slots = schedule_rows(trace, getattr(gpu, "instruction_schedule", "ptx"))
        self.trace_pc = int_array(pcs)
        self.mem_slot = int_array(slots)
        ws = trace.warp_start.tolist()
        self.warp_rows = [(ws[i], ws[i + 1]) for i in range(trace.n_warps)]
        order = np.lexsort((trace.warp_in_block, trace.warp_block))
        self.block_warps: list[list[int]] = [[] for _ in range(trace.n_blocks)]
        for gid, bid in zip(order.tolist(), trace.warp_block[order].tolist()):
            self.block_warps[bid].append(gid)
        self.pc_stalls = int_array(np.zeros(len(trace.instructions) * N_STALL_REASONS, dtype=np.int64))
        self.warps: list[Warp | None] = [None] * trace.n_warps
        self.blocks_done = 0
        self.barrier_releases = 0
        self._age = 0
        self._progress_calls = 0
        self._progress_last = time.perf_counter()
        self.block_scheduler = BlockScheduler(trace.n_blocks, getattr(gpu, "block_dispatch_interval_cycles", 0.0),
                                              getattr(gpu, "block_completion_interval_cycles", 0.0))
        self.sms: list[StreamingMultiprocessor] = []
        self.cycles = 0

    def make_policy(self):
        return make_scheduler(self.scheduler_name, self.gpu)

    def next_age(self) -> int:
        self._age += 1
        return self._age

    def block_retired(self, sm: StreamingMultiprocessor, b, now: int) -> None:
        self.blocks_done += 1
        done = self.block_scheduler.complete(now)
        bid = self.block_scheduler.next_block()
        if bid is not None:
            sm.dispatch(bid, done)

    def tick_progress(self, now: int) -> None:
        self._progress_calls += 1
        if self._progress_calls & 1023:
            return
        t = time.perf_counter()
        if t - self._progress_last >= PROGRESS_INTERVAL_S:
            self._progress_last = t
            self.progress(now, self.blocks_done, self.block_scheduler.n_blocks)

    def run(self) -> int:
        self.sms = [StreamingMultiprocessor(i, self) for i in range(self.gpu.sm.count)]
        self.block_scheduler.initial_dispatch(self.sms, self.blocks_per_sm, self.gpu.kernel_launch_cycles)
        env = simpy.Environment()
        env.process(self._event_loop(env))
        env.run()
        self.cycles = max(int(env.now), self.block_scheduler.last_completion)
        if self.progress is not None:
            self.progress(self.cycles, self.blocks_done, self.block_scheduler.n_blocks)
        return self.cycles

    def _event_loop(self, env: simpy.Environment):
        """The GPU's SimPy process: step the SMs in time order from a heap of (next cycle, sequence, SM) until
        none has anything left, advancing ``env`` to each cycle at which some SM steps.  The sequence number
        breaks ties in the order SMs were pushed, so SMs that step in the same cycle reach the shared memory
        system in a fixed order."""
        heap = []
        seq = 0
        for sm in self.sms:
            if sm.launching:
                heap.append((sm.launching[0][0], seq, sm))
                seq += 1
        heapq.heapify(heap)
        progress = self.progress is not None
        now = 0
        while heap:
            t = heap[0][0]
            if t > now:
                yield env.timeout(t - now)
                now = t
            seq = step_sms(heap, t, seq)
            if progress:
                self.tick_progress(t)
