"""The streaming multiprocessor: resident blocks, warps bound to sub-partitions, warp schedulers, scoreboard,
pipelines, barriers, and warp-state (stall) accounting.

Speed (see DESIGN.md, "Speed in Python"): no event per warp or per cycle.  The GPU's next-event SimPy process
(:mod:`gpusim.timing.gpu`) calls :meth:`StreamingMultiprocessor.step` only at cycles where something can
change on the SM; there every sub-partition whose next interesting cycle has come looks at its warps, and
the step returns the earliest cycle at which anything changes next (a register becomes ready, a pipe frees,
a barrier releases, a block arrives or retires), so the clock jumps over idle stretches. Each warp has a
``ready_at``, the earliest cycle it could issue as far as is known, kept in its sub-partition's array by warp
slot, so a waiting warp costs one integer comparison per visit and no look at its object. All per-PC facts come from :class:`~gpusim.timing.decode.DecodedKernel` lists, all
counters are Python ints.  Memory instructions send their prebuilt
:class:`~gpusim.memory.request.MemoryRequest` (one per trace slot, :mod:`gpusim.timing.lsu`) to the memory
model; an observer, if one is attached, sees typed events (:mod:`gpusim.timing.hooks`).

Stall accounting is by intervals: a warp's state changes at most a few times per instruction; at each change
the cycles since the last change are added to the warp's total for its old state and to the per-PC total of
the instruction it was waiting to issue.
"""
from __future__ import annotations

import heapq
from bisect import insort

from gpusim.errors import KernelError
from gpusim.memory.system import MemorySystem
from gpusim.timing.decode import (INF, LSU_PIPE, OP_ALU, OP_BARRIER, OP_BRANCH, OP_EXIT, OP_MEM, OP_MEMBAR,
                                  DecodedKernel, int_array)
from gpusim.timing.hooks import GlobalAccess, SharedAccess, WarpIssue, WarpStateChange
from gpusim.timing.warp_states import N_STALL_REASONS, StallReason
from isa.units import MemSpace

SHARED, GLOBAL, LOCAL = MemSpace.SHARED, MemSpace.GLOBAL, MemSpace.LOCAL
_event = tuple.__new__          # _event(WarpIssue, (...)) is WarpIssue(...) without a Python-level __new__
NS = N_STALL_REASONS
SELECTED = int(StallReason.SELECTED)
NOT_SELECTED = int(StallReason.NOT_SELECTED)
WAIT = int(StallReason.WAIT)
BARRIER = int(StallReason.BARRIER)
BRANCH_RESOLVING = int(StallReason.BRANCH_RESOLVING)
MEMBAR = int(StallReason.MEMBAR)
DRAIN = int(StallReason.DRAIN)


class SchedulingPolicy:
    """What a sub-partition's warp scheduler asks of its policy (:mod:`gpusim.timing.schedulers`):
    ``select(eligible)``, the warp to issue among the eligible ones (in warp-slot order), or None.  The
    built-in policies derive from it, so that the compiled SM calls them directly; any object with a
    ``select`` method will do."""

    __slots__ = ()

    def select(self, eligible):
        raise NotImplementedError


class Warp:
    """One resident warp: its position in its trace (the instruction buffer holds the next instruction),
    its scoreboard (cycle at which each register's pending write lands, and which stall state guards it; the
    cycle until which a queued memory instruction has yet to read it, which a write to it must wait for),
    and its current warp state with the cycle it entered it.  The earliest cycle it could issue is its
    sub-partition's ``ready_at[pos]``.  The scoreboard is one flat array, four entries a register: for
    register ``r``, at ``4 r`` the cycle its pending write lands and at ``4 r + 1`` the state that guards it,
    at ``4 r + 2`` the cycle until which a queued memory instruction has yet to read it and at ``4 r + 3``
    that state: what is read together lies side by side, in one cache line.

    Simplification: the instruction buffer is always full (no fetch or i-cache model), so a warp never
    shows ``no_instruction``.
    """

    __slots__ = ("gid", "slot", "pos", "age", "block", "smsp", "row", "end", "pc", "scoreboard", "dep_ready",
                 "dep_state", "state", "since", "stall", "last_store_cycle", "start_cycle", "end_cycle", "done")

    def __init__(self, gid: int, slot: int, age: int, block: "ThreadBlock", smsp: "SubPartition",
                 row: int, end: int, n_regs: int, now: int) -> None:
        self.gid = gid
        self.slot = slot
        self.pos = slot // len(smsp.sm.subpartitions)     # its place in its sub-partition (slot order)
        self.age = age
        self.block = block
        self.smsp = smsp
        self.row = row
        self.end = end
        self.pc = -1
        # per register: write lands, its state; (WAR) a queued memory instruction's read is done, its state
        self.scoreboard = int_array([0, WAIT, 0, WAIT]) * n_regs
        self.dep_ready = 0
        self.dep_state = WAIT
        # Placeholder until the scheduler first looks at the warp this cycle (a zero-length interval).
        self.state = NOT_SELECTED
        self.since = now
        self.stall = int_array([0]) * NS
        self.last_store_cycle = 0
        self.start_cycle = now
        self.end_cycle = -1
        self.done = False


class ThreadBlock:
    """A resident block (CTA): its warps and the state of its ``bar.sync`` barrier.

    Simplification: one barrier per block (``bar.sync 0``); named barriers with thread counts are not
    distinguished. Exited warps count as arrived, as on hardware.
    """

    __slots__ = ("bid", "warps", "live", "arrived", "waiting", "retire_cycle", "start_cycle", "bar_done")

    def __init__(self, bid: int, now: int) -> None:
        self.bid = bid
        self.warps: list[Warp] = []
        self.live = 0
        self.arrived = 0
        self.waiting: list[Warp] = []
        self.bar_done = 0           # the cycle the SM has counted the arrivals so far at the barrier
        self.retire_cycle = now
        self.start_cycle = now


def _position(w: Warp) -> int:
    return w.pos


class SubPartition:
    """An SM sub-partition (SMSP): the warps bound to it, a warp scheduler that issues at most one
    instruction per cycle, and its private pipelines (LSU, FP32 (FMA-lite under fma_pipe_split), INT, FP64, SFU,
    branch, misc, FMA-heavy), each taking a new instruction every ``issue_interval`` cycles. Memory
    instructions also need the SM's L1TEX/MIO path, shared by the sub-partitions and kept busy by the memory
    system for ``pipe_busy_cycles``.

    With ``lsu_queue_entries`` > 0, up to that many memory instructions of the sub-partition wait in a queue
    for the SM's LSU/MIO pipe, which takes them in issue order: the warp goes on issuing past them, and an
    instruction that would overwrite a register a queued one has yet to read waits for it (the scoreboard
    keeps source registers until the pipe reads them: ``long_scoreboard`` for global and local accesses,
    ``short_scoreboard`` for shared); a full queue stalls the next memory instruction (``mio_throttle``,
    ``lg_throttle``).  With 0 a memory instruction issues only when the pipe is free.

    Simplifications: one issue per cycle, no dual issue, no register-bank conflicts, no operand collector;
    a pipe is busy for its issue interval from the issue cycle.  The LSU queue: one queue for shared and
    global instructions (the hardware has an MIO and an LG queue; a kernel mixing both was not measured);
    the pipe takes the four sub-partitions' instructions strictly in issue order; every source register of
    a queued instruction (a store's data included) is held until the pipe takes it; the memory model is
    asked at issue for the cycle the pipe will take the instruction, which may lie ahead of other SMs' calls.
    """

    __slots__ = ("sm", "index", "warps", "at", "ready_at", "select", "policy", "own_policy", "pipe_free",
                 "next_check",
                 "inst_executed", "pipe_of", "alt_of", "throttle", "op_of", "dst_start", "dst_reg", "dst_extra",
                 "latency_of",
                 "result_state", "interval_of", "stores", "dep_start", "dep_reg", "trace_pc", "mem_slot",
                 "requests", "slot_state", "pc_stalls", "observer", "branch_latency", "membar_latency",
                 "src_start", "src_reg", "lsu_q", "lsu_qi", "lsu_qn")

    def __init__(self, sm: "StreamingMultiprocessor", index: int, policy, n_pipes: int, n_pos: int) -> None:
        self.sm = sm
        self.index = index
        self.warps: list[Warp] = []
        # By position (warp slot // sub-partitions, so in slot order): the warp there (None: free) and the
        # earliest cycle it could issue (INF: free).  The scan reads one small array, not every warp object.
        self.at: list = [None] * n_pos
        self.ready_at = int_array([INF]) * n_pos
        self.policy = policy
        self.select = policy.select
        self.own_policy = policy if isinstance(policy, SchedulingPolicy) else None
        self.pipe_free = int_array([0]) * n_pipes
        # The LSU/MIO queue: the cycle each of the last lsu_qn memory instructions issued here left it (a ring;
        # lsu_q[lsu_qi] is the oldest, which must have left before another may enter).
        self.lsu_qn = sm.model.gpu.lsu_queue_entries
        self.lsu_q = int_array([0]) * max(1, self.lsu_qn)
        self.lsu_qi = 0
        self.next_check = INF
        self.inst_executed = 0
        # What the hot loop reads, bound here once (one attribute load instead of a chain per use).
        k = sm.kernel
        self.pipe_of = k.pipe
        self.alt_of = k.alt_pipe            # a second pipe pc may take when its own is busy (NO_PIPE: none)
        self.throttle = k.throttle_state
        self.op_of = k.op
        self.dst_start = k.dst_start        # registers pc writes: dst_reg[dst_start[pc]:dst_start[pc + 1]]
        self.dst_reg = k.dst_reg
        self.dst_extra = k.dst_extra        # per destination: cycles its write lands after the PC's latency
        self.latency_of = k.latency_cycles
        self.result_state = k.result_state
        self.interval_of = k.interval_cycles
        self.stores = k.is_store
        self.dep_start = k.dep_start        # registers pc waits for, likewise
        self.dep_reg = k.dep_reg
        self.src_start = k.mem_src_start    # registers memory instruction pc reads, likewise
        self.src_reg = k.mem_src_reg
        self.slot_state = k.slot_state
        self.branch_latency = k.branch_latency_cycles
        self.membar_latency = k.membar_latency_cycles
        self.trace_pc = sm.trace_pc
        self.mem_slot = sm.mem_slot
        self.requests = sm.requests
        self.pc_stalls = sm.pc_stalls
        self.observer = sm.observer

    def enter_state(self, w: Warp, state: int, now: int) -> None:
        d = now - w.since
        if d:
            old = w.state
            w.stall[old] += d
            self.pc_stalls[w.pc * NS + old] += d
        w.state = state
        w.since = now
        obs = self.observer
        if obs is not None:
            obs.on_warp_state(_event(WarpStateChange, (now, self.sm.sm_id, w.gid, w.pc, state)))

    def cycle(self, now: int) -> None:
        """Look at every warp whose ``ready_at`` has come; issue one of the eligible ones."""
        if self.lsu_qn:
            lsu_free = self.lsu_q[self.lsu_qi]
        else:
            lsu_free = self.sm.lsu_free
        nxt = INF
        self.next_check = INF
        cands = None
        spare = None        # warps ready only for their instruction's second-choice pipe
        for i in range(len(self.ready_at)):
            r = self.ready_at[i]
            if r > now:
                if r < nxt:
                    nxt = r
                continue
            w = self.at[i]
            r = w.dep_ready
            if r > now:
                s = w.dep_state
            else:
                pc = w.pc
                p = self.pipe_of[pc]
                r = self.pipe_free[p]
                if p == LSU_PIPE and lsu_free > r:
                    r = lsu_free
                if r <= now:
                    if cands is None:
                        cands = [w]
                    else:
                        cands.append(w)
                    continue
                a = self.alt_of[pc]
                if a >= 0:
                    ra = self.pipe_free[a]
                    if ra <= now:
                        if spare is None:
                            spare = [w]
                        else:
                            spare.append(w)
                        continue
                    if ra < r:
                        r = ra
                s = self.throttle[pc]
            if w.state != s:
                self.enter_state(w, s, now)
            self.ready_at[i] = r
            if r < nxt:
                nxt = r
        if spare is not None:
            if cands is None:
                cands = spare
            else:
                self.merge_spare(cands, spare, now)
                nxt = now + 1
        if cands is not None:
            # Even a lone candidate goes through the policy: it must learn who issued (GTO, LRR pointer).
            own = self.own_policy
            chosen = own.select(cands) if own is not None else self.select(cands)
            if len(cands) > 1 or chosen is None:
                nxt = now + 1
                for w in cands:
                    if w is not chosen:
                        if w.state != NOT_SELECTED:
                            self.enter_state(w, NOT_SELECTED, now)
                        self.ready_at[w.pos] = now + 1
            if chosen is not None:
                r = self.issue(chosen, now)
                if r < nxt:
                    nxt = r
        if nxt < self.next_check:
            self.next_check = nxt

    def merge_spare(self, cands: list, spare: list, now: int) -> None:
        """Add to ``cands`` (in slot order) the warps of ``spare``, ready only for their instruction's second
        pipe, but those whose second pipe a candidate needs and has no other for (an FFMA does not take
        FMA-heavy from an IMAD); those wait a cycle, not selected."""
        excl = 0
        for w in cands:
            pc = w.pc
            if self.alt_of[pc] < 0:
                excl |= 1 << self.pipe_of[pc]
        added = False
        for w in spare:
            if (excl >> self.alt_of[w.pc]) & 1:
                if w.state != NOT_SELECTED:
                    self.enter_state(w, NOT_SELECTED, now)
                self.ready_at[w.pos] = now + 1
            else:
                cands.append(w)
                added = True
        if added:
            cands.sort(key=_position)

    def issue(self, w: Warp, now: int) -> int:
        """Issue ``w``'s next instruction at ``now``; returns the warp's next ``ready_at``."""
        pc = w.pc
        base = pc * NS
        d = now - w.since
        if d:
            s = w.state
            w.stall[s] += d
            self.pc_stalls[base + s] += d
        w.stall[SELECTED] += 1
        self.pc_stalls[base + SELECTED] += 1
        self.inst_executed += 1
        obs = self.observer
        if obs is not None:
            obs.on_issue(_event(WarpIssue, (now, self.sm.sm_id, self.index, w.gid, pc)))
        op = self.op_of[pc]
        p = self.pipe_of[pc]
        t0 = now + 1
        s0 = NOT_SELECTED
        if op == OP_ALU:
            t = now + self.latency_of[pc]
            st = self.result_state[pc]
            for i in range(self.dst_start[pc], self.dst_start[pc + 1]):
                r = self.dst_reg[i]
                w.scoreboard[4 * r] = t + self.dst_extra[i]     # > 0 only for a guard's own entry (decode)
                w.scoreboard[4 * r + 1] = st
            a = self.alt_of[pc]
            if a >= 0 and self.pipe_free[p] > now:          # its own pipe is busy: the second one is free
                p = a
            self.pipe_free[p] = now + self.interval_of[pc]
        elif op == OP_MEM:
            sm = self.sm
            slot = self.mem_slot[w.row]
            start = now
            qn = self.lsu_qn
            if qn:
                # into the queue: the pipe takes it once it has taken every earlier one
                if sm.lsu_free > now:
                    start = sm.lsu_free
                qi = self.lsu_qi
                self.lsu_q[qi] = start
                self.lsu_qi = qi + 1 if qi + 1 < qn else 0
            if slot >= 0:
                req = self.requests[slot]
                ms = sm.memory_system
                if ms is not None:
                    ready, busy = ms.access(start, sm.sm_id, req)
                else:
                    ready, busy = sm.mem_access(start, sm.sm_id, req)
                st = self.slot_state[slot]
                if obs is not None:
                    _observe_access(obs, start, sm.sm_id, w.gid, pc, req, ready)
            else:
                # No lane accessed memory (guard false everywhere, or shfl): the pipe still takes it.
                ready = start + self.latency_of[pc]
                busy = 1
                st = self.result_state[pc]
            sm.lsu_free = start + busy
            if start > now:
                for i in range(self.src_start[pc], self.src_start[pc + 1]):
                    r = self.src_reg[i]
                    w.scoreboard[4 * r + 2] = start
                    w.scoreboard[4 * r + 3] = st
            self.pipe_free[p] = now + self.interval_of[pc]
            if self.stores[pc] and ready > w.last_store_cycle:
                w.last_store_cycle = ready
            for i in range(self.dst_start[pc], self.dst_start[pc + 1]):
                r = self.dst_reg[i]
                w.scoreboard[4 * r] = ready
                w.scoreboard[4 * r + 1] = st
        elif op == OP_BRANCH:
            self.pipe_free[p] = now + self.interval_of[pc]
            t0 = now + self.branch_latency
            s0 = BRANCH_RESOLVING
        elif op == OP_BARRIER:
            t0 = INF
            s0 = BARRIER
        elif op == OP_MEMBAR:
            t0 = max(now + self.membar_latency, w.last_store_cycle)
            s0 = MEMBAR
        else:  # OP_EXIT
            self.exit(w, now)
            return INF
        row = w.row + 1
        w.row = row
        if row >= w.end:
            # The trace ended without an exit instruction: the warp finishes after this one.
            self.exit(w, now)
            return INF
        npc = self.trace_pc[row]
        w.pc = npc
        dr = 0
        ds = WAIT
        for i in range(self.dep_start[npc], self.dep_start[npc + 1]):
            r = self.dep_reg[i]
            x = w.scoreboard[4 * r]
            if x > dr:
                dr = x
                ds = r
        if dr:
            ds = w.scoreboard[4 * ds + 1]
        if self.lsu_qn:
            for i in range(self.dst_start[npc], self.dst_start[npc + 1]):
                r = self.dst_reg[i]
                x = w.scoreboard[4 * r + 2]
                if x > dr:
                    dr = x
                    ds = w.scoreboard[4 * r + 3]
        w.dep_ready = dr
        w.dep_state = ds
        n1 = now + 1
        w.since = n1
        if t0 > n1:
            w.state = s0
            ra = t0
        elif dr > n1:
            w.state = ds
            ra = dr
        else:
            w.state = NOT_SELECTED
            ra = n1
        self.ready_at[w.pos] = ra
        if obs is not None:
            obs.on_warp_state(_event(WarpStateChange, (n1, self.sm.sm_id, w.gid, npc, w.state)))
        if op == OP_BARRIER:
            b = w.block
            sm = self.sm
            # the SM's barrier unit counts arrivals one after another
            t = sm.bar_free if sm.bar_free > now else now
            t += sm.bar_arrive
            sm.bar_free = t
            if t > b.bar_done:
                b.bar_done = t
            b.arrived += 1
            b.waiting.append(w)
            if b.arrived >= b.live:
                self.sm.release_barrier(b, now)
        return self.ready_at[w.pos]

    def exit(self, w: Warp, now: int) -> None:
        """The warp finished; it stays resident (``drain``) until its stores are accepted."""
        end = now + 1
        if w.last_store_cycle > end:
            if self.observer is not None:
                self.observer.on_warp_state(_event(WarpStateChange, (end, self.sm.sm_id, w.gid, w.pc, DRAIN)))
            d = w.last_store_cycle - end
            w.stall[DRAIN] += d
            self.sm.pc_stalls[w.pc * NS + DRAIN] += d
            end = w.last_store_cycle
        w.end_cycle = end
        w.done = True
        self.ready_at[w.pos] = INF
        self.at[w.pos] = None
        self.warps.remove(w)
        self.sm.warp_exited(w, now)


class StreamingMultiprocessor:
    """One SM: resident blocks up to the occupancy limit, warps bound to sub-partitions by warp slot
    (``slot % subpartitions``, as on hardware), and an LSU/MIO pipe shared by the sub-partitions; the GPU's
    next-event loop advances it through :meth:`step`.

    A ``bar.sync`` releases its block ``barrier`` latency cycles after the SM's barrier unit has counted the
    last warp's arrival; the unit counts one arrival per ``barrier_arrive_cycles``, one counter for all blocks
    of the SM (measured with one block; whether blocks share it is not).
    A block dispatched to the SM becomes resident ``block_launch_cycles`` later; it retires (freeing its
    warp slots and resources, which lets the block scheduler dispatch the next block here) when its last
    warp has exited and drained. Simplification: the occupancy limit (blocks per SM) is the only resource
    check, which is exact because all blocks of a launch need the same resources.
    """

    __slots__ = ("sm_id", "model", "kernel", "trace_pc", "mem_slot", "requests", "mem_access", "memory_system",
                 "pc_stalls", "observer", "subpartitions", "lsu_free", "bar_free", "bar_arrive", "free_slots",
                 "launching", "retiring", "resident_blocks",
                 "active_since", "cycles_active", "blocks_executed")

    def __init__(self, sm_id: int, model) -> None:
        self.sm_id = sm_id
        self.model = model
        gpu = model.gpu
        self.kernel: DecodedKernel = model.kernel
        self.trace_pc: list[int] = model.trace_pc
        self.mem_slot: list[int] = model.mem_slot
        self.requests = model.requests
        self.mem_access = model.memory.access
        # The full memory system is called as itself: in the compiled build that is a C call (no bound method,
        # no boxed arguments); any other memory model through its access method.  Both are the same contract.
        self.memory_system = model.memory if type(model.memory) is MemorySystem else None
        self.pc_stalls: list[int] = model.pc_stalls
        self.observer = model.observer
        n_sub = gpu.sm.subpartitions
        n_pos = -(-gpu.sm.max_warps // n_sub)
        self.subpartitions = [SubPartition(self, i, model.make_policy(), model.n_pipes, n_pos) for i in range(n_sub)]
        self.lsu_free = 0
        self.bar_free = 0
        self.bar_arrive = gpu.barrier_arrive_cycles
        self.free_slots = list(range(gpu.sm.max_warps))
        self.launching: list[tuple[int, int, ThreadBlock]] = []   # (arrival cycle, block id, block)
        self.retiring: list[tuple[int, int, ThreadBlock]] = []
        self.resident_blocks = 0
        self.active_since = 0
        self.cycles_active = 0
        self.blocks_executed = 0

    # -- block life cycle ---------------------------------------------------------------------------
    def dispatch(self, bid: int, now: int) -> None:
        """The block scheduler sends block ``bid`` here at ``now``; it arrives after the launch latency."""
        arrival = now + self.model.gpu.block_launch_cycles
        heapq.heappush(self.launching, (arrival, bid, ThreadBlock(bid, arrival)))

    def _start_block(self, b: ThreadBlock, now: int) -> None:
        model = self.model
        if self.resident_blocks == 0:
            self.active_since = now
        self.resident_blocks += 1
        b.start_cycle = now
        n_regs = self.kernel.n_regs
        n_sub = len(self.subpartitions)
        for gid in model.block_warps[b.bid]:
            slot = heapq.heappop(self.free_slots)
            sp = self.subpartitions[slot % n_sub]
            row, end = model.warp_rows[gid]
            w = Warp(gid, slot, model.next_age(), b, sp, row, end, n_regs, now)
            model.warps[gid] = w
            b.warps.append(w)
            if row >= end:
                w.end_cycle = now
                w.done = True
                continue
            w.pc = self.trace_pc[row]
            b.live += 1
            insort(sp.warps, w, key=_slot_of)
            sp.at[w.pos] = w
            sp.ready_at[w.pos] = now
            if now < sp.next_check:
                sp.next_check = now
        if b.live == 0:
            heapq.heappush(self.retiring, (now, b.bid, b))

    def warp_exited(self, w: Warp, now: int) -> None:
        b = w.block
        b.live -= 1
        if w.end_cycle > b.retire_cycle:
            b.retire_cycle = w.end_cycle
        if b.live == 0:
            heapq.heappush(self.retiring, (b.retire_cycle, b.bid, b))
        elif b.arrived and b.arrived >= b.live:
            # The exited warp was the last one the barrier waited for.
            self.release_barrier(b, now)

    def release_barrier(self, b: ThreadBlock, now: int) -> None:
        t = (b.bar_done if b.bar_done > now else now) + self.kernel.barrier_latency_cycles
        b.bar_done = 0
        for w in b.waiting:
            w.smsp.ready_at[w.pos] = t
            if t < w.smsp.next_check:
                w.smsp.next_check = t
        b.waiting = []
        b.arrived = 0
        self.model.barrier_releases += 1

    def _retire(self, b: ThreadBlock, now: int) -> None:
        for w in b.warps:
            heapq.heappush(self.free_slots, w.slot)
        self.resident_blocks -= 1
        self.blocks_executed += 1
        if self.resident_blocks == 0:
            self.cycles_active += now - self.active_since
        self.model.block_retired(self, b, now)

    # -- one step of the SM, driven by the GPU's event loop -----------------------------------------------
    def step(self, now: int) -> int:
        """Advance the SM at cycle ``now``: retire and start blocks, let every sub-partition whose next
        interesting cycle has come look at its warps. Returns the next cycle anything can change on this
        SM (``INF`` when it has nothing left)."""
        retiring = self.retiring
        launching = self.launching
        while retiring and retiring[0][0] <= now:
            self._retire(heapq.heappop(retiring)[2], now)
        while launching and launching[0][0] <= now:
            self._start_block(heapq.heappop(launching)[2], now)
        subs = self.subpartitions
        for sp in subs:
            if sp.next_check <= now:
                sp.cycle(now)
        nxt = INF
        for sp in subs:   # a second pass: a barrier release may have woken an earlier sub-partition
            if sp.next_check < nxt:
                nxt = sp.next_check
        if retiring and retiring[0][0] < nxt:
            nxt = retiring[0][0]
        if launching and launching[0][0] < nxt:
            nxt = launching[0][0]
        if nxt >= INF and self.resident_blocks:
            self._deadlock(now)
        return nxt

    def _deadlock(self, now: int) -> None:
        stuck = [w for sp in self.subpartitions for w in sp.warps]
        desc = ", ".join(f"block {w.block.bid} warp {w.gid} pc {w.pc}" for w in stuck[:8])
        raise KernelError(f"timing model: SM {self.sm_id} has {len(stuck)} warps that can never issue at "
                          f"cycle {now} (waiting at a barrier the rest of the block never reaches?): {desc}")


class StepHeap:
    """The GPU's SMs by the next cycle each has something to do at, earliest first and, within a cycle, in
    the order they were pushed: what :mod:`heapq` gives on (cycle, sequence number, SM) tuples, kept in flat
    integer arrays (SMs by index) so that the compiled build sifts C integers instead of building and
    comparing a tuple per step.  Holds each SM at most once (``capacity``: the number of SMs)."""

    __slots__ = ("cycle", "seq", "item", "size", "next_seq")

    def __init__(self, capacity: int) -> None:
        self.cycle = int_array([0]) * max(1, capacity)
        self.seq = int_array([0]) * max(1, capacity)
        self.item = int_array([0]) * max(1, capacity)
        self.size = 0
        self.next_seq = 0

    def first(self) -> int:
        """The earliest cycle (the heap must not be empty)."""
        return self.cycle[0]

    def push(self, cycle: int, item: int) -> None:
        seq = self.next_seq
        self.next_seq = seq + 1
        i = self.size
        self.size = i + 1
        while i > 0:                        # move the hole up past later parents
            parent = (i - 1) >> 1
            if self.cycle[parent] < cycle or (self.cycle[parent] == cycle and self.seq[parent] < seq):
                break
            self.cycle[i] = self.cycle[parent]
            self.seq[i] = self.seq[parent]
            self.item[i] = self.item[parent]
            i = parent
        self.cycle[i] = cycle
        self.seq[i] = seq
        self.item[i] = item

    def pop(self) -> int:
        """Remove the earliest entry and return its item (the heap must not be empty)."""
        top = self.item[0]
        n = self.size - 1
        self.size = n
        cycle = self.cycle[n]
        seq = self.seq[n]
        i = 0
        while True:                         # move the hole down past earlier children
            child = 2 * i + 1
            if child >= n:
                break
            other = child + 1
            if other < n and (self.cycle[other] < self.cycle[child] or
                              (self.cycle[other] == self.cycle[child] and self.seq[other] < self.seq[child])):
                child = other
            if cycle < self.cycle[child] or (cycle == self.cycle[child] and seq < self.seq[child]):
                break
            self.cycle[i] = self.cycle[child]
            self.seq[i] = self.seq[child]
            self.item[i] = self.item[child]
            i = child
        if n:
            self.cycle[i] = cycle
            self.seq[i] = seq
            self.item[i] = self.item[n]
        return top


def step_sms(heap: StepHeap, sms: list, now: int) -> None:
    """Step every SM on the GPU's :class:`StepHeap` (of indices into ``sms``) that is due at ``now``, in heap
    order (earliest push first); each one that has more to do goes back.  An SM that asks for ``now`` again
    steps again in the same call, after the others."""
    while heap.size and heap.cycle[0] == now:
        i = heap.pop()
        sm = sms[i]
        nxt = sm.step(now)
        if nxt < INF:
            heap.push(nxt, i)


def _slot_of(w: Warp) -> int:
    return w.slot


def _observe_access(obs, now: int, sm: int, warp: int, pc: int, req, ready: int) -> None:
    """The LSU's events for a memory request (shared, or global/local that reached L1TEX)."""
    sp = req.space
    if sp is SHARED:
        obs.on_shared_access(_event(SharedAccess, (now, sm, warp, pc, req.wavefronts, req.ideal_wavefronts, ready)))
    elif (sp is GLOBAL or sp is LOCAL) and req.active_lanes:
        obs.on_global_access(_event(GlobalAccess, (now, sm, warp, pc, len(req.sectors), ready)))
