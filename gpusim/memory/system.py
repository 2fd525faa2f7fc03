"""The memory system facade the timing model calls: ``prepare`` once per kernel, ``access`` per instruction.

Latency bookkeeping.  The spec's latencies are unloaded load-to-use figures (pointer chase); each is split
into the stages modelled here so that an unloaded access reproduces it and load adds queueing:

    L1 hit        = l1.hit_latency                                        (after the tag-stage passes)
    L2 hit (near) = l1.hit_latency + 2 x interconnect.latency + slice latency
    L2 hit (far)  = the near figure + (far - near)
    DRAM          = the L2 near figure + controller overhead + DRAM core (nRCD + nCL + nBL, in SM cycles)

The slice latency and the controller overhead are what is left over; a spec whose DRAM core timings
alone exceed its DRAM latency is rejected.
"""
from __future__ import annotations

import math

import numpy as np

from gpusim.errors import ConfigError, GpusimError
from gpusim.functional.trace import MEM_SPACES, KernelTrace
from gpusim.memory.cache import SectoredCache
from gpusim.memory.coalescer import Coalescer
from gpusim.memory.const_cache import ConstantCache, distinct_addresses
from gpusim.memory.dram import DramController
from gpusim.memory.interconnect import Crossbar
from gpusim.memory.shared_banks import SharedAccessResult, SharedMemoryBanks

# Where the non-global spaces sit in the one physical address space the caches and DRAM see.
LOCAL_BASE = 1 << 44
CONST_BASE = 1 << 45
PARAM_BASE = (1 << 45) + (1 << 40)

NONE, SHARED, GLOBAL_LD, GLOBAL_ST, GLOBAL_ATOM, CONST = range(6)
_BYPASS_L1 = (".cg", ".cs", ".cv", ".lu")


_ROW_HASH = np.random.default_rng(12345).integers(1, 1 << 62, size=32, dtype=np.int64) | 1


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of one representative per distinct row, index of each row's representative) of an int64
    [M, 32] array: a hash of each row, uniqued, verified exactly (a collision falls back to np.unique)."""
    if rows.shape[0] <= 1 or rows.shape[1] != _ROW_HASH.shape[0]:
        return np.arange(rows.shape[0]), np.arange(rows.shape[0])
    with np.errstate(over="ignore"):
        h = (rows * _ROW_HASH).sum(axis=1)
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    if not np.array_equal(rows[first][inverse], rows):
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


class MemorySystem:
    """Every SM's shared memory, L1 and constant cache, the crossbar, the L2 slices and DRAM.

    Models: global/local loads go L1 (unless ``.cg``/``.cs``/``.cv``, or atomics) -> crossbar -> L2 slice
    (slice chosen by a hash of the line address; an SM reaches the other partition's slices at the far
    latency) -> DRAM on an L2 miss; the L1 tag stage handles ``tags_per_cycle`` lines per cycle; stores
    are write-through at L1 without allocation and write-back, write-allocate (no fetch) at L2; global
    atomics execute at the L2 slice, serialised per address; shared accesses cost their wavefronts in the
    SM's shared pipe, shared atomics serialise per address in the banks.

    Simplifies: everything is computed at issue, arithmetically (per-port/per-bank next-free cycles, cache
    state updated at request time); ``access`` must be called in nondecreasing ``now``.  Local memory is
    interleaved per lane (4-byte words of consecutive lanes adjacent, as the hardware does), ``membar``
    and coherence between L1s are not modelled (L1 is not invalidated by other SMs' stores).
    """

    def __init__(self, gpu) -> None:
        spec = gpu.memory
        self.gpu = gpu
        self.spec = spec
        self.n_sm = int(gpu.sm.count)
        self.core_mhz = float(gpu.clock_mhz)
        self.coalescer = Coalescer()
        self.banks = SharedMemoryBanks(spec.shared.banks, spec.shared.bank_width_bytes)
        self.hooks: list = []
        l2 = spec.l2
        self.n_slices = l2.slices
        self.slice_latency = l2.hit_latency_near_cycles - spec.l1.hit_latency_cycles - \
            2 * spec.interconnect.latency_cycles
        self.far_extra = l2.hit_latency_far_cycles - l2.hit_latency_near_cycles
        self.dram = DramController(spec.dram)
        self.dram.hooks = self.hooks
        self.dram_mhz = spec.dram.clock_mhz
        self._ck_per_core = self.dram_mhz / self.core_mhz
        self._core_per_ck = self.core_mhz / self.dram_mhz
        core_read = math.ceil(self.dram.closed_row_read_ck() * self._core_per_ck)
        self.dram_overhead = spec.dram.latency_cycles - l2.hit_latency_near_cycles - core_read
        if self.dram_overhead < 0:
            raise ConfigError(f"memory.dram.latency_cycles: {spec.dram.latency_cycles} is below the L2 near hit "
                              f"latency plus the DRAM core read ({core_read} SM cycles at {self.core_mhz} MHz)")
        self.sm_partition = [s * l2.partitions // self.n_sm for s in range(self.n_sm)]
        self.slice_partition = [s * l2.partitions // l2.slices for s in range(l2.slices)]
        self._shared_wpc = spec.shared.wavefronts_per_cycle
        self._shared_latency = spec.shared.latency_cycles
        self._plan: dict | None = None
        self._reset_state()

    # -- state ---------------------------------------------------------------------------------------
    def _reset_state(self) -> None:
        spec = self.spec
        self.l1 = [None] * self.n_sm
        self.const = [None] * self.n_sm
        self.l2 = [None] * self.n_slices
        self.icnt = Crossbar(self.n_sm, self.n_slices, spec.interconnect.latency_cycles,
                             spec.interconnect.bytes_per_cycle_per_port)
        self.l1_free = [0] * self.n_sm
        self.shared_free = [0] * self.n_sm
        self.const_free = [0] * self.n_sm
        self.slice_free = [0.0] * self.n_slices
        self.atom_free: dict[int, int] = {}
        self.l2_reads = self.l2_writes = self.l2_atoms = 0
        self.atomic_serialised = 0

    def _l1(self, sm: int) -> SectoredCache:
        c = self.l1[sm]
        if c is None:
            s = self.spec.l1
            c = self.l1[sm] = SectoredCache(s.size_bytes, s.associativity, s.mshrs, s.line_bytes, s.sector_bytes)
        return c

    def _l2(self, sl: int) -> SectoredCache:
        c = self.l2[sl]
        if c is None:
            s = self.spec.l2
            c = self.l2[sl] = SectoredCache(s.size_bytes // s.slices, s.associativity, s.mshrs_per_slice,
                                            s.line_bytes, s.sector_bytes)
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

    def flush(self) -> None:
        """Write back and invalidate every cache, as ncu does between replay passes; DRAM state and all
        counters stay."""
        for c in self.l2:
            if c is not None:
                for sector in c.dirty_sectors():
                    self.dram.access(0, sector * 32, True)
        for caches in (self.l1, self.l2, self.const):
            for c in caches:
                if c is not None:
                    c.invalidate()

    # -- once per kernel ---------------------------------------------------------------------------------
    def prepare(self, trace: KernelTrace) -> dict:
        """Classify every memory slot of ``trace`` and compute its address-determined costs (vectorised);
        fills the coalescing and bank-conflict counters."""
        m = int(trace.addresses.shape[0])
        kind = np.zeros(m, dtype=np.int64)              # NONE
        lines = np.zeros(m, dtype=np.int64)
        wavefronts = np.zeros(m, dtype=np.int64)
        bypass = np.zeros(m, dtype=bool)
        sectors: list = [()] * m
        atoms: list = [()] * m
        rows = np.nonzero(trace.mem_slot >= 0)[0]
        slots = trace.mem_slot[rows].astype(np.int64)
        slot_pc = np.zeros(m, dtype=np.int64)
        slot_pc[slots] = trace.pc[rows]
        slot_warp = np.zeros(m, dtype=np.int64)
        slot_warp[slots] = np.searchsorted(trace.warp_start, rows, side="right") - 1
        space = trace.mem_space.astype(np.int64)
        key = slot_pc * 8 + space
        # One local-memory layout for the whole kernel (every instruction must map a thread's local word to
        # the same physical address): words per thread from the largest local offset of any access.
        local_words = 1
        if "local" in MEM_SPACES:
            is_local = space == MEM_SPACES.index("local")
            if is_local.any():
                top = int(trace.addresses[is_local].max())
                local_words = top // 4 + 1 if top >= 0 else 1
        param_sectors: set[int] = set()
        order = np.argsort(key, kind="stable")
        keys, starts = np.unique(key[order], return_index=True)
        bounds = [*starts.tolist(), m]
        for g, k in enumerate(keys.tolist()):
            idx = order[bounds[g]:bounds[g + 1]]
            instr = trace.instructions[k // 8]
            sp = MEM_SPACES[k % 8]
            addr = trace.addresses[idx].astype(np.int64)
            size = max(1, int(instr.access_bytes))
            op = "atom" if instr.is_atomic else ("st" if instr.is_store else "ld")
            active = (addr >= 0).any(axis=1)
            if sp == "shared":
                # Shared addresses are block-relative, so the rows repeat across blocks: cost each distinct
                # row once.
                first, inverse = _distinct_rows(addr)
                part = self.banks.wavefronts_for(addr[first], size, atomic=instr.is_atomic)
                res = SharedAccessResult(wavefronts=part.wavefronts[inverse],
                                         ideal_wavefronts=part.ideal_wavefronts[inverse])
                self.banks.count(res, op)
                kind[idx] = SHARED
                wavefronts[idx] = res.wavefronts
                # lines[] holds the cycles per wavefront here: 1, or a read-modify-write for shared atomics
                lines[idx] = self.spec.shared.atomic_cycles_per_op if instr.is_atomic else 1
                continue
            if sp in ("const", "param"):
                base = CONST_BASE if sp == "const" else PARAM_BASE
                phys = np.where(addr >= 0, addr + base, -1)
                res = Coalescer.coalesce(phys, size)
                kind[idx] = CONST
                wavefronts[idx] = distinct_addresses(addr)
                flat = res.sectors.tolist()
                offs = res.offsets.tolist()
                for j, i in enumerate(idx.tolist()):
                    sectors[i] = flat[offs[j]:offs[j + 1]]
                if sp == "param":
                    param_sectors.update(flat)
                continue
            if sp == "local":
                addr = self._local_physical(addr, slot_warp[idx], local_words)
            res = Coalescer.coalesce(addr, size)
            self.coalescer.count(res, op)
            flat = res.sectors.tolist()
            offs = res.offsets.tolist()
            code = GLOBAL_ATOM if instr.is_atomic else (GLOBAL_ST if instr.is_store else GLOBAL_LD)
            act = np.flatnonzero(active)
            kind[idx[act]] = code
            lines[idx[act]] = res.lines_per_request[act]
            bypass[idx[act]] = instr.is_atomic or (instr.cache_op in _BYPASS_L1)
            for j, i in zip(act.tolist(), idx[act].tolist()):
                sectors[i] = flat[offs[j]:offs[j + 1]]
                if code == GLOBAL_ATOM:
                    words, counts = np.unique(addr[j][addr[j] >= 0], return_counts=True)
                    atoms[i] = list(zip((words // 32).tolist(), words.tolist(), counts.tolist()))
        self._install_params(param_sectors)
        self._kind = kind.tolist()
        self._sectors = sectors
        self._lines = lines.tolist()
        self._wavefronts = wavefronts.tolist()
        self._bypass = bypass.tolist()
        self._atoms = atoms
        self._plan = {"kind": self._kind, "sectors": sectors, "lines": self._lines, "wavefronts": self._wavefronts,
                      "bypass": self._bypass, "atoms": atoms}
        return self._plan

    def _install_params(self, param_sectors) -> None:
        """Kernel parameters are written into constant bank 0 by the launch itself, after ncu's cache flush,
        so an SM's first ``ld.param`` misses its constant cache but hits in L2 (it never goes to DRAM).

        Measured (``benchmarks/dispatch_probe.py`` on the lent H100 under ncu, 2026-11-22): an SM is active
        281 cycles for an empty block and 516 for one that reads a parameter (S2R + ISETP with a c[0x0]
        operand): ~235 cycles for the first parameter read, an L2 hit (277 unloaded), not a DRAM trip (571).
        A module ``__constant__`` (c[0x3]) costs ~670 cycles at its first touch: it was flushed to DRAM, so
        it stays a cold miss here.  Simplification: the parameter sectors are valid in L2 from cycle 0."""
        for sector in sorted(param_sectors):
            self._l2(self.slice_of(sector)).fill(sector, 0)

    @staticmethod
    def _local_physical(addr: np.ndarray, warp: np.ndarray, words_per_thread: int) -> np.ndarray:
        lane = np.arange(32, dtype=np.int64)[None, :]
        phys = LOCAL_BASE + ((warp[:, None] * words_per_thread + addr // 4) * 32 + lane) * 4 + addr % 4
        return np.where(addr >= 0, phys, -1)

    # -- per instruction ---------------------------------------------------------------------------------
    def access(self, now: int, sm: int, slot: int) -> tuple[int, int]:
        """(ready cycle, cycles the SM's LSU/MIO pipe is busy) for memory slot ``slot`` issued at ``now``."""
        plan = self._plan
        if plan is None:
            raise GpusimError("MemorySystem.access: call prepare(trace) first")
        k = self._kind[slot]
        if k == SHARED:
            # inlined: the most frequent access in shared-memory kernels
            w = self._wavefronts[slot]
            busy = -(-w * self._lines[slot] // self._shared_wpc)
            start = self.shared_free[sm]
            if now > start:
                start = now
            self.shared_free[sm] = start + busy
            if self.hooks:
                for h in self.hooks:
                    h("shared", now, sm, slot, w)
            return start + busy - 1 + self._shared_latency, busy
        if k == GLOBAL_LD:
            return self._global_load(now, sm, slot, plan)
        if k == GLOBAL_ST:
            return self._global_store(now, sm, slot, plan)
        if k == CONST:
            return self._constant(now, sm, slot, plan)
        if k == GLOBAL_ATOM:
            return self._global_atomic(now, sm, slot, plan)
        return now + 1, 1

    def _shared(self, now, sm, slot, plan):
        s = self.spec.shared
        w = plan["wavefronts"][slot]
        # lines[] holds the cycles per wavefront here: 1, or a read-modify-write for shared atomics
        busy = -(-w * plan["lines"][slot] // s.wavefronts_per_cycle)
        start = max(now, self.shared_free[sm])
        self.shared_free[sm] = start + busy
        if self.hooks:
            for h in self.hooks:
                h("shared", now, sm, slot, w)
        return start + busy - 1 + s.latency_cycles, busy

    def _tag_stage(self, now, sm, slot, plan):
        passes = max(1, -(-plan["lines"][slot] // self.spec.l1.tags_per_cycle))
        start = max(now, self.l1_free[sm])
        self.l1_free[sm] = start + passes
        if self.hooks:
            for h in self.hooks:
                h("global", now, sm, slot, len(plan["sectors"][slot]))
        return start + passes - 1, passes

    def _global_load(self, now, sm, slot, plan):
        t, passes = self._tag_stage(now, sm, slot, plan)
        hit_latency = self.spec.l1.hit_latency_cycles
        ready = t + hit_latency
        l1 = self._l1(sm)
        bypass = plan["bypass"][slot]
        for sector in plan["sectors"][slot]:
            if not bypass:
                r = l1.probe(t, sector)
                if r >= 0:
                    if r > ready:
                        ready = r
                    continue
            r = self._l2_read(l1.mshr_start(t), sm, sector)
            if not bypass:
                l1.fill(sector, r)
            if r > ready:
                ready = r
        return ready, passes

    def _l2_read(self, t, sm, sector) -> int:
        """Load-to-use cycle of one sector missed in L1 at cycle ``t``."""
        sl = self.slice_of(sector)
        arrive = self.icnt.to_slice(t, sm, sl, 0)
        tag = max(arrive, self.slice_free[sl])
        self.slice_free[sl] = tag + 32 / self.spec.l2.bytes_per_cycle_per_slice
        self.l2_reads += 1
        data = self._l2_data(tag, sector, sl)
        if self.sm_partition[sm] != self.slice_partition[sl]:
            data += self.far_extra
        back = self.icnt.to_sm(data, sl, sm, 32)
        return math.ceil(back) + self.spec.l1.hit_latency_cycles

    def _l2_data(self, tag, sector, sl) -> float:
        """Cycle a sector's data leaves slice ``sl`` for a lookup at ``tag`` (fetching from DRAM on a miss)."""
        l2 = self._l2(sl)
        r = l2.probe(int(tag), sector)
        if r < 0:
            m = l2.mshr_start(int(tag))
            done_ck = self.dram.access(int((m + self.dram_overhead) * self._ck_per_core), sector * 32, False)
            r = math.ceil(done_ck * self._core_per_ck)
            evicted: list[int] = []
            l2.fill(sector, r, evicted)
            self._write_back(r, evicted)
        return max(tag, r) + self.slice_latency

    def _write_back(self, t, evicted) -> None:
        for s in evicted:
            self.dram.access(int(t * self._ck_per_core), s * 32, True)

    def _global_store(self, now, sm, slot, plan):
        t, passes = self._tag_stage(now, sm, slot, plan)
        l1 = self._l1(sm)
        bypass = plan["bypass"][slot]
        for sector in plan["sectors"][slot]:
            if not bypass:
                l1.write(sector, allocate=False)       # write-through, no allocate: update if present
            sl = self.slice_of(sector)
            arrive = self.icnt.to_slice(t, sm, sl, 32)
            tag = max(arrive, self.slice_free[sl])
            self.slice_free[sl] = tag + 32 / self.spec.l2.bytes_per_cycle_per_slice
            self.l2_writes += 1
            evicted: list[int] = []
            self._l2(sl).write(sector, allocate=True, evicted=evicted)
            self._write_back(tag, evicted)
        return t + 1, passes

    def _global_atomic(self, now, sm, slot, plan):
        t, passes = self._tag_stage(now, sm, slot, plan)
        op_cycles = self.spec.l2.atomic_cycles_per_op
        ready = t
        atom_free = self.atom_free
        prev_sector = -1
        for sector, word, count in plan["atoms"][slot]:
            if sector != prev_sector:
                # one packet per sector carries all of its lanes' operands
                prev_sector = sector
                sl = self.slice_of(sector)
                far = self.far_extra if self.sm_partition[sm] != self.slice_partition[sl] else 0
                arrive = self.icnt.to_slice(t, sm, sl, 32)
                tag = max(arrive, self.slice_free[sl])
                self.slice_free[sl] = tag + 32 / self.spec.l2.bytes_per_cycle_per_slice
                data = self._l2_data(tag, sector, sl) - self.slice_latency
                self._l2(sl).write(sector, allocate=True)
            self.l2_atoms += count
            start = max(data, atom_free.get(word, 0))
            done = start + count * op_cycles          # lanes on one address serialise
            atom_free[word] = done
            self.atomic_serialised += count - 1
            back = math.ceil(self.icnt.to_sm(done + far + self.slice_latency, sl, sm, 4 * count)) + \
                self.spec.l1.hit_latency_cycles
            if back > ready:
                ready = back
        if len(atom_free) > 1 << 16:
            self.atom_free = {a: c for a, c in atom_free.items() if c > now}
        return ready, passes

    def _constant(self, now, sm, slot, plan):
        cc = self._const(sm)
        spec = self.spec.const
        n = plan["wavefronts"][slot]
        busy = max(1, -(-n // spec.addresses_per_cycle))
        start = max(now, self.const_free[sm])
        self.const_free[sm] = start + busy
        cc.requests += 1
        cc.serialised_cycles += busy - 1
        t = start + busy - 1
        ready = t + spec.hit_latency_cycles
        for sector in plan["sectors"][slot]:
            r = cc.cache.probe(t, sector)
            if r < 0:
                r = self._l2_read(cc.cache.mshr_start(t), sm, sector)
                cc.cache.fill(sector, r)
            if r > ready:
                ready = r
        return ready, busy

    # -- results -----------------------------------------------------------------------------------------
    def counters(self) -> dict:
        """Nsight-named scalar metrics (floats), plus DRAM tables as lists under ``dram.per_channel.*``
        (one value per pseudo-channel) and ``dram.per_bank.*`` ([channel][bank])."""
        out: dict = {}
        out.update(self.coalescer.counters())
        out.update(self.banks.counters())
        l1s = [c for c in self.l1 if c is not None]
        l1_hits, l1_misses = sum(c.hits for c in l1s), sum(c.misses for c in l1s)
        out["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] = float(l1_hits)
        out["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"] = float(l1_misses)
        out["l1tex__t_sector_hit_rate.pct"] = 100.0 * l1_hits / (l1_hits + l1_misses) if l1_hits + l1_misses else 0.0
        out["gpusim__l1_mshr_merges.sum"] = float(sum(c.mshr_merges for c in l1s))
        l2s = [c for c in self.l2 if c is not None]
        l2_hits, l2_misses = sum(c.hits for c in l2s), sum(c.misses for c in l2s)
        out["lts__t_sectors_op_read.sum"] = float(self.l2_reads)
        out["lts__t_sectors_op_write.sum"] = float(self.l2_writes)
        out["lts__t_sectors_op_atom.sum"] = float(self.l2_atoms)
        out["lts__t_sectors_lookup_hit.sum"] = float(l2_hits)
        out["lts__t_sectors_lookup_miss.sum"] = float(l2_misses)
        out["lts__t_sector_hit_rate.pct"] = 100.0 * l2_hits / (l2_hits + l2_misses) if l2_hits + l2_misses else 0.0
        out["gpusim__l2_mshr_merges.sum"] = float(sum(c.mshr_merges for c in l2s))
        out["gpusim__l2_atomic_serialised.sum"] = float(self.atomic_serialised)
        consts = [c for c in self.const if c is not None]
        out["gpusim__const_requests.sum"] = float(sum(c.requests for c in consts))
        out["gpusim__const_serialised_cycles.sum"] = float(sum(c.serialised_cycles for c in consts))
        out.update(self.dram.counters())
        out.update(self.dram.tables())
        return out
