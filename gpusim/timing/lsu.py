"""The SM's load/store unit front end: every memory slot of a trace becomes one
:class:`~gpusim.memory.request.MemoryRequest`, once per kernel, before the first cycle.

What the LSU does with a warp's memory instruction before the memory system sees it depends only on the
lanes' addresses, which the trace holds, so it is computed here for all slots at once (vectorised per static
instruction), not per issue:

* the address map (:class:`~gpusim.memory.address_map.AddressMap`) turns state-space offsets into physical
  addresses (local memory interleaved per warp, const and param in their regions);
* global and local lanes are coalesced into 32-byte sectors and 128-byte lines
  (:class:`~gpusim.memory.coalescer.Coalescer`), and their loads and stores costed in L1 data-stage
  wavefronts by the banks' rule (the L1 and shared memory are one SRAM of 32 banks); global atomics are
  grouped per address;
* an atomic ptxas aggregates across a warp (:mod:`isa.aggregate`) keeps only its leader lane where the lanes
  address one word (:func:`aggregate_atomic_rows`): one update per warp reaches the L2 or the shared banks;
* shared accesses are costed in bank wavefronts, with and without conflicts
  (:class:`~gpusim.memory.shared_banks.SharedMemoryBanks`);
* const and param accesses count their distinct addresses (the constant cache serves one per cycle).

Requests are values: slots whose requests are equal share one object (shared-memory and constant rows
repeat across blocks), which keeps building them cheap.  The front end also keeps the counters these
steps define, under Nsight's names: requests and sectors per global/local op, shared wavefronts and bank
conflicts per op; they describe the request stream, so they are the same whichever memory model times it.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from gpusim.functional.trace import KernelTrace
from gpusim.memory.address_map import AddressMap
from gpusim.memory.coalescer import Coalescer, masked_line_bits
from gpusim.memory.const_cache import distinct_addresses
from gpusim.memory.request import ATOMIC, ATOMIC_RETURNS, LOAD, OP_NAMES, STORE, MemoryRequest, atomic_flags_of
from gpusim.memory.shared_banks import SharedAccessResult, SharedMemoryBanks
from isa.aggregate import FULL_WARP
from isa.units import MemSpace

_BYPASS_L1 = (".cg", ".cs", ".cv", ".lu")
_N_CODES = len(MemSpace)

_ROW_HASH = np.random.default_rng(12345).integers(1, 1 << 62, size=32, dtype=np.int64) | 1


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def slot_origins(trace: KernelTrace) -> tuple[np.ndarray, np.ndarray]:
    """(warp of the launch, pc) of every memory slot: int64 arrays indexed by slot."""
    rows = np.flatnonzero(trace.mem_slot >= 0)
    slots = trace.mem_slot[rows]
    m = int(trace.addresses.shape[0])
    warp = np.zeros(m, dtype=np.int64)
    pc = np.zeros(m, dtype=np.int64)
    warp[slots] = np.searchsorted(trace.warp_start, rows, side="right") - 1 + trace.first_warp
    pc[slots] = trace.pc[rows]
    return warp, pc


def reused_loads(trace: KernelTrace, slot_pc: np.ndarray, slot_warp: np.ndarray) -> np.ndarray:
    """Per memory slot: a global load every sector of which an earlier global load *of the same block* (in
    slot order: warp by warp, in program order) had already read: data that was on chip once and is read
    again by the block, which the block could keep in shared memory (the evidence for the "reuse" what-if
    of :mod:`gpusim.timing.idealize`).  Data read again by other blocks does not count: no tiling inside a
    block removes that (each block must read its tiles once)."""
    m = int(trace.addresses.shape[0])
    out = np.zeros(m, dtype=bool)
    load = np.array([i.is_load and not i.is_store and not i.is_atomic for i in trace.instructions] or [False])
    size = np.array([max(1, i.access_bytes) for i in trace.instructions] or [1], dtype=np.int64)
    sel = np.flatnonzero((np.asarray(trace.mem_space) == MemSpace.GLOBAL.code) & load[slot_pc])
    if sel.size == 0:
        return out
    a = trace.addresses[sel].astype(np.int64)
    on = a >= 0
    last = (a + size[slot_pc[sel]][:, None] - 1) // 32
    sec = np.concatenate([np.where(on, a // 32, -1), np.where(on, last, -1)], axis=1)
    req, col = np.nonzero(sec >= 0)
    block = np.asarray(trace.warp_block, dtype=np.int64)[slot_warp[sel]]
    _, inverse = np.unique(sec[req, col] * max(1, trace.n_blocks) + block[req], return_inverse=True)
    first = np.full(int(inverse.max()) + 1, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, inverse, req)
    new = np.bincount(req, weights=(first[inverse] == req), minlength=sel.size)
    touched = np.bincount(req, minlength=sel.size) > 0
    out[sel] = touched & (new == 0)
    return out


def local_bytes_per_thread(trace: KernelTrace, slot_pc: np.ndarray) -> int:
    """The local memory a thread of ``trace`` uses: the kernel's local frame as the emulator recorded it
    (what ptxas reserves per thread, whichever bytes the launch touches, so every chunk of a streamed
    trace lays local memory out alike); for a trace without it, one past the largest byte any local access
    touches."""
    if trace.local_bytes_per_thread is not None:
        return int(trace.local_bytes_per_thread)
    is_local = np.asarray(trace.mem_space) == MemSpace.LOCAL.code
    if not is_local.any():
        return 0
    size = np.array([max(1, i.access_bytes) for i in trace.instructions] or [1], dtype=np.int64)
    top = trace.addresses[is_local].max(axis=1)
    return int(np.where(top >= 0, top + size[slot_pc[is_local]], 0).max())


def aggregate_atomic_rows(addr: np.ndarray, how: str) -> np.ndarray:
    """The address rows (``[n, 32]``, -1 for a lane that does not access) of an atomic ptxas aggregates
    (``how``: :data:`isa.aggregate.LEADER` or :data:`~isa.aggregate.FULL_WARP`) as its SASS sends them: where
    every active lane addresses one word (and, for ``FULL_WARP``, all 32 lanes are active), only the first
    active lane's address (the SASS's leader may be another lane: the same word either way); other rows as
    recorded (a partial warp of ``FULL_WARP``; lanes on several words, where the data-flow rule took for
    uniform an address that is not)."""
    on = addr >= 0
    n_on = on.sum(axis=1)
    first = np.argmax(on, axis=1)
    lead = addr[np.arange(addr.shape[0]), first]
    one_word = (n_on > 1) & ((addr == lead[:, None]) | ~on).all(axis=1)
    if how == FULL_WARP:
        one_word &= n_on == addr.shape[1]
    if not one_word.any():
        return addr
    out = addr.copy()
    rows = np.flatnonzero(one_word)
    out[rows] = -1
    out[rows, first[rows]] = lead[rows]
    return out


class LsuFrontEnd:
    """Builds the requests of a kernel's memory slots and counts what they ask of L1TEX and shared memory.

    Models the address-determined costs of an access (see the module docstring).  Simplifies: everything
    about a request is fixed when the kernel starts, because the trace fixes every address; what depends on
    time (queues, cache contents, DRAM rows) is the memory model's.

    ``ideal`` (an :class:`~gpusim.timing.idealize.Idealization`): with ``banks`` every shared request gets
    its conflict-free wavefront count; with ``atomics`` shared atomics too, and the lanes of a global atomic
    on one address count as one operation; with ``reuse`` every global load becomes a conflict-free shared
    load of the same lanes (not counted as a global request).
    """

    def __init__(self, gpu, ideal=None) -> None:
        shared = gpu.memory.shared
        self.coalescer = Coalescer()
        self.banks = SharedMemoryBanks(shared.banks, shared.bank_width_bytes)
        self.conflict_free = bool(ideal is not None and ideal.banks)
        self.atomics_free = bool(ideal is not None and ideal.atomics)
        self.loads_from_shared = bool(ideal is not None and ideal.reuse)
        self.aggregate_atomics = bool(getattr(gpu, "aggregate_warp_atomics", False))

    def requests(self, trace: KernelTrace) -> list[MemoryRequest]:
        """One request per memory slot of ``trace`` (index = slot), counted into this front end's counters.
        A chunk of a streamed trace gives what its slots give in the whole trace (the counters add up)."""
        m = int(trace.addresses.shape[0])
        out: list = [None] * m
        warps, slot_pc = slot_origins(trace)
        space = np.asarray(trace.mem_space, dtype=np.int64)
        amap = AddressMap(trace.launch_warps, local_bytes_per_thread(trace, slot_pc))
        key = slot_pc * _N_CODES + space
        order = np.argsort(key, kind="stable")
        keys, starts = np.unique(key[order], return_index=True)
        bounds = [*starts.tolist(), m]
        for g, k in enumerate(keys.tolist()):
            idx = order[bounds[g]:bounds[g + 1]]
            pc, code = divmod(k, _N_CODES)
            instr = trace.instructions[pc]
            sp = MemSpace.by_code(code)
            op = ATOMIC if instr.is_atomic else (STORE if instr.is_store else LOAD)
            addr = trace.addresses[idx].astype(np.int64)
            if instr.aggregated and self.aggregate_atomics:
                addr = aggregate_atomic_rows(addr, instr.aggregated)
            size = max(1, int(instr.access_bytes))
            if sp is MemSpace.SHARED:
                self._shared(out, idx, addr, size, op, pc)
            elif sp is MemSpace.GLOBAL and op == LOAD and self.loads_from_shared:
                self._staged(out, idx, addr, size, pc)
            elif sp is MemSpace.CONST or sp is MemSpace.PARAM:
                self._constant(out, idx, addr, size, op, pc, sp, amap)
            else:
                bypass = bool(instr.is_atomic or instr.cache_op in _BYPASS_L1)
                flags = atomic_flags_of(instr.opcode, instr.result_unread) if op == ATOMIC else 0
                # Nsight counts a global RED under op_red; an atomic with a result, or a generic one (ATOM.E
                # with or without a result), under op_atom
                red = op == ATOMIC and not flags & ATOMIC_RETURNS and instr.mem_space == MemSpace.GLOBAL.value
                self._global(out, idx, addr, size, op, pc, sp, bypass, amap, warps[idx], flags,
                             "red" if red else OP_NAMES[op])
        return out

    def _shared(self, out, idx, addr, size, op, pc) -> None:
        # Shared addresses are block-relative, so rows repeat across blocks: cost each distinct row once.
        first, inverse = distinct_rows(addr)
        part = self.banks.wavefronts_for(addr[first], size, atomic=op == ATOMIC)
        if self.conflict_free or (op == ATOMIC and self.atomics_free):
            part = SharedAccessResult(wavefronts=part.ideal_wavefronts, ideal_wavefronts=part.ideal_wavefronts)
        self.banks.count(SharedAccessResult(wavefronts=part.wavefronts[inverse],
                                            ideal_wavefronts=part.ideal_wavefronts[inverse]), OP_NAMES[op])
        lanes = (addr[first] >= 0).sum(axis=1).tolist()
        reqs = [MemoryRequest(MemSpace.SHARED, op, pc, n, (), 0, w, i)
                for n, w, i in zip(lanes, part.wavefronts.tolist(), part.ideal_wavefronts.tolist())]
        _scatter(out, idx, reqs, inverse)

    def _staged(self, out, idx, addr, size, pc) -> None:
        first, inverse = distinct_rows(addr)
        ideal = self.banks.wavefronts_for(addr[first] % (1 << 20), size).ideal_wavefronts.tolist()
        lanes = (addr[first] >= 0).sum(axis=1).tolist()
        reqs = [MemoryRequest(MemSpace.SHARED, LOAD, pc, n, (), 0, w, w) for n, w in zip(lanes, ideal)]
        _scatter(out, idx, reqs, inverse)

    @staticmethod
    def _constant(out, idx, addr, size, op, pc, sp, amap) -> None:
        first, inverse = distinct_rows(addr)
        rows = addr[first]
        res = Coalescer.coalesce(amap.physical(sp, rows), size)
        flat = res.sectors.tolist()
        offs = res.offsets.tolist()
        lanes = res.active_lanes.tolist()
        reqs = [MemoryRequest(sp, op, pc, lanes[j], tuple(flat[offs[j]:offs[j + 1]]), 0, n)
                for j, n in enumerate(distinct_addresses(rows).tolist())]
        _scatter(out, idx, reqs, inverse)

    def _global(self, out, idx, addr, size, op, pc, sp, bypass, amap, warps, flags=0, counted_as="") -> None:
        if sp is MemSpace.LOCAL:
            # Each 4-byte word of a lane's access sits in its own 128-byte row: coalesce the words.
            lanes_on = (addr >= 0).sum(axis=1).astype(np.int64)
            words = amap.local_words(addr, warps, size)
            res = dataclasses.replace(Coalescer.coalesce(words, min(size, 4)),
                                      active_lanes=lanes_on, bytes_requested=lanes_on * size)
            phys = None
        else:
            phys = amap.physical(sp, addr)
            if op != ATOMIC:
                self._global_shared_rows(out, idx, phys, size, op, pc, sp, bypass, flags)
                return
            res = Coalescer.coalesce(phys, size)
        self.coalescer.count(res, counted_as or OP_NAMES[op])
        flat = res.sectors.tolist()
        offs = res.offsets.tolist()
        lines = res.lines_per_request.tolist()
        lanes = res.active_lanes.tolist()
        if phys is None:       # local: one row of 32 lanes per word of the access, each its own data-stage pass
            m = words.shape[0]
            waves = self.banks.wavefronts_for(words.reshape(-1, 32), min(size, 4)).wavefronts
            waves = waves.reshape(m, -1).sum(axis=1).tolist()
            masks = masked_line_bits(words, min(size, 4)) if op == STORE else [0] * len(lanes)
            for i, n, lo, hi, ln, w, k in zip(idx.tolist(), lanes, offs, offs[1:], lines, waves, masks):
                out[i] = MemoryRequest(sp, op, pc, n, tuple(flat[lo:hi]), ln, w, 0, bypass, (), flags, k)
            return
        # the operands' data-stage passes (as for global loads and stores: not idealised by the banks what-if)
        waves = self.banks.wavefronts_for(phys, size).wavefronts.tolist()
        words, counts, first = _words_per_row(phys)
        if self.atomics_free:
            counts = np.ones_like(counts)
        sectors = (words // 32).tolist()
        words, counts, first = words.tolist(), counts.tolist(), first.tolist()
        for j, i in enumerate(idx.tolist()):
            lo, hi = first[j], first[j + 1]
            atoms = tuple(zip(sectors[lo:hi], words[lo:hi], counts[lo:hi]))
            out[i] = MemoryRequest(sp, op, pc, lanes[j], tuple(flat[offs[j]:offs[j + 1]]), lines[j], waves[j], 0,
                                   bypass, atoms, flags)

    def _global_shared_rows(self, out, idx, phys, size, op, pc, sp, bypass, flags) -> None:
        # Global rows repeat across a chunk's blocks (every block of a grid row reads the same tile of A):
        # coalesce each distinct row once and let its slots share the request.
        first, inverse = distinct_rows(phys)
        rows = phys[first]
        res = Coalescer.coalesce(rows, size)
        self.coalescer.count(res, OP_NAMES[op], np.bincount(inverse, minlength=first.size))
        flat = res.sectors.tolist()
        offs = res.offsets.tolist()
        waves = self.banks.wavefronts_for(rows, size).wavefronts.tolist()
        masks = masked_line_bits(rows, size) if op == STORE else [0] * len(waves)
        reqs = [MemoryRequest(sp, op, pc, n, tuple(flat[lo:hi]), ln, w, 0, bypass, (), flags, k)
                for n, lo, hi, ln, w, k in zip(res.active_lanes.tolist(), offs, offs[1:],
                                               res.lines_per_request.tolist(), waves, masks)]
        _scatter(out, idx, reqs, inverse)

    def counters(self) -> dict[str, float]:
        """Nsight-named totals of the requests built so far: L1TEX requests and sectors per global/local
        op, shared wavefronts and bank conflicts per op."""
        out = self.coalescer.counters()
        out.update(self.banks.counters())
        return out


def _words_per_row(addr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct addresses of each row of an int64 ``[n, lanes]`` array (-1: a lane that does not access)
    and how many lanes address each: (addresses, counts, first) with row ``j``'s in ascending order at
    ``first[j]:first[j + 1]`` (what ``np.unique(row[row >= 0], return_counts=True)`` gives, for all rows at
    once)."""
    s = np.sort(addr, axis=1)
    n, width = s.shape
    run = s >= 0                                   # a run of lanes on one address starts here
    run[:, 1:] &= s[:, 1:] != s[:, :-1]
    r, k = np.nonzero(run)
    at = r * width + k
    # a run ends where the next begins, or at its row's end (the -1 lanes sort first)
    end = np.minimum(np.append(at[1:], n * width), (r + 1) * width)
    first = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n), out=first[1:])
    return s[r, k], end - at, first


def _scatter(out: list, idx: np.ndarray, reqs: list, inverse: np.ndarray) -> None:
    """out[idx[j]] = reqs[inverse[j]]: one object per distinct row, shared by the slots that repeat it."""
    for i, j in zip(idx.tolist(), inverse.tolist()):
        out[i] = reqs[j]
