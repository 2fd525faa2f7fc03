"""The timing model: a discrete-event GPU on a SimPy clock (one next-event process over SMs,
:mod:`~gpusim.timing.gpu`) that replays a functional-emulator trace and says how many cycles it takes, with
Nsight-named counters and warp-stall breakdowns.

    >>> from gpusim.timing import simulate
    >>> res = simulate(trace, "h100", scheduler="gto")
    >>> print(res.summary())

Structure: :mod:`~gpusim.timing.gpu` (block scheduler, the launch), :mod:`~gpusim.timing.sm` (SM,
sub-partitions, warps, scoreboard, pipes, barriers), :mod:`~gpusim.timing.schedulers` (warp-scheduling
policies by name), :mod:`~gpusim.timing.decode` (per-PC facts decoded once), :mod:`~gpusim.timing.occupancy`
(resident blocks per SM), :mod:`~gpusim.timing.lsu` (the LSU front end: trace slots to memory requests),
:mod:`~gpusim.timing.hooks` (observer events), :mod:`~gpusim.timing.idealize` (what-if idealisations), :mod:`~gpusim.timing.warp_states` and
:mod:`~gpusim.timing.metrics` (Nsight's warp-state and metric names).  The memory model behind the seam:
:mod:`gpusim.memory.request`.
"""
from __future__ import annotations

import contextlib
import gc

import numpy as np

from gpusim.config import load_gpu
from gpusim.errors import LaunchError
from gpusim.functional.trace import KernelTrace
from gpusim.memory.fixed_latency import FixedLatencyMemory
from gpusim.memory.request import LaunchResources
from gpusim.memory.system import MemorySystem
from gpusim.timing.decode import DecodedKernel, estimate_regs_per_thread
from gpusim.timing.gpu import BlockScheduler, GpuTimingModel
from gpusim.timing.hooks import TimingObserver, combine_observers
from gpusim.timing.idealize import IDEALIZATIONS, Idealization
from gpusim.timing.lsu import LsuFrontEnd
from gpusim.timing.metrics import timing_counters
from gpusim.timing.result import TimingResult
from gpusim.timing.schedulers import SCHEDULERS, register_scheduler
from gpusim.timing.warp_states import N_STALL_REASONS, STALL_REASONS, StallReason, stall_metric_name

__all__ = ["simulate", "TimingResult", "FixedLatencyMemory", "SCHEDULERS", "register_scheduler",
           "estimate_regs_per_thread", "GpuTimingModel", "BlockScheduler", "DecodedKernel", "TimingObserver",
           "combine_observers", "Idealization", "IDEALIZATIONS", "STALL_REASONS", "N_STALL_REASONS", "StallReason", "stall_metric_name"]


def _resolve_memory(memory, gpu, observer, ideal: Idealization):
    """``None``: the full :class:`MemorySystem` (reporting DRAM commands to ``observer``); ``"fixed"``:
    :class:`FixedLatencyMemory`; otherwise a :class:`~gpusim.memory.request.MemoryModel`, used as built."""
    if memory == "fixed":
        return FixedLatencyMemory(gpu)
    if memory is None:
        return MemorySystem(gpu, observer=observer, unlimited_dram=ideal.dram, atomics_serialise=not ideal.atomics,
                            latency_free_reads=ideal.latency)
    return memory


def _occupancy(trace: KernelTrace, gpu, regs: int, ideal: Idealization | None = None):
    from gpusim.timing.occupancy import occupancy
    shared = int(trace.shared_bytes)
    if ideal is not None and ideal.occupancy:
        # what-if: only warp and block slots limit the blocks per SM
        return occupancy(gpu, trace.block, 0, 0, 0, n_blocks=trace.n_blocks)
    # The trace keeps static + dynamic together; above the static limit the kernel must have opted in.
    if shared <= gpu.sm.shared_bytes_per_block:
        return occupancy(gpu, trace.block, regs, shared, 0, n_blocks=trace.n_blocks)
    return occupancy(gpu, trace.block, regs, 0, shared, n_blocks=trace.n_blocks, optin=True)


def _ptxas_passes(trace: KernelTrace, gpu) -> KernelTrace:
    """The trace as the SASS ptxas makes of its PTX would run it: merged vector accesses
    (:mod:`gpusim.timing.vector_merge`) when the config asks for them."""
    if not gpu.merge_vector_accesses:
        return trace
    from gpusim.timing.vector_merge import find_merge_groups, merge_vector_accesses
    return merge_vector_accesses(trace, find_merge_groups(trace))


def simulate(trace: KernelTrace, gpu="h100", *, scheduler: str | None = None,
             regs_per_thread: int | None = None, memory=None, observer: TimingObserver | None = None,
             progress=None, ideal: Idealization | None = None) -> TimingResult:
    """Time ``trace`` on ``gpu`` (a :class:`GpuConfig` or a preset name).

    ``scheduler``: warp-scheduling policy name (default: the config's ``scheduler.policy``; its parameters
    come from the config's ``[scheduler]`` table); ``regs_per_thread``: override the
    register count (else the trace's, from the compiler, else :func:`estimate_regs_per_thread`);
    ``memory``: a memory model (see :func:`_resolve_memory`); ``observer``: a :class:`TimingObserver`
    (events: :mod:`gpusim.timing.hooks`);
    ``progress``: ``callback(cycles, blocks_done, blocks_total)``, called about every 0.5 s of wall time;
    ``ideal``: an :class:`~gpusim.timing.idealize.Idealization` (what-if: mechanisms made perfect).
    """
    gpu = load_gpu(gpu)
    ideal = ideal or Idealization()
    if ideal:
        gpu = ideal.apply_to_gpu(gpu)
        trace = ideal.apply_to_trace(trace)
    scheduler = scheduler or gpu.scheduler.policy
    if regs_per_thread is not None:
        regs, regs_source = int(regs_per_thread), "override"
    elif trace.regs_per_thread is not None:
        regs, regs_source = int(trace.regs_per_thread), "trace"
    else:
        regs, regs_source = estimate_regs_per_thread(trace), "estimate"
    trace = _ptxas_passes(trace, gpu)
    occ = _occupancy(trace, gpu, regs, ideal)
    if occ.blocks_per_sm < 1:
        raise LaunchError(f"kernel {trace.kernel!r}: no block of {trace.threads_per_block} threads fits on an SM "
                          f"of {gpu.name} (limited by {', '.join(occ.limiting)}; {regs} regs/thread, "
                          f"{trace.shared_bytes} B shared memory per block)")
    mem = _resolve_memory(memory, gpu, observer, ideal)
    lsu = LsuFrontEnd(gpu, ideal)
    with _collector_paused():
        requests = lsu.requests(trace)
        mem.begin(requests, LaunchResources(l1_data_bytes=occ.l1_bytes_per_sm))
        model = GpuTimingModel(trace, gpu, scheduler=scheduler, blocks_per_sm=occ.blocks_per_sm, memory=mem,
                               requests=requests, observer=observer, progress=progress, ideal=ideal)
        cycles = model.run()
    return _collect(model, trace, gpu, occ, regs, regs_source, lsu, mem, cycles)


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while the model runs: it allocates millions of short-lived
    tuples and requests, and each full collection walks every live object (the trace, the requests, the
    caches' tags) for garbage the model does not make (its objects are freed by reference counting).
    Measured: 15% of the compiled matmul 256's time (4.95 s vs 6.07 s, medians of 3, same process)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _collect(model: GpuTimingModel, trace: KernelTrace, gpu, occ, regs: int, regs_source: str, lsu, mem,
             cycles: int) -> TimingResult:
    n_sm = gpu.sm.count
    n_sub = gpu.sm.subpartitions
    smsp_inst = np.array([[sp.inst_executed for sp in sm.subpartitions] for sm in model.sms],
                         dtype=np.int64).reshape(n_sm, n_sub)
    by_warp = np.zeros((trace.n_warps, N_STALL_REASONS), dtype=np.int64)
    start = np.full(trace.n_warps, -1, dtype=np.int64)
    end = np.full(trace.n_warps, -1, dtype=np.int64)
    warp_sm = np.zeros(trace.n_warps, dtype=np.int64)
    for gid, w in enumerate(model.warps):
        if w is None:
            continue
        by_warp[gid] = w.stall
        start[gid] = w.start_cycle
        end[gid] = w.end_cycle
        warp_sm[gid] = w.smsp.sm.sm_id
    sm_stalls = np.zeros((n_sm, N_STALL_REASONS), dtype=np.int64)
    np.add.at(sm_stalls, warp_sm, by_warp)
    per_sm = {
        "cycles_active": np.array([sm.cycles_active for sm in model.sms], dtype=np.int64),
        "inst_executed": smsp_inst.sum(axis=1),
        "smsp_inst_executed": smsp_inst,
        "warp_cycles": sm_stalls.sum(axis=1),
        "blocks_executed": np.array([sm.blocks_executed for sm in model.sms], dtype=np.int64),
        "stalls": sm_stalls,
    }
    totals = by_warp.sum(axis=0)
    counters = timing_counters(
        cycles_elapsed=cycles, sm_cycles_active=per_sm["cycles_active"], smsp_inst_executed=smsp_inst,
        sm_warp_cycles=per_sm["warp_cycles"], stall_totals=totals.tolist(),
        thread_inst_executed=trace.thread_instructions(), max_warps_per_sm=gpu.sm.max_warps,
        theoretical_occupancy_pct=occ.occupancy_pct)
    counters.update(occ.as_counters())
    counters.update(lsu.counters())
    counters.update(mem.counters())
    pcs = np.asarray(model.pc_stalls, dtype=np.int64).reshape(-1, N_STALL_REASONS)
    # PCs of the trace as recorded (a merged access is charged to its first member's PC)
    origin = trace.meta.get("origin_pc") or range(len(trace.instructions))
    by_pc = {int(origin[pc]): {STALL_REASONS[i]: int(row[i]) for i in np.flatnonzero(row)}
             for pc, row in enumerate(pcs) if row.any()}
    return TimingResult(
        kernel=trace.kernel, gpu=gpu.name, scheduler=model.scheduler_name, cycles=cycles, counters=counters,
        stalls={r: int(totals[i]) for i, r in enumerate(STALL_REASONS)}, stalls_by_pc=by_pc,
        stalls_by_warp=by_warp, per_sm=per_sm, occupancy=occ, regs_per_thread=regs, regs_source=regs_source,
        memory_model=type(mem).__name__, clock_mhz=float(gpu.clock_mhz),
        warp_start_cycle=start, warp_end_cycle=end, warp_sm=warp_sm, trace=trace,
        instruction_schedule=getattr(gpu, "instruction_schedule", "ptx"))
