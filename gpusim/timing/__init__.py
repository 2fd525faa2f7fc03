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
from gpusim.functional.recorder import FULL
from gpusim.timing.decode import DecodedKernel, estimate_regs_per_thread
from gpusim.timing.feed import BlockFeed
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


def merge_groups(trace: KernelTrace, gpu) -> list | None:
    """What the ptxas-like passes do to a kernel's trace, decided on ``trace`` (the whole trace, or the first
    chunk of a streamed one): the vector accesses to merge (:mod:`gpusim.timing.vector_merge`), None when
    the config asks for no merging."""
    if not gpu.merge_vector_accesses:
        return None
    from gpusim.timing.vector_merge import find_merge_groups
    return find_merge_groups(trace)


_DECIDE = object()


def unrolled_loops(trace: KernelTrace, gpu, groups=_DECIDE) -> list:
    """The loops ptxas unrolls (:mod:`gpusim.timing.loop_unroll`), decided on ``trace`` after the merged
    vector accesses (:func:`merge_groups`, or ``groups`` when the caller has them) are applied to it; none
    when the config unrolls nothing or issues in program order (``instruction_schedule = "ptx"``)."""
    from gpusim.timing.loop_unroll import find_unrolled_loops
    factor = int(getattr(gpu, "loop_unroll_factor", 1))
    if factor < 2 or getattr(gpu, "instruction_schedule", "ptx") != "hoist":
        return []
    if groups is _DECIDE:
        groups = merge_groups(trace, gpu)
    return find_unrolled_loops(apply_passes(trace, groups), factor)


def apply_passes(trace: KernelTrace, groups: list | None, loops: list | None = None,
                 fold: bool = False, divisions: bool = False, fuse: bool = False,
                 if_convert: int = 0) -> KernelTrace:
    """``trace`` (or a chunk of it) with the passes :func:`merge_groups` and :func:`unrolled_loops` decided,
    then, with ``fold``, its fixed-address constant loads made operands (:mod:`gpusim.timing.const_fold`),
    then, with ``if_convert`` (the longest body, 0: none), its short ``if`` bodies predicated and issued by
    every warp (:mod:`gpusim.timing.ifconvert`), then, with ``fuse``, its integer add chains, logic trees,
    shift-adds and copies issued as ptxas issues them (:mod:`gpusim.timing.fusion`), then, with
    ``divisions``, each integer div/rem issued as its SASS sequence (:mod:`gpusim.timing.divrem`: last, so
    that the other passes decide on the PTX as they did before it)."""
    if groups:
        from gpusim.timing.vector_merge import merge_vector_accesses
        trace = merge_vector_accesses(trace, groups)
    if loops:
        from gpusim.timing.loop_unroll import unroll_loops
        trace = unroll_loops(trace, loops)
    if fold:
        from gpusim.timing.const_fold import fold_constant_operands
        trace = fold_constant_operands(trace)
    if if_convert:
        from gpusim.timing.ifconvert import find_if_converted, if_convert as convert
        trace = convert(trace, find_if_converted(trace.instructions, if_convert))
    if fuse:
        from gpusim.timing.fusion import fuse_instructions
        trace = fuse_instructions(trace)
    if divisions:
        from gpusim.timing.divrem import expand_divisions
        trace = expand_divisions(trace)
    return trace


def simulate(trace, gpu="h100", *, scheduler: str | None = None,
             regs_per_thread: int | None = None, memory=None, observer: TimingObserver | None = None,
             progress=None, ideal: Idealization | None = None, sample=False, time_next: bool = False) -> TimingResult:
    """Time ``trace`` on ``gpu`` (a :class:`GpuConfig` or a preset name).

    ``trace``: a whole :class:`KernelTrace`, or a :class:`~gpusim.functional.stream.LaunchStream` whose
    batches are run (recording their chunks) as the block scheduler reaches their blocks, each block's rows
    dropped once it is done (:mod:`gpusim.timing.feed`): the same cycles and counters, in memory that
    follows the resident blocks.  ``scheduler``: warp-scheduling policy name (default: the config's
    ``scheduler.policy``; its parameters come from the config's ``[scheduler]`` table); ``regs_per_thread``:
    override the register count (else the trace's, from the compiler, else
    :func:`estimate_regs_per_thread`); ``memory``: a memory model (see :func:`_resolve_memory`);
    ``observer``: a :class:`TimingObserver` (events: :mod:`gpusim.timing.hooks`);
    ``progress``: ``callback(cycles, blocks_done, blocks_total)``, called about every 0.5 s of wall time;
    ``ideal``: an :class:`~gpusim.timing.idealize.Idealization` (what-if: mechanisms made perfect; a whole
    trace only when it changes the trace, as coalescing and divergence renumber and repack it whole);
    ``sample``: False (full detail), True or a number of SMs (sampled on that many SMs,
    :mod:`gpusim.timing.sampling`: the result's ``sampling`` says how, with its error bound), ``"time"``
    (sampled in time on the whole GPU, :func:`gpusim.timing.sampling.simulate_time_sampled`; a launch of too
    few waves is timed in full, and ``sampling_declined`` says why), or ``"auto"`` (sampled on a few SMs when
    the launch is large, :func:`gpusim.timing.sampling.should_sample`, judged on its first batch of blocks;
    never with ``ideal``; :func:`gpusim.run` goes on to the time layout, then to full detail, when the
    sample's bound is too wide).  ``time_next``: that caller's promise to time a stream in time next when
    the few SMs' bound is too wide (the sample keeps the records for it, :class:`sampling.KeptForTime`).
    """
    from gpusim.timing import sampling
    gpu = load_gpu(gpu)
    ideal = ideal or Idealization()
    if ideal:
        gpu = ideal.apply_to_gpu(gpu)
        if not isinstance(trace, KernelTrace) and (ideal.coalescing or ideal.divergence):
            raise LaunchError(f"what-if {', '.join(ideal.names)} changes the whole trace: time a recorded trace, "
                              f"not a launch streamed in chunks")
        if sample not in (False, None, "auto"):
            raise LaunchError("a what-if idealisation times the launch in full detail: leave out sample")
    kw = dict(scheduler=scheduler, regs_per_thread=regs_per_thread, memory=memory, observer=observer,
              progress=progress)
    first = trace if isinstance(trace, KernelTrace) else _first_chunk(trace)
    if sample == "auto" and not ideal:
        per_block = first.n_instructions / max(1, first.n_warps // max(1, first.warps_per_block))
        sample, reason = sampling.should_sample(first.n_blocks, per_block * first.n_blocks, gpu)
    elif sample == "time":
        reason = "--sample time"
    elif sample not in (False, None, "auto"):
        reason = "--sample"
    declined = None
    if sample == "time":
        res = sampling.simulate_time_sampled(trace, gpu, first=first, reason=reason, **kw)
        if res is not None:
            return res
        declined = sampling.time_declined(first, gpu, regs_per_thread)
    elif sample not in (False, None, "auto"):
        sms = sampling.DEFAULT_SMS if sample is True else int(sample)
        return sampling.simulate_sampled(trace, gpu, sms=sms, first=first, reason=reason, time_next=time_next, **kw)
    rest = iter(()) if isinstance(trace, KernelTrace) else trace.chunks(FULL)
    with _collector_paused():
        model = _build(first, rest, gpu, ideal=ideal, **kw)
        cycles = model.run()
    res = _collect(model, gpu, cycles)
    res.sampling_declined = declined
    return res


def _first_chunk(stream) -> KernelTrace:
    rec = stream.next_batch(FULL)
    if rec is None:
        raise LaunchError(f"kernel {stream.kernel!r}: the launch stream has no blocks left to time")
    return rec.trace


def _regs(first: KernelTrace, regs_per_thread: int | None) -> tuple[int, str]:
    """Registers per thread and where the number comes from."""
    if regs_per_thread is not None:
        return int(regs_per_thread), "override"
    if first.regs_per_thread is not None:
        return int(first.regs_per_thread), "trace"
    return estimate_regs_per_thread(first), "estimate"


def _build(first: KernelTrace, rest, gpu, *, scheduler, regs_per_thread, memory, observer, progress,
           ideal: Idealization | None = None, feed_class=BlockFeed) -> GpuTimingModel:
    """The timing model of a kernel whose trace starts with ``first`` (whole, or its first chunk) and goes on
    with the chunks of ``rest``; ``ideal`` as :func:`simulate` (its gpu part already applied)."""
    ideal = ideal or Idealization()
    first = ideal.apply_to_trace(first)
    scheduler = scheduler or gpu.scheduler.policy
    regs, regs_source = _regs(first, regs_per_thread)
    occ = _occupancy(first, gpu, regs, ideal)
    if occ.blocks_per_sm < 1:
        raise LaunchError(f"kernel {first.kernel!r}: no block of {first.threads_per_block} threads fits on an SM "
                          f"of {gpu.name} (limited by {', '.join(occ.limiting)}; {regs} regs/thread, "
                          f"{first.shared_bytes} B shared memory per block)")
    mem = _resolve_memory(memory, gpu, observer, ideal)
    lsu = LsuFrontEnd(gpu, ideal)
    groups = merge_groups(first, gpu)
    merged = apply_passes(first, groups)          # once: the loops are decided on it, and the feed goes on from it
    feed = feed_class(first, rest, lsu=lsu, memory=mem, schedule=getattr(gpu, "instruction_schedule", "ptx"),
                      warps=[], merge_groups=groups, loops=unrolled_loops(merged, gpu, None), merged_first=merged,
                      constant_operands=gpu.fold_constant_operands,
                      divisions=getattr(gpu, "expand_integer_division", False),
                      fuse=getattr(gpu, "fuse_alu_instructions", False),
                      if_convert=getattr(gpu, "if_convert_max_instructions", 0),
                      launch=LaunchResources(l1_data_bytes=occ.l1_bytes_per_sm))
    model = GpuTimingModel(feed, gpu, scheduler=scheduler, blocks_per_sm=occ.blocks_per_sm, memory=mem,
                           observer=observer, progress=progress, ideal=ideal)
    model.occupancy, model.regs, model.regs_source, model.lsu = occ, regs, regs_source, lsu
    return model


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


def _collect(model: GpuTimingModel, gpu, cycles: int) -> TimingResult:
    trace, occ, regs, lsu, mem = model.trace, model.occupancy, model.regs, model.lsu, model.memory
    n_sm = gpu.sm.count
    n_sub = gpu.sm.subpartitions
    smsp_inst = np.array([[sp.inst_executed for sp in sm.subpartitions] for sm in model.sms],
                         dtype=np.int64).reshape(n_sm, n_sub)
    for w in model.warps:            # warps of blocks that never retired (none, after a finished kernel)
        if w is not None:
            model.keep_warps([w], w.smsp.sm.sm_id)
    by_warp = model.warp_stall
    warp_sm = model.warp_sm
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
        thread_inst_executed=model.feed.thread_instructions, max_warps_per_sm=gpu.sm.max_warps,
        theoretical_occupancy_pct=occ.occupancy_pct)
    counters.update(occ.as_counters())
    counters.update(lsu.counters())
    counters.update(mem.counters())
    pcs = np.asarray(model.pc_stalls, dtype=np.int64).reshape(-1, N_STALL_REASONS)
    # PCs of the trace as recorded (a merged access is charged to its first member's PC, an unrolled copy of a
    # loop body to the body's PC: several PCs may add up into one)
    origin = np.asarray(trace.meta.get("origin_pc") or range(len(trace.instructions)), dtype=np.int64)
    if origin.size:
        recorded = np.zeros((int(origin.max()) + 1, N_STALL_REASONS), dtype=np.int64)
        np.add.at(recorded, origin[:len(pcs)], pcs)
        pcs = recorded
    by_pc = {pc: {STALL_REASONS[i]: int(row[i]) for i in np.flatnonzero(row)}
             for pc, row in enumerate(pcs) if row.any()}
    return TimingResult(
        kernel=trace.kernel, gpu=gpu.name, scheduler=model.scheduler_name, cycles=cycles, counters=counters,
        stalls={r: int(totals[i]) for i, r in enumerate(STALL_REASONS)}, stalls_by_pc=by_pc,
        stalls_by_warp=by_warp, per_sm=per_sm, occupancy=occ, regs_per_thread=regs,
        regs_source=model.regs_source, memory_model=type(mem).__name__, clock_mhz=float(gpu.clock_mhz),
        warp_start_cycle=model.warp_start_cycle, warp_end_cycle=model.warp_end_cycle, warp_sm=warp_sm,
        trace_rows={"chunks": model.feed.chunks_loaded, "rows": model.feed.warp_instructions,
                    "peak_rows": model.feed.peak_rows, "compactions": model.feed.compactions},
        instruction_schedule=getattr(gpu, "instruction_schedule", "ptx"),
        _trace=trace if model.feed.chunks_loaded == 1 else None, _passes=model.feed.passes)
