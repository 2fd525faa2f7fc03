"""synccheck: barriers and warp-synchronous operations used against their rules.

Block barriers (``__syncthreads()``, ``bar.sync``).  The programming guide allows ``__syncthreads()`` in
conditional code only when the condition is the same for the whole block.  The checker runs the SIMT
stacks with independent-thread barriers (:mod:`gpusim.functional.simt`), so a kernel that breaks the rule
runs on as it does on the GPU, and reports:

* ``divergent barrier``: lanes of a warp reach a barrier while other live lanes of the same warp are
  elsewhere (the other side of a branch, another barrier, or on their way to an early exit);
* ``partial barrier``: a barrier completes without some threads of the block, which exited before reaching
  it (the GPU lets exited threads go; the guide calls it undefined);
* ``barrier deadlock``: the block can go no further (reported by the emulator with the barrier and the
  lanes that are held elsewhere).

Warp-synchronous operations with a member mask (``__syncwarp(mask)``: ``bar.warp.sync``; ``__shfl_*_sync``:
``shfl.sync``; ``__ballot_sync``/``__all_sync``/``__any_sync``: ``vote.sync``; ``match.sync``, ``redux.sync``).
The PTX ISA: the executing thread must be in the mask, and every *non-exited* thread the mask names must
execute the same operation with the same mask (exited threads named in a mask are allowed).  Reported:

* ``caller not in mask`` (error; compute-sanitizer's "Invalid arguments");
* ``mask names inactive lanes`` (error): lanes the mask names were alive but did not execute it, nor a
  matching operation (same kind, same mask: the other side of an if/else) later;
* ``mask names absent lanes`` (warning): the mask names lanes the warp does not have (a partial last warp).
  Allowed by the letter of PTX (such lanes never run, like exited ones) but a mask computed for full warps.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.faults import lane_list

AR32 = np.arange(32, dtype=np.uint32)
ONE = np.uint32(1)


class SyncCheck:
    """The synccheck tool of one launch (see the module docstring)."""

    tool = "synccheck"

    def __init__(self, tally, where=str):
        self.tally = tally
        self.where = where          # pc -> where it is, for messages (file.cu:LINE)

    def begin_batch(self, fr) -> None:
        self.arrived: dict[int, set] = {}        # block (in batch) -> barrier PCs reached since its last release
        self.pending: dict[tuple, dict] = {}     # (warp, kind, mask) -> {pc: [missing lanes, example]}

    # -- block barriers ---------------------------------------------------------------------------------
    def barrier(self, fr, st, pc: int) -> None:
        """Before ``bar.sync`` at ``pc``: the arriving warps' lanes, against their warps' live lanes."""
        simt = fr.simt
        ws = st.selw
        elsewhere = simt.alive[ws] & ~simt.mask[ws]
        for b in np.unique(simt.block_of[ws]).tolist():
            self.arrived.setdefault(b, set()).add(pc)
        div = np.flatnonzero(elsewhere)
        if div.size:
            w = int(ws[div[0]])
            here, away = int(simt.mask[w]), int(elsewhere[div[0]])
            where = [self.where(p) for p in sorted({p for p, m in simt.held_paths(w) if m & away})]
            self.tally.add(
                ("synccheck", "divergent barrier", "error", None, None, (("__syncthreads()", pc),)), int(div.size),
                lambda: {"lane": w * 32 + (here & -here).bit_length() - 1,
                         "message": f"lanes {lane_list(here)} of the warp wait at __syncthreads() while lanes "
                                    f"{lane_list(away)} of the same warp are elsewhere"
                                    + (f" (held at {', '.join(where)})" if where else "")
                                    + ": a barrier in divergent code (its condition is not the same for the "
                                      "whole block)"})

    def released(self, fr, blocks: np.ndarray) -> None:
        """Blocks whose barrier just completed: did every thread take part?"""
        simt = fr.simt
        tpb = fr.block[0] * fr.block[1] * fr.block[2]
        for b in blocks.tolist():
            pcs = self.arrived.pop(b, set())
            gone = tpb - int(simt.live[b])
            if gone and pcs:
                for pc in sorted(pcs):
                    self.tally.add(
                        ("synccheck", "partial barrier", "error", None, None, (("__syncthreads()", pc),)), 1,
                        lambda b=b, gone=gone: {
                            "lane": b * fr.lanes_per_block,
                            "message": f"the barrier completed without {gone} of the block's {tpb} threads, "
                                       f"which had exited before reaching it (undefined: every thread of the "
                                       f"block must reach the same __syncthreads())"})

    # -- warp-synchronous operations --------------------------------------------------------------------
    def collective(self, fr, st, pc: int, kind: str, masks) -> None:
        """Before a warp operation with member mask(s) ``masks`` (a scalar, or one per executing lane)."""
        simt = fr.simt
        E = st.exec_matrix()
        exe = st.exe.astype(np.uint32)
        if np.ndim(masks) == 0:
            m = np.full(E.shape, np.uint32(masks), dtype=np.uint32)
        else:
            m = np.zeros(E.shape, dtype=np.uint32)
            m[E] = np.asarray(masks).astype(np.uint32)
        ws = st.selw
        bit = (ONE << AR32)[None, :]
        # the executing lane is not in its own mask
        outside = E & ((m & bit) == 0)
        if outside.any():
            wi, li = np.argwhere(outside)[0]
            self.tally.add(("synccheck", "caller not in mask", "error", None, None, ((kind, pc),)),
                           int(outside.sum()),
                           lambda: {"lane": int(ws[wi]) * 32 + int(li),
                                    "message": f"lane {int(li)} executes {kind} with mask {int(m[wi, li]):#010x}, "
                                               f"which does not name it (undefined)"})
        lane_m = np.where(E, m, 0)
        union = np.bitwise_or.reduce(lane_m, axis=1).astype(np.uint32)
        absent = union & ~simt.valid[ws]
        if absent.any():
            wi = int(np.flatnonzero(absent)[0])
            self.tally.add(("synccheck", "mask names absent lanes", "warning", None, None, ((kind, pc),)),
                           int(np.count_nonzero(absent)),
                           lambda: {"lane": int(ws[wi]) * 32 + int(np.flatnonzero(E[wi])[0]),
                                    "message": f"the mask {int(union[wi]):#010x} of {kind} names lanes "
                                               f"{lane_list(int(absent[wi]))}, which this warp does not have "
                                               f"(the block's last warp is partial): a mask computed for full "
                                               f"warps"})
        # an operation that makes up for an earlier one's missing lanes (the other side of a branch) pairs
        # with it: each side's lanes are the other's missing ones
        partners = {}
        if self.pending:
            for wi, w in enumerate(ws.tolist()):
                for mv in np.unique(lane_m[wi][E[wi]]).tolist():
                    open_ = self.pending.get((w, kind, mv))
                    if not open_:
                        continue
                    for entry in open_.values():
                        if entry[0] & int(exe[wi]):
                            partners[(w, mv)] = partners.get((w, mv), 0) | entry[2]
                            entry[0] &= ~int(exe[wi])
                    for p in [p for p, e in open_.items() if not e[0]]:
                        del open_[p]
                    if not open_:
                        del self.pending[(w, kind, mv)]
        missing = union & simt.alive[ws] & ~exe
        for wi in np.flatnonzero(missing).tolist():
            w = int(ws[wi])
            for mv in np.unique(lane_m[wi][E[wi]]).tolist():
                miss = mv & int(simt.alive[w]) & ~int(exe[wi]) & ~partners.get((w, mv), 0)
                if miss:
                    entry = self.pending.setdefault((w, kind, mv), {}).setdefault(
                        pc, [0, (w * 32 + int(np.flatnonzero(E[wi])[0]), int(exe[wi]), mv), 0])
                    entry[0] |= miss
                    entry[2] |= int(exe[wi])

    def end_batch(self, fr) -> None:
        """Operations whose named lanes never came: report them."""
        for (w, kind, mv), open_ in self.pending.items():
            for pc, (miss, (lane, exe, mask), _) in open_.items():
                self.tally.add(("synccheck", "mask names inactive lanes", "error", None, None, ((kind, pc),)), 1,
                               lambda lane=lane, exe=exe, mask=mask, miss=miss, kind=kind: {
                                   "lane": lane,
                                   "message": f"{kind} with mask {mask:#010x} executed by lanes {lane_list(exe)}; "
                                              f"lanes {lane_list(miss)} are named and alive but never execute it "
                                              f"(undefined: every non-exited lane the mask names must)"})
        self.pending = {}
