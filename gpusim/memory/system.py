"""The full memory system: a :class:`~gpusim.memory.request.MemoryModel` (``begin`` once per kernel,
``access`` per warp memory instruction, ``counters``; the contract is in :mod:`gpusim.memory.request`).

Clock domains.  ``access`` speaks SM cycles (``gpu.clock_mhz``).  Each part keeps its figures in the domain
where it lives and is converted at its boundary: the L1, the crossbar and the L2 hit latency in SM cycles
(the H100's L2 pointer chase measures the same SM cycles at 1590 and 1980 MHz); the L2 slices' throughput in
L2 cycles (``l2.clock_mhz``: 1705 MHz on the H100 at either SM clock); DRAM in DRAM clocks and ns (the
controller's timings, ``dram.latency_ns``).  So one preset predicts a kernel at two SM clocks: a
compute-bound one takes the same SM cycles, a DRAM-bound one the same nanoseconds.

Latency bookkeeping.  The spec's latencies are unloaded load-to-use figures (pointer chase); each is split
into the stages modelled here so that an unloaded access reproduces it and load adds queueing:

    L1 hit        = l1.hit_latency                                        (after the tag-stage passes)
    L2 hit (near) = l1.hit_latency + 2 x interconnect.latency + slice latency            (SM cycles)
    L2 hit (far)  = the near figure + (far - near)
    DRAM          = the L2 figure + dram.latency_ns (controller overhead + DRAM core nRCD + nCL + nBL)

The slice latency and the controller overhead are what is left over; a spec whose DRAM core timings
alone exceed its DRAM latency is rejected.
"""
from __future__ import annotations

import math
from array import array
from typing import Sequence

from gpusim.errors import ConfigError
from gpusim.memory.cache import SectoredCache
from gpusim.memory.const_cache import ConstantCache
from gpusim.memory.cycle_heap import CycleHeap
from gpusim.memory.cycle_table import CycleTable
from gpusim.memory.dram.controller import DramController, UnlimitedDram
from gpusim.memory.interconnect import Crossbar
from gpusim.memory.request import (ATOMIC, ATOMIC_FLOAT, ATOMIC_RETURNS, LOAD, STORE, LaunchResources,
                                   MemoryRequest)
from isa.units import MemSpace

SHARED, CONST, PARAM = MemSpace.SHARED, MemSpace.CONST, MemSpace.PARAM
_POPCOUNT4 = tuple(bin(m).count("1") for m in range(16))       # sectors in a line's 4-bit sector mask


def _ceil(x: float) -> int:
    """``math.ceil(x)``, in a form the compiled build turns into C (a cast, not a call into Python)."""
    c = int(x)
    return c + 1 if c < x else c


class MemorySystem:
    """Every SM's shared memory, L1 and constant cache, the crossbar, the L2 slices and DRAM.

    Models: global/local loads go L1 (unless ``.cg``/``.cs``/``.cv``, or atomics) -> crossbar -> L2 slice
    (slice chosen by a hash of the line address; an SM reaches the other partition's slices at the far
    latency; with ``l2.partition_copies`` such a read leaves a clean copy in the reader's partition, which
    serves that partition's later reads at the near latency, takes capacity there, and is dropped by a
    write or atomic to the line) -> DRAM on an L2 miss; the L1 takes a request's lines at ``tags_per_cycle`` a cycle (tag
    stage) or its bank wavefronts at one a cycle (data stage: distinct words of one bank serialise), the
    slower of the two; stores
    are write-through at L1 without allocation and write-back, write-allocate (no fetch) at L2; global
    atomics hold the L1 pipe a cycle per packet (one per sector, one more per further lane on one word) plus
    their bank wavefronts (``l1.atomic_packet_cycles``), then execute at the L2 slice, serialised per
    address; shared accesses cost their wavefronts in the
    SM's shared pipe, shared atomics serialise per address in the banks.  ``observer`` (a
    :class:`gpusim.timing.hooks.TimingObserver`) receives every DRAM command.

    What-ifs (:mod:`gpusim.timing.idealize`): ``unlimited_dram`` serves every DRAM burst at the idle-bank
    latency (:class:`~gpusim.memory.dram.UnlimitedDram`); ``atomics_serialise=False`` lets atomics to one
    word proceed without waiting for each other; ``latency_free_reads`` takes the fixed latency out of every
    read that misses L1 (or the constant cache): the crossbar's traversal (both ways), the L2 slice's
    pipeline, the far partition's extra cycles, the DRAM controller's overhead and the DRAM's idle-bank read
    time are zero, while every port, slice, MSHR, DRAM bank and the DRAM bus is held as long as before, so a
    read's data is usable the L1 hit latency plus its queueing after its tag stage.  Stores and atomics keep
    their latency.

    What an SM keeps in flight (measured on the H100, gpusim/hw/README.md "Under load"): the L1 sends its
    misses, stores and atomics down one line (a line's missing sectors) at a time, ``l1.miss_lines_per_cycle``
    lines per SM cycle, through the SM's crossbar port (:class:`Crossbar`); every line it sends holds one
    L1 line (of the ``launch.l1_data_bytes`` the carve-out leaves, in 128-byte lines) until the line is done
    with: a load's until its data is back, a store's until its data has left the SM (with
    ``l2.write_beat_cycles`` > 0, until its slice has taken the beats: a busy slice pushes back).  When every
    line is
    held, the request waits for the earliest to free, and so does the SM's LSU path (``busy``): the warps
    behind it show ``lg_throttle``, the warp waiting for the data ``long_scoreboard``.

    Simplifies: everything is computed at issue, arithmetically (per-port/per-bank next-free cycles, cache
    state updated at request time); ``access`` is called in nondecreasing ``now`` per SM, and over all SMs
    only up to an SM's LSU queue (with ``lsu_queue_entries`` > 0 an SM calls for the cycle its pipe takes a
    queued instruction, which may lie ahead of other SMs' calls: a request so dated reserves a slice, port
    or DRAM bank before another SM's earlier one).  Requests arrive
    already coalesced and costed (:mod:`gpusim.timing.lsu`) with physical sectors
    (:mod:`gpusim.memory.address_map`).  ``membar`` and coherence between L1s are not modelled (L1 is not
    invalidated by other SMs' stores).
    """

    def __init__(self, gpu, observer=None, *, unlimited_dram: bool = False, atomics_serialise: bool = True,
                 latency_free_reads: bool = False) -> None:
        spec = gpu.memory
        self.gpu = gpu
        self.spec = spec
        self.n_sm = int(gpu.sm.count)
        self.core_mhz = float(gpu.clock_mhz)
        l2 = spec.l2
        self.n_slices = l2.slices
        self.l1_hit = spec.l1.hit_latency_cycles
        self.icnt_latency = spec.interconnect.latency_cycles
        self.tags_per_cycle = spec.l1.tags_per_cycle
        self.miss_cycles = 1.0 / spec.l1.miss_lines_per_cycle
        beats = spec.l1.store_beats_per_cycle
        self.store_beat_cycles = 1.0 / beats if beats > 0 else 0.0
        self.atomic_packet_cycles = spec.l1.atomic_packet_cycles
        self.l1_bytes = spec.l1.size_bytes
        self.inflight_lines = self.l1_bytes // spec.l1.line_bytes
        self.slice_latency = l2.hit_latency_near_cycles - spec.l1.hit_latency_cycles - \
            2 * spec.interconnect.latency_cycles
        self.far_extra = l2.hit_latency_far_cycles - l2.hit_latency_near_cycles
        self.partition_copies = l2.partition_copies and l2.partitions > 1
        self.fetch_pairs = l2.dram_fetch_bytes == 64
        self.slices_per_partition = l2.slices // l2.partitions
        self.l2_mhz = float(l2.clock_mhz) or self.core_mhz
        # SM cycles a slice spends per request (tag lookup) and per sector of data: its rates are in L2 cycles
        self.slice_request_cycles = self.core_mhz / self.l2_mhz / l2.requests_per_cycle_per_slice
        self.slice_sector_cycles = self.core_mhz / self.l2_mhz / l2.sectors_per_cycle_per_slice
        self.slice_write_beat_cycles = self.core_mhz / self.l2_mhz * l2.write_beat_cycles
        l2_to_sm = self.core_mhz / self.l2_mhz
        self._atom_same = l2.atomic_same_address_cycles * l2_to_sm
        self._atom_same_float = l2.atomic_same_address_float_cycles * l2_to_sm
        self._atom_request = l2.atomic_request_cycles * l2_to_sm
        self._atom_return_request = l2.atomic_return_request_cycles * l2_to_sm
        self._atom_word = l2_to_sm / l2.atomic_words_per_cycle
        self._atom_return_word = l2_to_sm / l2.atomic_return_words_per_cycle
        self.dram = (UnlimitedDram if unlimited_dram else DramController)(spec.dram, observer)
        # a write-back waits only for a full write buffer: without one (0 entries: DRAM schedules the write
        # when it arrives; unlimited DRAM) DRAM's answer is when the write ends, which no store waits for
        self.write_back_waits = spec.dram.write_queue_entries > 0 and not unlimited_dram
        self.atomics_serialise = atomics_serialise
        self.atomic_same_sector_joins = l2.atomic_same_sector_joins
        self.store_merge_window = float(spec.l1.store_merge_window_cycles)
        self.store_merge_lines = int(spec.l1.store_merge_max_lines) or 32
        self.latency_free_reads = latency_free_reads
        # what a read's crossbar trips lose with latency_free_reads (each way)
        self._read_icnt_cut = spec.interconnect.latency_cycles if latency_free_reads else 0
        self.dram_mhz = spec.dram.clock_mhz
        self._ck_per_core = self.dram_mhz / self.core_mhz
        self._core_per_ck = self.core_mhz / self.dram_mhz
        core_read_ck = self.dram.closed_row_read_ck()
        # DRAM clocks from a miss leaving its slice to the DRAM command: what the latency leaves after the core
        self.dram_overhead_ck = int(round(spec.dram.latency_ns * self.dram_mhz / 1000.0)) - core_read_ck
        if self.dram_overhead_ck < 0:
            raise ConfigError(f"memory.dram.latency_ns: {spec.dram.latency_ns} ns is below the DRAM core read "
                              f"({core_read_ck} clocks at {self.dram_mhz} MHz)")
        self._dram_idle_read_ck = core_read_ck
        self.sm_partition = array("q", [s * l2.partitions // self.n_sm for s in range(self.n_sm)])
        self.slice_partition = array("q", [s * l2.partitions // l2.slices for s in range(l2.slices)])
        self._shared_wpc = spec.shared.wavefronts_per_cycle
        self._shared_latency = spec.shared.latency_cycles
        # bank cycles per wavefront by op: an atomic is a read-modify-write
        self._shared_cycles = array("q", [1, 1, 1])
        self._shared_cycles[ATOMIC] = spec.shared.atomic_cycles_per_op
        self._reset_state()

    # -- state ---------------------------------------------------------------------------------------
    def _reset_state(self) -> None:
        spec = self.spec
        self.l1 = [None] * self.n_sm
        self.const = [None] * self.n_sm
        self.l2 = [None] * self.n_slices
        self.icnt = Crossbar(self.n_sm, spec.interconnect.latency_cycles, spec.interconnect.bytes_per_cycle_per_port,
                             spec.l1.sector_bytes)
        self.l1_free = array("q", [0]) * self.n_sm
        self.miss_free = array("d", [0.0]) * self.n_sm
        self.inflight = [CycleHeap() for _ in range(self.n_sm)]    # per SM: when each line it holds frees
        self.inflight_waits = 0
        self.inflight_wait_cycles = 0.0
        self.shared_free = array("q", [0]) * self.n_sm
        self.const_free = array("q", [0]) * self.n_sm
        self._const_fill_sectors = max(1, spec.const.fill_bytes // 32)
        self.slice_free = array("d", [0.0]) * self.n_slices
        self.lrc = CycleTable()              # sector -> cycle its read data leaves the slice (in flight)
        self.lrc_merged = 0
        self.lrc_limit = 1 << 17
        self.fabric_sectors = 0
        self.tex_sectors = 0
        self.atom_free = CycleTable()        # word -> cycle its last atomic is done
        self.atom_last_sector = array("q", [-1]) * self.n_slices   # per slice: the sector of its last atomic
        self.atom_free_limit = 1 << 16
        self.warm_fetched = self.warm_written_back = 0
        self.store_wb_accepted = 0.0         # the store being served: the cycle DRAM took its write-backs
        # per SM: line -> its open L2 write request [cycle it closes, its sectors] (l1.store_merge_window_cycles)
        self.store_open = [{} for _ in range(self.n_sm)]
        self.l2_write_requests = self.store_merges = 0
        self.l2_reads = self.l2_writes = self.l2_atoms = self.l2_reds = self.l2_atomic_lanes = 0
        self.atomic_serialised = 0
        self._params_installed: set[int] = set()

    def _l1(self, sm: int) -> SectoredCache:
        c = self.l1[sm]
        if c is None:
            s = self.spec.l1
            c = self.l1[sm] = SectoredCache(self.l1_bytes, s.associativity, 0, s.line_bytes, s.sector_bytes)
        return c

    def _l2(self, sl: int) -> SectoredCache:
        c = self.l2[sl]
        if c is None:
            s = self.spec.l2
            c = self.l2[sl] = SectoredCache(s.size_bytes // s.slices, s.associativity, s.mshrs_per_slice,
                                            s.line_bytes, s.sector_bytes,
                                            s.dirty_limit_bytes // s.slices // s.sector_bytes)
        return c

    def _const(self, sm: int) -> ConstantCache:
        c = self.const[sm]
        if c is None:
            c = self.const[sm] = ConstantCache(self.spec.const)
        return c

    def slice_of(self, sector: int) -> int:
        """The L2 slice holding a 32 B sector (hash of its 128 B line; H100's real hash is not public)."""
        line = sector >> 2
        return (line ^ (line >> 7) ^ (line >> 17)) % self.n_slices

    def slice_of_line(self, line: int) -> int:
        return (line ^ (line >> 7) ^ (line >> 17)) % self.n_slices

    def flush(self) -> None:
        """Write back and invalidate every cache, as ncu does between replay passes; DRAM state and all
        counters stay."""
        for c in self.l2:
            if c is not None:
                for sector in c.dirty_sectors():
                    self.dram.access(0, sector * 32, True)
        for c in self.l2:
            if c is not None:
                c.invalidate()
        self.invalidate_l1()

    def invalidate_l1(self) -> None:
        """Invalidate every SM's L1 and constant cache, keeping L2 and DRAM: what a kernel launch does (the
        L1s are not coherent, so a launch must not see lines the previous kernel left there; the constant
        bank may have been rewritten by the host in between)."""
        for c in self.l1:
            if c is not None:
                c.invalidate()
        for cc in self.const:
            if cc is not None:
                cc.cache.invalidate()

    # -- once per kernel ---------------------------------------------------------------------------------
    def begin(self, requests: Sequence[MemoryRequest], launch: LaunchResources | None = None) -> None:
        """A kernel starts (see :mod:`gpusim.memory.request`): its parameters go into L2, and each SM's L1 (and
        so the lines it may keep in flight) is what the launch's carve-out leaves (else ``l1.size_bytes``)."""
        if launch is not None:
            l1 = self.spec.l1
            unit = l1.line_bytes * l1.associativity
            if launch.l1_data_bytes < unit:
                raise ConfigError(f"the launch leaves {launch.l1_data_bytes} B of L1; the model needs at least "
                                  f"{unit} (one set of memory.l1.associativity lines)")
            self.l1_bytes = launch.l1_data_bytes // unit * unit
            self.inflight_lines = self.l1_bytes // l1.line_bytes
            self.l1 = [None] * self.n_sm
        self._params_installed = set()
        self.admit(requests)

    def admit(self, requests: Sequence[MemoryRequest]) -> None:
        """A later chunk of the kernel (see :mod:`gpusim.memory.request`): parameter sectors it reads that no
        earlier chunk read go into L2 too (the launch wrote them all before the first block)."""
        params: set[int] = set()
        for r in requests:
            if r.space is PARAM:
                params.update(r.sectors)
        params -= self._params_installed
        self._params_installed |= params
        self._install_params(params)

    def warm(self, now: int, sectors, dirty=(), write_back: bool = True) -> None:
        """Global-memory sectors that SMs outside a sampled simulation read or wrote at about cycle ``now``
        (:mod:`gpusim.timing.sampling`): each goes into its L2 slice as those SMs' misses would bring it,
        usable an unloaded DRAM latency later (a simulated request for it meanwhile merges with that fill);
        one already there becomes most recent.  Their own DRAM traffic is not modelled (the sampled machine
        has the simulated SMs' share of the DRAM); dirty sectors they evict are written back, unless
        ``write_back`` is False (the sample in time: the blocks not timed are not timed at all, and their
        write-backs belong to their extrapolated time, not to the timed blocks after them).

        ``dirty``: sectors they wrote, put in the L2 dirty after ``sectors`` (as a store allocates them), so
        that the timed blocks that follow evict and write them back as a whole run would.  Without it
        (the sample on a few SMs, whose DRAM is their share only) the other SMs' stores do not make the
        sectors dirty.  No counter moves: ``warm_fetched`` (sectors read that were not in L2: the DRAM reads
        of the blocks not timed) and ``warm_written_back`` (dirty sectors they evicted) keep the totals."""
        ready = int(now) + math.ceil(self.spec.l2.hit_latency_near_cycles
                                     + self.spec.dram.latency_ns * self.core_mhz / 1000.0)
        evicted: list[int] = []
        for sector in sectors:
            if self._l2(self.slice_of(sector)).warm(sector, ready, evicted):
                self.warm_fetched += 1
        if len(dirty):
            # what the dirty limit writes back early counts here too (warm_written_back), not as the slices'
            early = [0 if c is None else c.early_written_back for c in self.l2]
            for sector in dirty:
                self._l2(self.slice_of(sector)).write(sector, True, evicted)
            for k, c in enumerate(self.l2):
                if c is not None:
                    c.early_written_back = early[k]
        self.warm_written_back += len(evicted)
        if evicted and write_back:
            self._write_back(now, evicted)

    def preload_l2(self, sectors) -> None:
        """Make ``sectors`` valid (clean) in L2 from cycle 0: a working set an earlier launch left there (the
        microbenchmarks' warm-up launch; ``gpusim.hw.micro_model``)."""
        for sector in sectors:
            sector = int(sector)
            self._l2(self.slice_of(sector)).fill(sector, 0)

    def _install_params(self, param_sectors) -> None:
        """Kernel parameters are written into constant bank 0 by the launch itself, after ncu's cache flush,
        so an SM's first ``ld.param`` misses its constant cache but hits in L2 (it never goes to DRAM).

        Measured (``benchmarks/dispatch_probe.py`` on the lent H100 under ncu, 2026-11-22): an SM is active
        281 cycles for an empty block and 516 for one that reads a parameter (S2R + ISETP with a c[0x0]
        operand): ~235 cycles for the first parameter read, an L2 hit (277 unloaded), not a DRAM trip (571).
        A module ``__constant__`` (c[0x3]) costs ~670 cycles at its first touch: it was flushed to DRAM, so
        it stays a cold miss here.  Simplification: the parameter sectors are valid in L2 from cycle 0."""
        self.preload_l2(sorted(param_sectors))

    # -- per instruction ---------------------------------------------------------------------------------
    def access(self, now: int, sm: int, request: MemoryRequest) -> tuple[int, int]:
        """(ready cycle, cycles the SM's LSU/MIO pipe is busy) of ``request`` issued at ``now`` on ``sm``."""
        space = request.space
        if space is SHARED:
            # inlined: the most frequent access in shared-memory kernels
            busy = -(-request.wavefronts * self._shared_cycles[request.op] // self._shared_wpc)
            start = self.shared_free[sm]
            if now > start:
                start = now
            self.shared_free[sm] = start + busy
            return start + busy - 1 + self._shared_latency, busy
        if space is CONST or space is PARAM:
            return self._constant(now, sm, request)
        if not request.active_lanes:
            return now + 1, 1          # no lane sent anything to L1TEX
        op = request.op
        if op == LOAD:
            return self._global_load(now, sm, request)
        if op == STORE:
            return self._global_store(now, sm, request)
        return self._global_atomic(now, sm, request)

    def _tag_stage(self, now, sm, request):
        # the tag stage looks up tags_per_cycle lines a cycle, the data stage reads one wavefront a cycle
        passes = -(-request.lines // self.tags_per_cycle)
        if request.wavefronts > passes:
            passes = request.wavefronts
        if passes < 1:
            passes = 1
        start = max(now, self.l1_free[sm])
        self.l1_free[sm] = start + passes
        return start + passes - 1, passes

    def _line_slot(self, t: float, sm: int) -> float:
        """The cycle (>= ``t``) SM ``sm`` has an L1 line to hold a line it sends down."""
        held = self.inflight[sm]
        if held.size >= self.inflight_lines:
            free = held.pop()
            if free > t:
                self.inflight_waits += 1
                self.inflight_wait_cycles += free - t
                return free
        return t

    def _slice_cost(self, n) -> float:
        """L2 cycles a slice is busy with one request of ``n`` sectors: a sector's cycles each, at least a
        request's."""
        cost = n * self.slice_sector_cycles
        return cost if cost > self.slice_request_cycles else self.slice_request_cycles

    def _hold_line(self, sm: int, until: float) -> None:
        """SM ``sm`` keeps one more L1 line until cycle ``until``."""
        held = self.inflight[sm]
        held.push(until)

    def _send(self, t: float, sm: int, sectors_out: int, sectors_in: int, port_cycles: float) -> float:
        """The cycle a line leaves SM ``sm`` for L2 (ready at ``t``, holding an L1 line): the L1 sends one
        per ``miss_cycles``, or per ``port_cycles`` when longer (a store's data beats), through the SM's
        crossbar port."""
        m = self.miss_free[sm]
        if t > m:
            m = t
        m = self.icnt.send(m, sm, sectors_out, sectors_in)
        self.miss_free[sm] = m + (port_cycles if port_cycles > self.miss_cycles else self.miss_cycles)
        return m

    def _global_load(self, now, sm, request):
        t, passes = self._tag_stage(now, sm, request)
        ready = t + self.l1_hit
        l1 = self._l1(sm)
        bypass = request.bypass_l1
        sent = t
        line = -1
        mask = 0
        for sector in request.sectors:
            if not bypass:
                r = l1.probe(t, sector)
                if r >= 0:
                    if r > ready:
                        ready = r
                    continue
            ln = sector >> 2
            if ln != line:
                if mask:
                    r, sent = self._read_line(sent, sm, line, mask, bypass)
                    if r > ready:
                        ready = r
                line = ln
                mask = 0
            mask |= 1 << (sector & 3)
        if mask:
            r, sent = self._read_line(sent, sm, line, mask, bypass)
            if r > ready:
                ready = r
        if sent > t:
            # the LSU path waited for an L1 line to free: nothing else passes meanwhile
            return ready, max(passes, _ceil(sent) - now + 1)
        return ready, passes

    def _read_line(self, t, sm, line, mask, bypass):
        """(load-to-use cycle, cycle it got its L1 line) of the sectors in ``mask`` of ``line``, missed in L1;
        ``t``: the cycle the previous line of the request got its L1 line (lines go in order)."""
        t = self._line_slot(t, sm)
        m = self._send(t, sm, 0, _POPCOUNT4[mask], 0.0)
        if self.store_merge_window > 0 and self.store_open[sm]:
            # a read request leaving the SM sends its open store requests out first: later stores to their
            # lines make requests of their own (stmerge.json c7_ldo: an L2 load after each store, 1.000
            # requests a store where 0.26 without it)
            self.store_open[sm].clear()
        icnt = self.icnt_latency - self._read_icnt_cut       # the latency what-if cuts the trips
        back = _ceil(self._slice_read(m + icnt, sm, line, mask) + icnt) + self.l1_hit
        self._hold_line(sm, back)
        if not bypass:
            l1 = self.l1[sm]
            base = line << 2
            for k in range(4):
                if mask >> k & 1:
                    l1.fill(base + k, back)
        return back, t

    def _slice_read(self, arrive: float, sm: int, line: int, mask: int) -> float:
        """The cycle the sectors ``mask`` of ``line``, requested by SM ``sm`` and arriving at their slice at
        ``arrive``, leave it for the SM.

        The slice's request coalescer first serves any sector whose read is already in flight (its data
        has not left the slice yet) with that read's data; the slice takes the rest as one request: a tag
        lookup (``slice_request_cycles``) and a data read per sector (``slice_sector_cycles``), whichever
        is longer, in arrival order.  A sector that misses to DRAM and is homed in the other partition is
        looked up a second time there (counted again, and one more lookup)."""
        base = line << 2
        lrc = self.lrc
        data = arrive
        n = 0
        for k in range(4):
            if mask >> k & 1:
                d = lrc.get(base + k, -1.0)
                if d >= arrive:
                    self.lrc_merged += 1
                    mask ^= 1 << k
                    if d > data:
                        data = d
                else:
                    n += 1
        if not n:
            return data
        sl = self.slice_of_line(line)
        far = self.sm_partition[sm] != self.slice_partition[sl]
        if far and self.partition_copies:
            d = self._copy_read(arrive, self.sm_partition[sm], sl, line, mask, n)
            return d if d > data else data
        start = self.slice_free[sl]
        if arrive > start:
            start = arrive
        cost = self._slice_cost(n)
        l2 = self._l2(sl)
        tag = int(start)
        ready = start
        far_misses = 0
        for k in range(4):
            if mask >> k & 1:
                r = l2.probe(tag, base + k)
                if r < 0:
                    r = self._dram_fill(tag, base + k, l2, self.latency_free_reads,
                                        self.fetch_pairs and not mask >> (k ^ 1) & 1)
                    if far:
                        far_misses += 1
                if r > ready:
                    ready = r
        self.l2_reads += n + far_misses
        self.tex_sectors += n
        if far_misses:
            self.fabric_sectors += far_misses
            cost += self.slice_request_cycles
        self.slice_free[sl] = start + cost
        if self.latency_free_reads:                 # the what-if: no slice pipeline, no far trip
            d = ready
        else:
            d = ready + self.slice_latency
            if far:
                d += self.far_extra
        self._note_in_flight(arrive, base, mask, d)
        return d if d > data else data

    def _note_in_flight(self, arrive: float, base: int, mask: int, d: float) -> None:
        """The request coalescer: the sectors ``mask`` of the line at sector ``base`` leave their slice at ``d``."""
        lrc = self.lrc
        for k in range(4):
            if mask >> k & 1:
                lrc.put(base + k, d)
        if len(lrc) > self.lrc_limit:
            # forget reads whose data has long left their slice; keep the limit above what is still in flight
            # so that the sweep stays linear in the requests
            lrc.keep_from(arrive - 4096)
            self.lrc_limit = max(1 << 17, 2 * len(lrc))

    def _copy_slice(self, home: int, partition: int) -> int:
        """The slice of ``partition`` that keeps copies of the lines homed at slice ``home`` (the slice at the
        same place in that partition; l2.partition_copies)."""
        per = self.slices_per_partition
        return partition * per + home % per

    def _copy_read(self, arrive: float, partition: int, sl: int, line: int, mask: int, n: int) -> float:
        """:meth:`_slice_read` of ``n`` sectors (``mask``) of a line homed at slice ``sl`` in the other
        partition, with copies (l2.partition_copies): they are looked up first in the copy slice of the
        reader's ``partition``; what it holds leaves it at the near latency; the rest crosses the fabric to
        the home slice (looked up again there, from DRAM on a miss) and is copied into the copy slice as it
        comes back.  Simplifies: the copy slice holds no MSHR for the fabric trip; copies are clean."""
        base = line << 2
        csl = self._copy_slice(sl, partition)
        copy = self._l2(csl)
        start = self.slice_free[csl]
        if arrive > start:
            start = arrive
        tag = int(start)
        ready = start
        missed = 0
        for k in range(4):
            if mask >> k & 1:
                r = copy.probe(tag, base + k)
                if r < 0:
                    missed |= 1 << k
                elif r > ready:
                    ready = r
        n_missed = _POPCOUNT4[missed]
        self.slice_free[csl] = start + (self._slice_cost(n - n_missed) if n > n_missed else self.slice_request_cycles)
        self.l2_reads += n
        self.tex_sectors += n
        d = ready if self.latency_free_reads else ready + self.slice_latency
        if n_missed:
            self.l2_reads += n_missed
            self.fabric_sectors += n_missed
            l2 = self._l2(sl)
            home_start = self.slice_free[sl]
            if start > home_start:
                home_start = start
            home_tag = int(home_start)
            home_ready = home_start
            for k in range(4):
                if missed >> k & 1:
                    r = l2.probe(home_tag, base + k)
                    if r < 0:
                        r = self._dram_fill(home_tag, base + k, l2, self.latency_free_reads,
                                            self.fetch_pairs and not missed >> (k ^ 1) & 1)
                    if r > home_ready:
                        home_ready = r
            self.slice_free[sl] = home_start + self._slice_cost(n_missed)
            evicted: list[int] = []
            for k in range(4):
                if missed >> k & 1:
                    copy.warm(base + k, int(home_ready), evicted)
            if evicted:
                self._write_back(home_tag, evicted)
            if self.latency_free_reads:             # the what-if: no slice pipeline, no far trip
                far_d = home_ready
            else:
                far_d = home_ready + self.slice_latency + self.far_extra
            if far_d > d:
                d = far_d
        self._note_in_flight(arrive, base, mask, d)
        return d

    def _drop_copies(self, sl: int, line: int) -> None:
        """A write to ``line`` (homed at slice ``sl``) makes its copies in the other partitions stale."""
        home = self.slice_partition[sl]
        for p in range(self.n_slices // self.slices_per_partition):
            if p != home:
                c = self.l2[self._copy_slice(sl, p)]
                if c is not None:
                    c.discard_line(line)

    def _dram_fill(self, t: int, sector: int, l2: SectoredCache, latency_free: bool = False,
                   pair: bool = False) -> int:
        """Fetch a sector missed in slice cache ``l2`` at cycle ``t`` from DRAM; the cycle it is in L2.
        ``latency_free`` (the latency what-if): without the DRAM's fixed latency; the burst's time beyond an
        idle bank's read is waiting (bank, bus, row conflict, refresh) and still counts.  ``pair`` (l2.
        dram_fetch_bytes 64, and the request does not ask for it itself): the other sector of the aligned
        64 B comes too, in a burst of its own behind the first, unless the slice holds it already."""
        m = l2.mshr_start(t)
        buddy = sector ^ 1
        if pair and l2.holds(buddy):
            pair = False
        if latency_free:
            arrival_ck = int(m * self._ck_per_core)
        else:
            arrival_ck = int(m * self._ck_per_core) + self.dram_overhead_ck
        done_ck = self.dram.access(arrival_ck, sector * 32, False)
        if pair:
            pair_ck = self.dram.access(arrival_ck, buddy * 32, False)
        if latency_free:
            r = m + _ceil(max(0, done_ck - arrival_ck - self._dram_idle_read_ck) * self._core_per_ck)
        else:
            r = _ceil(done_ck * self._core_per_ck)
        evicted: list[int] = []
        l2.fill(sector, r, evicted)
        if pair:
            if latency_free:
                rb = m + _ceil(max(0, pair_ck - arrival_ck - self._dram_idle_read_ck) * self._core_per_ck)
            else:
                rb = _ceil(pair_ck * self._core_per_ck)
            l2.warm(buddy, rb, evicted)             # the same line: nothing more to evict; no counter moves
        if evicted:
            # the victim's line is taken when the miss goes out (its MSHR starts), and written back then
            self._write_back(m, evicted)
        return r

    def _l2_data(self, tag, sector, sl) -> float:
        """Cycle a sector's data is in slice ``sl`` for a lookup at ``tag`` (fetching from DRAM on a miss), before
        the slice's pipeline latency."""
        l2 = self._l2(sl)
        r = l2.probe(int(tag), sector)
        if r < 0:
            r = self._dram_fill(int(tag), sector, l2, False, self.fetch_pairs)
        return max(tag, r)

    def _write_back(self, t, evicted) -> float:
        """Send dirty sectors to DRAM at cycle ``t``; the cycle the last is accepted (DRAM's write buffer may
        be full: :class:`~gpusim.memory.dram.controller.DramChannel`; ``t`` where DRAM has none)."""
        arrival_ck = int(t * self._ck_per_core)
        last_ck = arrival_ck
        for s in evicted:
            ck = self.dram.access(arrival_ck, s * 32, True)
            if ck > last_ck:
                last_ck = ck
        if last_ck == arrival_ck or not self.write_back_waits:
            return t
        return last_ck * self._core_per_ck

    def _global_store(self, now, sm, request):
        t, passes = self._tag_stage(now, sm, request)
        l1 = self._l1(sm)
        bypass = request.bypass_l1
        slot = t
        left = t
        line = -1
        mask = 0
        i = -1                                         # the line's index among the request's lines
        masked = request.masked_lines
        merge = self.store_merge_window > 0 and request.lines <= self.store_merge_lines
        for sector in request.sectors:
            if not bypass:
                l1.write(sector, allocate=False)       # write-through, no allocate: update if present
            ln = sector >> 2
            if ln != line:
                if mask:
                    left, slot = self._write_line(slot, sm, line, mask, masked >> i & 1, merge)
                line = ln
                mask = 0
                i += 1
            mask |= 1 << (sector & 3)
        if mask:
            left, slot = self._write_line(slot, sm, line, mask, masked >> i & 1, merge)
        # accepted when its last line has left the SM, or, when a line's write-back had to wait for DRAM's
        # write buffer, when that was taken (the warp's stores are done only then: drain)
        ready = max(t + 1, _ceil(left) + 1, _ceil(self.store_wb_accepted))
        self.store_wb_accepted = 0.0
        if slot > t:
            return ready, max(passes, _ceil(slot) - now + 1)
        return ready, passes

    def _write_line(self, t, sm, line, mask, masked, merge=False) -> tuple[float, float]:
        """Send a line's store data to its slice: (cycle it left the SM, cycle it got the L1 line it held till
        then); ``t`` as for :meth:`_read_line`.  The data goes as beats: one per written sector (``mask``),
        and one for the byte mask when a sector is written only in part (``masked``).

        With ``l1.store_merge_window_cycles`` (measured on the GH100, ``tests/golden/h100/micro/stmerge.json``)
        the request stays open: a later store of this SM to the line joins it (:meth:`_join_store`) until
        ``store_merge_window_cycles`` after this one, or, when its slice pushes back, until the slice can take
        it.  Simplified: the window does not grow with the stores that join (the GH100's does, while the SM
        keeps writing the line at its full store rate: 8 warps storing back to back to their SM's line, one
        request per ~123 stores; the model one per ~16, as its tag stage takes a store a cycle and a
        sliding window would merge the stores of 8 warps to 8 lines, which the GH100 merges two to a
        request); a store that joins travels with a request that may have left already (the data's time
        is the request's); a byte-mask beat is not added when a joining store writes part of a sector the
        request wrote whole.  A read request leaving the SM (an L1 miss) closes every open request of the
        SM (:meth:`_read_line`); atomics, not measured, do not.  ``merge``: the store may merge (the window is
        on, and the request has at most ``l1.store_merge_max_lines`` lines: a naive transpose's 32-line
        stores never merge on the GH100, stmerge.json c9_tr)."""
        if merge:
            o = self.store_open[sm].get(line)
            if o is not None and t < o[0]:
                return self._join_store(t, sm, line, mask, masked, o)
        t0 = t
        t = self._line_slot(t, sm)
        n = _POPCOUNT4[mask]
        beats = n + masked
        self.l2_write_requests += 1
        m = self._send(t, sm, n, 0, beats * self.store_beat_cycles)
        arrive = m + self.icnt_latency
        base = line << 2
        sl = self.slice_of_line(line)
        l2 = self._l2(sl)
        start = self.slice_free[sl]
        if arrive > start:
            start = arrive
        if self.slice_write_beat_cycles > 0:
            cost = beats * self.slice_write_beat_cycles
            if cost < self.slice_request_cycles:
                cost = self.slice_request_cycles
        else:
            cost = self._slice_cost(n)
        if self.sm_partition[sm] != self.slice_partition[sl]:
            # a write homed in the other partition crosses the fabric and is looked up again there
            cost += self.slice_request_cycles
            self.fabric_sectors += n
            self.l2_writes += n
        self.slice_free[sl] = start + cost
        held_until = m + n * self.icnt.sector_cycles
        if self.slice_write_beat_cycles > 0 and start + cost > held_until:
            # the slice pushes back: the SM keeps the line until the slice has taken its beats
            held_until = start + cost
        self.l2_writes += n
        self.tex_sectors += n
        evicted: list[int] = []
        for k in range(4):
            if mask >> k & 1:
                l2.write(base + k, allocate=True, evicted=evicted)
                self.lrc.pop(base + k)       # a later read must see the new data
        if self.partition_copies:
            self._drop_copies(sl, line)
        if evicted:
            # the lines it evicts or cleans (the dirty limit) must be taken by DRAM's write buffer first
            accepted = self._write_back(start, evicted)
            if accepted > held_until:
                held_until = accepted
            if accepted > start and accepted > self.store_wb_accepted:
                self.store_wb_accepted = accepted
        self._hold_line(sm, held_until)
        if merge:
            opened = self.store_open[sm]
            if len(opened) >= 64:                  # forget the lines closed by now
                self.store_open[sm] = opened = {k: v for k, v in opened.items() if v[0] > t0}
            # open a window after the store, or, when its slice pushes back, until the slice can take it (not
            # while it waits for the SM's port: the model's tag stage takes a store a cycle, the port one per
            # two beats, so that wait grows with the stores an SM issues in a row)
            close = t0 + self.store_merge_window
            taken = start - self.icnt_latency if start > arrive else 0.0
            opened[line] = [taken if taken > close else close, mask]
        return m, t

    def _join_store(self, t, sm, line, mask, masked, o) -> tuple[float, float]:
        """A store to ``line`` at cycle ``t`` while the SM's request ``o`` for it is open (see
        :meth:`_write_line`): its sectors go with that request.  Its beats still pass the L1's port towards
        the crossbar (the SM's store rate is the same whether its stores merge or not: 2.8 cycles a one-lane
        store with 8 warps storing to one line, to one line each, or all SMs to one address, stmerge.json),
        but not the crossbar or the slice: a sector the request does not have yet adds its beat at the slice
        and counts as a sector written.  Returns (cycle its beats passed the port, ``t``): it takes no L1
        line of its own."""
        self.store_merges += 1
        m = self.miss_free[sm]
        if t > m:
            m = t
        port = (_POPCOUNT4[mask] + masked) * self.store_beat_cycles
        self.miss_free[sm] = m + (port if port > self.miss_cycles else self.miss_cycles)
        new = mask & ~o[1]
        sl = self.slice_of_line(line)
        base = line << 2
        if new:
            n = _POPCOUNT4[new]
            o[1] |= new
            self.slice_free[sl] += n * (self.slice_write_beat_cycles if self.slice_write_beat_cycles > 0
                                        else self.slice_sector_cycles)
            self.l2_writes += n
            self.tex_sectors += n
            if self.sm_partition[sm] != self.slice_partition[sl]:
                self.fabric_sectors += n
                self.l2_writes += n
            l2 = self._l2(sl)
            evicted: list[int] = []
            for k in range(4):
                if new >> k & 1:
                    l2.write(base + k, allocate=True, evicted=evicted)
            if evicted:
                self._write_back(t, evicted)
        for k in range(4):
            if mask >> k & 1:
                self.lrc.pop(base + k)
        if self.partition_copies:
            self._drop_copies(sl, line)
        return m, t

    def _global_atomic(self, now, sm, request):
        words = {}
        packets = 0
        most = 0
        prev_sector = -1
        for sector, _, count in request.atomics:
            words[sector] = words.get(sector, 0) + 1
            if sector != prev_sector:
                packets += most
                most = 0
                prev_sector = sector
            if count > most:
                most = count
        packets += most
        if self.atomic_packet_cycles > 0:
            # The L1 pipe sends a packet per sector, one operand per word in it (lanes on one word need more
            # packets), and reads the operands through the banks: in order, so loads behind it wait.
            passes = _ceil(packets * self.atomic_packet_cycles) + max(1, request.wavefronts)
        else:
            # the tag stage alone (a line's worth of lookups per pass; the operands' banks not costed)
            passes = max(1, -(-request.lines // self.tags_per_cycle))
        begin = max(now, self.l1_free[sm])
        self.l1_free[sm] = begin + passes
        t = begin + passes - 1
        flags = request.atomic_flags
        # Nsight's lts__t_sectors_op_atom / _op_red: a sector per packet (lanes on one word: one each)
        if flags & ATOMIC_RETURNS:
            self.l2_atoms += packets
        else:
            self.l2_reds += packets
        # SM cycles per lane on one address (lanes serialise at the home slice), per request (a sector's lanes
        # come as one), and per distinct word of a request (the slice's atomic unit takes a few per cycle)
        op_cycles = self._atom_same_float if flags & ATOMIC_FLOAT else self._atom_same
        if flags & ATOMIC_RETURNS:
            req_cycles, word_cycles = self._atom_return_request, self._atom_return_word
        else:
            req_cycles, word_cycles = self._atom_request, self._atom_word
        ready = t
        atom_free = self.atom_free
        prev_sector = -1
        slot = t
        sector_back = 0
        for sector, word, count in request.atomics:
            if sector != prev_sector:
                # one packet per sector carries all of its lanes' operands
                if sector_back:
                    self._hold_line(sm, sector_back)
                    sector_back = 0
                prev_sector = sector
                slot = self._line_slot(slot, sm)
                sent = self._send(slot, sm, 1, 1, 0.0)
                sl = self.slice_of(sector)
                is_far = self.sm_partition[sm] != self.slice_partition[sl]
                far = self.far_extra if is_far else 0
                arrive = sent + self.icnt_latency
                tag = max(arrive, self.slice_free[sl])
                cost = words[sector] * word_cycles
                if cost < req_cycles and not (self.atomic_same_sector_joins and self.atom_last_sector[sl] == sector):
                    # a lookup per request, unless the slice's atomic unit holds its sector from the one before
                    cost = req_cycles
                self.atom_last_sector[sl] = sector
                self.slice_free[sl] = tag + cost
                self.tex_sectors += 1
                if is_far:
                    self.fabric_sectors += 1
                data = self._l2_data(tag, sector, sl)
                evicted = []
                self._l2(sl).write(sector, True, evicted)
                if evicted:
                    self._write_back(tag, evicted)
                self.lrc.pop(sector)
                if self.partition_copies:
                    self._drop_copies(sl, sector >> 2)
            self.l2_atomic_lanes += count
            if self.atomics_serialise:                # lanes on one address serialise
                start = max(data, atom_free.get(word, 0.0))
                done = start + count * op_cycles
            else:                                     # the what-if: as if every lane had its own word
                start = data
                done = start + op_cycles
            atom_free.put(word, done)
            self.atomic_serialised += count - 1
            back = _ceil(done + far + self.slice_latency + self.icnt_latency) + self.l1_hit
            if back > sector_back:
                sector_back = back
            if back > ready:
                ready = back
        if sector_back:
            self._hold_line(sm, sector_back)
        if len(atom_free) > self.atom_free_limit:
            # Words whose last atomic is done by now no longer delay one (start >= now); drop them, and
            # try again only once the table has doubled (more words than that can be busy at once: a
            # random-update kernel keeps ~10^5 in flight, and pruning at a fixed size then ran every call).
            atom_free.keep_after(now)
            self.atom_free_limit = max(1 << 16, 2 * len(atom_free))
        if slot > t:
            return ready, max(passes, _ceil(slot) - now + 1)
        return ready, passes

    def _constant(self, now, sm, request):
        cc = self._const(sm)
        spec = self.spec.const
        n = request.wavefronts
        busy = max(1, -(-n // spec.addresses_per_cycle))
        start = max(now, self.const_free[sm])
        self.const_free[sm] = start + busy
        cc.requests += 1
        cc.serialised_cycles += busy - 1
        t = start + busy - 1
        ready = t + spec.hit_latency_cycles
        cache = cc.cache
        for sector in request.sectors:
            r = cache.probe(t, sector)
            if r < 0:
                arrive = cache.mshr_start(t) + self.icnt_latency
                r = self._const_fill(arrive, sm, sector, cache)
            if r > ready:
                ready = r
        return ready, busy

    def _const_fill(self, arrive, sm, sector, cache):
        """The cycle missed constant ``sector`` is usable, its read reaching L2 at ``arrive``: the aligned
        block of ``const.fill_bytes`` around it is read too, a request per L2 line, and filled as a prefetch
        (no MSHR, no counter; a sector already there stays as it was).  The missed sector is a request of its
        own: it is usable when it is back, whatever its neighbours wait for (DRAM, say)."""
        mine = _ceil(self._slice_read(arrive, sm, sector >> 2, 1 << (sector & 3)) + self.icnt_latency) + self.l1_hit
        cache.fill(sector, mine)
        n = self._const_fill_sectors
        first = sector - sector % n
        line = first >> 2
        while line << 2 < first + n:
            lo = line << 2
            if lo < first:
                lo = first
            hi = (line << 2) + 4
            if hi > first + n:
                hi = first + n
            mask = 0
            for s in range(lo, hi):
                if s != sector:
                    mask |= 1 << (s & 3)
            if mask:
                r = _ceil(self._slice_read(arrive, sm, line, mask) + self.icnt_latency) + self.l1_hit
                for s in range(lo, hi):
                    if s != sector:
                        cache.warm(s, r)
            line += 1
        return mine

    # -- results -----------------------------------------------------------------------------------------
    def counters(self) -> dict:
        """Nsight-named scalar metrics (floats), plus DRAM tables as lists under ``dram.per_channel.*``
        (one value per pseudo-channel) and ``dram.per_bank.*`` ([channel][bank])."""
        out: dict = {}
        l1s = [c for c in self.l1 if c is not None]
        l1_hits, l1_misses = sum(c.hits for c in l1s), sum(c.misses for c in l1s)
        out["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] = float(l1_hits)
        out["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"] = float(l1_misses)
        out["l1tex__t_sector_hit_rate.pct"] = 100.0 * l1_hits / (l1_hits + l1_misses) if l1_hits + l1_misses else 0.0
        out["gpusim__l1_mshr_merges.sum"] = float(sum(c.mshr_merges for c in l1s))
        # the in-flight limit: L1 lines per SM, and how often (and how long) a line waited for one
        out["gpusim__l1_inflight_lines"] = float(self.inflight_lines)
        out["gpusim__l1_inflight_waits.sum"] = float(self.inflight_waits)
        out["gpusim__l1_inflight_wait_cycles.sum"] = float(self.inflight_wait_cycles)
        l2s = [c for c in self.l2 if c is not None]
        l2_hits, l2_misses = sum(c.hits for c in l2s), sum(c.misses for c in l2s)
        out["lts__t_sectors_op_read.sum"] = float(self.l2_reads)
        out["lts__t_sectors_op_write.sum"] = float(self.l2_writes)
        out["lts__t_sectors_op_atom.sum"] = float(self.l2_atoms)
        out["lts__t_sectors_op_red.sum"] = float(self.l2_reds)
        out["gpusim__l2_atomic_lanes.sum"] = float(self.l2_atomic_lanes)      # lane updates the slices perform
        # write requests from the SMs' L1s, after stores joined an open request (l1.store_merge_window_cycles)
        out["lts__t_requests_srcunit_tex_op_write.sum"] = float(self.l2_write_requests)
        out["gpusim__l1_store_merges.sum"] = float(self.store_merges)
        out["lts__t_sectors_lookup_hit.sum"] = float(l2_hits)
        out["lts__t_sectors_lookup_miss.sum"] = float(l2_misses)
        out["lts__t_sector_hit_rate.pct"] = 100.0 * l2_hits / (l2_hits + l2_misses) if l2_hits + l2_misses else 0.0
        out["gpusim__l2_mshr_merges.sum"] = float(sum(c.mshr_merges for c in l2s))
        # dirty sectors written back before eviction, under l2.dirty_limit_bytes (in DRAM's write counters too)
        out["gpusim__l2_early_written_back_sectors.sum"] = float(sum(c.early_written_back for c in l2s))
        # sectors looked up for the SMs, and again in the other partition (misses, writes, atomics homed there)
        out["lts__t_sectors_srcunit_tex.sum"] = float(self.tex_sectors)
        out["lts__t_sectors_srcunit_ltcfabric.sum"] = float(self.fabric_sectors)
        out["gpusim__lrc_merged_sectors.sum"] = float(self.lrc_merged)
        out["gpusim__l2_atomic_serialised.sum"] = float(self.atomic_serialised)
        consts = [c for c in self.const if c is not None]
        out["gpusim__const_requests.sum"] = float(sum(c.requests for c in consts))
        out["gpusim__const_serialised_cycles.sum"] = float(sum(c.serialised_cycles for c in consts))
        out.update(self.dram.counters())
        out.update(self.dram.tables())
        return out
