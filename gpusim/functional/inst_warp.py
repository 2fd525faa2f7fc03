"""Warp-level operations: ``shfl vote activemask``.

They read other lanes of the same warp, so they work on ``[warps, 32]`` lane matrices.  ``shfl.sync``
(``.up/.down/.bfly/.idx``) reads register ``a`` of a source lane computed from ``b`` and the clamp/segment
operand ``c`` (a lane outside the segment reads its own value, and the optional predicate destination is
false); ``vote.sync`` ``.all/.any/.uni`` reduce a predicate over the executing lanes, ``.ballot`` returns
their mask; ``activemask`` the warp's active mask.  The member-mask operands are read but not checked
against the executing lanes (a kernel that names lanes that do not arrive is undefined on the GPU too).
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.operands import reader, writer
from gpusim.functional.registry import semantics
from isa.program import Instruction, Reg


@semantics("shfl")
def build_shfl(ins: Instruction, ctx):
    (mode,) = [m for m in ins.mods if m in ("up", "down", "bfly", "idx")]
    ra = reader(ins.operands[1], "b32", ctx)
    rb = reader(ins.operands[2], "b32", ctx)
    rc = reader(ins.operands[3], "b32", ctx)
    w = writer(ins.operands[0], "b32")
    wp = writer(ins.pred_out, "pred") if ins.pred_out is not None else None
    a_op = ins.operands[1]

    def h_shfl(fr, st):
        sel = st.sel
        lanes = st.lane_ids(fr)
        lane = (lanes & 31).astype(np.int64)
        bval = np.asarray(rb(fr, sel)).astype(np.int64) & 31
        c = np.asarray(rc(fr, sel)).astype(np.int64)
        segmask = (c >> 8) & 31
        max_lane = (lane & segmask) | (c & 31 & ~segmask)
        min_lane = lane & segmask
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            ok = j <= max_lane
        src = np.where(ok, (lanes - lane) + j, lanes)
        if isinstance(a_op, Reg):
            val = fr.regs[a_op.id][src]
        else:
            val = np.broadcast_to(np.asarray(ra(fr, sel)), src.shape)
        w(fr, sel, val)
        if wp is not None:
            wp(fr, sel, ok)
    return h_shfl


@semantics("vote")
def build_vote(ins: Instruction, ctx):
    (mode,) = [m for m in ins.mods if m in ("all", "any", "uni", "ballot")]
    rp = ins.operands[1]
    rm = reader(ins.operands[2], "b32", ctx)
    w = writer(ins.operands[0], "b32" if mode == "ballot" else "pred")
    rpr = reader(rp, "pred", ctx)

    def h_vote(fr, st):
        E = st.exec_matrix()
        if isinstance(rp, Reg):
            P = fr.regs[rp.id][(st.selw * 32)[:, None] + np.arange(32)]
        else:
            P = np.broadcast_to(np.asarray(rpr(fr, slice(None))), E.shape)
        member = np.asarray(rm(fr, st.sel))
        ballot = np.packbits(P & E, axis=1, bitorder="little").view("<u4")[:, 0]
        if mode == "ballot":
            per_warp = ballot
        elif mode == "any":
            per_warp = ballot != 0
        elif mode == "all":
            per_warp = ballot == st.exe
        else:
            per_warp = (ballot == 0) | (ballot == st.exe)
        vals = np.broadcast_to(per_warp[:, None], E.shape)[E]
        if mode == "ballot" and member.ndim == 0:
            vals = vals & member
        w(fr, st.sel, vals)
    return h_vote


@semantics("activemask")
def build_activemask(ins: Instruction, ctx):
    w = writer(ins.operands[0], "b32")

    def h_active(fr, st):
        E = st.exec_matrix()
        w(fr, st.sel, np.broadcast_to(st.act[:, None], E.shape)[E])
    return h_active
