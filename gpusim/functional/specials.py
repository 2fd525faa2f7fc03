"""Special registers (``%tid``, ``%ctaid``, ``%laneid``, ``%lanemask_lt`` ...) of one batch of blocks.

Per-thread registers are arrays over the batch's lanes, launch-wide ones scalars (read by
:func:`gpusim.functional.operands.reader`).  Simplifications: the batch runs on "SM 0" of one
(``%smid 0``, ``%nsmid 1``), ``%warpid`` is the warp's index in its block, ``%clock``/``%clock64`` count the
emulator's steps and ``%globaltimer`` (nanoseconds) counts them too (updated by the emulator at every step:
they increase, as a program measuring elapsed time expects, but are not a time); a block is a cluster of one.
"""
from __future__ import annotations

import numpy as np


def special_registers(n_lanes: int, lanes_per_block: int, block0: int, grid: tuple, block: tuple,
                      shared_total: int, shared_static: int) -> dict:
    """The special registers of lanes ``0..n_lanes-1`` of a batch whose first block is ``block0``."""
    lane = np.arange(n_lanes, dtype=np.int64)
    tl = lane % lanes_per_block
    blk = block0 + lane // lanes_per_block
    bx, by, bz = block
    gx, gy, gz = grid
    u32 = np.uint32
    eq = u32(1) << (lane & 31).astype(u32)
    lt = eq - u32(1)
    return {
        "%tid.x": (tl % bx).astype(u32), "%tid.y": ((tl // bx) % by).astype(u32),
        "%tid.z": (tl // (bx * by)).astype(u32),
        "%ntid.x": u32(bx), "%ntid.y": u32(by), "%ntid.z": u32(bz),
        "%ctaid.x": (blk % gx).astype(u32), "%ctaid.y": ((blk // gx) % gy).astype(u32),
        "%ctaid.z": (blk // (gx * gy)).astype(u32),
        "%nctaid.x": u32(gx), "%nctaid.y": u32(gy), "%nctaid.z": u32(gz),
        "%laneid": (lane & 31).astype(u32), "%warpid": ((tl // 32) % 64).astype(u32),
        "%nwarpid": u32(64), "%smid": u32(0), "%nsmid": u32(1), "%gridid": np.uint64(1),
        "%lanemask_eq": eq, "%lanemask_lt": lt, "%lanemask_le": lt | eq, "%lanemask_gt": ~(lt | eq),
        "%lanemask_ge": ~lt,
        "%clock": u32(0), "%clock64": np.uint64(0), "%globaltimer": np.uint64(0),
        "%dynamic_smem_size": u32(max(shared_total - shared_static, 0)),
        "%total_smem_size": u32(shared_total), "%aggr_smem_size": u32(shared_total),
        "%globaltimer_lo": u32(0), "%globaltimer_hi": u32(0),
        "%reserved_smem_offset_begin": u32(0), "%reserved_smem_offset_end": u32(0),
        "%reserved_smem_offset_cap": u32(0),
        # a launch without cluster dimensions: every block is a cluster of one
        "%nclusterid.x": u32(gx), "%nclusterid.y": u32(gy), "%nclusterid.z": u32(gz),
        "%clusterid.x": (blk % gx).astype(u32), "%clusterid.y": ((blk // gx) % gy).astype(u32),
        "%clusterid.z": (blk // (gx * gy)).astype(u32),
        "%cluster_ctaid.x": u32(0), "%cluster_ctaid.y": u32(0), "%cluster_ctaid.z": u32(0),
        "%cluster_nctaid.x": u32(1), "%cluster_nctaid.y": u32(1), "%cluster_nctaid.z": u32(1),
        "%cluster_ctarank": u32(0), "%cluster_nctarank": u32(1), "%is_explicit_cluster": np.bool_(False),
        "%warpid_in_cluster": ((tl // 32) % 64).astype(u32),
    }
