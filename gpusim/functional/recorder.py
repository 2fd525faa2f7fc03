"""The trace recorder: builds a :class:`~gpusim.functional.trace.KernelTrace` while the emulator runs.

At every step (one PC executed by a set of warps of a batch) :meth:`TraceRecorder.record` keeps the PC, the
warps, their active and executing masks, and, for memory instructions, the lanes' state-space addresses the
step left behind (``st.addr``, one per executing lane; ``st.space``, the :class:`isa.units.MemSpace` code).
Nothing is converted per step: steps are buffered as the numpy arrays they are (plain lists, flushed per
batch), and :meth:`TraceRecorder.finish` lays them out once, grouped by warp in issue order (the trace's CSR
layout), each memory step becoming one ``addresses`` row per warp (``[32]`` lanes, -1 for lanes that did not
access).
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.trace import KernelTrace, StaticInstr
from isa.opcodes import TYPE_BITS
from isa.program import Instruction

CACHE_OPS = ("ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt")
_MEMORY_OPS = ("ld", "st", "atom", "red", "ldu", "st.async", "red.async")


def static_instruction(ins: Instruction) -> StaticInstr:
    """What the timing model needs to know of one PC (see :class:`StaticInstr`).

    Device-function parameter moves (``ld/st.param`` of a call sequence) are register moves (the ABI passes
    parameters in registers); ``cp.async`` is a global load (its shared-memory write is not timed); a
    device function's ``call`` and ``ret`` are branches."""
    if ins.frame_param:
        return StaticInstr(pc=ins.pc, opcode=ins.opcode, unit="int", latency_class="alu",
                           dst_regs=tuple(r.id for r in ins.regs_written()),
                           src_regs=tuple(r.id for r in ins.regs_read()), ptx_line=ins.line,
                           src_file=ins.src_file, src_line=ins.src_line)
    if ins.base == "mbarrier" or (ins.base == "cp.async" and "mbarrier" in ins.mods):
        # an atomic update (or read) of the 8-byte barrier object in shared memory
        return StaticInstr(pc=ins.pc, opcode=ins.opcode, unit=ins.unit.value, latency_class=ins.latency_class.value,
                           dst_regs=tuple(r.id for r in ins.regs_written()),
                           src_regs=tuple(r.id for r in ins.regs_read()), mem_space="shared", access_bytes=8,
                           is_load=True, is_atomic="wait" not in " ".join(ins.mods) and "pending_count" not in ins.mods,
                           ptx_line=ins.line, src_file=ins.src_file, src_line=ins.src_line)
    if ins.base == "cp.async" and ins.space is not None:
        size = int(ins.operands[2].value) if len(ins.operands) > 2 and hasattr(ins.operands[2], "value") else 16
        return StaticInstr(pc=ins.pc, opcode=ins.opcode, unit=ins.unit.value, latency_class=ins.latency_class.value,
                           src_regs=tuple(r.id for r in ins.regs_read()), mem_space="global", access_bytes=size,
                           is_load=True, cache_op=next(("." + m for m in ins.mods if m in CACHE_OPS), None),
                           ptx_line=ins.line, src_file=ins.src_file, src_line=ins.src_line)
    mem = ins.base in _MEMORY_OPS
    elem = max(1, TYPE_BITS.get(ins.type or "b32", 32) // 8) if mem else 0
    return StaticInstr(
        pc=ins.pc, opcode=ins.opcode, unit=ins.unit.value, latency_class=ins.latency_class.value,
        dst_regs=tuple(r.id for r in ins.regs_written()), src_regs=tuple(r.id for r in ins.regs_read()),
        mem_space=ins.space if mem else None, access_bytes=elem * ins.vec if mem else 0,
        is_load=ins.base in ("ld", "ldu", "atom"), is_store=ins.base in ("st", "red", "st.async", "red.async"),
        is_atomic=ins.base in ("atom", "red", "red.async"),
        cache_op=next(("." + m for m in ins.mods if m in CACHE_OPS), None) if mem else None,
        is_barrier=ins.base in ("bar", "barrier") and "warp" not in ins.mods,
        is_membar=ins.base in ("membar", "fence"),
        is_branch=ins.base in ("bra", "brx", "call") or (ins.base == "ret" and ins.target >= 0),
        # brx.idx has a table of targets, which this one field cannot hold: -1 makes the hoisting
        # scheduler take the targets such a kernel's trace shows (timing.decode._block_leaders)
        branch_target=ins.target if ins.base in ("bra", "call", "ret") and ins.target >= 0 else -1,
        is_exit=ins.base in ("exit", "trap") or (ins.base == "ret" and ins.target < 0), ptx_line=ins.line,
        src_file=ins.src_file, src_line=ins.src_line)


class _Batch:
    """The steps of one batch, as recorded."""

    __slots__ = ("first_warp", "n_warps", "pc", "warps", "active", "executing", "mem_step", "addr", "space")

    def __init__(self, first_warp: int, n_warps: int):
        self.first_warp, self.n_warps = first_warp, n_warps
        self.pc: list[int] = []
        self.warps: list[np.ndarray] = []
        self.active: list[np.ndarray] = []
        self.executing: list[np.ndarray] = []
        self.mem_step: list[int] = []           # step index of each memory step
        self.addr: list[np.ndarray] = []        # its [warps, 32] address rows
        self.space: list[int] = []              # its MemSpace code


class TraceRecorder:
    """Records the steps of a launch's batches (in order) and assembles the kernel trace."""

    def __init__(self) -> None:
        self._batches: list[_Batch] = []
        self._cur: _Batch | None = None

    def begin_batch(self, first_warp: int, n_warps: int) -> None:
        """Warps ``first_warp .. first_warp + n_warps - 1`` of the launch run next (batch-local ids from 0)."""
        self._cur = _Batch(first_warp, n_warps)
        self._batches.append(self._cur)

    def record(self, st) -> None:
        """One step: ``st.pc`` executed by warps ``st.selw`` with masks ``st.act``/``st.exe``."""
        b = self._cur
        b.pc.append(st.pc)
        b.warps.append(st.selw)
        b.active.append(st.act)
        b.executing.append(st.exe)
        if st.addr is not None:
            E = st.exec_matrix()
            rows = np.full(E.shape, -1, dtype=np.int64)
            rows[E] = st.addr
            b.mem_step.append(len(b.pc) - 1)
            b.addr.append(rows)
            b.space.append(st.space)

    def finish(self, *, kernel: str, grid, block, shared_bytes: int, regs_per_thread, n_blocks: int,
               warps_per_block: int, instructions: list[StaticInstr], meta: dict,
               local_bytes_per_thread: int | None = None) -> KernelTrace:
        """Lay the recorded steps out as a :class:`KernelTrace` (rows grouped by warp, in issue order)."""
        pcs, warps, acts, exes, slots, addrs, spaces = [], [], [], [], [], [], []
        m_base = 0
        for b in self._batches:
            counts = np.array([len(w) for w in b.warps], dtype=np.int64)
            pcs.append(np.repeat(np.array(b.pc, dtype=np.int32), counts))
            warps.append(np.concatenate(b.warps).astype(np.int64) + b.first_warp if b.warps
                         else np.zeros(0, np.int64))
            acts.append(np.concatenate(b.active) if b.active else np.zeros(0, np.uint32))
            exes.append(np.concatenate(b.executing).astype(np.uint32) if b.executing else np.zeros(0, np.uint32))
            slot = np.full(counts.sum(), -1, dtype=np.int64)
            if b.mem_step:
                starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
                rows = np.concatenate([np.arange(starts[s], starts[s] + counts[s]) for s in b.mem_step])
                slot[rows] = np.arange(rows.size) + m_base
                addrs.append(np.concatenate(b.addr))
                sizes = np.array([a.shape[0] for a in b.addr], dtype=np.int64)
                spaces.append(np.repeat(np.array(b.space, dtype=np.uint8), sizes))
                m_base += rows.size
            slots.append(slot)
        pc_all = np.concatenate(pcs) if pcs else np.zeros(0, np.int32)
        w_all = np.concatenate(warps) if warps else np.zeros(0, np.int64)
        order = np.argsort(w_all, kind="stable")
        n_warps = n_blocks * warps_per_block
        per_warp = np.bincount(w_all, minlength=n_warps)
        return KernelTrace(
            kernel=kernel, grid=grid, block=block, shared_bytes=int(shared_bytes), regs_per_thread=regs_per_thread,
            instructions=instructions,
            warp_block=(np.arange(n_warps) // warps_per_block).astype(np.int32),
            warp_in_block=(np.arange(n_warps) % warps_per_block).astype(np.int32),
            warp_start=np.concatenate(([0], np.cumsum(per_warp))).astype(np.int64),
            pc=pc_all[order].astype(np.int32),
            active_mask=np.concatenate(acts)[order].astype(np.uint32) if acts else np.zeros(0, np.uint32),
            exec_mask=np.concatenate(exes)[order].astype(np.uint32) if exes else np.zeros(0, np.uint32),
            mem_slot=np.concatenate(slots)[order].astype(np.int32) if slots else np.zeros(0, np.int32),
            addresses=np.concatenate(addrs) if addrs else np.zeros((0, 32), np.int64),
            mem_space=np.concatenate(spaces) if spaces else np.zeros(0, np.uint8),
            meta=meta, local_bytes_per_thread=local_bytes_per_thread,
        )
