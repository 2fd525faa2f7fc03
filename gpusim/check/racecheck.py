"""racecheck: two threads touch one word, at least one of them writes, and nothing orders them.

The rule, as CUDA's memory model gives it for ordinary (non-atomic) accesses: within a block, two accesses by
different threads are ordered when a ``__syncthreads()`` completed between them (the block's *barrier
epoch* differs); two accesses by lanes of one warp are also ordered by a ``__syncwarp()`` they both passed
(the warp's *sync count* differs).  Nothing orders accesses by different blocks of one launch.  So each
access is checked against the :class:`~gpusim.check.shadow.AccessTable` of its granule: a read against the
last write (RAW), a write against the last write (WAW) and the reads kept (WAR), and the hazard is real when
the two threads differ and their stamps say nothing ordered them.  Two atomics never race; lanes of one warp
in one instruction do not race with each other (they access together).

This is detection by *epoch*, not by the values seen: the emulator's lock-step order makes many races come
out right (every warp reads before any writes), and the hazard is reported all the same.  The hazard's class
is the order the emulator met the two accesses in (a GPU may meet them in the other order: a RAW here can be
a WAR there).  Scopes: ``warp`` (lanes of one warp: under independent thread scheduling they need
``__syncwarp()``; reported as warnings, as compute-sanitizer does), ``block`` (warps of one block) and
``grid`` (blocks of one launch, global memory only).  Shared memory is checked per block; global memory
within a block and, with ``cross_block=True``, across blocks (not by default: graph kernels such as BFS let
blocks race on a vertex's level by design, tolerating either order).

A write that stores the value the word already holds changes nothing, whichever order the two accesses
take: such a write-after-write or write-after-read is kept at severity ``info`` (compute-sanitizer's lowest level), not counted as an error and not printed unless
asked for.  That is the idiom of flags many threads raise (``*changed = 1``) and of graph kernels that write
the same level or colour from several threads.

An mbarrier wait that completes (``mbarrier.try_wait``/``test_wait``: ``cuda::barrier``, ``memcpy_async``)
orders the block like a barrier.

Simplifications: two reads per granule are remembered, so among many readers of one word a hazard with some
of them may be reported only through another; memory fences and atomics used as flags do not order plain
accesses here (a kernel that publishes data to other blocks through a fence and an atomic flag is reported).
"""
from __future__ import annotations

import numpy as np

from gpusim.check.shadow import ATOMIC, AccessTable, block_of, increasing, make_ids, pcw_of, who_of

SCOPES = ("warp", "block", "grid")


class _Region:
    """The racecheck state of one memory (a batch's shared memory, or the launch's global memory): the
    access table; per block of the batch the barrier epoch of its last write and of its last read here (a
    hazard needs an access in the current epoch: when no block has one, a step skips the table); and the
    reads not yet entered in the table.

    Reads are logged, not entered, until a write needs them: a write to a granule a logged read of another
    thread touched (found by joining the write's granules with each logged step whose range overlaps).  A
    phase that only reads, reads one array and writes another, or reads and writes back each thread's own
    words, costs no table update for its reads.  The log is entered anyway when it outgrows its budget, and
    dropped once every block of the batch passed a barrier since its first entry (those reads are then
    ordered before anything that follows).  Entering the log later, in order, leaves the table as it would
    have been.
    """

    LOG_BUDGET_BYTES = 96 << 20     # memory the log may hold before it is entered in the table

    def __init__(self, table: AccessTable, n_blocks: int, keep_reads: bool):
        self.table = table
        self.last_write = np.full(n_blocks, -1, dtype=np.int64)
        self.last_plain_write = np.full(n_blocks, -1, dtype=np.int64)     # atomics do not race with atomics
        self.last_read = np.full(n_blocks, -1, dtype=np.int64)
        self.keep_reads = keep_reads        # other blocks' reads stay live (cross-block global checks)
        self.small = table.w_id.size < 2 ** 31
        self.log: list = []
        self.logged = 0                 # bytes the log holds
        self.counted: set = set()
        self.log_start = None

    def log_read(self, g, sel, who_all, stamps, pcw: int, epoch: np.ndarray) -> None:
        """Log a read step: its granules ``g`` and the batch lanes ``sel`` (None: every lane, in order) whose
        ids and stamps are ``who_all[sel]`` and ``stamps[sel]`` (the batch's arrays, shared by the entries)."""
        if not self.log:
            self.log_start = epoch.copy()
        lo, hi = int(g.min()), int(g.max())
        g = g.astype(np.int32) if self.small else g
        sel = None if sel is None else sel.astype(np.int32)
        self.log.append((g, sel, who_all, stamps, pcw, lo, hi))
        for a in (g, sel, who_all, stamps):
            if a is not None and id(a) not in self.counted:
                self.counted.add(id(a))
                self.logged += a.nbytes

    def needed_by(self, g: np.ndarray, who: np.ndarray) -> bool:
        """Whether a write of granules ``g`` by lanes ``who`` may race with a logged read: some logged step
        read one of these granules, by another thread (or the write's granules are not in order, which the
        join needs)."""
        lo, hi = int(g.min()), int(g.max())
        ordered = increasing(g)
        for lg, sel, who_all, _, _, llo, lhi in self.log:
            if lhi < lo or llo > hi:
                continue
            if not ordered:
                return True
            pos = np.minimum(np.searchsorted(g, lg), g.size - 1)
            match = g[pos] == lg
            if match.any():
                lwho = who_all[np.flatnonzero(match) if sel is None else sel[match]]
                if (who[pos[match]] != lwho).any():
                    return True
        return False

    def flush(self, lanes_per_block: int, cross_block: bool) -> None:
        for g, sel, who_all, stamps, pcw, _, _ in self.log:
            who, ep = (who_all, stamps) if sel is None else (who_all[sel], stamps[sel])
            self.table.record_read(g.astype(np.int64), make_ids(who, pcw), ep, lanes_per_block, cross_block)
        self.drop()

    def drop(self) -> None:
        self.log = []
        self.logged = 0
        self.counted = set()

    def barrier_passed(self, epoch: np.ndarray) -> None:
        """Drop the logged reads once every block of the batch passed a barrier since they were made."""
        if self.log and not self.keep_reads and (epoch > self.log_start).all():
            self.drop()


class RaceCheck:
    """The racecheck tool of one launch (see the module docstring)."""

    tool = "racecheck"

    def __init__(self, tally, granule_bytes: dict, global_memory: bool = True, cross_block: bool = False):
        self.tally = tally
        self.granules = granule_bytes          # {shared: bytes}: the smallest access the kernel makes there
        self.global_memory = global_memory
        self.cross_block = cross_block
        self.global_table: AccessTable | None = None
        self.regions: dict[bool, _Region] = {}

    def begin_launch(self, global_bytes: int) -> None:
        if self.global_memory:
            self.global_table = AccessTable(global_bytes // self.granules[False])

    def begin_batch(self, fr) -> None:
        nb = fr.simt.epoch.size
        old = self.regions.get(False)
        if old is not None:
            if self.cross_block:
                old.flush(fr.lanes_per_block, True)
            old.drop()
        n = fr.shared.size // self.granules[True]
        shared = self.regions[True].table if True in self.regions else None
        if shared is None or shared.w_id.size != max(n, 1):
            shared = AccessTable(n)
        else:
            shared.clear()            # a batch's shared memory is new: so is what is known of it
        self.regions = {True: _Region(shared, nb, False)}
        if self.global_table is not None:
            glob = old if old is not None else _Region(self.global_table, nb, self.cross_block)
            if glob.last_write.size != nb:
                glob = _Region(self.global_table, nb, self.cross_block)
            else:
                for a in (glob.last_write, glob.last_plain_write, glob.last_read):
                    a.fill(-1)
            self.regions[False] = glob
        self.wsync = np.zeros(fr.simt.pc.size, dtype=np.int64)
        # per lane of the batch: its block, its id in the launch, and (kept until a barrier or __syncwarp
        # changes it) its synchronisation stamp
        self.lane_block = fr.lane_block_all
        self.who_all = np.arange(fr.T, dtype=np.int64) + fr.block0 * fr.lanes_per_block
        self.lane_warp = np.arange(fr.T, dtype=np.int64) >> 5
        self._stamps = None
        self.mbarrier_syncs = np.zeros(nb, dtype=np.int64)

    def epochs(self, fr) -> np.ndarray:
        """Each block's synchronisation epoch: its barrier releases, and its completed mbarrier waits."""
        return fr.simt.epoch + self.mbarrier_syncs

    def mbarrier_waited(self, blocks: np.ndarray) -> None:
        """Warps of ``blocks`` passed an mbarrier wait: what the block did before it is ordered before what
        follows (coarser than the mbarrier's own participants: it hides races, never invents one)."""
        self.mbarrier_syncs[blocks] += 1
        self._stamps = None

    def stamps(self, fr) -> np.ndarray:
        if self._stamps is None:
            self._stamps = (self.epochs(fr)[self.lane_block] << 32) | self.wsync[self.lane_warp]
        return self._stamps

    def syncwarp(self, warps: np.ndarray) -> None:
        self.wsync[warps] += 1
        self._stamps = None

    def released(self, fr) -> None:
        self._stamps = None
        for region in self.regions.values():
            region.barrier_passed(self.epochs(fr))

    def access(self, fr, pc: int, op: str, shared: bool, lanes: np.ndarray, phys: np.ndarray,
               offsets: np.ndarray, size: int, buf: np.ndarray, stored=None) -> None:
        """Lanes (batch lane ids) of one step accessing ``size`` bytes at index ``phys`` of ``buf`` (state-space
        ``offsets``, for the report); ``op``: read, write or atomic; ``stored()``: the bytes a plain store
        writes, ``[lanes, size]`` (to tell a write of the same value)."""
        region = self.regions.get(shared)
        if region is None or lanes.size == 0:
            return
        table = region.table
        lpb = fr.lanes_per_block
        epoch = self.epochs(fr)
        # the lanes as indices into the batch's arrays (None: every lane, in order, where no gather is needed)
        sel = None if lanes.size == fr.T else lanes
        blocks = slice(None) if sel is None else self.lane_block[lanes]
        G = self.granules[shared]
        g = phys >> (G.bit_length() - 1)
        n = max(1, size // G)
        if n > 1:      # a vector (or wide) access covers several granules
            k = np.arange(n, dtype=np.int64)
            g = (g[:, None] + k).ravel()
            offsets = (offsets[:, None] + k * G).ravel()
            sel = np.repeat(lanes, n)
        stamps = self.stamps(fr)
        who, ep = (self.who_all, stamps) if sel is None else (self.who_all[sel], stamps[sel])
        atomic = op in ("atomic", "atomic-init")
        space = "shared" if shared else "global"
        # with other blocks out of the picture, a hazard needs an access of this block in its current epoch
        local = shared or not self.cross_block
        last_write = region.last_plain_write if atomic else region.last_write
        writes_now = not local or bool((last_write == epoch).any())
        if op == "read":
            if writes_now:
                self._against(table.w_id, table.w_ep, g, who, ep, atomic, lpb, "RAW", pc, space, offsets)
            g, sel = _runs(g, sel)
            region.log_read(g, sel, self.who_all, stamps, pc * 2, epoch)
            region.last_read[blocks] = epoch[blocks]
            if region.logged > region.LOG_BUDGET_BYTES:
                region.flush(lpb, self.cross_block)
            return
        reads_now = not local or bool((region.last_read == epoch).any())
        if reads_now and region.log and region.needed_by(g, who):
            region.flush(lpb, self.cross_block)
        same = None
        if stored is not None:
            new = []

            def same(pos, other=None):
                """Positions whose stored bytes equal the word's current value (or another position's)."""
                if not new:
                    new.append(stored().reshape(-1, G))          # per position (lane, granule)
                ref = new[0][other] if other is not None else \
                    buf.view(np.uint8)[(g[pos] * G)[:, None] + np.arange(G)]
                return (new[0][pos] == ref).all(axis=1)
        if writes_now:
            self._against(table.w_id, table.w_ep, g, who, ep, atomic, lpb, "WAW", pc, space, offsets, same)
        if reads_now:
            self._against(table.r1_id, table.r1_ep, g, who, ep, atomic, lpb, "WAR", pc, space, offsets, same)
            self._against(table.r2_id, table.r2_ep, g, who, ep, atomic, lpb, "WAR", pc, space, offsets, same)
        table.record_write(g, make_ids(who, pc * 2 + (ATOMIC if atomic else 0)), ep)
        region.last_write[blocks] = epoch[blocks]
        if not atomic:
            region.last_plain_write[blocks] = epoch[blocks]
        if not atomic and not increasing(g):
            # lanes of this step that wrote one granule: the table kept the last; the others race with it
            # unless they are lanes of the same warp (one instruction)
            winner = who_of(table.w_id[g])
            lost = (winner != who) & ((winner >> 5) != (who >> 5))
            if lost.any():
                cross = block_of(winner, lpb) != block_of(who, lpb)
                if not self.cross_block:
                    lost &= ~cross
                if same is not None and lost.any():
                    pos = np.flatnonzero(lost)
                    # the winner's position in this step: lanes ascend, n granules each
                    win = np.searchsorted(who[::n], winner[pos]) * n + pos % n
                    info = np.zeros_like(lost)
                    info[pos] = same(pos, win)
                    self._report("WAW", pc, pc, np.where(cross, 2, 1), lost & info, winner, who, space, offsets,
                                 "info")
                    lost &= ~info
                self._report("WAW", pc, pc, np.where(cross, 2, 1), lost, winner, who, space, offsets)

    def _against(self, r_id, r_ep, g, who, ep, atomic, lpb, kind, pc, space, offsets, same=None) -> None:
        rid = r_id[g]
        rw = who_of(rid)
        cand = (rw >= 0) & (rw != who)
        if not cand.any():
            return
        rpc = pcw_of(rid)
        if atomic:
            cand &= (rpc & ATOMIC) == 0
            if not cand.any():
                return
        rep = r_ep[g]
        cross = block_of(rw, lpb) != block_of(who, lpb)
        same_warp = (rw >> 5) == (who >> 5)
        same_epoch = (rep >> 32) == (ep >> 32)
        hit = cand & (cross | (same_epoch & (~same_warp | (rep == ep))))
        if not self.cross_block:
            hit &= ~cross
        if not hit.any():
            return
        scope = np.where(cross, 2, np.where(same_warp, 0, 1))
        if same is not None:
            pos = np.flatnonzero(hit)
            info = np.zeros_like(hit)
            info[pos] = same(pos)
            self._report(kind, rpc >> 1, pc, scope, hit & info, rw, who, space, offsets, "info")
            hit &= ~info
        self._report(kind, rpc >> 1, pc, scope, hit, rw, who, space, offsets)

    def _report(self, kind, first_pc, pc, scope, hit, first_who, who, space, offsets, severity=None) -> None:
        idx = np.flatnonzero(hit)
        if idx.size == 0:
            return
        first_pc = np.broadcast_to(first_pc, hit.shape)[idx].astype(np.int64)
        scope = np.broadcast_to(scope, hit.shape)[idx]
        codes = first_pc * 3 + scope
        uniq, first, counts = np.unique(codes, return_index=True, return_counts=True)
        for code, i0, c in zip(uniq.tolist(), first.tolist(), counts.tolist()):
            i = int(idx[i0])
            sc = SCOPES[code % 3]
            a_what, b_what = {"RAW": ("write", "read"), "WAR": ("read", "write"), "WAW": ("write", "write")}[kind]
            self.tally.add(
                (self.tool, f"{kind} hazard", severity or ("warning" if sc == "warp" else "error"), sc, space,
                 ((a_what, code // 3), (b_what, pc))),
                int(c), lambda i=i: {"who": (int(np.broadcast_to(first_who, hit.shape)[i]), int(who[i])),
                                     "address": int(offsets[i]), "space": space})


def _runs(g, sel):
    """A read step's lanes with each run of lanes reading one granule (a broadcast within a warp) cut to
    its first and last lane (two readers per granule are all the table keeps); ``sel`` as in the log."""
    if g.size < 3 or increasing(g):
        return g, sel
    d = g[1:] != g[:-1]
    keep = np.ones(g.size, dtype=bool)
    keep[1:-1] = d[:-1] | d[1:]          # a run's first lane follows a change, its last precedes one
    if keep.all():
        return g, sel
    idx = np.flatnonzero(keep)
    return g[idx], (idx if sel is None else sel[idx])
