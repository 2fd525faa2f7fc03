"""Addressing of ld/st/atom/red: from the memory operand to checked offsets into the emulator's buffers.

A :class:`MemOp` is built once per memory instruction.  At each execution, :meth:`MemOp.locate` computes the
executing lanes' addresses (``[reg+imm]``, ``[var+imm]`` or ``[imm]``), resolves a generic address to its
state space by its window (:mod:`gpusim.functional.memory`), checks alignment (to the size of the whole
access: a ``.v2.f32`` access needs 8 bytes, as on the GPU) and bounds (global: inside one allocation; the
other spaces: inside the space's size), and returns one *part* per state space touched:
``(space, where, buffer, byte index)``, ``where`` being the positions of the part's lanes among the
executing lanes (None: all of them).

The three steps are methods of their own (:meth:`MemOp.split`, :meth:`MemOp.violation`, :meth:`MemOp.place`)
so that the checker (:mod:`gpusim.check`) can run them itself: a kernel compiled with an instrument hands
each ``MemOp`` to ``ctx.memop_hook`` once, which may replace its ``locate``; the plain path tests nothing.

For the trace it leaves in the step (``st.addr``, ``st.space``) each lane's address *in its state space*:
the global address, or the byte offset in the block's shared memory, in the thread's local memory
(0 .. local size, as ``functional/trace.py`` documents), in the constant bank or the parameters.  Where those
bytes sit physically (local words interleaved across the lanes of a warp) is the memory system's business.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.memory import GENERIC_WINDOWS, GLOBAL_BASE, WINDOW_BASE_BY_CODE, window_space
from isa.opcodes import TYPE_BITS
from isa.program import Instruction, Mem, SymbolAddr
from isa.units import MemSpace

_EMPTY_BUF = np.zeros(16, dtype=np.uint8)


def elem_bytes(t: str) -> int:
    """Bytes of one element of type ``t`` (8-bit types: 1)."""
    return max(1, TYPE_BITS[t] // 8)


class MemOp:
    """The address computation and checks of one ld/st/atom/red instruction."""

    def __init__(self, ins: Instruction, ctx, elem_bytes: int, *, operand: int | None = None,
                 space: str | None = None):
        self.ins = ins
        self.ctx = ctx
        self.space = MemSpace(space or ins.space)
        self.elem = elem_bytes
        self.size = elem_bytes * ins.vec
        # PTX: a vector access is aligned to its whole size (v2.f32: 8 bytes, v4.f32: 16)
        self.align = self.size if self.size & (self.size - 1) == 0 else elem_bytes
        if operand is None:
            operand = 0 if ins.base in ("st", "red", "prefetch", "prefetchu", "applypriority", "discard", "st.async",
                                        "red.async") else 1
        self.operand = operand          # which operand of the instruction this is (the checker asks)
        m = ins.operands[operand]
        assert isinstance(m, Mem)
        self.off = m.offset
        self.const_addr = None
        self.rid = None
        self.symbol = None          # the variable a [var+imm] operand names
        if isinstance(m.base, SymbolAddr):
            sspace, addr = ctx.symbol(m.base.name)
            if self.space is not MemSpace.GENERIC and sspace != self.space:
                raise ctx.unsupported(ins, f"'{m.base.name}' is a .{sspace.value} variable, accessed as "
                                           f".{self.space.value}")
            if self.space is MemSpace.GENERIC:
                addr += GENERIC_WINDOWS.get(sspace, 0)
            self.const_addr = addr + m.offset
            self.symbol = m.base.name
        elif m.base is None:
            self.const_addr = m.offset
        else:
            self.rid = m.base.id
        hook = getattr(ctx, "memop_hook", None)
        if hook is not None:
            hook(self)

    def locate(self, fr, st):
        """The executing lanes' addresses and their parts (see the module docstring), after the checks; the
        state-space addresses are left in the step for the trace."""
        addr = self.addresses(fr, st)
        parts = []
        for space, offsets, where in self.split(addr):
            if offsets.size:
                bad = self.violation(fr, space, offsets)
                if bad is not None:
                    pos = int(np.flatnonzero(bad[1])[0])
                    raise self.ctx.address_error(fr, st, self.ins, pos, where, int(offsets[pos]), space, bad[0])
            parts.append(self.place(fr, st, space, offsets, where))
        if fr.recording:
            st.addr = self.trace_offsets(addr)
            st.space = parts[0][0].code if parts else MemSpace.GLOBAL.code
        return addr, parts

    def addresses(self, fr, st) -> np.ndarray:
        """State-space (or generic) address per executing lane, int64."""
        if self.const_addr is not None:
            n = fr.T if st.lanes is None else len(st.lanes)
            return np.full(n, self.const_addr, dtype=np.int64)
        a = fr.regs[self.rid][st.sel]
        if a.dtype == np.uint64:
            a = a.view(np.int64)
            return a + self.off if self.off else a.copy()
        # a 32-bit address wraps modulo 2^32 as on the hardware: nvcc strength-reduces shared indexing into a
        # register that goes below the array's base and adds the offset back ([%r5+64])
        a = a.astype(np.int64)
        return (a + self.off) & 0xFFFFFFFF if self.off else a

    def split(self, addr: np.ndarray) -> list:
        """``[(space, state-space offsets, where)]``: the lanes' addresses by the state space they fall in (a
        generic address by its window; ``where`` as in the parts)."""
        if self.space is not MemSpace.GENERIC:
            return [(self.space, addr, None)]
        codes = window_space(addr)
        offsets = addr - WINDOW_BASE_BY_CODE[codes]
        out = []
        for space in MemSpace.concrete():
            where = np.flatnonzero(codes == space.code)
            if where.size:
                out.append((space, offsets[where], where if where.size != addr.size else None))
        return out

    def trace_offsets(self, addr: np.ndarray) -> np.ndarray:
        """Each lane's address in its state space (what the trace records)."""
        if self.space is not MemSpace.GENERIC:
            return addr
        return addr - WINDOW_BASE_BY_CODE[window_space(addr)]

    def violation(self, fr, space: MemSpace, addr: np.ndarray):
        """None when every lane's access is aligned and inside its space (global: inside one allocation);
        else ``(what, bad)``: the first problem found and a boolean mask of the lanes that have it."""
        size = self.size
        if self.align > 1 and np.bitwise_or.reduce(addr) & (self.align - 1):
            return f"misaligned {size}-byte access", (addr & (self.align - 1)) != 0
        lo, hi = int(addr.min()), int(addr.max())
        if space is MemSpace.GLOBAL:
            # fast path: the whole access falls inside one allocation
            if not fr.mem.contains_range(lo, hi + size):
                ok = fr.mem.check(addr, size)
                if not ok.all():
                    return "out-of-bounds access", ~ok
            return None
        limit = space_limit(fr, space)
        if limit is not None and (lo < 0 or hi + size > limit):
            return f"out of bounds of the {limit}-byte .{space.value} window", (addr < 0) | (addr + size > limit)
        return None

    def place(self, fr, st, space: MemSpace, addr, where):
        """The part ``(space, where, buffer, byte index)`` of the lanes ``where`` at state-space ``addr``."""
        if addr.size == 0:
            return space, where, _EMPTY_BUF, addr
        if space is MemSpace.GLOBAL:
            return space, where, fr.mem.buf, addr - GLOBAL_BASE
        if space is MemSpace.SHARED:
            buf, phys_base = fr.shared, fr.lane_block_shared(st, where)
        elif space is MemSpace.LOCAL:
            buf = fr.local
            lanes = st.lane_ids(fr) if where is None else st.lane_ids(fr)[where]
            phys_base = lanes * fr.local_size     # the emulator's buffer: thread-major (the trace keeps offsets)
        elif space is MemSpace.CONST:
            buf, phys_base = fr.const, 0
        elif space is MemSpace.PARAM:
            buf, phys_base = fr.params, 0
        else:
            raise self.ctx.unsupported(self.ins, f"state space {space.value}")
        return space, where, buf, addr + phys_base


def space_limit(fr, space: MemSpace) -> int | None:
    """Size in bytes of a state space other than global as one thread sees it (None: not modelled)."""
    if space is MemSpace.SHARED:
        return fr.shared_size
    if space is MemSpace.LOCAL:
        return fr.local_size
    if space is MemSpace.CONST:
        return fr.const_bytes
    if space is MemSpace.PARAM:
        return fr.param_bytes
    return None
