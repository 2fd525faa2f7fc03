"""The SIMT stack: how the lanes of a warp follow divergent branches and meet again, and how the warps of a
block wait for each other at ``bar.sync``; for every warp of a batch at once (numpy arrays over warps).

Each warp has a stack of *entries* ``(pc, active mask, reconvergence pc)``.  The top entry is held in
``pc``/``mask``/``rpc``, the ones below it in ``stack_pc``/``stack_mask``/``stack_rpc`` (``sp`` of them).  A
branch whose active lanes disagree (:meth:`SimtStack.branch`) turns the top entry into three: the
reconvergence entry (the branch's immediate post-dominator, computed by :mod:`isa.cfg`, with the whole mask),
the fall-through path (the lanes not taken) and, on top, the taken path, which runs first.  An entry ends when
its PC reaches its reconvergence PC or its lanes have all exited; it is popped and the entry below resumes
(:meth:`SimtStack._settle`).  A warp is *done* when its last entry ends.  This is the stack of GPGPU-Sim and
pre-Volta GPUs; Volta's independent thread scheduling can interleave the two paths, which gives the same
results for kernels that do not rely on the order of their divergent paths.

Barriers count threads, not warps: a block's barrier releases when the warps waiting at it hold every thread
of the block that has not exited (``live``).  A warp that can neither run nor be released leaves the batch
without a runnable warp: the emulator reports the deadlock with :meth:`SimtStack.held_paths`.

Device-function calls (:meth:`SimtStack.call`, :meth:`SimtStack.ret`): a call moves the entry into the
function one *call depth* deeper; lanes that do not call (a guarded call) wait in a reconvergence entry at
the return address.  Every entry keeps the depth its reconvergence PC belongs to (``rdepth``), and pops only
at that PC *and* depth, so a recursive activation passing the PC where an outer one reconverges does not
pop it.  A multi-way branch (``brx.idx``, an indirect call with different targets) pushes one entry per
target.

With ``independent_threads=True`` (the checker's mode, :mod:`gpusim.check`) a barrier counts threads as
Volta's independent thread scheduling does: a warp that reaches ``bar.sync`` while some of its live lanes
are elsewhere (on the other side of a branch, or held at a reconvergence point) *holds* the arriving lanes
at the barrier (:meth:`SimtStack._hold`) and runs the others, so that a barrier in divergent code, or one
that the rest of the block reaches only by exiting, completes as it does on the GPU instead of deadlocking.
Held lanes count as waiting; they resume after the release.  Without it (the default) such a warp waits whole, and
the emulator reports the deadlock.

``epoch`` counts each block's barrier releases (the checker's racecheck orders accesses by it); ``alive``
holds each warp's lanes that have not exited, ``valid`` the lanes it has at all (a partial last warp).

``ready_pc`` is what the emulator schedules by: the PC each warp runs next, or :data:`NEVER` while it waits
at a barrier or is done.  The emulator executes the lowest ready PC for every warp standing there at once.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.state import FULL_MASK
from gpusim.functional.trace import popcount32

NEVER = np.iinfo(np.int64).max       # ready_pc of a warp that cannot run (waiting at a barrier, or done)


class SimtStack:
    """SIMT stacks and barrier state of ``n_warps`` warps (``warps_per_block`` per block, blocks in order)."""

    def __init__(self, n_warps: int, warps_per_block: int, threads_per_block: int, depth: int = 16,
                 independent_threads: bool = False):
        W = n_warps
        self.independent_threads = independent_threads
        self.warps_per_block = warps_per_block
        valid = np.clip(threads_per_block - (np.arange(W) % warps_per_block) * 32, 0, 32)
        init = np.where(valid >= 32, FULL_MASK, (np.uint64(1) << valid.astype(np.uint64)) - 1).astype(np.uint32)
        self.pc = np.zeros(W, dtype=np.int64)
        self.mask = init                                 # active lanes of the top entry
        self.rpc = np.full(W, -1, dtype=np.int64)        # reconvergence PC of the top entry (-1: none)
        self.stack_pc = np.zeros((W, depth), dtype=np.int64)
        self.stack_mask = np.zeros((W, depth), dtype=np.uint32)
        self.stack_rpc = np.zeros((W, depth), dtype=np.int64)
        self.sp = np.zeros(W, dtype=np.int64)            # entries below the top
        self.depth = np.zeros(W, dtype=np.int64)         # call depth of the top entry
        self.rdepth = np.zeros(W, dtype=np.int64)        # the call depth its reconvergence PC belongs to
        self.stack_depth = np.zeros((W, depth), dtype=np.int64)
        self.stack_rdepth = np.zeros((W, depth), dtype=np.int64)
        self.has_calls = False                           # set by the emulator for programs with calls
        self.waiting = np.zeros(W, dtype=bool)           # at a barrier
        self.parked = np.zeros(W, dtype=bool)            # at an mbarrier wait whose phase has not completed
        self.done = init == 0
        self.valid = init.copy()                         # lanes the warp has
        self.alive = init.copy()                         # ... that have not exited
        self.bar_lanes = np.zeros(W, dtype=np.uint32)    # lanes held at a barrier below the top (independent
        self.stack_at_bar = np.zeros((W, depth), dtype=bool)   # threads): their entries, and which they are
        self.ready_pc = np.where(self.done, NEVER, self.pc)
        self.block_of = np.arange(W) // warps_per_block
        n_blocks = (W + warps_per_block - 1) // warps_per_block
        self.live = np.bincount(self.block_of, weights=popcount32(init), minlength=n_blocks).astype(np.int64)
        self.epoch = np.zeros(n_blocks, dtype=np.int64)  # barrier releases per block
        self.branches = 0              # warp-level branch executions
        self.divergent_branches = 0    # ... whose active lanes disagreed
        self.barriers = 0              # block barrier releases

    # -- scheduling -----------------------------------------------------------------------------------
    def next_pc(self) -> int:
        """The lowest PC any warp is ready to run, or NEVER."""
        return int(self.ready_pc.min())

    def warps_at(self, pc: int) -> np.ndarray:
        return np.flatnonzero(self.ready_pc == pc)

    @property
    def finished(self) -> bool:
        return bool(self.done.all())

    # -- what instructions do to the warps ws (all standing at one PC) --------------------------------
    def advance(self, ws: np.ndarray) -> None:
        """Every non-branch instruction: on to the next PC (which may be a reconvergence point)."""
        self.pc[ws] += 1
        self.ready_pc[ws] += 1
        self._settle(ws)

    def branch(self, ws: np.ndarray, taken: np.ndarray, target: int, reconverge: int) -> None:
        """A branch at the warps' PC to ``target``; ``taken``: per warp, the lanes that take it."""
        pc = self.pc
        act = self.mask[ws]
        fall_through = int(pc[ws[0]]) + 1
        self.branches += ws.size
        all_taken = taken == act
        none_taken = taken == 0
        div = ~(all_taken | none_taken)
        pc[ws[all_taken]] = target
        pc[ws[none_taken]] = fall_through
        if div.any():
            d = ws[div]
            self.divergent_branches += d.size
            if int(self.sp[d].max()) + 2 >= self.stack_pc.shape[1]:
                self._grow()
            s = self.sp[d]
            self._push(d, s, reconverge, self.mask[d], self.rpc[d], self.rdepth[d], self.depth[d])
            self._push(d, s + 1, fall_through, self.mask[d] & ~taken[div], reconverge, self.depth[d], self.depth[d])
            self.sp[d] = s + 2
            pc[d] = target
            self.mask[d] = taken[div]
            self.rpc[d] = reconverge
            self.rdepth[d] = self.depth[d]
        self._settle(ws)
        self._refresh(ws)

    def branch_multi(self, ws: np.ndarray, lane_targets: np.ndarray, reconverge: int, depth_delta: int = 0) -> None:
        """A multi-way branch: ``lane_targets`` ``[warps, 32]`` (-1 for lanes that stay: they continue at the
        next PC).  Each group of lanes with one target becomes an entry reconverging at ``reconverge``
        (``depth_delta`` 1: the targets are functions, entered one call depth deeper)."""
        self.branches += ws.size
        for k, w in enumerate(ws):
            lt = lane_targets[k]
            act = int(self.mask[w])
            groups = {}
            for lane in range(32):
                if act >> lane & 1:
                    groups.setdefault(int(lt[lane]), 0)
                    groups[int(lt[lane])] |= 1 << lane
            here = int(self.pc[w])
            groups = {(here + 1 if t < 0 else t): m for t, m in groups.items()}
            if len(groups) == 1 and depth_delta == 0:
                (t, _), = groups.items()
                self.pc[w] = t
                continue
            self.divergent_branches += len(groups) > 1
            need = int(self.sp[w]) + len(groups) + 1
            while need >= self.stack_pc.shape[1]:
                self._grow()
            s = int(self.sp[w])
            cur_depth = int(self.depth[w])
            self._push(w, s, reconverge, self.mask[w], self.rpc[w], self.rdepth[w], cur_depth)
            s += 1
            items = sorted(groups.items())
            for t, m in items[1:]:
                inner = cur_depth + (depth_delta if t != here + 1 else 0)
                self._push(w, s, t, np.uint32(m), reconverge, cur_depth, inner)
                s += 1
            self.sp[w] = s
            t, m = items[0]
            self.pc[w] = t
            self.mask[w] = np.uint32(m)
            self.rpc[w] = reconverge
            self.rdepth[w] = cur_depth
            self.depth[w] = cur_depth + (depth_delta if t != here + 1 else 0)
        self._settle(ws)
        self._refresh(ws)

    def call(self, ws: np.ndarray, calling: np.ndarray, target: int) -> None:
        """``call``: the lanes ``calling`` (per warp) enter the function at ``target``, one call depth deeper;
        the warp's other active lanes wait at the return address, where the callers rejoin them."""
        self.branches += ws.size
        act = self.mask[ws]
        ret_pc = self.pc[ws] + 1
        none = calling == 0
        self.pc[ws[none]] = ret_pc[none]
        part = (~none) & (calling != act)
        if part.any():
            d = ws[part]
            self.divergent_branches += d.size
            if int(self.sp[d].max()) + 1 >= self.stack_pc.shape[1]:
                self._grow()
            s = self.sp[d]
            self._push(d, s, ret_pc[part], self.mask[d], self.rpc[d], self.rdepth[d], self.depth[d])
            self.sp[d] = s + 1
            self.mask[d] = calling[part]
            self.rpc[d] = ret_pc[part]
            self.rdepth[d] = self.depth[d]
        go = ws[~none]
        self.pc[go] = target
        self.depth[go] += 1
        self._settle(ws)
        self._refresh(ws)

    def ret(self, ws: np.ndarray, ret_pc: np.ndarray) -> None:
        """A function's return point: the warps' top entries go back to ``ret_pc`` (per warp), one depth up."""
        self.branches += ws.size
        self.pc[ws] = ret_pc
        self.depth[ws] -= 1
        self._settle(ws)
        self._refresh(ws)

    def exit(self, ws: np.ndarray, lanes: np.ndarray) -> None:
        """``ret``/``exit``: ``lanes`` (per warp) finish; they leave every entry of their warp's stack and no
        longer count at their block's barrier."""
        self.mask[ws] &= ~lanes
        self.alive[ws] &= ~lanes
        self.stack_mask[ws] &= ~lanes[:, None]
        blocks = self.block_of[ws]
        np.subtract.at(self.live, blocks, popcount32(lanes).astype(np.int64))
        self.pc[ws] += 1
        self._settle(ws)
        self._refresh(ws)
        self._release(blocks)

    def wait_at_barrier(self, ws: np.ndarray) -> None:
        """``bar.sync``: the warps wait (they resume after the barrier) until their block releases."""
        self.pc[ws] += 1
        if self.independent_threads:
            elsewhere = self.alive[ws] & ~self.mask[ws] & ~self.bar_lanes[ws]
            if elsewhere.any():
                held = np.array([self._hold(int(w)) for w in ws[elsewhere != 0]], dtype=bool)
                ws = np.concatenate([ws[elsewhere == 0], ws[elsewhere != 0][~held]])
        self.waiting[ws] = True
        self.ready_pc[ws] = NEVER
        self._release(self.block_of[ws])

    def park(self, ws: np.ndarray) -> None:
        """An mbarrier wait that cannot succeed yet: the warps stay at their PC, not runnable, until
        :meth:`unpark_all` (some mbarrier's phase completed) lets them test again."""
        self.parked[ws] = True
        self.ready_pc[ws] = NEVER

    def unpark_all(self) -> None:
        if self.parked.any():
            ws = np.flatnonzero(self.parked)
            self.parked[ws] = False
            self._refresh(ws)

    # -- reports --------------------------------------------------------------------------------------
    def held_paths(self, w: int) -> list[tuple[int, int]]:
        """(pc, lane mask) of the stack entries below warp ``w``'s top that still hold lanes."""
        return [(int(self.stack_pc[w, s]), int(self.stack_mask[w, s])) for s in range(int(self.sp[w]))
                if int(self.stack_mask[w, s])]

    # -- internals ------------------------------------------------------------------------------------
    def _push(self, w, s, pc, mask, rpc, rdepth, depth) -> None:
        self.stack_pc[w, s] = pc
        self.stack_mask[w, s] = mask
        self.stack_rpc[w, s] = rpc
        self.stack_rdepth[w, s] = rdepth
        self.stack_depth[w, s] = depth

    def _settle(self, ws: np.ndarray) -> None:
        """Pop the entries of warps ws that ended (reached their reconvergence PC, or have no lanes left)."""
        pc, mask, rpc, sp = self.pc, self.mask, self.rpc, self.sp
        while ws.size:
            if self.has_calls:
                need = (mask[ws] == 0) | ((pc[ws] == rpc[ws]) & (self.depth[ws] == self.rdepth[ws]))
            else:
                need = (mask[ws] == 0) | (pc[ws] == rpc[ws])
            if not np.count_nonzero(need):     # (faster than need.any() on the few warps of a step)
                break
            w = ws[need]
            empty = sp[w] == 0
            if empty.any():
                wd = w[empty]
                self.done[wd] = True
                mask[wd] = 0
                self.ready_pc[wd] = NEVER
            wp = w[~empty]
            sp[wp] -= 1
            s = sp[wp]
            pc[wp] = self.stack_pc[wp, s]
            mask[wp] = self.stack_mask[wp, s]
            rpc[wp] = self.stack_rpc[wp, s]
            if self.has_calls:
                self.depth[wp] = self.stack_depth[wp, s]
                self.rdepth[wp] = self.stack_rdepth[wp, s]
            self.ready_pc[wp] = pc[wp]   # the popped entry may resume elsewhere (a pending fall-through path)
            if self.independent_threads:
                held = self.stack_at_bar[wp, s]
                if held.any():           # held lanes come back to the top: the warp waits at the barrier
                    wh = wp[held]
                    self.stack_at_bar[wh, s[held]] = False
                    self.bar_lanes[wh] &= ~mask[wh]
                    self.waiting[wh] = True
                    self.ready_pc[wh] = NEVER
                    wp = wp[~held]
                    for w in wh[(self.alive[wh] & ~mask[wh] & ~self.bar_lanes[wh]) != 0].tolist():
                        self._hold(w)    # other lanes are still elsewhere: they run while these wait
            ws = wp

    def _refresh(self, ws: np.ndarray) -> None:
        self.ready_pc[ws] = np.where(self.done[ws] | self.waiting[ws] | self.parked[ws], NEVER, self.pc[ws])

    def _release(self, blocks: np.ndarray) -> None:
        wpb = self.warps_per_block
        for b in np.unique(blocks):
            ws = np.arange(b * wpb, (b + 1) * wpb)
            waiting = self.waiting[ws]
            wait_w = ws[waiting]
            if self.independent_threads:     # held lanes count as arrived
                arrived = int(popcount32(np.where(waiting, self.mask[ws], 0).astype(np.uint32)
                                         | self.bar_lanes[ws]).sum())
            elif wait_w.size:
                arrived = int(popcount32(self.mask[wait_w]).sum())
            else:
                continue
            if arrived and arrived == self.live[b]:
                self.waiting[wait_w] = False
                self.ready_pc[wait_w] = np.where(self.done[wait_w] | self.parked[wait_w], NEVER, self.pc[wait_w])
                self.barriers += 1
                self.epoch[b] += 1
                if self.independent_threads:
                    self.bar_lanes[ws] = 0
                    self.stack_at_bar[ws] = False
                    self._settle(wait_w)       # a path whose barrier was its last instruction ends here

    def _hold(self, w: int) -> bool:
        """Warp ``w``'s top entry waits at a barrier while live lanes of the warp are elsewhere (independent
        threads): hold it below and run other lanes.  Below the held entries (and the reconvergence entries
        whose lanes all wait), either a sibling path not yet run (it becomes the top), or the reconvergence
        entry that holds the other lanes: those run on from it, and every entry above it, once released,
        continues to that entry's own reconvergence point instead.  False when neither fits (the warp then
        waits whole)."""
        sp = int(self.sp[w])

        def entry(i):       # (pc, mask, rpc, rdepth, depth, held at a barrier)
            return (int(self.stack_pc[w, i]), int(self.stack_mask[w, i]), int(self.stack_rpc[w, i]),
                    int(self.stack_rdepth[w, i]), int(self.stack_depth[w, i]), bool(self.stack_at_bar[w, i]))
        top = (int(self.pc[w]), int(self.mask[w]), int(self.rpc[w]), int(self.rdepth[w]), int(self.depth[w]), True)
        waiting = top[1]
        s = sp - 1
        while s >= 0:
            m = int(self.stack_mask[w, s])
            if self.stack_at_bar[w, s]:
                waiting |= m
            elif m & ~waiting:
                break
            s -= 1
        if s < 0:
            return False
        row = entry(s)
        above = [entry(i) for i in range(s + 1, sp)] + [top]
        if row[1] & waiting == 0:
            entries, new_top = above, row
        elif row[1] & top[1] == top[1]:
            # entries that would reconverge at the row's point go on to where the row itself reconverges
            entries = [(e[0], e[1], row[2], row[3], e[4], e[5]) if (e[2], e[3]) == (row[0], row[4]) else e
                       for e in above]
            new_top = (row[0], row[1] & ~waiting, row[2], row[3], row[4], False)
        else:
            return False
        for i, e in enumerate(entries, start=s):
            self._push(w, i, e[0], np.uint32(e[1]), e[2], e[3], e[4])
            self.stack_at_bar[w, i] = e[5]
        self.sp[w] = s + len(entries)
        self.pc[w], self.mask[w], self.rpc[w], self.rdepth[w], self.depth[w] = new_top[:5]
        self.bar_lanes[w] |= np.uint32(top[1])
        self.waiting[w] = False
        self.ready_pc[w] = new_top[0]
        self._settle(np.array([w]))
        return True

    def _grow(self) -> None:
        W, D = self.stack_pc.shape
        self.stack_pc = np.concatenate([self.stack_pc, np.zeros((W, D), np.int64)], axis=1)
        self.stack_mask = np.concatenate([self.stack_mask, np.zeros((W, D), np.uint32)], axis=1)
        self.stack_rpc = np.concatenate([self.stack_rpc, np.zeros((W, D), np.int64)], axis=1)
        self.stack_depth = np.concatenate([self.stack_depth, np.zeros((W, D), np.int64)], axis=1)
        self.stack_rdepth = np.concatenate([self.stack_rdepth, np.zeros((W, D), np.int64)], axis=1)
        self.stack_at_bar = np.concatenate([self.stack_at_bar, np.zeros((W, D), bool)], axis=1)
