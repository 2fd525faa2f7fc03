"""Sampled timing: a launch's blocks timed on a few of the GPU's SMs, each with its share of the L2 and DRAM,
and extrapolated to the whole GPU, with an error bound.

Why it works (the idea of TBPoint, Sieve and Photon: blocks with the same instruction-count signature behave
alike): in a launch of many blocks every SM runs about ``n_blocks / n_sm`` of them, in the same waves, and
gets ``1 / n_sm`` of the L2's and the DRAM's bandwidth.  So the launch takes about as long as it takes a
machine cut to ``sms`` SMs (:func:`reduced_gpu`: ``sms / n_sm`` of the L2 slices' bandwidth and MSHRs and of
the DRAM's, the block scheduler's rate likewise) to run the ``ceil(n_blocks * sms / n_sm)`` blocks those
SMs would run: the same waves (the ceiling keeps a last partial wave), the same share of the memory system.
The blocks timed are ``strips`` runs of consecutive blocks spread evenly over the grid (neighbouring blocks
share data in the caches as they do in a full run, :func:`sample_spans`).  ``layout="sm"`` times instead the
blocks the sampled SMs run on the whole GPU (:func:`sm_spans`: block ``b`` on SM ``b % n_sm`` as the block
scheduler deals them), so each sampled SM's L1 sees the neighbours it sees in a full run; measured on the
tiled matmul (width 256) that gets L2 reads right but the cycles further off (-37.6% against -15.6%), because
what a sample misses there is the other SMs' load on the same L2 slices, which warming does not put there.  The L2 is shared with the SMs not simulated: it keeps
its whole capacity, and the global sectors the blocks not timed touch are put in it
(:meth:`gpusim.memory.system.MemorySystem.warm`) as the sampled machine reaches their place in the launch,
so a timed block finds there what its neighbours on other SMs brought in.

The emulator still runs every block (the outputs are exact); the blocks before the last strip record only
their memory accesses (for the warming), those after it nothing.

Extrapolation (:func:`extrapolate`): counts that add over blocks (``.sum`` counters, stall totals) scale by
the launch's warp instructions over those timed (the launch's own counts, from the emulator, replace the
instruction counters); cycles (after the launch overhead) scale by the launch's warp instructions per block
over the sample's (1 when the timed blocks are typical); rates, ratios and percentages are the sample's.

The error bound (:func:`error_bound_pct`) adds three parts, each a fraction of the estimate:

* the signature gap ``|r - 1|``: how far the timed blocks' instructions per block are from the launch's
  (the scaling corrects it to first order; its size bounds what is left);
* the rounding of the memory system's share (:func:`reduced_gpu` keeps whole slices and channels and says
  how far each share is from ``sms / n_sm``);
* the spread of the sampled SMs' busy cycles: the launch ends with its slowest SM, the sample with the
  slowest of ``sms``; the coefficient of variation of their busy cycles bounds the difference;
* the memory contention a sample lacks: the sampled machine has its share of L2 and DRAM bandwidth but not
  the whole GPU's load on the same slices and lines (warming puts the other SMs' data in L2, not their
  traffic), so :data:`MEMORY_CONTENTION_PER_PCT` points per point of the sample's warp-cycles waiting on
  global memory, an empirical factor: the largest error per point measured (see its comment).

It is a stated, measured bound: ``benchmarks/sampling.py`` prints each program's real error against full
simulation beside it.  The automatic default keeps a sample whose bound is at most
:data:`AUTO_MAX_BOUND_PCT` and times the launch in full otherwise (``gpusim.run``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gpusim.config import load_gpu
from gpusim.functional.recorder import FULL, MEMORY
from gpusim.functional.trace import KernelTrace
from gpusim.timing.feed import Warming
from isa.units import MemSpace

__all__ = ["DEFAULT_SMS", "DEFAULT_STRIPS", "AUTO_MIN_WARP_INSTRUCTIONS", "SampleInfo", "reduced_gpu",
           "sample_spans", "sm_spans", "sampled_sms", "should_sample", "simulate_sampled", "extrapolate", "error_bound_pct"]

DEFAULT_SMS = 4                        # SMs of the sampled machine
DEFAULT_STRIPS = 4                     # runs of consecutive blocks timed
AUTO_MIN_WARP_INSTRUCTIONS = 4_000_000   # auto: sample a launch estimated to execute at least this many
AUTO_MIN_SPEEDUP = 4                   # ... and whose sampled machine is at least this much smaller
# The sampled machine reproduces its own SMs' share of L2/DRAM bandwidth, not the contention of the whole
# GPU on shared lines and slices: its error grows with how much the kernel waits on global memory.  Measured
# (benchmarks/sampling.py and benchmarks/scale.py, h100, 4 SMs, 2026-11-22): |error| / memory-stall share up
# to 0.88 (tiled matmul 512: -23.0% at 26%; vector add 2^24, 15.5 waves: -39.2% at 94%; 2^20: -23.6% at
# 76%; matmul_naive -24.9% at 85%; tiled matmul 256 -15.6% at 51%; blur +10.5% at 54%), so the bound counts
# 0.9 points per point of share: wide, but it held on every launch measured.
MEMORY_CONTENTION_PER_PCT = 0.9
AUTO_MAX_BOUND_PCT = 15.0              # the automatic default keeps a sample whose bound is at most this

BATCH_ROWS = 1 << 20                   # warp instructions one emulator batch records, about, after the first
_GLOBAL = MemSpace.GLOBAL.code


@dataclass
class SampleInfo:
    """How a sampled result was made (``TimingResult.sampling``)."""

    sms: int                           # SMs simulated
    of_sms: int                        # SMs of the GPU
    spans: list[tuple[int, int]]       # launch blocks timed: [lo, hi) runs
    blocks_timed: int
    n_blocks: int
    warp_instructions_timed: int
    warp_instructions: int             # of the whole launch, as timed (the emulator's count x merged fraction)
    signature_ratio: float             # launch's warp instructions per block / the sample's
    cycles_timed: int                  # the sampled machine's cycles
    error_bound_pct: float
    bound_parts_pct: dict = field(default_factory=dict)
    reason: str = ""                   # why it was sampled ("--sample", "auto: ...")
    warmed_sectors: int = 0
    layout: str = "strips"             # "strips": sample_spans; "sm": the blocks of sm_ids (sm_spans)
    sm_ids: list = field(default_factory=list)
    memory_stall_pct: float = 0.0      # the sample's warp-cycles waiting on global memory (long scoreboard,
                                       # LG throttle, drain), percent of its resident warp-cycles

    @property
    def trusted(self) -> bool:
        """The bound is at most :data:`AUTO_MAX_BOUND_PCT`: the automatic default keeps the estimate."""
        return self.error_bound_pct <= AUTO_MAX_BOUND_PCT

    def describe(self) -> str:
        if len(self.spans) > 6 and self.layout == "sm":
            runs = f"those of SMs {', '.join(map(str, self.sm_ids))}: b % {self.of_sms} in that set"
        else:
            runs = ", ".join(f"{lo}..{hi - 1}" if hi - lo > 1 else f"{lo}" for lo, hi in self.spans)
        text = (f"sampled ({self.reason}): {self.blocks_timed:,} of {self.n_blocks:,} blocks timed on "
                f"{self.sms} of {self.of_sms} SMs (blocks {runs}); estimate +/- {self.error_bound_pct:.1f}%")
        return text


# -- the sampled machine ---------------------------------------------------------------------------------
def reduced_gpu(gpu, sms: int):
    """``gpu`` cut to ``sms`` SMs with their share of the L2 (slices, bandwidth, MSHRs; the whole capacity,
    which the SMs not simulated share, see the module docstring), of the DRAM's bandwidth and of the block
    scheduler's rate.  Returns (config, {share name: relative rounding error})."""
    gpu = load_gpu(gpu)
    n_sm = gpu.sm.count
    f = sms / n_sm
    l2 = gpu.memory.l2
    exact_slices = l2.slices * f
    slices = max(l2.partitions, l2.partitions * round(exact_slices / l2.partitions))
    per_slice = slices / exact_slices                  # > 1: each kept slice stands for less than one
    sectors_rate = l2.sectors_per_cycle_per_slice / per_slice
    requests_rate = l2.requests_per_cycle_per_slice / per_slice
    mshrs = max(1, round(l2.mshrs_per_slice / per_slice))
    unit = slices * l2.line_bytes * l2.associativity
    size = max(unit, round(l2.size_bytes / unit) * unit)
    dram = gpu.memory.dram
    exact_ch = dram.channels * f
    channels = max(1, round(exact_ch))
    rate = dram.data_rate_mtps * exact_ch / channels
    cfg = gpu.replace(**{
        "sm.count": int(sms),
        "memory.l2.slices": int(slices), "memory.l2.sectors_per_cycle_per_slice": float(sectors_rate),
        "memory.l2.requests_per_cycle_per_slice": float(requests_rate),
        "memory.l2.mshrs_per_slice": int(mshrs), "memory.l2.size_bytes": int(size),
        "memory.dram.channels": int(channels), "memory.dram.data_rate_mtps": float(rate),
        "block_dispatch_interval_cycles": gpu.block_dispatch_interval_cycles / f,
        "block_completion_interval_cycles": gpu.block_completion_interval_cycles / f})
    rounding = {"l2_bandwidth": 0.0, "dram_bandwidth": 0.0}   # both rates are scaled exactly
    return cfg, rounding


def sample_spans(n_blocks: int, n_sub: int, strips: int) -> list[tuple[int, int]]:
    """``strips`` runs of consecutive blocks, ``n_sub`` blocks in all, the first at block 0 and the others
    spread evenly over the launch."""
    strips = max(1, min(strips, n_sub))
    spans, end = [], 0
    for k in range(strips):
        size = n_sub // strips + (1 if k < n_sub % strips else 0)
        lo = max(end, (k * n_blocks) // strips)
        lo = min(lo, n_blocks - (n_sub - sum(h - l for l, h in spans)))
        spans.append((lo, lo + size))
        end = lo + size
    return spans


def sampled_sms(n_sm: int, sms: int) -> list[int]:
    """The GPU's SMs a sample stands for: ``sms`` of them spread evenly over the SM numbers (so over both
    L2 partitions)."""
    return sorted({(k * n_sm) // sms for k in range(sms)})


def sm_spans(n_blocks: int, n_sm: int, sms: int) -> list[tuple[int, int]]:
    """The blocks that SMs :func:`sampled_sms` run on the whole GPU, as [lo, hi) runs: the block scheduler
    deals the first wave round-robin, block ``b`` to SM ``b % n_sm``, and later waves follow the same order
    when blocks take alike (which the signature ratio checks).  Timed on the sampled machine in launch order,
    they land there the same way: its SM ``k`` runs what SM ``sampled_sms[k]`` runs, the same neighbours
    sharing its L1."""
    blocks = sorted(j + m * n_sm for j in sampled_sms(n_sm, sms) for m in range(-(-(n_blocks - j) // n_sm)))
    spans: list[tuple[int, int]] = []
    for b in blocks:
        if spans and spans[-1][1] == b:
            spans[-1] = (spans[-1][0], b + 1)
        else:
            spans.append((b, b + 1))
    return spans


def sub_blocks(n_blocks: int, n_sm: int, sms: int) -> int:
    """Blocks the sampled machine runs: ``ceil(n_blocks * sms / n_sm)`` (keeps a last partial wave)."""
    return min(n_blocks, -(-n_blocks * sms // n_sm))


def should_sample(n_blocks: int, est_warp_instructions: float, gpu, sms: int = DEFAULT_SMS) -> tuple[bool, str]:
    """The automatic default: sample a launch estimated (from its first batch of blocks) to execute at least
    :data:`AUTO_MIN_WARP_INSTRUCTIONS` warp instructions when the sampled machine would time at most
    1/:data:`AUTO_MIN_SPEEDUP` of its blocks.  Returns (decision, the reason in words)."""
    n_sm = load_gpu(gpu).sm.count
    n_sub = sub_blocks(n_blocks, n_sm, sms)
    big = est_warp_instructions >= AUTO_MIN_WARP_INSTRUCTIONS
    small_enough = n_sub * AUTO_MIN_SPEEDUP <= n_blocks
    words = (f"auto: about {est_warp_instructions / 1e6:,.1f}M warp instructions "
             f"({'>=' if big else '<'} {AUTO_MIN_WARP_INSTRUCTIONS / 1e6:g}M), {n_sub:,} of {n_blocks:,} blocks "
             f"on {sms} of {n_sm} SMs")
    return big and small_enough, words


# -- the chunks the sampled machine times ------------------------------------------------------------------
def _row_blocks(chunk: KernelTrace) -> np.ndarray:
    """Launch block of every row of ``chunk``."""
    return np.repeat(chunk.warp_block.astype(np.int64), np.diff(chunk.warp_start))


def _warm_sectors(chunk: KernelTrace, keep_block) -> list[int]:
    """Global sectors the rows of the blocks ``keep_block`` selects (a bool mask over rows) touched, each once."""
    rows = np.flatnonzero((chunk.mem_slot >= 0) & keep_block)
    if rows.size == 0:
        return []
    slots = chunk.mem_slot[rows]
    slots = slots[chunk.mem_space[slots] == _GLOBAL]
    addr = chunk.addresses[slots]
    addr = addr[addr >= 0]
    return np.unique(addr // 32).tolist()


def _cut(chunk: KernelTrace, spans, offsets, grid_sub):
    """The items of ``chunk`` for the sampled machine, in block order: the timed blocks' rows (renumbered
    into the sampled launch) and, before each, a :class:`Warming` of the global sectors the blocks not timed
    touched."""
    wpb = chunk.warps_per_block
    b0 = chunk.first_warp // wpb
    b1 = b0 + chunk.n_warps // wpb
    blocks = _row_blocks(chunk)
    pos = b0
    for (lo, hi), off in zip(spans, offsets):
        a, b = max(lo, b0), min(hi, b1)
        if a >= b:
            continue
        if a > pos:
            warm = _warm_sectors(chunk, (blocks >= pos) & (blocks < a))
            if warm:
                yield Warming(warm)
        yield chunk.select_blocks(a, b, first_block=off + a - lo, grid=grid_sub)
        pos = b
    stop = min(b1, spans[-1][1])
    if pos < stop:
        warm = _warm_sectors(chunk, (blocks >= pos) & (blocks < stop))
        if warm:
            yield Warming(warm)


def _items(source, first_chunk, spans, grid_sub):
    """Everything the sampled machine is fed, from a whole trace or a launch stream (run here batch by batch:
    full where a batch holds timed blocks, memory-only before the last strip, then nothing)."""
    offsets = np.concatenate(([0], np.cumsum([h - l for l, h in spans])[:-1])).tolist()
    yield from _cut(first_chunk, spans, offsets, grid_sub)
    if isinstance(source, KernelTrace):
        return
    end = spans[-1][1]
    rows_per_block = first_chunk.n_instructions / max(1, first_chunk.n_warps // first_chunk.warps_per_block)
    source.blocks_per_batch = max(1, min(source.blocks_per_batch, int(BATCH_ROWS // max(1.0, rows_per_block))))
    while not source.done and source.next_block < end:
        b0 = source.next_block
        b1 = min(b0 + source.blocks_per_batch, source.n_blocks)
        timed = any(lo < b1 and b0 < hi for lo, hi in spans)
        rec = source.next_batch(FULL if timed else MEMORY)
        yield from _cut(rec.trace, spans, offsets, grid_sub)


# -- the estimate -----------------------------------------------------------------------------------------
_INTENSIVE_SUFFIXES = (".avg", ".max", ".min", ".pct", ".ratio", "per_cycle_active", "per_second")


def _is_extensive(name: str) -> bool:
    return name.endswith(".sum")


def error_bound_pct(signature_ratio: float, rounding: dict, sm_busy: np.ndarray,
                    memory_stall_pct: float = 0.0) -> tuple[float, dict]:
    """The stated bound (percent of the estimate) and its parts (see the module docstring)."""
    busy = np.asarray(sm_busy, dtype=float)
    busy = busy[busy > 0]
    spread = float(busy.std() / busy.mean()) if busy.size > 1 and busy.mean() > 0 else 0.0
    parts = {"signature": 100 * abs(signature_ratio - 1), "memory_share": 100 * max(rounding.values(), default=0),
             "sm_spread": 100 * spread, "memory_contention": MEMORY_CONTENTION_PER_PCT * memory_stall_pct}
    return sum(parts.values()), parts


def extrapolate(res, info: SampleInfo, full_gpu, launch_stats, occupancy):
    """``res`` (the sampled machine's :class:`~gpusim.timing.result.TimingResult`) as an estimate of the
    whole launch on ``full_gpu`` (see the module docstring); changed in place and returned."""
    w_scale = info.warp_instructions / max(1, info.warp_instructions_timed)
    r = info.signature_ratio
    overhead = int(full_gpu.kernel_launch_latency_cycles)
    cycles = overhead + round((res.cycles - overhead) * r)
    c = res.counters
    out = {}
    for k, v in c.items():
        if isinstance(v, (list, tuple, np.ndarray)):
            continue                    # per channel / per bank of the sampled machine: not the GPU's
        if _is_extensive(k):
            out[k] = v * w_scale
        else:
            out[k] = v
    out["smsp__inst_executed.sum"] = out["smsp__inst_issued.sum"] = out["sm__inst_executed.sum"] = \
        float(info.warp_instructions)
    out["smsp__thread_inst_executed.sum"] = float(launch_stats.thread_instructions)
    out["smsp__thread_inst_executed_per_inst_executed.ratio"] = \
        launch_stats.thread_instructions / max(1, info.warp_instructions)
    for k in ("gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg"):
        if k in out:
            out[k] = float(cycles)
    for k in ("sm__cycles_active.avg", "sm__cycles_active.max"):
        if k in out:
            out[k] = overhead + (c[k] - overhead) * r if c[k] > overhead else c[k] * r
    out.update(occupancy.as_counters())
    res.counters = out
    res.cycles = int(cycles)
    res.stalls = {k: int(round(v * w_scale)) for k, v in res.stalls.items()}
    res.stalls_by_pc = {pc: {k: int(round(v * w_scale)) for k, v in d.items()} for pc, d in res.stalls_by_pc.items()}
    res.occupancy = occupancy
    res.gpu = full_gpu.name
    res.sampling = info
    return res


def simulate_sampled(source, gpu="h100", *, sms: int = DEFAULT_SMS, layout: str = "strips",
                     strips: int = DEFAULT_STRIPS, first: KernelTrace | None = None, reason: str = "--sample", **simulate_kw):
    """Time ``source`` (a whole :class:`KernelTrace` or a :class:`~gpusim.functional.stream.LaunchStream`)
    sampled on ``sms`` SMs of ``gpu`` (see the module docstring).  ``first``: the stream's first chunk when
    the caller has already run it.  ``simulate_kw``: as :func:`gpusim.timing.simulate` (scheduler,
    regs_per_thread, memory, observer, progress).  Returns a :class:`~gpusim.timing.result.TimingResult` for
    the whole launch, with ``sampling`` (:class:`SampleInfo`); a stream is run to its end (its outputs)."""
    from gpusim.timing import _build, _collect, _first_chunk, _occupancy, _regs
    simulate_kw = dict(dict(scheduler=None, regs_per_thread=None, memory=None, observer=None, progress=None),
                       **simulate_kw)
    full_gpu = load_gpu(gpu)
    if isinstance(source, KernelTrace):
        first = source
    elif first is None:
        first = _first_chunk(source)
    n_blocks = first.n_blocks
    n_sm = full_gpu.sm.count
    sms = max(1, min(int(sms), n_sm))
    if layout == "sm":
        spans = sm_spans(n_blocks, n_sm, sms)
        n_sub = sum(hi - lo for lo, hi in spans)
    elif layout == "strips":
        n_sub = sub_blocks(n_blocks, n_sm, sms)
        spans = sample_spans(n_blocks, n_sub, strips)
    else:
        raise ValueError(f"sample layout must be 'sm' or 'strips', not {layout!r}")
    cfg, rounding = reduced_gpu(full_gpu, sms)
    grid_sub = (n_sub, 1, 1)
    items = _items(source, first, spans, grid_sub)
    head = next(i for i in items if isinstance(i, KernelTrace))     # block 0 is timed: no warming before it
    model = _build(head, items, cfg, **simulate_kw)
    cycles = model.run()
    res = _collect(model, cfg, cycles)
    if isinstance(source, KernelTrace):
        w_all, threads = source.n_instructions, source.thread_instructions()
        stats = _Stats(threads)
    else:
        stats = source.finish().stats
        w_all = stats.warp_instructions
    # The signature compares the emulator's counts; the ptxas-like passes (merged vector accesses) issue
    # fewer: the launch's count as timed is the emulator's scaled by the timed blocks' merged fraction.
    w_recorded = model.feed.recorded_instructions
    w_timed = model.feed.warp_instructions
    ratio = (w_all / n_blocks) / max(1e-9, w_recorded / n_sub)
    w_all = round(w_all * w_timed / max(1, w_recorded))
    waiting = sum(res.stalls.get(r, 0) for r in ("long_scoreboard", "lg_throttle", "drain"))
    memory_stall_pct = 100.0 * waiting / max(1, sum(res.stalls.values()))
    bound, parts = error_bound_pct(ratio, rounding, res.per_sm["cycles_active"], memory_stall_pct)
    info = SampleInfo(sms=sms, of_sms=n_sm, spans=spans, blocks_timed=n_sub, n_blocks=n_blocks,
                      warp_instructions_timed=int(w_timed), warp_instructions=int(w_all), signature_ratio=ratio,
                      cycles_timed=int(cycles), error_bound_pct=bound, bound_parts_pct=parts, reason=reason,
                      warmed_sectors=model.feed.warmed_sectors, memory_stall_pct=memory_stall_pct,
                      layout=layout, sm_ids=sampled_sms(n_sm, sms) if layout == "sm" else [])
    regs, _ = _regs(first, simulate_kw.get("regs_per_thread"))
    return extrapolate(res, info, full_gpu, stats, _occupancy(first, full_gpu, regs))


@dataclass
class _Stats:
    thread_instructions: int
