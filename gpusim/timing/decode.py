"""Decode a kernel's static instructions once into flat per-PC lists for the timing model's hot loop.

The hot loop must not hash strings or touch enums per dynamic instruction, so everything it needs about a
PC is looked up here, once per kernel, and stored as Python ints and tuples indexed by PC: which pipe the
instruction goes to and its issue interval, its result latency and which scoreboard (stall state) guards
its result, the stall state while its pipe is busy, and what kind of instruction it is (ALU, memory,
branch, barrier, memory barrier, exit).
"""
from __future__ import annotations

import heapq
from array import array

import numpy as np

from gpusim.errors import ConfigError
from gpusim.functional.trace import KernelTrace, StaticInstr
from gpusim.timing.warp_states import StallReason
from isa.units import LatencyClass, MemSpace, Unit

# A cycle that never comes: a warp waiting at a barrier, an SM with nothing left to do.
INF = 1 << 62

# What the issue stage does with an instruction (ints: the hot loop compares them).
OP_ALU, OP_MEM, OP_BRANCH, OP_BARRIER, OP_MEMBAR, OP_EXIT = range(6)

# Pipes of each sub-partition. A memory instruction needs its SMSP's LSU pipe (8 LD/ST lanes on H100: one
# warp instruction per 4 cycles) and also the SM's L1TEX/MIO path, shared by the four SMSPs, which the
# memory system keeps busy for as long as the access needs (more wavefronts for conflicts, more sectors).
SMSP_PIPES: tuple[Unit, ...] = (Unit.LSU, Unit.FP32, Unit.INT, Unit.FP64, Unit.SFU, Unit.BRANCH, Unit.MISC)
LSU_PIPE = 0
# With ``GpuConfig.fma_pipe_split`` the FMA pipe is two halves: ``Unit.FP32``'s index is FMA-lite, this one
# FMA-heavy (integer multiplies, and the integer adds and shifts ptxas moves off the ALU pipe).
FMA_HEAVY_PIPE = len(SMSP_PIPES)
N_PIPES = len(SMSP_PIPES) + 1
NO_PIPE = -1

# 32-bit integer instructions ptxas may write for the ALU pipe (IADD3, SHF) or for FMA-heavy (IMAD.IADD,
# VIADD, IMAD.SHL): it balances the two (benchmarks/micro/intpipe: 34 of 64 independent adds as IMAD.IADD).
_EITHER_ALU_OR_FMA = frozenset({"add.s32", "add.u32", "sub.s32", "sub.u32"})
_SHIFT_LEFT = frozenset({"shl.b32"})



def int_array(values) -> array:
    """A flat array of C ``long long`` (``array('q')``): what the SM's hot loop indexes.  In plain Python it
    behaves like a list of ints; the compiled SM (``sm.pxd``) reads it as a typed memoryview."""
    if isinstance(values, np.ndarray):
        out = array("q")
        out.frombytes(np.ascontiguousarray(values, dtype=np.int64).tobytes())
        return out
    return array("q", values)


def _flatten(rows: list[tuple[int, ...]]) -> tuple[array, array]:
    """(start, values) of ``rows`` as two flat arrays: row ``i`` is ``values[start[i]:start[i + 1]]``."""
    start = [0]
    for r in rows:
        start.append(start[-1] + len(r))
    return int_array(start), int_array([x for r in rows for x in r])


# Spaces whose accesses go through the LSU's local/global path (a generic one may: lg_throttle).
_LONG_SPACES = (MemSpace.GLOBAL, MemSpace.LOCAL, MemSpace.GENERIC)


class DecodedKernel:
    """Per-PC static timing facts of one kernel on one GPU config, as flat lists indexed by PC.

    Under ``fma_pipe_split`` the FMA pipe is two halves, FMA-heavy and FMA-lite, each at twice
    ``issue_interval_cycles.fp32``: an integer multiply goes to FMA-heavy; a 32-bit integer add/subtract or
    shift by an immediate (not folded into a three-input IADD3/LEA) to the ALU pipe or FMA-heavy, each PC to
    one of them for good, as ptxas balances them; FP32 arithmetic to FMA-lite (``pipe``) or, when FMA-lite is
    busy, to FMA-heavy (``alt_pipe``, ``NO_PIPE`` for every other PC), as the SMSP steers an FFMA at issue.  A
    warp ready only for its second choice competes with the others unless a warp is ready for a PC that has
    that pipe and no other (an IMAD waiting for FMA-heavy goes first:
    :meth:`gpusim.timing.sm.SubPartition.merge_spare`).

    Simplifications: an instruction's issue interval depends only on its unit (IMAD uses the config's
    ``imad_issue_interval_cycles``); a memory instruction's result latency comes from the memory system at
    issue time, so ``latency_cycles`` of a memory PC is only used when no lane accessed memory.
    ``free_barriers`` (the "barriers" what-if, :mod:`gpusim.timing.idealize`) decodes ``bar.sync`` as an
    ALU instruction of its pipe, which waits for no other warp.
    """

    __slots__ = ("deps", "dsts", "dst_extras", "dst_extra", "mem_srcs", "dep_start", "dep_reg", "dst_start",
                 "dst_reg", "mem_src_start", "mem_src_reg", "pipe", "interval_cycles", "alt_pipe",
                 "latency_cycles", "result_state", "op",
                 "throttle_state", "is_store", "n_regs", "branch_latency_cycles", "barrier_latency_cycles",
                 "membar_latency_cycles", "slot_state")

    def __init__(self, trace: KernelTrace, gpu, *, free_barriers: bool = False) -> None:
        instrs = trace.instructions
        n = len(instrs)
        self.deps: list[tuple[int, ...]] = [()] * n
        self.dsts: list[tuple[int, ...]] = [()] * n
        self.dst_extras: list[tuple[int, ...]] = [()] * n   # per destination: cycles after the PC's latency
        self.mem_srcs: list[tuple[int, ...]] = [()] * n   # registers a memory instruction reads (WAR)
        self.pipe: list[int] = [0] * n
        self.interval_cycles: list[int] = [1] * n
        self.alt_pipe: list[int] = [NO_PIPE] * n        # a second pipe the PC may issue to when its own is busy
        self.latency_cycles: list[int] = [1] * n
        self.result_state: list[int] = [int(StallReason.WAIT)] * n
        self.op: list[int] = [OP_ALU] * n
        self.throttle_state: list[int] = [int(StallReason.MATH_PIPE_THROTTLE)] * n
        self.is_store: list[bool] = [False] * n
        intervals = {u: max(1, int(gpu.issue_interval(u))) for u in Unit}
        imad_interval = max(1, int(gpu.imad_issue_interval_cycles))
        split = bool(getattr(gpu, "fma_pipe_split", False))
        flexible: list[int] = []         # PCs with two pipes to choose from: FFMA, and the integer adds ptxas moves
        latencies: dict[LatencyClass, int] = {}

        def latency(cls: LatencyClass) -> int:
            if cls not in latencies:
                latencies[cls] = 0 if cls is LatencyClass.NONE else \
                    max(1, int(round(gpu.latency(cls))))
            return latencies[cls]

        max_reg = -1
        for i, ins in enumerate(instrs):
            if ins.pc != i:
                raise ConfigError(f"trace of kernel {trace.kernel!r}: instruction {i} has pc {ins.pc}")
            unit = Unit(ins.unit)
            cls = LatencyClass(ins.latency_class)
            # The scoreboard guards both operands read (RAW) and registers about to be overwritten (WAW).
            self.deps[i] = tuple(dict.fromkeys(ins.src_regs + ins.dst_regs))
            self.dsts[i] = tuple(ins.dst_regs)
            self.dst_extras[i] = (0,) * len(ins.dst_regs)
            max_reg = max([max_reg, *ins.src_regs, *ins.dst_regs])
            self.latency_cycles[i] = latency(cls)
            if cls.is_long:
                self.result_state[i] = int(StallReason.LONG_SCOREBOARD)
            elif cls.is_variable:
                self.result_state[i] = int(StallReason.SHORT_SCOREBOARD)
            self.op[i] = _op_of(ins)
            if self.op[i] == OP_MEM:
                self.mem_srcs[i] = tuple(dict.fromkeys(ins.src_regs))
            if free_barriers and self.op[i] == OP_BARRIER:
                self.op[i] = OP_ALU
            self.is_store[i] = bool(ins.is_store or ins.is_atomic)
            self.pipe[i] = SMSP_PIPES.index(unit)
            self.interval_cycles[i] = imad_interval if cls is LatencyClass.IMAD else intervals[unit]
            if split and self._split_fma_pipe(i, ins, unit, cls, intervals, imad_interval):
                flexible.append(i)
            if unit is Unit.LSU:
                self.throttle_state[i] = int(StallReason.LG_THROTTLE if (ins.mem_space in _LONG_SPACES)
                                             else StallReason.MIO_THROTTLE)
            elif unit is Unit.SFU:
                self.throttle_state[i] = int(StallReason.MIO_THROTTLE)
        if flexible:
            self._balance_alu_and_fma_heavy(instrs, flexible, imad_interval)
        max_reg = self._guard_reads(instrs, gpu, max_reg)
        # What issuing reads per PC, as C arrays for the compiled SM (sm.pxd); each path reads only its own.
        # deps, dsts and mem_srcs flattened: pc's registers are dep_reg[dep_start[pc]:dep_start[pc + 1]], etc.
        self.dep_start, self.dep_reg = _flatten(self.deps)
        self.dst_start, self.dst_reg = _flatten(self.dsts)
        self.dst_extra = int_array([x for row in self.dst_extras for x in row])
        self.mem_src_start, self.mem_src_reg = _flatten(self.mem_srcs)
        self.pipe = int_array(self.pipe)
        self.throttle_state = int_array(self.throttle_state)
        self.op = int_array(self.op)
        self.latency_cycles = int_array(self.latency_cycles)
        self.result_state = int_array(self.result_state)
        self.interval_cycles = int_array(self.interval_cycles)
        self.alt_pipe = int_array(self.alt_pipe)
        self.is_store = int_array(self.is_store)
        self.n_regs = max_reg + 1
        self.branch_latency_cycles = latency(LatencyClass.BRANCH)
        self.barrier_latency_cycles = latency(LatencyClass.BARRIER)
        self.membar_latency_cycles = latency(LatencyClass.MEMBAR)
        self.slot_state = array("b", slot_states(trace.mem_space).tobytes())

    def _split_fma_pipe(self, i: int, ins: StaticInstr, unit: Unit, cls: LatencyClass, intervals: dict,
                        imad_interval: int) -> bool:
        """PC ``i``'s pipes when the FMA pipe is FMA-heavy + FMA-lite (``GpuConfig.fma_pipe_split``); True for a
        PC with two pipes to choose from (FP32 arithmetic; an integer instruction ptxas may write for either the
        ALU pipe or FMA-heavy), which :meth:`_balance_alu_and_fma_heavy` then assigns."""
        half = 2 * intervals[Unit.FP32]            # each half has half the lanes
        form = ins.sass_form
        if cls is LatencyClass.IMAD or form in ("IMAD", "IMAD.WIDE"):
            self.pipe[i], self.interval_cycles[i] = FMA_HEAVY_PIPE, imad_interval
        elif unit is Unit.FP32:
            self.interval_cycles[i] = half             # on either half: FMA-lite first, FMA-heavy when it is busy
            self.alt_pipe[i] = FMA_HEAVY_PIPE
            return True
        elif unit is Unit.INT and not form and (ins.opcode in _EITHER_ALU_OR_FMA
                                                or (ins.opcode in _SHIFT_LEFT and ins.imm_srcs == 1)):
            return True
        return False

    def _balance_alu_and_fma_heavy(self, instrs: list[StaticInstr], flexible: list[int], imad_interval: int) -> None:
        """Which pipe each flexible PC issues to: per basic block, the block's fixed ALU-pipe and FMA-heavy
        work counted first, then each flexible PC in program order to the less loaded of its two pipes (issue
        cycles queued so far): an integer add to the ALU pipe or FMA-heavy as ptxas writes it (IADD3 or
        IMAD.IADD; the ALU pipe on a tie); an FFMA counts on the less loaded FMA half (FMA-lite on a tie) in
        that balance, but issues to FMA-lite first and FMA-heavy second whichever it is (ncu: 254k of 262k
        FFMA on FMA-lite beside IMAD, 259k of 262k beside adds).  In intpipe.ptx's loops this sends 32 of 64
        independent adds to each pipe (ptxas 13.0: 30 IADD3, 34 IMAD.IADD), every add beside 32 xor to
        FMA-heavy (ptxas: the same), and 22 of the 33 adds (the trip counter's included) beside 32 FFMA to the
        ALU pipe (ptxas: 26 of 32 as IADD3) [benchmarks/micro/intpipe; tests/golden/h100/micro/intpipe:
        intpipe.sass, ncu.csv]."""
        leaders = static_block_leaders(instrs, through_if_converted=True)
        n = len(instrs)
        bounds = sorted(set(leaders.tolist()) | {n}) if leaders is not None else [0, n]
        flex = set(flexible)
        int_pipe, fp32_pipe = SMSP_PIPES.index(Unit.INT), SMSP_PIPES.index(Unit.FP32)
        for b0, b1 in zip(bounds, bounds[1:]):
            alu = sum(self.interval_cycles[i] for i in range(b0, b1) if self.pipe[i] == int_pipe and i not in flex)
            heavy = sum(self.interval_cycles[i] for i in range(b0, b1) if self.pipe[i] == FMA_HEAVY_PIPE)
            lite = 0
            for i in range(b0, b1):
                if i not in flex:
                    continue
                iv = self.interval_cycles[i]
                if self.pipe[i] == fp32_pipe:        # counted on the less loaded half (it issues to either)
                    if lite <= heavy:
                        lite += iv
                    else:
                        heavy += iv
                elif alu + iv <= heavy + imad_interval:
                    alu += iv
                else:
                    self.pipe[i], self.interval_cycles[i] = FMA_HEAVY_PIPE, imad_interval
                    heavy += imad_interval

    def _guard_reads(self, instrs: list[StaticInstr], gpu, max_reg: int) -> int:
        """Give guard reads their own latency (``gpu.guard_latency_cycles``, 0: none); returns the largest
        register id now in use.

        A predicate that some instruction is guarded by gets a second scoreboard entry, numbered after the
        kernel's registers: the ALU instructions that write the predicate also write that entry, landing
        ``guard_latency_cycles`` after their issue (their own latency at the least), and the guarded
        instructions wait for it as well as for the predicate.  An operand read (``selp``, predicate logic)
        waits for the predicate alone.  Branches and exits keep today's wait: a guarded branch's latency is
        not measured.  Simplifies: a predicate written by a memory instruction (none in PTX but ``shfl``'s
        and ``mbarrier.test_wait``'s) leaves the entry as it was."""
        guard_cycles = int(getattr(gpu, "guard_latency_cycles", 0))
        if guard_cycles <= 0:
            return max_reg
        guarded = {ins.guard_reg for ins in instrs
                   if ins.guard_reg >= 0 and self.op[ins.pc] not in (OP_BRANCH, OP_EXIT)}
        if not guarded:
            return max_reg
        entry = {}
        for i, ins in enumerate(instrs):
            if self.op[i] != OP_ALU:
                continue
            for r in ins.dst_regs:
                if r in guarded:
                    if r not in entry:
                        max_reg += 1
                        entry[r] = max_reg
                    self.dsts[i] += (entry[r],)
                    self.dst_extras[i] += (max(0, guard_cycles - self.latency_cycles[i]),)
        for i, ins in enumerate(instrs):
            g = ins.guard_reg
            if g in entry and self.op[i] not in (OP_BRANCH, OP_EXIT):
                self.deps[i] += (entry[g],)
        return max_reg


def slot_states(mem_space: np.ndarray) -> np.ndarray:
    """The scoreboard (stall state) each memory slot's result waits on, by its resolved space: long for
    global and local, short otherwise (a generic load may hit shared memory)."""
    long_ids = [MemSpace.GLOBAL.code, MemSpace.LOCAL.code]
    return np.where(np.isin(mem_space, long_ids), int(StallReason.LONG_SCOREBOARD),
                    int(StallReason.SHORT_SCOREBOARD)).astype(np.int8)


def _op_of(ins: StaticInstr) -> int:
    if ins.is_exit:
        return OP_EXIT
    if ins.is_barrier:
        return OP_BARRIER
    if ins.is_membar:
        return OP_MEMBAR
    if ins.is_branch:
        return OP_BRANCH
    if Unit(ins.unit) is Unit.LSU:
        return OP_MEM
    return OP_ALU


def estimate_regs_per_thread(trace: KernelTrace) -> int:
    """A rough register count when neither the compiler nor the user gave one.

    PTX registers are virtual (ptxas reuses physical registers), so counting them overestimates. Instead:
    each virtual register is live from its first to its last appearance in program order (this also covers
    loop-carried values, whose use at the loop top precedes their definition at the bottom); the largest
    number of simultaneously live registers, plus 4 that ptxas typically reserves for addresses and the
    stack, rounded up to even, clamped to [16, 255]. It cannot know 64-bit registers take two slots or
    predicates none: expect an error of a few registers either way.
    """
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for ins in trace.instructions:
        for r in (*ins.src_regs, *ins.dst_regs):
            first.setdefault(r, ins.pc)
            last[r] = ins.pc
    events = sorted([(p, 1) for p in first.values()] + [(p + 1, -1) for p in last.values()],
                    key=lambda e: (e[0], e[1]))
    live = peak = 0
    for _, d in events:
        live += d
        peak = max(peak, live)
    regs = peak + 4
    regs += regs & 1
    return max(16, min(255, regs))


# -- static instruction scheduling ("ptxas-like" load hoisting) -----------------------------------------
SCHEDULES = ("ptx", "hoist")
# Loaded values ptxas keeps live (issued, not yet read for the last time) before it issues a consumer rather
# than another load: ptxas 13.0 issues 16 of walk_ilp_32's 32 independent loads before the first FFMA, then
# one load per FFMA (benchmarks/micro/walk/walk.cu; SASS of walk.cubin), so one thread keeps 16 in flight
# (the H100 takes 57-62 cycles per element from 16 loads per trip up to 64: walk.json).
MAX_LIVE_LOADS = 16
# The loads that limit counts: the long-latency ones ptxas hoists far ahead of their uses.  A shared or
# constant load is short (and a constant with a fixed address is an operand of its FFMA in SASS).
_LIVE_LIMITED = (MemSpace.GLOBAL.value, MemSpace.LOCAL.value, MemSpace.GENERIC.value)

# Spaces a store in one space may alias (a generic address may point into global, shared or local memory).
_G, _S, _L, _X = MemSpace.GLOBAL, MemSpace.SHARED, MemSpace.LOCAL, MemSpace.GENERIC
_ALIASES = {_G: (_G, _X), _S: (_S, _X), _L: (_L, _X), _X: (_G, _S, _L, _X)}


def _is_fence(ins: StaticInstr) -> bool:
    """Nothing moves across these: control flow, barriers, memory barriers, atomics, exits."""
    return bool(ins.is_branch or ins.is_barrier or ins.is_membar or ins.is_atomic or ins.is_exit)


def static_block_leaders(instrs: list, through_if_converted: bool = False) -> np.ndarray | None:
    """PCs that start a basic block of ``instrs`` (:class:`StaticInstr`): the entry, every branch target, and the
    PC after every branch, exit or barrier; None when a branch's target is not recorded (``brx.idx``, or a
    trace of format version 2).  ``through_if_converted``: a branch ptxas predicates away (``if_converted``,
    :mod:`gpusim.timing.ifconvert`) starts no block, nor does its target unless another branch goes there."""
    n = len(instrs)
    lead = np.zeros(n + 1, dtype=bool)
    lead[0] = True
    for ins in instrs:
        if through_if_converted and ins.if_converted:
            continue
        if ins.is_branch:
            if ins.branch_target < 0:
                return None
            lead[ins.branch_target] = True
        if ins.is_branch or ins.is_exit or ins.is_barrier:
            lead[ins.pc + 1] = True
    return np.flatnonzero(lead[:n])


def _block_leaders(trace: KernelTrace, through_if_converted: bool = False) -> np.ndarray:
    """PCs that start a basic block of the kernel's static control flow: the entry, every branch target, and
    the PC after every branch, exit or barrier.

    Static, as ptxas sees the code: a label starts a basic block whether or not any warp of this launch
    takes the branch to it, so the schedule of a kernel does not depend on its problem size, nor on which
    blocks a trace (or a chunk of a streamed trace) holds.  A trace recorded without branch targets (format
    version 2) falls back to the targets the trace shows (every PC some warp reached other than from the PC
    before it), a subset of the static ones."""
    static = static_block_leaders(trace.instructions, through_if_converted)
    if static is not None:
        return static
    n = len(trace.instructions)
    lead = np.zeros(n + 1, dtype=bool)
    lead[0] = True
    if trace.pc.size:
        pc = trace.pc.astype(np.int64)
        jump = np.ones(pc.size, dtype=bool)
        jump[1:] = pc[1:] != pc[:-1] + 1
        jump[trace.warp_start[:-1][trace.warp_start[:-1] < pc.size]] = True
        lead[np.unique(pc[jump])] = True
    for ins in trace.instructions:
        if ins.is_branch or ins.is_exit or ins.is_barrier:
            lead[ins.pc + 1] = True
    return np.flatnonzero(lead[:n])


def hoist_permutation(instrs: list[StaticInstr]) -> list[int]:
    """The order in which a "ptxas-like" list scheduler issues one straight-line segment (no fences inside).

    The segment's dependence graph has an edge for every register RAW, WAR and WAW pair and for every pair
    of memory operations in spaces that may alias where one is a store (loads among loads are unordered;
    ``const``/``param`` loads alias nothing).  The scheduler repeatedly issues, among the instructions
    whose predecessors have all issued, first the loads and the instructions that compute their operands
    (addresses, guards), those with the longest chain of loads still ahead of them first (a load whose value
    is another load's address, and its own address arithmetic, before loads whose values only feed
    arithmetic: ptxas's critical-path priority, which in spmv_csr_scalar's unrolled row walk issues every
    ``col[j]`` before the first ``x[col[j]]``), in program order otherwise, and only then the rest, in program
    order.  So each load goes as early as its dependences allow, taking its address arithmetic with it, and
    the arithmetic that consumes loaded values follows them.  Returns positions into ``instrs``."""
    n = len(instrs)
    preds: list[set[int]] = [set() for _ in range(n)]
    raw: list[set[int]] = [set() for _ in range(n)]     # the predecessors whose values j reads
    last_write: dict[int, int] = {}
    reads_since: dict[int, list[int]] = {}
    mem: list[int] = []
    spaces = [MemSpace(i.mem_space) if i.mem_space else None for i in instrs]
    for j, ins in enumerate(instrs):
        p = preds[j]
        for r in ins.src_regs:
            if r in last_write:
                p.add(last_write[r])                                  # RAW
                raw[j].add(last_write[r])
        for r in ins.dst_regs:
            if r in last_write:
                p.add(last_write[r])                                  # WAW
            p.update(reads_since.get(r, ()))                          # WAR
        for r in ins.src_regs:
            reads_since.setdefault(r, []).append(j)
        for r in ins.dst_regs:
            last_write[r] = j
            reads_since[r] = []
        if spaces[j] in _ALIASES:
            for i in mem:
                o = instrs[i]
                if (o.is_store or ins.is_store) and spaces[i] in _ALIASES[spaces[j]]:
                    p.add(i)
            mem.append(j)
        p.discard(j)
    # Loads and everything they depend on within the segment go first; among them, those with the longest
    # chain of loads still to come (a load whose value addresses another load) before the rest.
    depth = [0] * n
    for j in range(n - 1, -1, -1):
        if instrs[j].is_load and not instrs[j].is_store:
            depth[j] += 1
        for i in preds[j]:
            if depth[j] > depth[i] and i in raw[j]:
                depth[i] = depth[j]
    urgent = [False] * n
    for j in range(n - 1, -1, -1):
        if instrs[j].is_load and not instrs[j].is_store:
            urgent[j] = True
        if urgent[j]:
            for i in preds[j]:
                urgent[i] = True
    succs: list[list[int]] = [[] for _ in range(n)]
    waiting = [len(p) for p in preds]
    for j, p in enumerate(preds):
        for i in p:
            succs[i].append(j)

    # A global or local loaded value is live from its load until its last reader in the segment issues;
    # with MAX_LIVE_LOADS of them live, the next such load waits while any other instruction is ready.
    is_load = [bool(i.is_load and not i.is_store and i.mem_space in _LIVE_LIMITED) for i in instrs]
    readers = [0] * n
    for j in range(n):
        for i in raw[j]:
            readers[i] += 1
    live = 0

    def key(j):
        return (not urgent[j], -depth[j] if urgent[j] else 0, j)
    loads: list[tuple] = []
    others: list[tuple] = []
    for j in range(n):
        if waiting[j] == 0:
            (loads if is_load[j] else others).append(key(j))
    heapq.heapify(loads)
    heapq.heapify(others)
    order: list[int] = []
    while loads or others:
        if others and (not loads or live >= MAX_LIVE_LOADS or others[0] < loads[0]):
            j = heapq.heappop(others)[2]
        else:
            j = heapq.heappop(loads)[2]
        order.append(j)
        if is_load[j] and readers[j]:
            live += 1
        for i in raw[j]:
            readers[i] -= 1
            if readers[i] == 0 and is_load[i]:
                live -= 1
        for k in succs[j]:
            waiting[k] -= 1
            if waiting[k] == 0:
                heapq.heappush(loads if is_load[k] else others, key(k))
    return order


def static_schedule(trace: KernelTrace) -> dict[int, list[int]]:
    """Per basic block, the issue order of the hoisting scheduler: ``{first pc: [pc, ...]}`` for every
    straight-line segment whose order changes.  Segments end at block leaders and fences, and a fence
    stays where it is.  An if-converted branch (``if_converted``) is neither: ptxas schedules the predicated
    body with the code around it (a segment runs through it, and leaves out its PC, which no row issues)."""
    instrs = trace.instructions
    n = len(instrs)
    bounds = [*_block_leaders(trace, through_if_converted=True).tolist(), n]
    out: dict[int, list[int]] = {}
    for b in range(len(bounds) - 1):
        seg: list[int] = []
        for pc in range(bounds[b], bounds[b + 1] + 1):
            if pc < bounds[b + 1] and instrs[pc].if_converted:
                continue
            if pc == bounds[b + 1] or _is_fence(instrs[pc]):
                if len(seg) > 1:
                    perm = hoist_permutation([instrs[p] for p in seg])
                    if perm != sorted(perm):
                        out[seg[0]] = [seg[k] for k in perm]
                seg = []
            else:
                seg.append(pc)
    return out


def schedule_rows(trace: KernelTrace, schedule: str) -> tuple[np.ndarray, np.ndarray]:
    """The per-row PCs and memory slots in the order the warps issue them under ``schedule``.

    ``"ptx"``: program order (the trace as recorded).  ``"hoist"``: every dynamic execution of a
    rescheduled segment (its PCs on consecutive rows of one warp) is permuted by the segment's static
    order (:func:`static_schedule`); a memory slot stays with its instruction.  Functional results do not
    change: the trace already holds every lane's addresses and values.

    Why: ptxas schedules SASS, and in particular hoists independent loads above the arithmetic that
    consumes earlier loads (an unrolled loop's loads are all in flight before the first FMA waits), while
    the PTX lists each load next to its use; issuing PTX in program order makes an in-order warp wait one
    memory round trip per use.  Simplifications: only loads move (ptxas also moves arithmetic and
    interleaves for latency); it does not model the register pressure that limits ptxas.
    """
    pc = np.asarray(trace.pc, dtype=np.int64)
    slot = np.asarray(trace.mem_slot, dtype=np.int64)
    if schedule == "ptx":
        return pc, slot
    if schedule != "hoist":
        raise ConfigError(f"instruction_schedule: expected one of {', '.join(SCHEDULES)}, got {schedule!r}")
    segs = static_schedule(trace)
    if not segs or pc.size == 0:
        return pc, slot
    rows = pc.size
    warp_of = np.zeros(rows, dtype=np.int64)
    starts = np.asarray(trace.warp_start, dtype=np.int64)
    warp_of[starts[1:-1][starts[1:-1] < rows]] = 1
    warp_of = np.cumsum(warp_of)
    # PCs counted without the if-converted branches (no row issues one), so that a segment running through
    # one is consecutive
    issued = np.array([not i.if_converted for i in trace.instructions], dtype=np.int64)
    cpc = (np.cumsum(issued) - 1)[pc]
    step = np.zeros(rows, dtype=np.int64)
    step[1:] = (cpc[1:] == cpc[:-1] + 1) & (warp_of[1:] == warp_of[:-1])
    run = np.concatenate(([0], np.cumsum(step)))        # run[j] - run[i] == j - i: rows i..j consecutive
    order = np.arange(rows, dtype=np.int64)
    for first, perm in segs.items():
        length = len(perm)
        cand = np.flatnonzero(pc == first)
        cand = cand[cand + length <= rows]
        cand = cand[run[cand + length] - run[cand + 1] == length - 1]
        if cand.size == 0:
            continue
        offs = np.searchsorted(np.sort(perm), np.asarray(perm, dtype=np.int64))
        order[cand[:, None] + np.arange(length)] = cand[:, None] + offs[None, :]
    return pc[order], slot[order]
