"""Addressing of ld/st/atom/red: from the memory operand to checked offsets into the emulator's buffers.

A :class:`MemOp` is built once per memory instruction.  At each execution, :meth:`MemOp.locate` computes the
executing lanes' addresses (``[reg+imm]``, ``[var+imm]`` or ``[imm]``), resolves a generic address to its
state space by its window (:mod:`gpusim.functional.memory`), checks alignment (to the element size) and
bounds (global: inside one allocation; the other spaces: inside the space's size), and returns one *part*
per state space touched: ``(space, where, buffer, byte index)``, ``where`` being the positions of the part's
lanes among the executing lanes (None: all of them).

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
        if operand is None:
            operand = 0 if ins.base in ("st", "red", "prefetch", "prefetchu", "applypriority", "discard", "st.async",
                                        "red.async") else 1
        m = ins.operands[operand]
        assert isinstance(m, Mem)
        self.off = m.offset
        self.const_addr = None
        if isinstance(m.base, SymbolAddr):
            sspace, addr = ctx.symbol(m.base.name)
            if self.space is not MemSpace.GENERIC and sspace != self.space:
                raise ctx.unsupported(ins, f"'{m.base.name}' is a .{sspace.value} variable, accessed as "
                                           f".{self.space.value}")
            if self.space is MemSpace.GENERIC:
                addr += GENERIC_WINDOWS.get(sspace, 0)
            self.const_addr = addr + m.offset
        elif m.base is None:
            self.const_addr = m.offset
        else:
            self.rid = m.base.id

    def locate(self, fr, st):
        """The executing lanes' addresses and their parts (see the module docstring), after the checks; the
        state-space addresses are left in the step for the trace."""
        addr = self.addresses(fr, st)
        if self.space is MemSpace.GENERIC:
            codes = window_space(addr)
            offsets = addr - WINDOW_BASE_BY_CODE[codes]
            parts = []
            for space in MemSpace.concrete():
                where = np.flatnonzero(codes == space.code)
                if where.size:
                    parts.append(self._resolve_space(fr, st, space, offsets[where],
                                                     where if where.size != addr.size else None))
        else:
            offsets = addr
            parts = [self._resolve_space(fr, st, self.space, addr, None)]
        if fr.recording:
            st.addr = offsets
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

    def _resolve_space(self, fr, st, space: MemSpace, addr, where):
        size = self.size
        if addr.size == 0:
            return space, where, _EMPTY_BUF, addr
        if self.elem > 1 and np.bitwise_or.reduce(addr) & (self.elem - 1):
            mis = np.flatnonzero(addr & (self.elem - 1))
            raise self.ctx.address_error(fr, st, self.ins, int(mis[0]), where, int(addr[mis[0]]), space,
                                         f"misaligned {size}-byte access")
        lo, hi = int(addr.min()), int(addr.max())
        if space is MemSpace.GLOBAL:
            # fast path: the whole access falls inside one allocation
            if not fr.mem.contains_range(lo, hi + size):
                ok = fr.mem.check(addr, size)
                if not ok.all():
                    bad = int(np.flatnonzero(~ok)[0])
                    raise self.ctx.address_error(fr, st, self.ins, bad, where, int(addr[bad]), space,
                                                 "out-of-bounds access")
            return space, where, fr.mem.buf, addr - GLOBAL_BASE
        if space is MemSpace.SHARED:
            limit, buf = fr.shared_size, fr.shared
            phys_base = fr.lane_block_shared(st, where)
        elif space is MemSpace.LOCAL:
            limit, buf = fr.local_size, fr.local
            lanes = st.lane_ids(fr) if where is None else st.lane_ids(fr)[where]
            phys_base = lanes * limit     # the emulator's buffer: thread-major (the trace keeps offsets)
        elif space is MemSpace.CONST:
            limit, buf, phys_base = fr.const_bytes, fr.const, 0
        elif space is MemSpace.PARAM:
            limit, buf, phys_base = fr.param_bytes, fr.params, 0
        else:
            raise self.ctx.unsupported(self.ins, f"state space {space.value}")
        if lo < 0 or hi + size > limit:
            bad = int(np.flatnonzero((addr < 0) | (addr + size > limit))[0])
            raise self.ctx.address_error(fr, st, self.ins, bad, where, int(addr[bad]), space,
                                         f"out of bounds of the {limit}-byte .{space.value} window")
        return space, where, buf, addr + phys_base
