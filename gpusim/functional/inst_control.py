"""Control flow and ordering: ``bra brx call ret exit trap bar barrier membar fence`` and the hints
(``nanosleep brkpt pmevent griddepcontrol setmaxnreg``).

Branches, exits and block barriers change where warps stand, so their handlers act on the batch's
:class:`~gpusim.functional.simt.SimtStack` (``fr.simt``) instead of registers.  A guarded ``bra`` takes the
lanes whose guard is true (``bra.uni`` is taken by every active lane); lanes that disagree diverge and
reconverge at the branch's immediate post-dominator.  ``ret``/``exit`` finish the executing lanes.
``bar.sync``/``barrier.sync`` (any barrier number, the thread count ignored) wait for every non-exited thread
of the block.  ``bar.warp.sync`` (``__syncwarp``), ``membar`` and ``fence`` only order memory, and the
emulator is sequentially consistent in its execution order, so they just move on.

``call`` enters a device function (:mod:`gpusim.functional.calls`: arguments copied into its formals, the
return address pushed per lane); its return point copies the return values back and returns; any other
``ret`` of a function jumps to the return point, where lanes that returned on different paths reconverge.
An indirect call or ``brx.idx`` whose lanes go to different places diverges several ways.  ``trap`` and a
failed device ``assert`` (the builtin ``__assertfail``) abort with :class:`~gpusim.functional.calls.DeviceTrapError`.
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import KernelError
from gpusim.functional import faults
from gpusim.functional.calls import CallDepthError, DeviceTrapError, builtin_vprintf, copy_frame, read_string
from gpusim.functional.operands import reader, writer
from gpusim.functional.registry import semantics
from gpusim.functional.trace import popcount32
from isa.program import Instruction, Mem


@semantics("bra", control=True)
def build_bra(ins: Instruction, ctx):
    uniform = ins.guard is None or "uni" in ins.mods
    target, reconverge = ins.target, ins.reconverge

    def h_bra(fr, st):
        fr.simt.branch(st.selw, st.act if uniform else st.exe, target, reconverge)
    return h_bra


@semantics("ret", "exit", control=True)
def build_exit(ins: Instruction, ctx):
    if ins.base == "ret" and ins.target >= 0:       # in a device function
        f = ctx.return_point(ins.pc)
        if f is not None:
            return _build_return(ins, ctx, f)
        uniform = ins.guard is None or "uni" in ins.mods
        target = ins.target

        def h_to_return(fr, st):      # jump to the function's return point, where its lanes reconverge
            fr.simt.branch(st.selw, st.act if uniform else st.exe, target, target)
        return h_to_return

    def h_exit(fr, st):
        fr.simt.exit(st.selw, st.exe)
        flush_bar_red(fr)            # an exit may be what releases a block's bar.red
    return h_exit


@semantics("bar", "barrier", control=True)
def build_bar(ins: Instruction, ctx):
    if "warp" in ins.mods or ("cluster" in ins.mods and "arrive" in ins.mods):
        # bar.warp.sync: a reconvergence hint only; barrier.cluster.arrive: a cluster of one block waits
        # at its barrier.cluster.wait
        def h_syncwarp(fr, st):
            fr.simt.advance(st.selw)
        return h_syncwarp

    if "red" in ins.mods:
        return _build_bar_red(ins, ctx)

    def h_bar(fr, st):
        fr.simt.wait_at_barrier(st.selw)
    return h_bar


def _build_bar_red(ins: Instruction, ctx):
    """``bar.red``: the barrier, then every thread of the block gets the reduction of the predicate ``c`` over
    the block's threads (popc: how many have it; and/or: all/any).  The threads arrive at different steps:
    each arrival adds to its block's tally and leaves its destination pending; the block's release writes
    them all (here, or in the exit that releases it)."""
    op = next(m for m in ("popc", "and", "or") if m in ins.mods)
    rc = reader(ins.operands[-1], "pred", ctx)
    w = writer(ins.operands[0], "u32" if op == "popc" else "pred")
    neg = ins.negate_c

    def h_bar_red(fr, st):
        lanes = st.lane_ids(fr)
        c = np.broadcast_to(np.asarray(rc(fr, st.sel)).astype(bool), lanes.shape)
        if neg:
            c = ~c
        blocks = lanes // fr.lanes_per_block
        tally = fr.__dict__.setdefault("bar_red", {})
        for b in np.unique(blocks):
            mine = blocks == b
            t = tally.setdefault(int(b), [0, 0, [], op, w])
            t[0] += int(c[mine].sum())
            t[1] += int(mine.sum())
            t[2].append(lanes[mine])
        fr.simt.wait_at_barrier(st.selw)
        flush_bar_red(fr)
    return h_bar_red


def flush_bar_red(fr) -> None:
    """Write the results of the ``bar.red`` barriers whose blocks have been released."""
    tally = getattr(fr, "bar_red", None)
    if not tally:
        return
    wpb = fr.simt.warps_per_block
    for b in list(tally):
        if fr.simt.waiting[b * wpb:(b + 1) * wpb].any():
            continue
        n_true, n, pending, op, w = tally.pop(b)
        lanes = np.concatenate(pending)
        if op == "popc":
            w(fr, lanes, np.full(lanes.size, n_true, dtype=np.uint32))
        else:
            w(fr, lanes, np.full(lanes.size, n_true == n if op == "and" else n_true > 0))


@semantics("membar", "fence")
def build_fence(ins: Instruction, ctx):
    def h_fence(fr, st):
        pass
    return h_fence


# ---- device functions ---------------------------------------------------------------------------------
def _warp_first(values: np.ndarray, st) -> np.ndarray:
    """One value per executing warp: the value of its first executing lane (``values`` per executing lane)."""
    counts = popcount32(st.exe).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    return values[starts]


def _depth_check(ctx, ins, fr, st, depth: int):
    if depth > fr.calls.max_depth:
        raise faults.at(CallDepthError, ctx.module, ins,
                        f"call depth above {fr.calls.max_depth} in kernel '{ctx.kernel.name}' (runaway "
                        f"recursion?): gpusim allows {fr.calls.max_depth} nested calls per thread")


@semantics("call", control=True)
def build_call(ins: Instruction, ctx):
    c = ins.call
    prog = ctx.program
    args = [ctx.frame(k) for k in c.args]
    rets = [ctx.frame(k) for k in c.rets]
    ret_pc = ins.pc + 1
    if c.callee is not None:
        f = prog.functions[c.callee]
        if f.builtin is not None:
            return _build_builtin(ins, ctx, f, args, rets)
        formals = [ctx.frame(k) for k in f.params]
        if len(formals) != len(args) or len(f.returns) < len(rets):
            raise ctx.unsupported(ins, f"call of '{f.name}' with {len(args)} arguments and {len(rets)} return "
                                       f"values; it takes {len(formals)} and returns {len(f.returns)}")

        def h_call(fr, st):
            lanes = st.lane_ids(fr)
            if lanes.size:
                if f.recursive:
                    fr.calls.save(fr, lanes, f)
                for a, fm in zip(args, formals):
                    copy_frame(fr, lanes, a, fm)
                _depth_check(ctx, ins, fr, st, fr.calls.push(lanes, ret_pc))
            fr.simt.call(st.selw, st.exe, f.entry_pc)
        return h_call
    # indirect: the register holds a function's address; lanes calling different functions diverge
    rt = reader(c.target, "u64" if c.target.bits == 64 else "u32", ctx)
    by_address = {f.address: f for f in prog.functions.values() if f.builtin is None}

    def h_call_indirect(fr, st):
        lanes = st.lane_ids(fr)
        addr = np.asarray(rt(fr, st.sel)).astype(np.int64)
        addr = np.broadcast_to(addr, lanes.shape)
        entry = np.full(lanes.shape, -1, dtype=np.int64)
        for a in np.unique(addr):
            f = by_address.get(int(a))
            if f is None:
                raise faults.at(KernelError, ctx.module, ins, f"indirect call to {int(a):#x}, which is not the "
                                                              f"address of a function of this module")
            mine = lanes[addr == a]
            if len(f.params) != len(args):
                raise faults.at(KernelError, ctx.module, ins, f"indirect call of '{f.name}' with {len(args)} "
                                                              f"arguments; it takes {len(f.params)}")
            if f.recursive:
                fr.calls.save(fr, mine, f)
            for a_, fm in zip(args, [ctx.frame(k) for k in f.params]):
                copy_frame(fr, mine, a_, fm)
            _depth_check(ctx, ins, fr, st, fr.calls.push(mine, ret_pc))
            entry[addr == a] = f.entry_pc
        lt = np.full((st.selw.size, 32), -1, dtype=np.int64)
        lt[st.exec_matrix()] = entry
        fr.simt.branch_multi(st.selw, lt, ret_pc, depth_delta=1)
    return h_call_indirect


def _build_builtin(ins, ctx, f, args, rets):
    def arg_values(fr, lanes):
        return [fr.pframe[lanes, o:o + 8].copy().view("<u8")[:, 0] for o, n in args]
    if f.builtin == "vprintf":
        def h_printf(fr, st):
            lanes = st.lane_ids(fr)
            if lanes.size:
                n = builtin_vprintf(fr, lanes, arg_values(fr, lanes))
                if rets:
                    o, sz = rets[0]
                    fr.pframe[lanes, o:o + 4] = n.astype("<i4").view(np.uint8).reshape(-1, 4)
            fr.simt.advance(st.selw)
        return h_printf

    def h_assert(fr, st):
        lanes = st.lane_ids(fr)
        if lanes.size == 0:
            fr.simt.advance(st.selw)
            return
        lane = int(lanes[0])
        vals = [int(v[0]) for v in arg_values(fr, lanes[:1])]
        msg = read_string(fr, lane, vals[0]) if vals else "?"
        file = read_string(fr, lane, vals[1]) if len(vals) > 1 else "?"
        line = vals[2] & 0xFFFFFFFF if len(vals) > 2 else 0
        func = read_string(fr, lane, vals[3]) if len(vals) > 3 else "?"
        blk, t = divmod(lane, fr.lanes_per_block)
        raise faults.at(DeviceTrapError, ctx.module, ins,
                        f"device-side assertion failed in kernel '{ctx.kernel.name}': {file}:{line}: {func}: "
                        f"Assertion `{msg}` failed; block {faults.dim3_of(fr.block0 + blk, fr.grid)}, thread "
                        f"{faults.dim3_of(t, fr.block)}")
    if f.builtin == "__assertfail":
        return h_assert
    raise ctx.unsupported(ins, f"builtin {f.builtin}")


def _build_return(ins: Instruction, ctx, f):
    """The return point of function ``f``: back to the callers, the return values copied to their sites."""
    prog = ctx.program
    ret_slots = [ctx.frame(k) for k in f.returns]
    site_slots: dict[int, list] = {}

    def slots(rpc: int):
        got = site_slots.get(rpc)
        if got is None:
            call = prog.instructions[rpc - 1].call
            got = site_slots[rpc] = [ctx.frame(k) for k in call.rets] if call is not None else []
        return got

    def h_return(fr, st):
        lanes = st.lane_ids(fr)
        rpcs = fr.calls.pop(lanes)
        vals = [fr.pframe[lanes, o:o + n].copy() for o, n in ret_slots]
        if f.recursive:
            fr.calls.restore(fr, lanes, f)
        for rpc in np.unique(rpcs):
            where = rpcs == rpc
            for (o, n), v in zip(slots(int(rpc)), vals):
                m = min(n, v.shape[1])
                fr.pframe[lanes[where], o:o + m] = v[where, :m]
        per_warp = _warp_first(rpcs.astype(np.int64), st)
        fr.simt.ret(st.selw, per_warp)
    return h_return


@semantics("brx", control=True)
def build_brx(ins: Instruction, ctx):
    targets = np.array(ins.targets, dtype=np.int64)
    ri = reader(ins.operands[0], "u32", ctx)
    rpc = ins.reconverge

    def h_brx(fr, st):
        idx = np.broadcast_to(np.asarray(ri(fr, st.sel)).astype(np.int64), (int(popcount32(st.exe).sum()),))
        if idx.size and (idx.min() < 0 or idx.max() >= targets.size):
            raise faults.at(KernelError, ctx.module, ins, f"brx.idx index {int(idx.max())} outside its "
                                                          f"{targets.size}-entry branch table")
        lt = np.full((st.selw.size, 32), -1, dtype=np.int64)
        lt[st.exec_matrix()] = targets[idx]
        fr.simt.branch_multi(st.selw, lt, rpc)
    return h_brx


@semantics("trap", control=True)
def build_trap(ins: Instruction, ctx):
    def h_trap(fr, st):
        lanes = st.lane_ids(fr)
        if lanes.size == 0:
            fr.simt.advance(st.selw)
            return
        blk, t = divmod(int(lanes[0]), fr.lanes_per_block)
        raise faults.at(DeviceTrapError, ctx.module, ins,
                        f"trap in kernel '{ctx.kernel.name}': block {faults.dim3_of(fr.block0 + blk, fr.grid)}, "
                        f"thread {faults.dim3_of(t, fr.block)} executed trap (the kernel aborts)")
    return h_trap


@semantics("nanosleep", "brkpt", "pmevent", "griddepcontrol", "setmaxnreg")
def build_no_effect(ins: Instruction, ctx):
    """Hints and scheduling controls with no functional effect (nanosleep: the emulator moves on)."""
    def h_nothing(fr, st):
        pass
    return h_nothing


# ---- mbarrier: the shared-memory barrier object -------------------------------------------------------
# The 64-bit object (opaque to programs) as gpusim lays it out: pending arrivals of the current phase (bits
# 0-20), the arrivals a phase expects (21-41), pending transaction bytes (42-62), the phase parity (63).
_PENDING, _EXPECTED, _TX = (0, 21), (21, 21), (42, 21)
_FIELD = (1 << 21) - 1


def _field(w: int, f) -> int:
    return (w >> f[0]) & _FIELD


def _with(w: int, f, v: int) -> int:
    return (w & ~(_FIELD << f[0])) | ((v & _FIELD) << f[0])


def _arrive(word: int, count: int, drop: bool, complete: bool) -> tuple[int, bool]:
    """One arrival of ``count``: the new word and whether it completed the phase."""
    pending = _field(word, _PENDING) - count
    word = _with(word, _PENDING, pending)
    if drop:
        word = _with(word, _EXPECTED, _field(word, _EXPECTED) - count)
    if complete and pending <= 0 and _field(word, _TX) == 0:
        return _with(word ^ (1 << 63), _PENDING, _field(word, _EXPECTED)), True
    return word, False


def complete_tx(fr, view, idx, nbytes: int) -> None:
    """``nbytes`` of transactions done on the mbarriers at ``idx`` (one per lane, in lane order); a phase with
    no pending arrivals and no bytes left completes, and the parked warps may test again."""
    completed = False
    for i in idx:
        word = int(view[i])
        t = _field(word, _TX) - nbytes
        word = _with(word, _TX, max(t, 0))
        if _field(word, _PENDING) == 0 and t <= 0:
            word = _with(word ^ (1 << 63), _PENDING, _field(word, _EXPECTED))
            completed = True
        view[i] = np.uint64(word)
    if completed:
        fr.simt.unpark_all()


@semantics("mbarrier", control=True)
def build_mbarrier(ins: Instruction, ctx):
    from gpusim.functional.addressing import MemOp
    mods = ins.mods
    mem = next(k for k, o in enumerate(ins.operands) if isinstance(o, Mem)) if any(
        isinstance(o, Mem) for o in ins.operands) else None
    mo = MemOp(ins, ctx, 8, operand=mem, space="shared") if mem is not None else None
    vals = [reader(o, "b64" if (k == 2 and "parity" not in mods and ("test_wait" in mods or "try_wait" in mods))
                   else "u32", ctx) if o is not None and not isinstance(o, Mem) else None
            for k, o in enumerate(ins.operands)]
    dest = ins.operands[0] if ins.operands and not isinstance(ins.operands[0], Mem) else None

    def words(fr, st):
        _, parts = mo.locate(fr, st)
        (_, _, buf, phys), = parts
        return buf.view(np.uint64), phys >> 3

    def arg(fr, st, k, default, n):
        if k < len(vals) and vals[k] is not None:
            return np.broadcast_to(np.asarray(vals[k](fr, st.sel)).astype(np.int64), (n,))
        return np.full(n, default, dtype=np.int64)

    if "pending_count" in mods:
        w = writer(dest, "u32")
        rs = reader(ins.operands[1], "b64", ctx)

        def h_pending(fr, st):
            w(fr, st.sel, (np.asarray(rs(fr, st.sel)).astype(np.uint64) & np.uint64(_FIELD)).astype(np.uint32))
            fr.simt.advance(st.selw)
        return h_pending
    if "test_wait" in mods or "try_wait" in mods:
        w = writer(dest, "pred")
        parity = "parity" in mods

        def h_wait(fr, st):
            view, idx = words(fr, st)
            n = idx.size
            phase = (view[idx] >> np.uint64(63)).astype(np.int64)
            token = arg(fr, st, 2, 0, n)
            asked = token & 1 if parity else (token >> 63) & 1
            done = phase != asked
            if n and not done.all():
                fr.simt.park(st.selw)          # tested again once some phase completes
                return
            w(fr, st.sel, done)
            fr.simt.advance(st.selw)
        return h_wait
    ws = writer(dest, "b64") if dest is not None else None
    drop = "arrive_drop" in mods
    complete = "noComplete" not in mods

    def h_update(fr, st):
        view, idx = words(fr, st)
        n = idx.size
        old = np.zeros(n, dtype=np.uint64)
        completed = False
        if "init" in mods:
            cnt = arg(fr, st, 1, 0, n)
            for i in range(n):
                view[idx[i]] = np.uint64(_with(_with(0, _PENDING, int(cnt[i])), _EXPECTED, int(cnt[i])))
        elif "inval" in mods:
            view[idx] = 0
        elif "mbarrier" in mods:        # cp.async.mbarrier.arrive: the copies are done; .noinc arrives
            if "noinc" in mods:
                for i in range(n):
                    word, c = _arrive(int(view[idx[i]]), 1, False, True)
                    view[idx[i]] = np.uint64(word)
                    completed |= c
        elif "complete_tx" in mods or ("expect_tx" in mods and "arrive" not in mods):
            tx = arg(fr, st, 1, 0, n)
            for i in range(n):
                word = int(view[idx[i]])
                t = _field(word, _TX) + (int(tx[i]) if "expect_tx" in mods else -int(tx[i]))
                word = _with(word, _TX, max(t, 0))
                if "complete_tx" in mods and _field(word, _PENDING) == 0 and t <= 0:
                    word = _with(word ^ (1 << 63), _PENDING, _field(word, _EXPECTED))
                    completed = True
                view[idx[i]] = np.uint64(word)
        else:                            # arrive / arrive_drop (.expect_tx: add the bytes first)
            cnt = arg(fr, st, 2, 1, n) if "expect_tx" not in mods else np.ones(n, dtype=np.int64)
            tx = arg(fr, st, 2, 0, n) if "expect_tx" in mods else None
            # The lanes of a warp that execute a plain mbarrier.arrive on one mbarrier arrive as one operation
            # of their summed count, and each gets the state from before it, as on the H100 (4 warps of 32
            # read pending counts 128, 96, 64, 32: tests/hw/test_isa_device.py, case mbarrier); the H100's
            # .noComplete arrivals (case mbarrier_nocomplete: 129 down to 2) and the other forms go lane by
            # lane, a lane opening the next phase for the ones after it (as does a warp whose lanes together
            # arrive more often than the phase has arrivals left).
            together = not ({"noComplete", "expect_tx", "arrive_drop"} & set(mods)) and \
                (len(vals) < 3 or vals[2] is None)
            warp = np.asarray(st.lane_ids(fr)) // 32 if together else np.arange(n)
            for key in dict.fromkeys(zip(warp.tolist(), idx.tolist())):
                lanes = np.flatnonzero((warp == key[0]) & (idx == key[1]))
                w = key[1]
                word = int(view[w])
                total = int(cnt[lanes].sum())
                if len(lanes) > 1 and total <= _field(word, _PENDING):
                    old[lanes] = np.uint64(word)
                    word, c = _arrive(word, total, drop, complete)
                    completed |= c
                else:
                    for i in lanes:
                        if tx is not None:
                            word = _with(word, _TX, _field(word, _TX) + int(tx[i]))
                        old[i] = np.uint64(word)
                        word, c = _arrive(word, int(cnt[i]), drop, complete)
                        completed |= c
                view[w] = np.uint64(word)
            if ws is not None:
                ws(fr, st.sel, old)
        fr.simt.advance(st.selw)
        if completed:
            fr.simt.unpark_all()
    return h_update
