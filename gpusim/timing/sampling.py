"""Sampled timing: a launch's blocks timed on a few of the GPU's SMs, each with its share of the L2 and DRAM,
and extrapolated to the whole GPU, with an error bound.

Why it works (the idea of TBPoint, Sieve and Photon: blocks with the same instruction-count signature behave
alike): in a launch of many blocks every SM runs about ``n_blocks / n_sm`` of them, in the same waves, and
gets ``1 / n_sm`` of the L2's and the DRAM's bandwidth.  So the launch takes about as long as it takes a
machine cut to ``sms`` SMs (:func:`reduced_gpu`: ``sms / n_sm`` of the L2 slices' bandwidth and MSHRs and of
the DRAM's, the block scheduler's rate likewise) to run the ``ceil(n_blocks * sms / n_sm)`` blocks those
SMs would run: the same waves (the ceiling keeps a last partial wave), the same share of the memory system.
The blocks timed are ``strips`` runs of consecutive blocks, one in each of ``strips`` equal strata of the
grid at an offset that does not alias with power-of-two periods (neighbouring blocks share data in the
caches as they do in a full run, :func:`sample_spans`).  ``layout="sm"`` times instead the
blocks the sampled SMs run on the whole GPU (:func:`sm_spans`: block ``b`` on SM ``b % n_sm`` as the block
scheduler deals them), so each sampled SM's L1 sees the neighbours it sees in a full run; measured on the
tiled matmul (width 256) that gets L2 reads right but the cycles further off (-37.6% against -15.6%), because
what a sample misses there is the other SMs' load on the same L2 slices, which warming does not put there.  The L2 is shared with the SMs not simulated: it keeps
its whole capacity, and the global sectors the blocks not timed touch are put in it
(:meth:`gpusim.memory.system.MemorySystem.warm`) as the sampled machine reaches their place in the launch,
so a timed block finds there what its neighbours on other SMs brought in.

The emulator still runs every block (the outputs are exact); the blocks before the last strip record only
the global sectors each touched (for the warming; ``SECTORS``, no trace laid out), those after it nothing.

Extrapolation (:func:`extrapolate`): counts that add over blocks (``.sum`` counters, stall totals) scale by
the launch's warp instructions over those timed (the launch's own counts, from the emulator, replace the
instruction counters); cycles (after the launch overhead) scale by the launch's warp instructions per block
over the sample's (1 when the timed blocks are typical), except that a launch of at most one wave (every
block resident at once) lasts as long as its longest block, so no less than the blocks timed: it is never
scaled down (measured on Parboil's tpacf, whose block ``b`` compares its points with tiles ``b..n/256``: 16
blocks, the sample times block 0, the largest, and scaling it by the mean block's share, 0.53, gave 51.7%
fewer cycles than the H100's); rates, ratios and percentages are the sample's.

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

Where the bound does not hold (issue 14: the large suite launches, sampled on 4 SMs against the same launch
in full detail: ``gpusim.run(name, size=..., mode="timing", sample=4)`` and ``sample=False``, h100,
2026-11-23, at afeba8d, before the L2's dirty limit and the division pass):

* the sampled machine's DRAM has 4 pseudo-channels, and the address mapping splits a line number by the
  channel count, so a stride the whole GPU spreads over several channels and banks lands on one bank: the
  tensor transpose 64^4 (1 MB between a warp's loads) estimates 8,533,594 cycles against 540,408 in full
  (bound 89.6%); keeping all 160 pseudo-channels, each at the share of its data rate, gives 1,927,972 (not
  done: each channel would then have the whole GPU's activation rate);
* the head strip starts cold and fetches alone, at the share of the DRAM, the data every SM shares and a
  full run fetches once: HeCBench bsearch (a 16 MB sorted table, 4,096 blocks) estimates 314,278 against
  149,648 (DRAM reads 1.77M sectors against 0.65M); a first strip inside its stratum with the blocks before
  it warmed gives 161,471, but a launch of less than a wave then loses its cold misses (tiled matmul
  default: -33.6%), so it is not done;
* a hot spot at one slice (SHOC BFS: every warp that finds an unvisited vertex stores ``*flag = 1``) has the
  sampled SMs' load only: size4 61,040 against 589,506, random_1M 132,951 against 282,301 (the H100:
  277,321); since the L1's store merging (``gpusim/hw/README.md`` item 20: stores to the flag's line join
  the request its busy slice holds) size4 takes 295,504 in full detail at b4664f7 (the H100 298,224), and the sample
  still 51,121 (validate's base run at dc95eb2, bound 58%): four SMs do not make the slice busy;
* in a launch of one wave the blocks warmed before a strip run at the same time as it, not before it, yet
  their whole footprint is in L2 an unloaded DRAM latency after the strip reaches them: Parboil sgemm
  (528 blocks, m=1024, n=1056, k=256) estimates 83,860 against 134,371 (at k=992, ``validate``: -40.6%
  against the H100).  Parboil histo default (128 blocks, one a strip; the 32 blocks of a ``blockIdx.y``
  read one 1 MB image slice), at 47c4851: the strips at 0, 51, 71, 122 (since 5fb361a) sit 19, 7 and 26
  blocks into their slices, which the warming puts in L2 whole, and estimate 186,772 (DRAM reads 558
  sectors, scaled) against 334,322 in full (162,247 sectors; the H100 314,740); the strips at 0, 32, 64,
  96 before it were each its slice's first reader, none of it warmed, and gave 362,014, near by chance
  (each read its slice alone at the sample's share of the DRAM: 1.15M sectors, scaled);
* blocks of very unequal work (skewed graphs): Pannotia PageRank rmat18, one wave, whose longest block
  (a hub's) sets the time, estimates 943,857 against 2,201,107; the Lonestar BFS worklist rmat20 (3.9 waves)
  times the hubs' blocks at the head, scales them by the signature ratio 0.24 as if the launch's blocks
  were alike, and estimates 284,980 (bound 165%) against 704,305 in full (259 s; the H100: 780,754).

**Sampling in time** (:func:`simulate_time_sampled`, ``sample="time"``, ``--sample time``) is the other
layout: what the few SMs lack is the other SMs' interleaving at the L2 slices and DRAM banks, so here the
whole GPU times the launch's blocks in order, a few windows of whole waves from its head to its tail
(:func:`time_spans`), and extrapolates the waves between them at the windows' steady rates
(:func:`steady_rate`).  The blocks between the windows warm the L2, their stores dirty: measured on the
vector add 2^22 (h100, 15.5 waves), the rate goes from 1.1 cycles per block in the first 7 waves to 4.3 in
the last as the L2 fills with dirty lines (with an L2 four times larger it stays at 1.1); without warming the
tail window measured 1.11 (an estimate -33% off, bound 0.6%), with clean warming 2.97, with dirty warming
3.66.  A launch of fewer than :data:`TIME_MIN_WAVES` full waves cannot be sampled in time (it is timed in
full, and ``sampling_declined`` says why).  It costs whole waves, so it saves at most ``waves / timed
waves``: it is the automatic choice (``gpusim.run``, :func:`gpusim.api._better_sample`) only for launches of
:data:`AUTO_TIME_MIN_WAVES` or more full waves whose sample on a few SMs has too wide a bound.  It is then
timed from the records the sample on a few SMs kept (:class:`KeptForTime`), so the launch is emulated once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gpusim.config import load_gpu
from gpusim.functional.recorder import FULL, SECTORS, BlockSectors
from gpusim.functional.trace import KernelTrace
from gpusim.timing.feed import Warming
from gpusim.timing.warp_states import STALL_REASONS
from isa.units import MemSpace

__all__ = ["TIME_WAVES", "TIME_MIN_WAVES", "AUTO_TIME_MIN_WAVES", "time_spans", "time_windows", "steady_rate", "wave_blocks", "time_declined",
           "simulate_time_sampled", "DEFAULT_SMS", "DEFAULT_STRIPS", "AUTO_MIN_WARP_INSTRUCTIONS", "SampleInfo", "reduced_gpu",
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

# The time layout (simulate_time_sampled): the whole GPU times the launch's first TIME_WAVES full waves and its
# partial one, and extrapolates the rest; a launch of fewer than TIME_MIN_WAVES full waves is timed in full
# (the sample would be all of it), and the automatic choice takes the time layout from AUTO_TIME_MIN_WAVES
# full waves (below that it would save less than half the time).
TIME_WAVES = 3
TIME_MIN_WAVES = 2 * TIME_WAVES + 1
TIME_WAVES_PER_WINDOW = 12             # the default adds a window in the middle per this many full waves
TIME_MAX_WINDOWS = 6
AUTO_TIME_MIN_WAVES = 4 * TIME_WAVES

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
    wave_blocks: int = 0               # layout "time": blocks resident on the whole GPU at once (one wave)
    steady_cycles_per_block: float = 0.0   # layout "time": the rate the middle is extrapolated at
    rates_cycles_per_block: tuple = ()     # layout "time": each timed run's steady rate

    @property
    def trusted(self) -> bool:
        """The bound is at most :data:`AUTO_MAX_BOUND_PCT`: the automatic default keeps the estimate."""
        return self.error_bound_pct <= AUTO_MAX_BOUND_PCT

    @property
    def waves_timed(self) -> float:
        return self.blocks_timed / self.wave_blocks if self.wave_blocks else 0.0

    def describe(self) -> str:
        if self.layout == "time":
            waves = self.n_blocks / max(1, self.wave_blocks)
            runs = ", ".join(f"{lo}..{hi - 1}" for lo, hi in self.spans)
            rates = ", ".join(f"{c:,.2f}" for c in self.rates_cycles_per_block)
            return (f"sampled in time ({self.reason}): blocks {runs} ({self.waves_timed:.2f} of {waves:.2f} "
                    f"waves of {self.wave_blocks:,} blocks) timed on all {self.of_sms} SMs, the "
                    f"{self.n_blocks - self.blocks_timed:,} between extrapolated from each run's steady rate "
                    f"({rates} cycles per block); estimate +/- {self.error_bound_pct:.1f}%")
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


# Where strip k > 0 starts within its stratum of the launch: the fractional part of k times the golden ratio
# of the room the stratum leaves (a Kronecker sequence, whose points spread over every period).
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def sample_spans(n_blocks: int, n_sub: int, strips: int) -> list[tuple[int, int]]:
    """``strips`` runs of consecutive blocks, ``n_sub`` blocks in all: the first at block 0 (the launch's
    head), strip ``k`` in the ``k``-th of ``strips`` equal strata of the launch, at the fraction
    ``frac(k * 0.618...)`` of the room the stratum leaves beyond it.

    Not at each stratum's start: in a launch of ``2^m`` blocks those starts are multiples of ``2^(m-2)``,
    the phase where every power-of-two period of the kernel's data layout begins, so every strip sees the
    same part of the period (systematic sampling's aliasing).  Measured on the HeCBench tensor transpose
    (64^4, reversed axes; each input sector is read by 8 blocks 1,024 apart, the first of them at a multiple
    of 8,192): strips at 0, 16384, 32768, 49152 timed only first readers, 0.0002% L2 hits where a full run
    has 75%, and an estimate 95x the H100's.  At 32^4 (``gpusim run hecbench/tensor_transpose --size
    d0=32,d1=32,d2=32,d3=32 --sample 4`` against ``--full``): 358,092 cycles sampled against 16,248 in full,
    L2 hits 33 against 385,231; with these offsets 128,370 and 780,173 (what is left is the sampled
    machine's DRAM, see the module docstring)."""
    strips = max(1, min(strips, n_sub))
    sizes = [n_sub // strips + (1 if k < n_sub % strips else 0) for k in range(strips)]
    spans, end = [], 0
    for k, size in enumerate(sizes):
        lo = (k * n_blocks) // strips
        room = ((k + 1) * n_blocks) // strips - lo - size
        if k and room > 0:
            lo += int((k * _GOLDEN) % 1.0 * room)
        lo = max(end, lo)
        lo = min(lo, n_blocks - sum(sizes[k:]))
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


def _warm_sectors_split(chunk: KernelTrace, keep_block, stores_apart: bool) -> tuple[list[int], list[int]]:
    """(sectors read, sectors written) by the rows of the blocks ``keep_block`` (a bool mask over rows)
    selects, each once; with
    ``stores_apart`` False every sector is in the first list."""
    rows = np.flatnonzero((chunk.mem_slot >= 0) & keep_block)
    if rows.size == 0:
        return [], []
    slots = chunk.mem_slot[rows]
    glob = chunk.mem_space[slots] == _GLOBAL
    rows, slots = rows[glob], slots[glob]
    if stores_apart:
        is_store = np.array([i.is_store for i in chunk.instructions], dtype=bool)
        stored = is_store[chunk.pc[rows]]
    else:
        stored = np.zeros(rows.size, dtype=bool)
    out = []
    for pick in (~stored, stored):
        addr = chunk.addresses[slots[pick]]
        out.append(sorted_unique(addr[addr >= 0] >> 5).tolist())
    return out[0], out[1]


# A bitmap over the values' span is used while it costs at most this many bytes per value (plus a floor):
# the sectors a chunk touches are dense in the heap, so the span is a few times their count.
BITMAP_BYTES_PER_VALUE = 16
BITMAP_FLOOR_BYTES = 1 << 20


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` of non-negative integers, by a bitmap over their span when it is small beside
    their count (one pass, no sort: a warming chunk holds millions of lane addresses, a few distinct sectors
    each; measured 8.5x faster than the sort on a 2.1M-address chunk of matmul_naive large), else by the sort."""
    values = np.asarray(values).ravel()
    if values.size == 0:
        return np.unique(values)
    lo, hi = int(values.min()), int(values.max())
    span = hi - lo + 1
    if span > BITMAP_BYTES_PER_VALUE * values.size + BITMAP_FLOOR_BYTES:
        return np.unique(values)
    seen = np.zeros(span, dtype=bool)
    seen[values - lo] = True
    return (np.flatnonzero(seen) + lo).astype(values.dtype, copy=False)


def _cut(chunk: KernelTrace, spans, offsets, grid_sub, dirty: bool = False):
    """The items of ``chunk`` for the sampled machine, in block order: the timed blocks' rows (renumbered
    into the sampled launch) and, before each, a :class:`Warming` of the global sectors the blocks not timed
    touched (``dirty``: those they wrote put in dirty, and what they evict not written back: the time
    layout's)."""
    if isinstance(chunk, BlockSectors):        # a batch before the last strip, recorded for warming only
        b0, b1 = chunk.first_block, chunk.first_block + chunk.n_blocks

        def sectors(lo, hi):
            read, written = chunk.of_blocks(lo, hi)
            if not dirty:
                read, written = np.concatenate([read, written]), written[:0]
            return sorted_unique(read).tolist(), sorted_unique(written).tolist()
    else:
        wpb = chunk.warps_per_block
        b0 = chunk.first_warp // wpb
        b1 = b0 + chunk.n_warps // wpb
        blocks = _row_blocks(chunk)

        def sectors(lo, hi):
            return _warm_sectors_split(chunk, (blocks >= lo) & (blocks < hi), stores_apart=dirty)
    pos = b0

    def warming(lo, hi):
        read, written = sectors(lo, hi)
        if not (read or written):
            return None
        return Warming(read, dirty=written, write_back=False) if dirty else Warming(read)

    for (lo, hi), off in zip(spans, offsets):
        a, b = max(lo, b0), min(hi, b1)
        if a >= b:
            continue
        if a > pos:
            warm = warming(pos, a)
            if warm:
                yield warm
        yield chunk.select_blocks(a, b, first_block=off + a - lo, grid=grid_sub)
        pos = b
    stop = min(b1, spans[-1][1])
    if pos < stop:
        warm = warming(pos, stop)
        if warm:
            yield warm


def _items(source, first_chunk, spans, grid_sub, dirty: bool = False):
    """Everything the sampled machine is fed, from a whole trace or a launch stream (run here batch by batch:
    full where a batch holds timed blocks, only the global sectors each block touched before the last strip,
    then nothing)."""
    offsets = np.concatenate(([0], np.cumsum([h - l for l, h in spans])[:-1])).tolist()
    yield from _cut(first_chunk, spans, offsets, grid_sub, dirty)
    if isinstance(source, KernelTrace):
        return
    end = spans[-1][1]
    rows_per_block = first_chunk.n_instructions / max(1, first_chunk.n_warps // first_chunk.warps_per_block)
    source.blocks_per_batch = max(1, min(source.blocks_per_batch, int(BATCH_ROWS // max(1.0, rows_per_block))))
    while not source.done and source.next_block < end:
        b0 = source.next_block
        b1 = min(b0 + source.blocks_per_batch, source.n_blocks)
        timed = any(lo < b1 and b0 < hi for lo, hi in spans)
        if not timed:
            # the batches that start up to one batch before the next timed block record sectors only:
            # run them at once (each batch handed out is still the same, see LaunchStream.run_ahead)
            nxt = min(lo for lo, hi in spans if lo >= b1)
            source.run_ahead(SECTORS, nxt - source.blocks_per_batch + 1 - b0)
        rec = source.next_batch(FULL if timed else SECTORS)
        # a batch asked for at SECTORS may come recorded in full (KeptForTime: a sample in time times it);
        # its warming is then found in its trace's rows, the same sectors
        yield from _cut(rec.trace if rec.trace is not None else rec.sectors, spans, offsets, grid_sub, dirty)


# -- a sample in time after a sample on a few SMs, from one emulation -------------------------------------
# What KeptForTime holds at most (trace chunks and sector lists); past it the records are dropped and the
# sample in time runs the emulator again.
TIME_KEEP_MAX_BYTES = 1 << 30


def _record_bytes(rec) -> int:
    """Bytes of a batch record's arrays (its trace chunk or its sector lists)."""
    from dataclasses import fields
    return sum(getattr(obj, f.name).nbytes for obj in (rec.trace, rec.sectors) if obj is not None
               for f in fields(obj) if isinstance(getattr(obj, f.name), np.ndarray))


def _overlaps(b0: int, b1: int, spans) -> bool:
    return any(lo < b1 and b0 < hi for lo, hi in spans)


class KeptForTime:
    """A launch stream as the sample on a few SMs (:func:`simulate_sampled`) runs it, keeping on the side each
    batch's record as a sample in time (:func:`simulate_time_sampled`, ``spans``: its :func:`time_spans`)
    would have it, so that the automatic choice (:func:`gpusim.api._better_sample`) can time the launch in
    time from them (:meth:`replay`) instead of running the emulator over the whole launch again.

    The two samples cut the launch into the same batches (both record every batch up to their last timed
    block, and a batch's size depends on the rows recorded so far, not on the level); each batch is recorded
    in full where either times one of its blocks, else its sectors only (a block's warming is the same
    sectors from either record), and run ahead only where neither times a block.  The sample on a few SMs
    stops at its last strip; :meth:`keep_rest` records the rest of the launch as the sample in time would,
    called only once the few SMs' bound is sure to be too wide (its parts other than the signature already
    exceed :data:`AUTO_MAX_BOUND_PCT`): otherwise the records are dropped and the rest runs unrecorded, as
    before.  At most ``max_bytes`` are kept (the windows in time hold whole waves' trace chunks); past that
    the records are dropped and the sample in time emulates the launch again.
    """

    def __init__(self, stream, first: KernelTrace, spans, max_bytes: int | None = None) -> None:
        from gpusim.functional.recorder import BatchRecord
        self._stream = stream
        self.spans = spans
        self.max_bytes = int(TIME_KEEP_MAX_BYTES if max_bytes is None else max_bytes)
        self._kept = [BatchRecord(0, first.n_warps // first.warps_per_block, FULL, trace=first)]
        self._bytes = _record_bytes(self._kept[0])
        self._whole = False                 # every batch of the launch kept
        self._blocks_per_batch = None

    def __getattr__(self, name):            # the stream's static facts and state (n_blocks, done, next_block)
        return getattr(self._stream, name)

    @property
    def blocks_per_batch(self) -> int:
        return self._stream.blocks_per_batch

    @blocks_per_batch.setter
    def blocks_per_batch(self, n: int) -> None:
        self._stream.blocks_per_batch = n

    def _time_full(self, b0: int) -> bool:
        """Whether the sample in time records the batch from ``b0`` in full (as :func:`_items` decides)."""
        s = self._stream
        return _overlaps(b0, min(b0 + s.blocks_per_batch, s.n_blocks), self.spans)

    def next_batch(self, level=FULL):
        s = self._stream
        if self._kept is None:
            return s.next_batch(level)
        rec = s.next_batch(FULL if self._time_full(s.next_block) else level)
        if rec is not None:
            self._bytes += _record_bytes(rec)
            if self._bytes > self.max_bytes:
                self.drop()
            else:
                self._kept.append(rec)
        return rec

    def run_ahead(self, level: str, n_blocks: int) -> int:
        s = self._stream
        if self._kept is not None:
            b0, bpb = s.next_block, s.blocks_per_batch
            if self._time_full(b0):
                return 0
            nxt = min((lo for lo, hi in self.spans if lo >= min(b0 + bpb, s.n_blocks)), default=s.n_blocks)
            n_blocks = min(int(n_blocks), nxt - bpb + 1 - b0)
        return s.run_ahead(level, n_blocks)

    def keep_rest(self) -> None:
        """Record the batches after the last strip as the sample in time records them (see the class)."""
        s = self._stream
        self._blocks_per_batch = s.blocks_per_batch
        while self._kept is not None and not s.done:
            if not self._time_full(s.next_block):
                self.run_ahead(SECTORS, s.n_blocks)
            self.next_batch(SECTORS)
        self._whole = self._kept is not None

    def drop(self) -> None:
        self._kept = None

    def finish(self):
        return self._stream.finish()

    def replay(self):
        """The kept records as a launch stream for :func:`simulate_time_sampled` (None when not all kept);
        hands them over (kept no more here)."""
        if not self._whole:
            return None
        out = _Replay(self._kept, self._stream, self._blocks_per_batch)
        self._kept, self._whole = None, False
        return out


class _Replay:
    """The records :class:`KeptForTime` kept, handed out again in order as a launch stream whose emulator has
    already run (``finish``: the launch's outputs and statistics)."""

    def __init__(self, records, stream, blocks_per_batch: int) -> None:
        from collections import deque
        self._records = deque(records)
        self._stream = stream
        self.n_blocks, self.kernel = stream.n_blocks, stream.kernel
        self.blocks_per_batch = blocks_per_batch

    @property
    def done(self) -> bool:
        return not self._records

    @property
    def next_block(self) -> int:
        return self._records[0].first_block if self._records else self.n_blocks

    def run_ahead(self, level: str, n_blocks: int) -> int:
        return 0

    def next_batch(self, level=FULL):
        if not self._records:
            return None
        rec = self._records.popleft()
        if level == FULL and rec.trace is None:
            raise RuntimeError(f"blocks {rec.first_block}.. were kept at {rec.level}, not in full: the sample in "
                               f"time and KeptForTime cut the launch differently")
        return rec

    def finish(self):
        return self._stream.finish()


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


def extrapolate(res, info: SampleInfo, full_gpu, launch_stats, occupancy, cycles: int | None = None,
                stalls: dict | None = None):
    """``res`` (the sampled machine's :class:`~gpusim.timing.result.TimingResult`) as an estimate of the
    whole launch on ``full_gpu`` (see the module docstring); changed in place and returned.  ``cycles``: the
    launch's estimated cycles when the caller has made it (the time layout); else the sample's, scaled by the
    signature ratio.  ``stalls``: the launch's estimated stall totals by reason when the caller has made them
    (the time layout); else the sample's, scaled as the counters."""
    w_scale = info.warp_instructions / max(1, info.warp_instructions_timed)
    overhead = int(full_gpu.kernel_launch_latency_cycles)
    if cycles is None:
        r = info.signature_ratio
        if info.n_blocks <= info.of_sms * max(1, occupancy.blocks_per_sm):
            r = max(1.0, r)             # one wave: the longest block sets the time (module docstring)
        cycles = overhead + round((res.cycles - overhead) * r)
    else:                               # active cycles stretch as the elapsed ones do
        r = (cycles - overhead) / max(1, res.cycles - overhead)
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
    scale = {k: w_scale if stalls is None else stalls[k] / max(1, v) for k, v in res.stalls.items()}
    res.stalls = {k: int(round(v * scale[k])) for k, v in res.stalls.items()}
    res.stalls_by_pc = {pc: {k: int(round(v * scale[k])) for k, v in d.items()} for pc, d in res.stalls_by_pc.items()}
    res.occupancy = occupancy
    res.gpu = full_gpu.name
    res.sampling = info
    return res


def simulate_sampled(source, gpu="h100", *, sms: int = DEFAULT_SMS, layout: str = "strips",
                     strips: int = DEFAULT_STRIPS, first: KernelTrace | None = None, reason: str = "--sample",
                     time_next: bool = False, **simulate_kw):
    """Time ``source`` (a whole :class:`KernelTrace` or a :class:`~gpusim.functional.stream.LaunchStream`)
    sampled on ``sms`` SMs of ``gpu`` (see the module docstring).  ``first``: the stream's first chunk when
    the caller has already run it.  ``time_next``: the caller times the launch in time next when the bound is
    too wide (:func:`gpusim.api._better_sample`): a stream's records are kept for that
    (:class:`KeptForTime`; the result's ``_time_replay``, a stream for :func:`simulate_time_sampled`, or
    None).  ``simulate_kw``: as :func:`gpusim.timing.simulate` (scheduler,
    regs_per_thread, memory, observer, progress).  Returns a :class:`~gpusim.timing.result.TimingResult` for
    the whole launch, with ``sampling`` (:class:`SampleInfo`); a stream is run to its end (its outputs)."""
    from gpusim.timing import _build, _collect, _occupancy, _regs
    simulate_kw, full_gpu, first = _start(source, gpu, first, simulate_kw)
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
    kept = None
    if time_next and layout == "strips" and not isinstance(source, KernelTrace):
        wave = wave_blocks(first, full_gpu, simulate_kw.get("regs_per_thread"))
        t_spans = time_spans(n_blocks, wave, TIME_WAVES, time_windows(n_blocks, wave, TIME_WAVES))
        if n_blocks >= AUTO_TIME_MIN_WAVES * wave and t_spans is not None:
            source = kept = KeptForTime(source, first, t_spans)
    items = _items(source, first, spans, grid_sub)
    head = next(i for i in items if isinstance(i, KernelTrace))     # block 0 is timed: no warming before it
    model = _build(head, items, cfg, **simulate_kw)
    cycles = model.run()
    res = _collect(model, cfg, cycles)
    waiting = sum(res.stalls.get(r, 0) for r in ("long_scoreboard", "lg_throttle", "drain"))
    memory_stall_pct = 100.0 * waiting / max(1, sum(res.stalls.values()))
    if kept is not None:
        # the bound without its signature part (known only once the whole launch has run) is already too
        # wide: the sample in time follows, so the rest of the launch is recorded for it
        least, _ = error_bound_pct(1.0, rounding, res.per_sm["cycles_active"], memory_stall_pct)
        if least > AUTO_MAX_BOUND_PCT:
            kept.keep_rest()
        else:
            kept.drop()
    w_all, stats = _launch_totals(source)
    # The signature compares the emulator's counts; the ptxas-like passes (merged vector accesses) issue
    # fewer: the launch's count as timed is the emulator's scaled by the timed blocks' merged fraction.
    w_recorded = model.feed.recorded_instructions
    w_timed = model.feed.warp_instructions
    stats = _as_timed(stats, model.feed)
    ratio = (w_all / n_blocks) / max(1e-9, w_recorded / n_sub)
    w_all = round(w_all * w_timed / max(1, w_recorded))
    bound, parts = error_bound_pct(ratio, rounding, res.per_sm["cycles_active"], memory_stall_pct)
    info = SampleInfo(sms=sms, of_sms=n_sm, spans=spans, blocks_timed=n_sub, n_blocks=n_blocks,
                      warp_instructions_timed=int(w_timed), warp_instructions=int(w_all), signature_ratio=ratio,
                      cycles_timed=int(cycles), error_bound_pct=bound, bound_parts_pct=parts, reason=reason,
                      warmed_sectors=model.feed.warmed_sectors, memory_stall_pct=memory_stall_pct,
                      layout=layout, sm_ids=sampled_sms(n_sm, sms) if layout == "sm" else [])
    regs, _ = _regs(first, simulate_kw.get("regs_per_thread"))
    res = extrapolate(res, info, full_gpu, stats, _occupancy(first, full_gpu, regs))
    res._time_replay = None if kept is None else kept.replay()
    return res


def _start(source, gpu, first, simulate_kw):
    """What both layouts start from: ``simulate``'s keywords with their defaults, the GPU's config and the
    launch's first chunk (``first`` when the caller has already run it)."""
    from gpusim.timing import _first_chunk
    simulate_kw = dict(dict(scheduler=None, regs_per_thread=None, memory=None, observer=None, progress=None),
                       **simulate_kw)
    if isinstance(source, KernelTrace):
        first = source
    elif first is None:
        first = _first_chunk(source)
    return simulate_kw, load_gpu(gpu), first


def _launch_totals(source):
    """(the launch's warp instructions, its stats with ``thread_instructions``), the emulator's; a stream is
    run to its end."""
    if isinstance(source, KernelTrace):
        return source.n_instructions, _Stats(source.thread_instructions())
    stats = source.finish().stats
    return stats.warp_instructions, stats


@dataclass
class _Stats:
    thread_instructions: int


def _as_timed(stats, feed) -> _Stats:
    """The launch's thread instructions as the timing model issues them: the emulator's, scaled by the share
    the ptxas-like passes kept of the timed blocks' (folded instructions go, division sequences add)."""
    kept = feed.thread_instructions / max(1, feed.recorded_thread_instructions)
    return _Stats(int(round(stats.thread_instructions * kept)))


# -- the time layout ----------------------------------------------------------------------------------------
def time_windows(n_blocks: int, wave_blocks: int, waves: int = TIME_WAVES) -> int:
    """How many windows the time layout times by default: two (the head and the tail), and one more for each
    :data:`TIME_WAVES_PER_WINDOW` full waves beyond, up to :data:`TIME_MAX_WINDOWS` (a rate that steps
    somewhere in the middle, as when the L2 fills with dirty lines, is then bracketed more closely)."""
    full = n_blocks // max(1, int(wave_blocks))
    return int(max(2, min(TIME_MAX_WINDOWS, full // TIME_WAVES_PER_WINDOW)))


def time_spans(n_blocks: int, wave_blocks: int, waves: int = TIME_WAVES,
               windows: int = 2) -> list[tuple[int, int]] | None:
    """The blocks the time layout times, as [lo, hi) runs: ``windows`` runs of ``waves`` full waves each,
    evenly spread from the head (the launch's first, with its partial wave, ``n_blocks % wave_blocks``
    blocks, in front) to the tail (its last), so that each gap between them is a whole number of waves (at
    least one: fewer windows when the launch is too short for them all); None when the launch has fewer
    than ``2 * waves + 1`` full waves (timed in full)."""
    w = max(1, int(wave_blocks))
    q = int(waves)
    full = n_blocks // w
    if full - 2 * q < 1:
        return None
    windows = max(2, min(int(windows), (full + 1) // (q + 1)))
    r = n_blocks - full * w
    starts = [round(k * (full - q) / (windows - 1)) for k in range(windows)]
    spans = [(0 if k == 0 else r + s0 * w, r + (s0 + q) * w) for k, s0 in enumerate(starts)]
    return spans


def steady_rate(block_end: np.ndarray, wave_blocks: int, skip_first: bool = True,
                skip_last: bool = True) -> tuple[float, np.ndarray]:
    """Cycles per block retired in steady state, from the cycles a run of timed blocks retired at: the mean
    over sliding windows of one wave's worth of retirements (``wave_blocks``), each starting after the
    first wave (the ramp: every SM starts at once, or the run follows a jump in the launch) and, with
    ``skip_last``, ending before the last (the drain: no block left to dispatch).  A window of exactly one
    wave measures one wave's time whether blocks retire spread out (a streaming kernel) or all together at
    the end of each wave (a compute-bound kernel of uniform blocks), so the rate is right for both.
    Returns (the rate, every window's rate)."""
    t = np.sort(np.asarray(block_end, dtype=np.float64))
    w = int(wave_blocks)
    lo = w if skip_first else 1
    starts = np.arange(lo, t.size - (2 * w if skip_last else w) + 1)
    if starts.size == 0:
        raise ValueError(f"{t.size} blocks timed: too few for a window of {w} between the ramp and the drain")
    rates = (t[starts + w - 1] - t[starts - 1]) / w
    return float(rates.mean()), rates


def wave_blocks(first: KernelTrace, gpu, regs_per_thread: int | None = None) -> int:
    """Blocks resident on the whole GPU at once (one wave): SMs x blocks per SM."""
    from gpusim.timing import _occupancy, _regs
    gpu = load_gpu(gpu)
    regs, _ = _regs(first, regs_per_thread)
    return gpu.sm.count * max(1, _occupancy(first, gpu, regs).blocks_per_sm)


def time_declined(first: KernelTrace, gpu, regs_per_thread: int | None = None) -> str:
    """Why a launch cannot be sampled in time, in words (it has fewer than :data:`TIME_MIN_WAVES` waves)."""
    w = wave_blocks(first, gpu, regs_per_thread)
    return (f"not sampled in time: {first.n_blocks:,} blocks are {first.n_blocks / w:.2f} waves of {w:,}, "
            f"fewer than the {TIME_MIN_WAVES} full waves a sample in time needs (a head and a tail of "
            f"{TIME_WAVES} and a middle to extrapolate)")


def simulate_time_sampled(source, gpu="h100", *, waves: int = TIME_WAVES, windows: int | None = None,
                          warm: bool = True,
                          first: KernelTrace | None = None, reason: str = "--sample waves", **simulate_kw):
    """Time ``source`` (a whole :class:`KernelTrace` or a launch stream) sampled in time: the whole ``gpu``
    (every SM, the whole memory system) times ``windows`` runs of ``waves`` full waves (:func:`time_spans`;
    default :func:`time_windows`) from the launch's head to its tail, as one launch, the global sectors of
    the blocks between them put in the L2 as the sample reaches their place (``warm``: reads clean, stores
    dirty, what they evict not written back; :meth:`gpusim.memory.system.MemorySystem.warm`), so that each
    later window finds the L2 about as full, and as dirty, as a whole run leaves it there.

    Cycles: the sample's (the launch's ramp, its drain, its partial wave) plus, for each gap between two
    windows, its blocks times the mean of the two windows' steady rates (:func:`steady_rate`: a rate that
    moves through the launch, as the L2 fills with dirty lines, is taken as moving evenly between windows)
    times the signature ratio (the gaps' warp instructions per block over the timed blocks').  Stall totals
    likewise, from each window's stalls per block.  Counters that add over blocks scale as
    :func:`extrapolate`, except DRAM traffic and L2 misses, which the warming counts
    (:func:`_count_warmed_traffic`).  The blocks not timed still run in the emulator (the outputs are exact).

    The error bound adds, for each gap, weighed by its share of the estimate: the spread of the rate within
    its two windows (the largest deviation of a one-wave window from its run's mean: how settled it is),
    half the gap between their rates relative to their mean (the gap's mean rate lies between them when
    the rate moves one way), and the signature gap ``|r - 1|``.  Returns the result, or None when the
    launch has fewer than ``2 * waves + 1`` full waves (the stream is then untouched beyond ``first``: the
    caller times it in full)."""
    from gpusim.timing import _build, _collect, _occupancy, _regs
    simulate_kw, full_gpu, first = _start(source, gpu, first, simulate_kw)
    n_blocks = first.n_blocks
    n_sm = full_gpu.sm.count
    regs, _ = _regs(first, simulate_kw.get("regs_per_thread"))
    occ = _occupancy(first, full_gpu, regs)
    wave = wave_blocks(first, full_gpu, simulate_kw.get("regs_per_thread"))
    spans = time_spans(n_blocks, wave, waves, time_windows(n_blocks, wave, waves) if windows is None else windows)
    if spans is None:
        return None
    n_timed = sum(hi - lo for lo, hi in spans)
    items = _items(source, first, spans, (n_timed, 1, 1), dirty=warm)
    if not warm:
        items = (i for i in items if isinstance(i, KernelTrace))
    model = _build(next(items), items, full_gpu, **simulate_kw)
    cycles_timed = model.run()
    res = _collect(model, full_gpu, cycles_timed)
    w_all, stats = _launch_totals(source)
    stats = _as_timed(stats, model.feed)
    wpb = first.warps_per_block
    block_end = model.warp_end_cycle[:n_timed * wpb].reshape(n_timed, wpb).max(axis=1)
    rates, spreads, off = [], [], 0
    for k, (lo, hi) in enumerate(spans):
        c, window_rates = steady_rate(block_end[off:off + hi - lo], wave, skip_first=True,
                                      skip_last=k == len(spans) - 1)
        rates.append(c)
        spreads.append(float(np.abs(window_rates - c).max()) / max(1e-9, c))
        off += hi - lo
    w_recorded = model.feed.recorded_instructions
    w_timed = model.feed.warp_instructions
    n_mid = n_blocks - n_timed
    ratio_mid = ((w_all - w_recorded) / n_mid) / max(1e-9, w_recorded / n_timed)
    # each gap between two windows at the mean of their rates; its share of the estimate weighs its bound
    gaps = [(spans[k + 1][0] - spans[k][1], rates[k], rates[k + 1], max(spreads[k], spreads[k + 1]))
            for k in range(len(spans) - 1)]
    extras = [n * 0.5 * (a + b) * ratio_mid for n, a, b, _ in gaps]
    # stall totals (warp-cycles) likewise: each gap at the mean of its two windows' stalls per block
    per_block = model.warp_stall[:n_timed * wpb].reshape(n_timed, wpb, -1).sum(axis=1)
    window_stalls, off = [], 0
    for lo, hi in spans:
        window_stalls.append(per_block[off:off + hi - lo].mean(axis=0))
        off += hi - lo
    stall_est = per_block.sum(axis=0) + sum(
        n * 0.5 * (window_stalls[k] + window_stalls[k + 1]) * ratio_mid for k, (n, *_) in enumerate(gaps))
    stalls = {r: float(stall_est[i]) for i, r in enumerate(STALL_REASONS)}
    cycles = int(round(cycles_timed + sum(extras)))
    parts = {"rate_spread": 0.0, "window_gap": 0.0, "signature": 0.0}
    for (n, a, b, spread), extra in zip(gaps, extras):
        share = extra / max(1.0, cycles)
        parts["rate_spread"] += 100 * share * spread
        parts["window_gap"] += 100 * share * abs(b - a) / max(1e-9, a + b)
        parts["signature"] += 100 * share * abs(ratio_mid - 1)
    rate = sum(extras) / max(1, n_mid) / max(1e-9, ratio_mid)
    ratio = (w_all / n_blocks) / max(1e-9, w_recorded / n_timed)
    w_all = round(w_all * w_timed / max(1, w_recorded))
    waiting = sum(res.stalls.get(r, 0) for r in ("long_scoreboard", "lg_throttle", "drain"))
    info = SampleInfo(sms=n_sm, of_sms=n_sm, spans=spans, blocks_timed=n_timed, n_blocks=n_blocks,
                      warp_instructions_timed=int(w_timed), warp_instructions=int(w_all), signature_ratio=ratio,
                      cycles_timed=int(cycles_timed), error_bound_pct=sum(parts.values()), bound_parts_pct=parts,
                      reason=reason, warmed_sectors=model.feed.warmed_sectors,
                      memory_stall_pct=100.0 * waiting / max(1, sum(res.stalls.values())),
                      layout="time", wave_blocks=wave, steady_cycles_per_block=rate,
                      rates_cycles_per_block=tuple(rates))
    timed_counters = dict(res.counters)
    res = extrapolate(res, info, full_gpu, stats, occ, cycles=cycles, stalls=stalls)
    if warm:
        _count_warmed_traffic(res.counters, timed_counters, model.memory)
    return res


def _count_warmed_traffic(out: dict, timed: dict, memory) -> None:
    """The DRAM traffic and L2 misses of the blocks not timed, counted by the warming rather than scaled
    (a kernel that reuses data misses in L2 mostly in its first blocks: scaling the head's misses over the
    launch would count them again for every block): the sample's own plus the sectors the warming found
    missing (read from DRAM) and the dirty ones it evicted (written back)."""
    fetched = getattr(memory, "warm_fetched", None)
    if fetched is None:
        return
    sector = 32
    if "dram__sectors_read.sum" in timed:
        out["dram__sectors_read.sum"] = timed["dram__sectors_read.sum"] + fetched
        out["dram__bytes_read.sum"] = timed["dram__bytes_read.sum"] + sector * fetched
    if "dram__sectors_write.sum" in timed:
        out["dram__sectors_write.sum"] = timed["dram__sectors_write.sum"] + memory.warm_written_back
        out["dram__bytes_write.sum"] = timed["dram__bytes_write.sum"] + sector * memory.warm_written_back
    hit, miss = "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum"
    if hit in out and miss in out:
        lookups = out[hit] + out[miss]
        out[miss] = min(lookups, timed[miss] + fetched)
        out[hit] = lookups - out[miss]
        if "lts__t_sector_hit_rate.pct" in out:
            out["lts__t_sector_hit_rate.pct"] = 100.0 * out[hit] / max(1.0, lookups)
