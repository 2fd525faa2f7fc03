"""Decode a kernel's static instructions once into flat per-PC lists for the timing model's hot loop.

The hot loop must not hash strings or touch enums per dynamic instruction, so everything it needs about a
PC is looked up here, once per kernel, and stored as Python ints and tuples indexed by PC: which pipe the
instruction goes to and its issue interval, its result latency and which scoreboard (stall state) guards
its result, the stall state while its pipe is busy, and what kind of instruction it is (ALU, memory,
branch, barrier, memory barrier, exit).
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import ConfigError
from gpusim.functional.trace import MEM_SPACES, KernelTrace, StaticInstr
from gpusim.stats.stall_reasons import StallReason
from isa.units import LatencyClass, Unit

# What the issue stage does with an instruction (ints: the hot loop compares them).
OP_ALU, OP_MEM, OP_BRANCH, OP_BARRIER, OP_MEMBAR, OP_EXIT = range(6)

# Pipes of each sub-partition. A memory instruction needs its SMSP's LSU pipe (8 LD/ST lanes on H100: one
# warp instruction per 4 cycles) and also the SM's L1TEX/MIO path, shared by the four SMSPs, which the
# memory system keeps busy for as long as the access needs (more wavefronts for conflicts, more sectors).
SMSP_PIPES: tuple[Unit, ...] = (Unit.LSU, Unit.FP32, Unit.INT, Unit.FP64, Unit.SFU, Unit.BRANCH, Unit.MISC)
LSU_PIPE = 0

_LONG_SPACES = ("global", "local", "generic")


class DecodedKernel:
    """Per-PC static timing facts of one kernel on one GPU config, as flat lists indexed by PC.

    Simplifications: an instruction's issue interval depends only on its unit (IMAD uses the config's
    ``imad_issue_interval_cycles``); a memory instruction's result latency comes from the memory system at
    issue time, so ``latency_cycles`` of a memory PC is only used when no lane accessed memory.
    """

    __slots__ = ("deps", "dsts", "pipe", "interval_cycles", "latency_cycles", "result_state", "op",
                 "throttle_state", "is_store", "n_regs", "branch_latency_cycles", "barrier_latency_cycles",
                 "membar_latency_cycles", "slot_state", "issue_info")

    def __init__(self, trace: KernelTrace, gpu) -> None:
        instrs = trace.instructions
        n = len(instrs)
        self.deps: list[tuple[int, ...]] = [()] * n
        self.dsts: list[tuple[int, ...]] = [()] * n
        self.pipe: list[int] = [0] * n
        self.interval_cycles: list[int] = [1] * n
        self.latency_cycles: list[int] = [1] * n
        self.result_state: list[int] = [int(StallReason.WAIT)] * n
        self.op: list[int] = [OP_ALU] * n
        self.throttle_state: list[int] = [int(StallReason.MATH_PIPE_THROTTLE)] * n
        self.is_store: list[bool] = [False] * n
        intervals = {u: max(1, int(gpu.issue_interval(u))) for u in Unit}
        imad_interval = max(1, int(gpu.imad_issue_interval_cycles))
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
            max_reg = max([max_reg, *ins.src_regs, *ins.dst_regs])
            self.latency_cycles[i] = latency(cls)
            if cls.is_long:
                self.result_state[i] = int(StallReason.LONG_SCOREBOARD)
            elif cls.is_variable:
                self.result_state[i] = int(StallReason.SHORT_SCOREBOARD)
            self.op[i] = _op_of(ins)
            self.is_store[i] = bool(ins.is_store or ins.is_atomic)
            self.pipe[i] = SMSP_PIPES.index(unit)
            self.interval_cycles[i] = imad_interval if cls is LatencyClass.IMAD else intervals[unit]
            if unit is Unit.LSU:
                self.throttle_state[i] = int(StallReason.LG_THROTTLE if (ins.mem_space in _LONG_SPACES)
                                             else StallReason.MIO_THROTTLE)
            elif unit is Unit.SFU:
                self.throttle_state[i] = int(StallReason.MIO_THROTTLE)
        # What issuing needs, as one tuple per PC: one list index and an unpack in the hot loop.
        self.issue_info: list[tuple] = list(zip(self.op, self.dsts, self.latency_cycles, self.result_state,
                                                self.pipe, self.interval_cycles, self.is_store))
        self.n_regs = max_reg + 1
        self.branch_latency_cycles = latency(LatencyClass.BRANCH)
        self.barrier_latency_cycles = latency(LatencyClass.BARRIER)
        self.membar_latency_cycles = latency(LatencyClass.MEMBAR)
        # Scoreboard of each memory access by its resolved space (a generic load may hit shared memory).
        long_ids = [MEM_SPACES.index(s) for s in ("global", "local")]
        self.slot_state: list[int] = np.where(np.isin(trace.mem_space, long_ids),
                                              int(StallReason.LONG_SCOREBOARD),
                                              int(StallReason.SHORT_SCOREBOARD)).tolist()


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
