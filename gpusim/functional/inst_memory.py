"""Loads, stores and atomics: ``ld ldu st atom red cp.async isspacep`` and the cache hints (``prefetch
prefetchu applypriority discard createpolicy``).

Every access goes through :class:`~gpusim.functional.addressing.MemOp` (address, space, alignment and bounds
checks, the trace's addresses).  Vector accesses (``.v2/.v4``) move consecutive elements; ``_`` sinks are
skipped.  Stores to ``.const``/``.param`` are rejected.  Atomics apply in lane order within a warp and in the
emulator's warp order between warps (so ``atom.add`` returns a distinct old value to each lane, as on the
GPU); they are allowed on ``.global`` and ``.shared``.  The memory-ordering qualifiers (``.relaxed``,
``.acquire``, scopes) are accepted and have no effect: the emulator is sequentially consistent.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional import floatops as fo
from gpusim.functional.addressing import MemOp, elem_bytes
from gpusim.functional.operands import DT, reader, writer
from gpusim.functional.registry import semantics
from isa.opcodes import ATOM_OPS
from gpusim.functional.memory import window_space
from isa.program import Imm, Instruction, Vec
from isa.units import MemSpace

_READ_ONLY = (MemSpace.CONST, MemSpace.PARAM)
_ATOMIC_SPACES = (MemSpace.GLOBAL, MemSpace.SHARED)


def _vector_access(ins: Instruction, ctx, k: int):
    """What ld and st share: the MemOp, the registers of operand ``k`` (one, or a vector's, ``None`` for
    ``_``), the element dtype, size and log2 size."""
    elem = elem_bytes(ins.type)
    op = ins.operands[k]
    items = list(op.items) if isinstance(op, Vec) else [op]
    return MemOp(ins, ctx, elem), items, DT[ins.type], elem, elem.bit_length() - 1


def _frame_access(ins: Instruction, ctx, k: int):
    """ld/st.param of a device function's parameter frame (``fr.pframe``, per lane): the byte range, the
    registers (one, or a vector's) and the element dtype and size."""
    m = ins.operands[1 - k] if k == 0 else ins.operands[0]
    off, size = ctx.frame(m.base.name)
    elem = elem_bytes(ins.type)
    op = ins.operands[k]
    items = list(op.items) if isinstance(op, Vec) else [op]
    start = off + m.offset
    if m.offset < 0 or m.offset + elem * len(items) > size:
        raise ctx.unsupported(ins, f"{ins.opcode} reaches outside its {size}-byte .param variable")
    return start, items, DT[ins.type], elem


def _build_frame_ld(ins: Instruction, ctx):
    start, regs, dt, elem = _frame_access(ins, ctx, 0)
    writers = [writer(r, ins.type) if r is not None else None for r in regs]

    def h_ld_frame(fr, st):
        rows = fr.pframe[st.sel]
        for k, w in enumerate(writers):
            if w is not None:
                o = start + k * elem
                w(fr, st.sel, np.ascontiguousarray(rows[:, o:o + elem]).view(dt)[:, 0])
    return h_ld_frame


def _build_frame_st(ins: Instruction, ctx):
    start, items, dt, elem = _frame_access(ins, ctx, 1)
    readers = [reader(r, ins.type, ctx) if r is not None else None for r in items]

    def h_st_frame(fr, st):
        n = fr.T if st.lanes is None else st.lanes.size
        for k, r in enumerate(readers):
            if r is not None:
                v = np.broadcast_to(np.asarray(r(fr, st.sel)).astype(dt), (n,))
                o = start + k * elem
                fr.pframe[st.sel, o:o + elem] = np.ascontiguousarray(v).view(np.uint8).reshape(n, elem)
    return h_st_frame


@semantics("ld", "ldu")
def build_ld(ins: Instruction, ctx):
    if ins.frame_param:
        return _build_frame_ld(ins, ctx)
    mo, regs, dt, elem, shift = _vector_access(ins, ctx, 0)
    writers = [writer(r, ins.type) if r is not None else None for r in regs]

    def h_ld(fr, st):
        addr, parts = mo.locate(fr, st)
        for k, w in enumerate(writers):
            if w is None:
                continue
            if len(parts) == 1:
                space, where, buf, phys = parts[0]
                val = buf.view(dt)[(phys + k * elem) >> shift]
            else:
                val = np.zeros(addr.shape, dtype=dt)
                for space, where, buf, phys in parts:
                    val[where] = buf.view(dt)[(phys + k * elem) >> shift]
            w(fr, st.sel, val)
    return h_ld


@semantics("st")
def build_st(ins: Instruction, ctx):
    if ins.frame_param:
        return _build_frame_st(ins, ctx)
    mo, items, dt, elem, shift = _vector_access(ins, ctx, 1)
    readers = [reader(r, ins.type, ctx) if r is not None else None for r in items]
    if ins.space in ("const", "param"):
        raise ctx.unsupported(ins, f"stores to .{ins.space} are not allowed")

    def h_st(fr, st):
        addr, parts = mo.locate(fr, st)
        for k, r in enumerate(readers):
            if r is None:
                continue
            val = np.asarray(r(fr, st.sel)).astype(dt, copy=False)
            for space, where, buf, phys in parts:
                if space in _READ_ONLY:
                    raise ctx.address_error(fr, st, ins, 0, where, int(addr[0]), space,
                                            f"store to read-only .{space.value} space")
                v = val if (where is None or val.ndim == 0) else val[where]
                buf.view(dt)[(phys + k * elem) >> shift] = v
    return h_st


@semantics("atom", "red")
def build_atom(ins: Instruction, ctx):
    if ins.vec > 1:
        return _build_vector_atom(ins, ctx)
    t = ins.type
    elem = elem_bytes(t)
    mo = MemOp(ins, ctx, elem)
    (op,) = [m for m in ins.mods if m in ATOM_OPS]
    if t in ("f16", "bf16", "f16x2", "bf16x2") and op not in ("add", "min", "max"):
        raise ctx.unsupported(ins, f"{ins.opcode}: 16-bit float atomics are .add, .min and .max")
    # not PTX at all (ptxas: ".min requires .u32 .s32 .u64 .s64 .f16 .f16x2 .bf16 .bf16x2", and "vector
    # modifier required" for the 16-bit ones): a GPU would not load the module, so neither does gpusim run it
    if op in ("min", "max") and t in ("f32", "f64"):
        raise ctx.unsupported(ins, f"{ins.opcode}: PTX has no floating-point .{op} atomic on .{t} (only on "
                                   f"16-bit floats, as vectors: atom.global.v2.f16.{op}.noftz)")
    if op in ("min", "max") and t in ("f16", "bf16", "f16x2", "bf16x2"):
        raise ctx.unsupported(ins, f"{ins.opcode}: PTX's 16-bit float .{op} atomics are vectors "
                                   f"(atom.global.v2.{t}.{op}.noftz)")
    if t == "b16" and op != "cas":
        raise ctx.unsupported(ins, f"{ins.opcode}: 16-bit atomics are .cas only (atom.cas.b16)")
    # atom.add.f32 on global memory flushes subnormal inputs and results (the PTX ISA says so); shared does not
    ftz_global = op == "add" and t == "f32"
    is_red = ins.base == "red"
    k0 = 1 if is_red else 2          # atom d, [m], a[, b]   /   red [m], a
    rv = reader(ins.operands[k0], t, ctx)
    rc = None
    if op == "cas":
        rc = rv
        rv = reader(ins.operands[k0 + 1], t, ctx)
    w = None if is_red else writer(ins.operands[0], t)
    dt = DT[t]
    shift = elem.bit_length() - 1

    def h_atom(fr, st):
        addr, parts = mo.locate(fr, st)
        val = rv(fr, st.sel)
        cmpv = rc(fr, st.sel) if rc is not None else None
        result = np.zeros(addr.shape, dtype=dt)
        for space, where, buf, phys in parts:
            if space not in _ATOMIC_SPACES:
                raise ctx.address_error(fr, st, ins, 0, where, int(addr[0]), space,
                                        f"atomics on .{space.value} are not allowed")
            v = val if (where is None or np.ndim(val) == 0) else np.asarray(val)[where]
            c = cmpv if (cmpv is None or where is None or np.ndim(cmpv) == 0) else np.asarray(cmpv)[where]
            tt = "f32ftz" if ftz_global and space is MemSpace.GLOBAL else t
            old = atomic_rmw(buf.view(dt), phys >> shift, op, tt, v, c)
            if where is None:
                result = old
            else:
                result[where] = old
        if w is not None:
            w(fr, st.sel, result)
    return h_atom


_HALF_KINDS = {"f16": ("f16", False), "bf16": ("bf16", False), "f16x2": ("f16", True), "bf16x2": ("bf16", True)}


def _half_apply(op, t, old, val):
    """16-bit float add/min/max on bits (each half of a packed pair on its own), rounded to nearest even."""
    kind, packed = _HALF_KINDS[t]

    def one(o, v):
        x, y = fo.from_half(o, kind), fo.from_half(v, kind)
        with np.errstate(all="ignore"):
            r = x + y if op == "add" else np.fmin(x, y) if op == "min" else np.fmax(x, y)
        return fo.to_half(r, kind)
    old = np.asarray(old)
    val = np.broadcast_to(np.asarray(val), old.shape)
    if t == "f16":          # f16 registers and memory are viewed as float16: work on their bits
        return one(old.view(np.uint16), np.ascontiguousarray(val).view(np.uint16)).view(np.float16)
    if not packed:
        return one(old.astype(np.uint16), val.astype(np.uint16))
    o32, v32 = old.astype(np.uint32), val.astype(np.uint32)
    lo = one((o32 & np.uint32(0xFFFF)).astype(np.uint16), (v32 & np.uint32(0xFFFF)).astype(np.uint16))
    hi = one((o32 >> np.uint32(16)).astype(np.uint16), (v32 >> np.uint32(16)).astype(np.uint16))
    return lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))


def _build_vector_atom(ins: Instruction, ctx):
    """atom/red.global.v2/.v4/.v8 on f16/bf16 (and .v2/.v4 f32 .add): each element an atomic of its own on
    consecutive addresses (the vector is one memory transaction on the GPU, each element atomic)."""
    t = ins.type
    (op,) = [m for m in ins.mods if m in ATOM_OPS]
    if op not in ("add", "min", "max") or t not in ("f16", "bf16", "f16x2", "bf16x2", "f32"):
        raise ctx.unsupported(ins, f"{ins.opcode}: vector atomics are .add/.min/.max on 16-bit floats (and .add "
                                   f"on .f32)")
    if ins.space not in ("global", "generic"):
        raise ctx.unsupported(ins, f"{ins.opcode}: vector atomics are on .global memory")
    elem = elem_bytes(t)
    mo = MemOp(ins, ctx, elem)
    is_red = ins.base == "red"
    src = ins.operands[1 if is_red else 2]
    readers = [reader(r, t, ctx) for r in src.items]
    writers = None if is_red else [writer(r, t) if r is not None else None for r in ins.operands[0].items]
    dt = DT[t]
    shift = elem.bit_length() - 1

    def h_vatom(fr, st):
        addr, parts = mo.locate(fr, st)
        for space, where, buf, phys in parts:
            if space is not MemSpace.GLOBAL:
                raise ctx.address_error(fr, st, ins, 0, where, int(addr[0]), space,
                                        f"vector atomics on .{space.value} are not allowed")
        (space, where, buf, phys), = parts
        for k, r in enumerate(readers):
            v = np.asarray(r(fr, st.sel))
            tt = "f32ftz" if t == "f32" else t
            old = atomic_rmw(buf.view(dt), (phys >> shift) + k, op, tt, v)
            if writers is not None and writers[k] is not None:
                writers[k](fr, st.sel, old)
    return h_vatom


def _atomic_apply(op, t, old, val, cmpv=None):
    if t in _HALF_KINDS:
        return _half_apply(op, t, old, val)
    if t == "f32ftz":     # atom.add.f32 on .global: subnormal inputs and result flushed to zero
        r = fo.flush_subnormals(np.asarray(fo.flush_subnormals(np.asarray(old, np.float32)) +
                                           fo.flush_subnormals(np.asarray(val, np.float32))))
        return r.astype(np.float32)
    dt = DT[t]
    if op == "add":
        return (old + val).astype(dt)
    if op == "min":
        return np.fmin(old, val) if dt().dtype.kind == "f" else np.minimum(old, val)
    if op == "max":
        return np.fmax(old, val) if dt().dtype.kind == "f" else np.maximum(old, val)
    if op == "exch":
        return np.broadcast_to(val, np.shape(old)).astype(dt)
    if op == "cas":
        return np.where(old == cmpv, val, old).astype(dt)
    if op == "and":
        return old & val
    if op == "or":
        return old | val
    if op == "xor":
        return old ^ val
    if op == "inc":
        return np.where(old >= val, dt(0), old + dt(1)).astype(dt)
    if op == "dec":
        return np.where((old == 0) | (old > val), val, old - dt(1)).astype(dt)
    raise ValueError(op)


def _distinct(idx: np.ndarray) -> bool:
    """No index occurs twice."""
    if idx.size < 2:
        return True
    s = np.sort(idx)
    return not np.count_nonzero(s[1:] == s[:-1])


def atomic_rmw(view, idx, op, t, val, cmpv=None):
    """Apply an atomic op for all lanes in lane order; return the old value each lane saw."""
    n = idx.size
    dt = DT["f32" if t == "f32ftz" else t]
    val = np.broadcast_to(np.asarray(val, dtype=dt), (n,))
    cmpv = None if cmpv is None else np.broadcast_to(np.asarray(cmpv, dtype=dt), (n,))
    if _distinct(idx):       # no two lanes on one address: all at once (a sort costs less than np.unique)
        old = view[idx].copy()
        view[idx] = _atomic_apply(op, t, old, val, cmpv)
        return old
    uniq, inv, counts = np.unique(idx, return_inverse=True, return_counts=True)
    order = np.argsort(inv, kind="stable")
    ginv = inv[order]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[ginv]
    old = np.empty(n, dtype=dt)
    if op == "add" and dt().dtype.kind in "iu" and t not in _HALF_KINDS:
        # integer addition is associative under wrap-around: old = initial + exclusive prefix sum
        sv = val[order]
        cs = np.cumsum(sv, dtype=dt)
        excl = (cs - sv).astype(dt)
        base = excl[starts][ginv]
        init = view[uniq].copy()
        old[order] = (init[ginv] + (excl - base)).astype(dt)
        view[uniq] = (init + (cs[starts + counts - 1] - base[starts])).astype(dt)
        return old
    for r in range(int(counts.max())):
        lanes = np.flatnonzero(rank == r)
        i = idx[lanes]
        o = view[i].copy()
        old[lanes] = o
        view[i] = _atomic_apply(op, t, o, val[lanes], None if cmpv is None else cmpv[lanes])
    return old


@semantics("cp.async", control=True)
def build_cp_async(ins: Instruction, ctx):
    if "mbarrier" in ins.mods:            # cp.async.mbarrier.arrive: an mbarrier operation
        from gpusim.functional.inst_control import build_mbarrier
        return build_mbarrier(ins, ctx)
    inner = _build_cp_async(ins, ctx)

    def h_cp_then_advance(fr, st):
        inner(fr, st)
        fr.simt.advance(st.selw)
    return h_cp_then_advance


def _build_cp_async(ins: Instruction, ctx):
    """``cp.async``: the copy happens at once (the emulator has no time); ``commit_group``/``wait_group``/
    ``wait_all`` have nothing left to wait for.  The trace records the global source addresses (a load)."""
    if ins.space is None:
        def h_group(fr, st):
            pass
        return h_group
    size_op = ins.operands[2]
    if not isinstance(size_op, Imm) or int(size_op.value) not in (4, 8, 16):
        raise ctx.unsupported(ins, f"{ins.opcode}: the copy size must be 4, 8 or 16 bytes")
    size = int(size_op.value)
    dst = MemOp(ins, ctx, size, operand=0, space="shared")
    src = MemOp(ins, ctx, size, operand=1, space="global")
    rsz = reader(ins.operands[3], "u32", ctx) if len(ins.operands) > 3 else None
    k = np.arange(size, dtype=np.int64)

    def h_cp(fr, st):
        _, dparts = dst.locate(fr, st)
        _, sparts = src.locate(fr, st)      # last: the trace keeps the global source addresses
        (_, _, sbuf, sphys), = sparts
        (_, _, dbuf, dphys), = dparts
        data = sbuf[sphys[:, None] + k]
        if rsz is not None:
            n = np.asarray(rsz(fr, st.sel)).astype(np.int64)
            data = np.where(k[None, :] < np.reshape(n, (-1, 1)), data, 0).astype(np.uint8)
        dbuf[dphys[:, None] + k] = data
    return h_cp


@semantics("isspacep")
def build_isspacep(ins: Instruction, ctx):
    space = MemSpace(ins.space)
    ra = reader(ins.operands[1], "u64", ctx)
    w = writer(ins.operands[0], "pred")

    def h_isspacep(fr, st):
        a = np.atleast_1d(np.asarray(ra(fr, st.sel)).astype(np.int64))
        codes = window_space(a)
        inside = codes == space.code
        if space is MemSpace.GLOBAL:          # generic addresses of the heap: inside an allocation
            inside = inside & fr.mem.check(a, 1)
        w(fr, st.sel, inside if np.ndim(ra(fr, st.sel)) else inside[0])
    return h_isspacep


@semantics("prefetch", "prefetchu", "applypriority", "discard")
def build_cache_hint(ins: Instruction, ctx):
    """Cache hints: no effect on values (an address is not even checked, as prefetching a bad one is
    harmless on the GPU)."""
    def h_hint(fr, st):
        pass
    return h_hint


@semantics("createpolicy")
def build_createpolicy(ins: Instruction, ctx):
    w = writer(ins.operands[0], "b64")
    policy = np.uint64(0x10E0000000000000)    # an opaque value; gpusim's caches ignore .L2::cache_hint

    def h_policy(fr, st):
        w(fr, st.sel, policy)
    return h_policy


@semantics("st.async", "red.async")
def build_async_store(ins: Instruction, ctx):
    """st.async / red.async: the store (or reduction) happens at once in the block's own shared memory (a
    launch's clusters are of one block), then the mbarrier operand's transaction count drops by the bytes
    written (completing its phase when nothing else is pending); the .global forms are a store / an atomic."""
    from gpusim.functional.inst_control import complete_tx
    t = ins.type
    elem = elem_bytes(t)
    space = "global" if ins.space == "global" else "shared"
    mo = MemOp(ins, ctx, elem, operand=0, space=space)
    src = ins.operands[1]
    items = list(src.items) if isinstance(src, Vec) else [src]
    readers = [reader(r, t, ctx) for r in items]
    bar = MemOp(ins, ctx, 8, operand=2, space="shared") if len(ins.operands) > 2 else None
    op = next((m for m in ins.mods if m in ATOM_OPS), None) if ins.base == "red.async" else None
    dt = DT[t]
    shift = elem.bit_length() - 1
    nbytes = elem * len(items)

    def h_async(fr, st):
        _, parts = mo.locate(fr, st)
        (_, _, buf, phys), = parts
        for k, r in enumerate(readers):
            v = np.asarray(r(fr, st.sel)).astype(dt)
            if op is None:
                buf.view(dt)[(phys >> shift) + k] = v
            else:
                atomic_rmw(buf.view(dt), (phys >> shift) + k, op, t, v)
        if bar is not None:
            _, bparts = bar.locate(fr, st)
            (_, _, bbuf, bphys), = bparts
            complete_tx(fr, bbuf.view(np.uint64), bphys >> 3, nbytes)
    return h_async
