"""Warp-level operations: ``shfl vote activemask redux match elect``.

They read other lanes of the same warp, so they work on ``[warps, 32]`` lane matrices.  ``shfl.sync``
(``.up/.down/.bfly/.idx``) reads register ``a`` of a source lane computed from ``b`` and the clamp/segment
operand ``c`` (a lane outside the segment reads its own value, and the optional predicate destination is
false); ``vote.sync`` ``.all/.any/.uni`` reduce a predicate over the executing lanes, ``.ballot`` returns
their mask; ``activemask`` the warp's active mask.  The member-mask operands are read but not checked
against the executing lanes here (a kernel that names lanes that do not arrive is undefined on the GPU
too); the checker's synccheck (:mod:`gpusim.check.synccheck`) checks them.
The forms without ``.sync`` (``vote.any.pred``, ``shfl.idx.b32``, sm_6x and older) act on the active lanes.
``redux.sync`` reduces over the executing lanes (``.add .min .max`` u32/s32, ``.and .or .xor`` b32, f32
``.min .max`` with ``.abs``/``.NaN``); ``match.any`` gives each lane the mask of lanes holding its value,
``match.all`` the member mask when all agree (``d|p``); ``elect.sync`` elects the lowest executing lane.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.operands import DT, reader, writer
from gpusim.functional.registry import semantics
from isa.opcodes import TYPE_BITS
from isa.program import Instruction, Reg


@semantics("shfl")
def build_shfl(ins: Instruction, ctx):
    (mode,) = [m for m in ins.mods if m in ("up", "down", "bfly", "idx")]
    ra = reader(ins.operands[1], "b32", ctx)
    rb = reader(ins.operands[2], "b32", ctx)
    rc = reader(ins.operands[3], "b32", ctx)
    w = writer(ins.operands[0], "b32") if ins.operands[0] is not None else (lambda fr, sel, v: None)
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
    rm = reader(ins.operands[2], "b32", ctx) if len(ins.operands) > 2 else (lambda fr, sel: np.uint32(0xFFFFFFFF))
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


def _lane_matrix(fr, st, op, t, ctx):
    """Operand ``op`` of every lane of the executing warps as a ``[warps, 32]`` matrix (type t)."""
    rows = (st.selw * 32)[:, None] + np.arange(32)
    if isinstance(op, Reg):
        return fr.regs[op.id][rows].view(DT[t]) if TYPE_BITS[t] == op.bits else \
            fr.regs[op.id][rows].astype(DT[t])
    v = reader(op, t, ctx)(fr, slice(None))
    return np.broadcast_to(np.asarray(v).astype(DT[t]), rows.shape)


@semantics("redux")
def build_redux(ins: Instruction, ctx):
    (op,) = [m for m in ins.mods if m in ("add", "min", "max", "and", "or", "xor")]
    t = ins.type
    w = writer(ins.operands[0], t)
    src = ins.operands[1]
    absval, nan = "abs" in ins.mods, "NaN" in ins.mods

    def h_redux(fr, st):
        E = st.exec_matrix()
        V = _lane_matrix(fr, st, src, t, ctx)
        if t == "f32":
            X = np.where(E, np.abs(V) if absval else V, np.nan).astype(np.float32)
            with np.errstate(all="ignore"):
                r = np.nanmin(X, axis=1) if op == "min" else np.nanmax(X, axis=1)
            if nan:
                r = np.where(np.isnan(np.where(E, V, 0)).any(axis=1), np.float32(np.nan), r)
            per_warp = r.astype(np.float32)
        elif op == "add":
            per_warp = np.where(E, V.astype(np.int64), 0).sum(axis=1).astype(np.uint64).astype(np.uint32).view(DT[t])
        elif op in ("min", "max"):
            info = np.iinfo(DT[t])
            fill = info.max if op == "min" else info.min
            X = np.where(E, V, DT[t](fill))
            per_warp = X.min(axis=1) if op == "min" else X.max(axis=1)
        else:
            X = np.where(E, V, DT[t](0 if op in ("or", "xor") else 0xFFFFFFFF))
            f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
            per_warp = f.reduce(X, axis=1)
        w(fr, st.sel, np.broadcast_to(np.asarray(per_warp)[:, None], E.shape)[E])
    return h_redux


@semantics("match")
def build_match(ins: Instruction, ctx):
    t = ins.type
    d = ins.operands[0]
    w = writer(d, "b32") if d is not None else None
    wp = writer(ins.pred_out, "pred") if ins.pred_out is not None else None
    every = "all" in ins.mods
    src = ins.operands[1]

    def h_match(fr, st):
        E = st.exec_matrix()
        V = _lane_matrix(fr, st, src, t, ctx)
        same = (V[:, :, None] == V[:, None, :]) & E[:, None, :]          # [warp, lane, other lane]
        masks = np.packbits(same, axis=2, bitorder="little").view("<u4")[:, :, 0]
        exe = st.exe[:, None]
        if every:
            equal = masks == exe
            alls = equal.all(axis=1, where=E) if E.any() else np.zeros(E.shape[0], bool)
            val = np.where(alls[:, None], exe, np.uint32(0))
            val = np.broadcast_to(val, E.shape)
            if w is not None:
                w(fr, st.sel, val[E])
            if wp is not None:
                wp(fr, st.sel, np.broadcast_to(alls[:, None], E.shape)[E])
        else:
            if w is not None:
                w(fr, st.sel, masks[E])
    return h_match


@semantics("elect")
def build_elect(ins: Instruction, ctx):
    d = ins.operands[0]
    w = writer(d, "b32") if d is not None else None
    wp = writer(ins.pred_out, "pred") if ins.pred_out is not None else None

    def h_elect(fr, st):
        E = st.exec_matrix()
        leader = np.argmax(E, axis=1)                    # the lowest executing lane
        if w is not None:
            w(fr, st.sel, np.broadcast_to(leader.astype(np.uint32)[:, None], E.shape)[E])
        if wp is not None:
            wp(fr, st.sel, (np.arange(32)[None, :] == leader[:, None])[E])
    return h_elect
