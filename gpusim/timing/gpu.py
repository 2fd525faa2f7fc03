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

import math
import time
from collections import deque

import numpy as np
import simpy

from gpusim.timing.decode import INF, N_PIPES, DecodedKernel, int_array
from gpusim.timing.schedulers import make_scheduler
from gpusim.timing.sm import StepHeap, StreamingMultiprocessor, Warp, step_sms
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

    def __init__(self, n_blocks: int, dispatch_interval: float = 0.0, completion_interval: float = 0.0,
                 load=None) -> None:
        self.queue = deque(range(n_blocks))
        self.n_blocks = n_blocks
        self.dispatch_interval = float(dispatch_interval)
        self.completion_interval = float(completion_interval)
        self.completion_free = 0.0
        self.last_completion = 0
        self.load = load          # load(bid, now): the simulator brings a block's trace in before dispatching it

    def next_block(self, now: int = 0) -> int | None:
        """The next block to dispatch at cycle ``now`` (None when all have been)."""
        if not self.queue:
            return None
        bid = self.queue.popleft()
        if self.load is not None:
            self.load(bid, now)
        return bid

    def initial_dispatch(self, sms: list[StreamingMultiprocessor], blocks_per_sm: int, now: int) -> None:
        k = 0
        for _ in range(blocks_per_sm):
            for sm in sms:
                at = now + math.ceil(k * self.dispatch_interval)
                bid = self.next_block(at)
                if bid is None:
                    return
                sm.dispatch(bid, at)
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
    turns into counters.  The trace's rows come from a :class:`~gpusim.timing.feed.BlockFeed` (the whole
    trace, or chunks loaded as the block scheduler reaches them); each warp's totals are kept in arrays
    when its block retires, and its :class:`~gpusim.timing.sm.Warp` is let go.

    Simplifications: one kernel at a time; the kernel's cycle count starts at the launch (including
    ``kernel_launch_latency_cycles``) and ends when the last block retires.
    """

    def __init__(self, feed, gpu, *, scheduler: str, blocks_per_sm: int, memory, observer=None,
                 progress=None, ideal=None) -> None:
        trace = feed.first
        self.trace = trace                   # the first chunk (the static facts of the launch)
        self.feed = feed
        self.gpu = gpu
        self.scheduler_name = scheduler
        make_scheduler(scheduler, gpu)     # fail early on an unknown name
        self.blocks_per_sm = blocks_per_sm
        self.memory = memory
        self.observer = observer             # a gpusim.timing.hooks.TimingObserver, or None
        self.progress = progress
        self.kernel = DecodedKernel(trace, gpu, free_barriers=bool(ideal is not None and ideal.barriers))
        self.kernel.slot_state = feed.slot_state
        self.n_pipes = N_PIPES
        # What the SMs read by row and slot: the feed's arrays (bound again when it reallocates them).
        self.trace_pc = feed.trace_pc
        self.mem_slot = feed.mem_slot
        self.requests = feed.requests        # a MemoryRequest per memory slot (gpusim.timing.lsu)
        self.warp_rows = feed.warp_rows
        self.block_warps = feed.block_warps
        n_warps = trace.launch_warps
        self.pc_stalls = int_array(np.zeros(len(trace.instructions) * N_STALL_REASONS, dtype=np.int64))
        self.warps: list[Warp | None] = [None] * n_warps
        feed.warps = self.warps
        feed.rebind = self.rebind
        # Each warp's totals, kept when its block retires.
        self.warp_stall = np.zeros((n_warps, N_STALL_REASONS), dtype=np.int64)
        self.warp_start_cycle = np.full(n_warps, -1, dtype=np.int64)
        self.warp_end_cycle = np.full(n_warps, -1, dtype=np.int64)
        self.warp_sm = np.zeros(n_warps, dtype=np.int64)
        self.blocks_done = 0
        self.barrier_releases = 0
        self._age = 0
        self._progress_calls = 0
        self._progress_last = time.perf_counter()
        self.block_scheduler = BlockScheduler(trace.n_blocks, getattr(gpu, "block_dispatch_interval_cycles", 0.0),
                                              getattr(gpu, "block_completion_interval_cycles", 0.0),
                                              load=feed.load)
        self.sms: list[StreamingMultiprocessor] = []
        self.cycles = 0

    def make_policy(self):
        return make_scheduler(self.scheduler_name, self.gpu)

    def next_age(self) -> int:
        self._age += 1
        return self._age

    def block_retired(self, sm: StreamingMultiprocessor, b, now: int) -> None:
        self.blocks_done += 1
        self.keep_warps(b.warps, sm.sm_id)
        self.feed.retired(b.bid)
        done = self.block_scheduler.complete(now)
        bid = self.block_scheduler.next_block(done)
        if bid is not None:
            sm.dispatch(bid, done)

    def rebind(self) -> None:
        """The feed replaced or resized its row and slot arrays or its request list (it grew or compacted
        them): every holder reads the current ones.  The compiled SM reads the arrays through typed
        memoryviews, and an array a memoryview holds cannot change size: the feed resizes one only between
        two calls, while the holders read empty stand-ins (:meth:`BlockFeed._resize`)."""
        feed = self.feed
        self.trace_pc, self.mem_slot, self.requests = feed.trace_pc, feed.mem_slot, feed.requests
        self.kernel.slot_state = feed.slot_state
        for sm in self.sms:
            sm.trace_pc, sm.mem_slot, sm.requests = feed.trace_pc, feed.mem_slot, feed.requests
            for sp in sm.subpartitions:
                sp.trace_pc, sp.mem_slot, sp.slot_state = feed.trace_pc, feed.mem_slot, feed.slot_state
                sp.requests = feed.requests

    def keep_warps(self, warps, sm_id: int) -> None:
        """Keep the totals of ``warps`` (of a retired block) and let their Warp objects go."""
        for w in warps:
            g = w.gid
            self.warp_stall[g] = w.stall
            self.warp_start_cycle[g] = w.start_cycle
            self.warp_end_cycle[g] = w.end_cycle
            self.warp_sm[g] = sm_id
            self.warps[g] = None

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
        self.block_scheduler.initial_dispatch(self.sms, self.blocks_per_sm, self.gpu.kernel_launch_latency_cycles)
        env = simpy.Environment()
        env.process(self._event_loop(env))
        env.run()
        self.cycles = max(int(env.now), self.block_scheduler.last_completion)
        if self.progress is not None:
            self.progress(self.cycles, self.blocks_done, self.block_scheduler.n_blocks)
        return self.cycles

    def _event_loop(self, env: simpy.Environment):
        """The GPU's SimPy process: step the SMs in time order from a heap of their next cycles
        (:class:`~gpusim.timing.sm.StepHeap`) until none has anything left, advancing ``env`` to each cycle at
        which some SM steps.  Ties go in the order SMs were pushed, so SMs that step in the same cycle reach
        the shared memory system in a fixed order."""
        heap = StepHeap(len(self.sms))
        for i, sm in enumerate(self.sms):
            if sm.launching:
                heap.push(sm.launching[0][0], i)
        progress = self.progress is not None
        now = 0
        while heap.size:
            t = heap.first()
            if t > now:
                yield env.timeout(t - now)
                now = t
            step_sms(heap, self.sms, t)
            if progress:
                self.tick_progress(t)
