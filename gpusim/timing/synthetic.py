"""Hand-built kernel traces: small programs written as lists of instruction kinds, for datasheet-style tests
of the timing model and for benchmarks, without the PTX parser or the functional emulator.

    >>> prog = [ins("fma", dst=[1], src=[1, 2]) for _ in range(8)] + [ins("exit")]
    >>> trace = make_trace(prog, n_blocks=1, warps_per_block=1)      # every warp runs pcs 0..8 in order

A trace records control flow as the sequence of PCs each warp issued; pass ``warp_pcs`` to give each warp
its own path (loops, both sides of a divergent if/else).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from gpusim.errors import GpusimError
from gpusim.functional.trace import KernelTrace, StaticInstr
from isa.units import LatencyClass as L
from isa.units import MemSpace
from isa.units import Unit as U

FULL_MASK = 0xFFFFFFFF

# kind -> StaticInstr fields (the PTX opcode is representative only).
KINDS: dict[str, dict] = {
    "fma": dict(opcode="fma.rn.f32", unit=U.FP32.value, latency_class=L.FMA.value),
    "alu": dict(opcode="add.s32", unit=U.INT.value, latency_class=L.ALU.value),
    "imad": dict(opcode="mad.lo.s32", unit=U.INT.value, latency_class=L.IMAD.value),
    "dfma": dict(opcode="fma.rn.f64", unit=U.FP64.value, latency_class=L.FP64.value),
    "sfu": dict(opcode="ex2.approx.f32", unit=U.SFU.value, latency_class=L.SFU.value),
    "ld.global": dict(opcode="ld.global.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                      mem_space=MemSpace.GLOBAL.value, access_bytes=4, is_load=True),
    "ld.global.v4": dict(opcode="ld.global.v4.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                         mem_space=MemSpace.GLOBAL.value, access_bytes=16, is_load=True),
    "ld.global.v2": dict(opcode="ld.global.v2.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                         mem_space=MemSpace.GLOBAL.value, access_bytes=8, is_load=True),
    "ld.global.cg": dict(opcode="ld.global.cg.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                         mem_space=MemSpace.GLOBAL.value, access_bytes=4, is_load=True, cache_op=".cg"),
    "ld.global.v2.cg": dict(opcode="ld.global.cg.v2.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                            mem_space=MemSpace.GLOBAL.value, access_bytes=8, is_load=True, cache_op=".cg"),
    "ld.global.v4.cg": dict(opcode="ld.global.cg.v4.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                            mem_space=MemSpace.GLOBAL.value, access_bytes=16, is_load=True, cache_op=".cg"),
    "st.global.v2": dict(opcode="st.global.v2.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                         mem_space=MemSpace.GLOBAL.value, access_bytes=8, is_store=True),
    "st.global.v4": dict(opcode="st.global.v4.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                         mem_space=MemSpace.GLOBAL.value, access_bytes=16, is_store=True),
    "red.add.u32": dict(opcode="red.global.add.u32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                        mem_space=MemSpace.GLOBAL.value, access_bytes=4, is_atomic=True),
    "red.add.f32": dict(opcode="red.global.add.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                        mem_space=MemSpace.GLOBAL.value, access_bytes=4, is_atomic=True),
    "atom.add.u32": dict(opcode="atom.global.add.u32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                         mem_space=MemSpace.GLOBAL.value, access_bytes=4, is_atomic=True),
    "atom.add.f32": dict(opcode="atom.global.add.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                         mem_space=MemSpace.GLOBAL.value, access_bytes=4, is_atomic=True),
    "st.global": dict(opcode="st.global.f32", unit=U.LSU.value, latency_class=L.GLOBAL.value,
                      mem_space=MemSpace.GLOBAL.value, access_bytes=4, is_store=True),
    "ld.shared": dict(opcode="ld.shared.f32", unit=U.LSU.value, latency_class=L.SHARED.value,
                      mem_space=MemSpace.SHARED.value, access_bytes=4, is_load=True),
    "st.shared": dict(opcode="st.shared.f32", unit=U.LSU.value, latency_class=L.SHARED.value,
                      mem_space=MemSpace.SHARED.value, access_bytes=4, is_store=True),
    "bra": dict(opcode="bra", unit=U.BRANCH.value, latency_class=L.BRANCH.value, is_branch=True),
    "bar": dict(opcode="bar.sync", unit=U.MISC.value, latency_class=L.BARRIER.value, is_barrier=True),
    "membar": dict(opcode="membar.gl", unit=U.MISC.value, latency_class=L.MEMBAR.value, is_membar=True),
    "exit": dict(opcode="ret", unit=U.BRANCH.value, latency_class=L.NONE.value, is_exit=True),
}


def ins(kind: str, dst: Sequence[int] = (), src: Sequence[int] = ()) -> dict:
    """One static instruction of ``kind`` (a key of :data:`KINDS`) writing ``dst`` and reading ``src``."""
    if kind not in KINDS:
        raise GpusimError(f"synthetic instruction kind {kind!r} unknown; known: {', '.join(KINDS)}")
    return dict(KINDS[kind], dst_regs=tuple(dst), src_regs=tuple(src))


def make_trace(program: Sequence[dict], *, n_blocks: int = 1, warps_per_block: int = 1,
               warp_pcs: Sequence[Sequence[int]] | None = None,
               warp_masks: Sequence[Sequence[int]] | None = None, kernel: str = "synthetic",
               regs_per_thread: int | None = 32, shared_bytes: int = 0,
               addresses: np.ndarray | None = None) -> KernelTrace:
    """A :class:`KernelTrace` of ``n_blocks`` blocks of ``warps_per_block`` full warps running ``program``.

    ``warp_pcs[w]``: the PCs warp ``w`` issues, in order (default: every PC once, in order);
    ``warp_masks[w]``: the active mask of each of those instructions (default: all 32 lanes). Memory
    instructions get one unit-stride 4-byte access per active lane (fully coalesced), at an address that
    differs per warp and per access so a cache model sees distinct lines; or, with ``addresses`` (int64
    [memory instructions, 32], in trace order: warp 0's memory instructions first, -1 = no access), the
    addresses given (inactive lanes are still -1).
    """
    instrs = [StaticInstr(pc=i, ptx_line=i + 1, **fields) for i, fields in enumerate(program)]
    n_warps = n_blocks * warps_per_block
    if warp_pcs is None:
        warp_pcs = [list(range(len(instrs)))] * n_warps
    if len(warp_pcs) != n_warps:
        raise GpusimError(f"warp_pcs has {len(warp_pcs)} paths for {n_warps} warps")
    lengths = [len(p) for p in warp_pcs]
    pc = np.fromiter((p for path in warp_pcs for p in path), dtype=np.int32, count=sum(lengths))
    if warp_masks is None:
        active = np.full(pc.shape, FULL_MASK, dtype=np.uint32)
    else:
        active = np.fromiter((m for ms in warp_masks for m in ms), dtype=np.uint32, count=sum(lengths))
    is_mem = np.array([i.mem_space is not None for i in instrs], dtype=bool)
    mem_rows = np.flatnonzero(is_mem[pc])
    mem_slot = np.full(pc.shape, -1, dtype=np.int32)
    mem_slot[mem_rows] = np.arange(len(mem_rows), dtype=np.int32)
    space_of_pc = np.array([MemSpace(i.mem_space).code if i.mem_space else 0 for i in instrs],
                           dtype=np.uint8)
    lanes = np.arange(32, dtype=np.int64)
    if addresses is None:
        addresses = (mem_rows.astype(np.int64)[:, None] * 128 + lanes[None, :] * 4)
    else:
        addresses = np.asarray(addresses, dtype=np.int64)
        if addresses.shape != (len(mem_rows), 32):
            raise GpusimError(f"addresses has shape {addresses.shape}; the trace has {len(mem_rows)} memory "
                              f"instructions of 32 lanes")
    lane_on = ((active[mem_rows][:, None] >> lanes[None, :].astype(np.uint32)) & 1).astype(bool)
    addresses = np.where(lane_on, addresses, -1)
    warp_start = np.zeros(n_warps + 1, dtype=np.int64)
    warp_start[1:] = np.cumsum(lengths)
    return KernelTrace(
        kernel=kernel, grid=(n_blocks, 1, 1), block=(32 * warps_per_block, 1, 1), shared_bytes=shared_bytes,
        regs_per_thread=regs_per_thread, instructions=instrs,
        warp_block=np.repeat(np.arange(n_blocks, dtype=np.int32), warps_per_block),
        warp_in_block=np.tile(np.arange(warps_per_block, dtype=np.int32), n_blocks),
        warp_start=warp_start, pc=pc, active_mask=active, exec_mask=active.copy(), mem_slot=mem_slot,
        addresses=addresses, mem_space=space_of_pc[pc[mem_rows]],
    )
