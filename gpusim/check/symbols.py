"""The kernel's variables as the checker sees them: where each lies in its state space, and which variable
a memory instruction's address was computed from.

:class:`Variables` holds the extent ``[start, end)`` of every variable in its space (shared arrays in the
block's shared memory, the dynamic ``extern __shared__`` array up to the launch's shared size, the local
frame, ``__constant__`` arrays in the constant bank, module ``__device__`` variables at their global
addresses) and names the variable an offset falls in, for reports (``'sdata' + 128``).

:func:`provenance` is a small static analysis of the PTX: for every register, the set of variables whose
address can flow into it (``mov %r, var``, ``cvta``, ``cvt``, and ``add``/``sub``/``mad``/``selp`` with it as an
operand), over every definition of the register (flow-insensitive, to a fixed point).  A 64-bit load can
produce any pointer, so it contributes "unknown"; other arithmetic results are offsets, not pointers.  A
memory instruction whose address register points into exactly one variable (``[var+imm]`` operands too) is
checked against that variable's extent by memcheck: that is how ``a[64]`` of a 64-element shared array is
found even where it lands inside the next array, and a ``__constant__`` read past its end.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from isa.program import Instruction, Kernel, Mem, Module, Reg, SymbolAddr
from isa.units import MemSpace

UNKNOWN = "?"          # a register that may hold a pointer from anywhere
_PASS = ("mov", "cvta", "cvt")
_ADD = ("add", "sub", "selp")


@dataclass(frozen=True)
class Extent:
    """Where a variable lies in its state space: bytes ``[start, end)``."""

    name: str
    space: MemSpace
    start: int
    end: int

    @property
    def size_bytes(self) -> int:
        return self.end - self.start


class Variables:
    """Extents of a kernel's variables by state space (see the module docstring)."""

    def __init__(self, module: Module, kernel: Kernel, table: dict, shared_total: int, local_bytes: int,
                 more_sizes: dict | None = None):
        sizes = {v.name: v.size_bytes for v in kernel.shared_vars + kernel.local_vars + module.shared_globals}
        sizes.update(more_sizes or {})         # device functions' own shared variables, by their keys
        sizes.update({n: v.size_bytes for n, v in module.globals.items()})
        sizes.update({p.name: p.size_bytes for p in kernel.params})
        self.by_name: dict[str, Extent] = {}
        for name, (space, start) in table.items():
            size = sizes.get(name, 0)
            if space is MemSpace.SHARED and size == 0:      # extern __shared__ x[]: the dynamic part
                size = max(shared_total - start, 0)
            if space is MemSpace.LOCAL and size == 0:
                size = local_bytes - start
            self.by_name[name] = Extent(name, space, int(start), int(start) + int(size))
        self._sorted = {}
        for e in self.by_name.values():
            self._sorted.setdefault(e.space, []).append(e)
        for lst in self._sorted.values():
            lst.sort(key=lambda e: e.start)

    def get(self, name: str) -> Extent | None:
        return self.by_name.get(name)

    def name_of(self, space: MemSpace, offset: int) -> str | None:
        """``'sdata' + 128`` for an offset inside a variable of ``space``, None elsewhere."""
        for e in self._sorted.get(space, ()):
            if e.start <= offset < e.end:
                return f"'{demangle(e.name)}'" + (f" + {offset - e.start}" if offset != e.start else "")
        return None


def provenance(instructions) -> dict[int, str]:
    """``{pc: variable name}`` of the memory instructions (of the linked program's ``instructions``) whose
    address comes from exactly one variable."""
    prov: dict[int, set] = {}
    changed = True
    while changed:
        changed = False
        for ins in instructions:
            d = _dest(ins)
            if d is None:
                continue
            new = _transfer(ins, prov)
            if new and not new <= prov.get(d.id, set()):
                prov[d.id] = prov.get(d.id, set()) | new
                changed = True
    out = {}
    for ins in instructions:
        if ins.base not in ("ld", "st", "atom", "red"):
            continue
        m = ins.operands[0] if ins.base in ("st", "red") else ins.operands[1]
        if not isinstance(m, Mem):
            continue
        if isinstance(m.base, SymbolAddr):
            out[ins.pc] = m.base.name
        elif isinstance(m.base, Reg):
            src = prov.get(m.base.id, set())
            if len(src) == 1 and UNKNOWN not in src:
                out[ins.pc] = next(iter(src))
    return out


def _dest(ins: Instruction) -> Reg | None:
    if ins.base in ("st", "red", "bra", "ret", "exit", "bar", "barrier") or not ins.operands:
        return None
    d = ins.operands[0]
    return d if isinstance(d, Reg) else None


def _transfer(ins: Instruction, prov: dict[int, set]) -> set:
    def of(op) -> set:
        if isinstance(op, SymbolAddr):
            return {op.name}
        if isinstance(op, Reg):
            return prov.get(op.id, set())
        return set()

    ops = ins.operands[1:]
    if ins.base in _PASS and ops:
        return of(ops[0])
    if ins.base in _ADD:
        return set().union(*(of(o) for o in ops[:2]))
    if ins.base == "mad" and len(ops) == 3:
        return of(ops[2])
    if ins.base == "ld" and ins.type in ("u64", "b64", "s64"):
        return {UNKNOWN}
    return set()


def demangle(name: str) -> str:
    """``_ZZ24oob_shared_into_neighborE1a`` -> ``a`` (a function-scope static's own name), else as it is."""
    m = re.search(r"E(\d+)([A-Za-z_]\w*?)(_\d+)?$", name) if name.startswith("_ZZ") else None
    if m and len(m.group(2)) == int(m.group(1)):
        return m.group(2)
    return name
