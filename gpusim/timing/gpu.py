"""The GPU as the timing model sees it: a kernel launch, the block scheduler, and the SMs, on one SimPy clock."""
from __future__ import annotations

import heapq
import time
from collections import deque

import numpy as np
import simpy

from gpusim.functional.trace import KernelTrace
from gpusim.stats.stall_reasons import N_STALL_REASONS
from gpusim.timing.decode import SMSP_PIPES, DecodedKernel
from gpusim.timing.schedulers import make_scheduler
from gpusim.timing.sm import INF, StreamingMultiprocessor, Warp

PROGRESS_INTERVAL_S = 0.5


class BlockScheduler:
    """The GPU's block (CTA) dispatcher: hands out blocks in linear block order (x fastest).

    At launch it fills the SMs breadth first (one block to each SM in turn, then a second round, ...) up to
    the occupancy limit; afterwards each block that retires frees room on its SM for exactly one more, so
    the next block goes there. Simplification: dispatch itself takes no time; the config's
    ``block_launch_cycles`` is the delay until the dispatched block's warps can issue.
    """

    def __init__(self, n_blocks: int) -> None:
        self.queue = deque(range(n_blocks))
        self.n_blocks = n_blocks

    def next_block(self) -> int | None:
        return self.queue.popleft() if self.queue else None

    def initial_dispatch(self, sms: list[StreamingMultiprocessor], blocks_per_sm: int, now: int) -> None:
        for _ in range(blocks_per_sm):
            for sm in sms:
                bid = self.next_block()
                if bid is None:
                    return
                sm.dispatch(bid, now)


class GpuTimingModel:
    """A whole-GPU timing simulation of one kernel trace: builds the SMs, runs SimPy to the end of the
    kernel and keeps the raw totals (per warp, per SM, per PC) that :func:`gpusim.timing.simulate` turns
    into counters.

    Simplifications: one kernel at a time; the kernel's cycle count starts at the launch (including
    ``kernel_launch_cycles``) and ends when the last block retires.
    """

    def __init__(self, trace: KernelTrace, gpu, *, scheduler: str, blocks_per_sm: int, memory,
                 hooks=None, progress=None) -> None:
        self.trace = trace
        self.gpu = gpu
        self.scheduler_name = scheduler
        make_scheduler(scheduler, gpu)     # fail early on an unknown name
        self.blocks_per_sm = blocks_per_sm
        self.memory = memory
        self.hooks = hooks or None
        self.progress = progress
        self.kernel = DecodedKernel(trace, gpu)
        self.n_pipes = len(SMSP_PIPES)
        self.trace_pc: list[int] = trace.pc.tolist()
        self.mem_slot: list[int] = trace.mem_slot.tolist()
        ws = trace.warp_start.tolist()
        self.warp_rows = [(ws[i], ws[i + 1]) for i in range(trace.n_warps)]
        order = np.lexsort((trace.warp_in_block, trace.warp_block))
        self.block_warps: list[list[int]] = [[] for _ in range(trace.n_blocks)]
        for gid, bid in zip(order.tolist(), trace.warp_block[order].tolist()):
            self.block_warps[bid].append(gid)
        self.pc_stalls = [0] * (len(trace.instructions) * N_STALL_REASONS)
        self.warps: list[Warp | None] = [None] * trace.n_warps
        self.blocks_done = 0
        self.barrier_releases = 0
        self._age = 0
        self._progress_calls = 0
        self._progress_last = time.perf_counter()
        self.block_scheduler = BlockScheduler(trace.n_blocks)
        self.sms: list[StreamingMultiprocessor] = []
        self.cycles = 0

    def make_policy(self):
        return make_scheduler(self.scheduler_name, self.gpu)

    def next_age(self) -> int:
        self._age += 1
        return self._age

    def block_retired(self, sm: StreamingMultiprocessor, b, now: int) -> None:
        self.blocks_done += 1
        bid = self.block_scheduler.next_block()
        if bid is not None:
            sm.dispatch(bid, now)

    def tick_progress(self, now: int) -> None:
        self._progress_calls += 1
        if self._progress_calls & 1023:
            return
        t = time.perf_counter()
        if t - self._progress_last >= PROGRESS_INTERVAL_S:
            self._progress_last = t
            self.progress(now, self.blocks_done, self.block_scheduler.n_blocks)

    def run(self) -> int:
        env = simpy.Environment()
        self.sms = [StreamingMultiprocessor(i, self) for i in range(self.gpu.sm.count)]
        self.block_scheduler.initial_dispatch(self.sms, self.blocks_per_sm, self.gpu.kernel_launch_cycles)
        env.process(self._event_loop(env))
        env.run()
        self.cycles = int(env.now)
        if self.progress is not None:
            self.progress(self.cycles, self.blocks_done, self.block_scheduler.n_blocks)
        return self.cycles

    def _event_loop(self, env):
        """The one SimPy process: steps the SMs in time order from a heap of (next cycle, sequence, SM) and
        yields to SimPy only when the clock moves (one event per distinct cycle, not one per SM and cycle).
        The sequence number breaks ties in scheduling order, as SimPy's event ids would with one process per
        SM, so the order in which SMs reach the shared memory system in one cycle is unchanged."""
        heap = []
        seq = 0
        for sm in self.sms:
            if sm.launching:
                heap.append((sm.launching[0][0], seq, sm))
                seq += 1
        heapq.heapify(heap)
        pop = heapq.heappop
        push = heapq.heappush
        progress = self.progress is not None
        now = 0
        while heap:
            t, _, sm = pop(heap)
            if t > now:
                yield env.timeout(t - now)
                now = t
            nxt = sm.step(t)
            if progress:
                self.tick_progress(t)
            if nxt < INF:
                push(heap, (nxt, seq, sm))
                seq += 1
