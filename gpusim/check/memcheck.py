"""memcheck: accesses outside what the thread may touch.

* ``out-of-bounds access``: a global address outside every allocation, a shared/local/constant/parameter
  offset outside its space; and, from the address's provenance (:func:`gpusim.check.symbols.provenance`),
  an access outside the one variable its address was computed from (``a[64]`` of a 64-element shared array,
  even where that lands in the next array; a ``__constant__`` array read past its end).
* ``misaligned access``: an address not aligned to the access's size (a vector access to its whole size:
  ``float2`` 8 bytes, ``float4`` 16).
* ``use after free``: a global access inside an allocation the host freed before the launch: a launch
  file's ``host = "freed"`` (the buffer still holds its data), or a :mod:`gpusim.cupy` array the program
  freed to the device (its range unmapped, unless a later allocation took it: :class:`FreedMemory`
  follows the heap's frees).

Without the checker the emulator stops at the first bad access.  With memcheck on, the bad lanes are
reported (all of them, counted) and their access goes to a scratch buffer instead (a read gives the poison
pattern, a write is dropped), so that the launch runs on and later problems are found too; accesses that
stay inside their space (a neighbouring variable, freed memory) read and write as the GPU would.
"""
from __future__ import annotations

import numpy as np

from gpusim.check.symbols import demangle
from isa.units import MemSpace


class MemCheck:
    """The memcheck tool of one launch (see the module docstring)."""

    tool = "memcheck"

    def __init__(self, tally, variables, provenance: dict[int, str], freed: list):
        self.tally = tally
        self.variables = variables
        self.provenance = provenance
        self.freed = [(a.address, a.end, a.name) for a in freed if a.size_bytes]

    def check(self, mo, fr, space: MemSpace, addr: np.ndarray, lanes):
        """Report the lanes whose access at state-space ``addr`` is bad; return the mask of those that must
        not touch memory (outside their space), or None when every lane may."""
        pc = mo.ins.pc
        what = _what(mo.ins.base)
        redirect = None
        v = mo.violation(fr, space, addr)
        var = self.provenance.get(pc)
        ext = self.variables.get(var) if var is not None else None
        if ext is not None and ext.space is space:
            outside = (addr < ext.start) | (addr + mo.size > ext.end)
            if outside.any():
                self._add("out-of-bounds access", pc, space, what, outside, addr, lanes,
                          f"outside the {ext.size_bytes}-byte {_space_name(space)} variable "
                          f"'{demangle(ext.name)}' (its address was computed from it)")
                if v is not None and v[0].startswith("out"):
                    v = (v[0], v[1] & ~outside)
                    redirect = outside.copy()
        if v is not None and v[1].any():
            bad = v[1]
            if space is MemSpace.GLOBAL and self.freed and v[0].startswith("out"):
                gone = self._in_freed(addr) & bad        # unmapped by a free: a use after free, not a stray
                if gone.any():
                    self._use_after_free(pc, space, what, gone, addr, lanes)
                    bad = bad & ~gone
                redirect = v[1] if redirect is None else (redirect | v[1])
            if bad.any():
                self._add("misaligned access" if v[0].startswith("misaligned") else "out-of-bounds access", pc,
                          space, what, bad, addr, lanes,
                          v[0] + (f" ({fr.mem.nearest(int(addr[np.flatnonzero(bad)[0]]))})"
                                  if space is MemSpace.GLOBAL else ""))
                redirect = bad if redirect is None else (redirect | bad)
        if space is MemSpace.GLOBAL and self.freed and (v is None or not v[0].startswith("out")):
            # still mapped (the host's free left the data in place, as a launch file's host = "freed" says)
            inside = self._in_freed(addr)
            if inside.any():
                self._use_after_free(pc, space, what, inside, addr, lanes)
        return redirect

    def _in_freed(self, addr: np.ndarray) -> np.ndarray:
        inside = np.zeros(addr.shape, dtype=bool)
        for start, end, _ in self.freed:
            inside |= (addr >= start) & (addr < end)
        return inside

    def _use_after_free(self, pc, space, what, inside, addr, lanes) -> None:
        i = int(np.flatnonzero(inside)[0])
        start, end, name = next(f for f in self.freed if f[0] <= int(addr[i]) < f[1])
        self._add("use after free", pc, space, what, inside, addr, lanes,
                  f"inside '{name}' [{start:#x}, {end:#x}), which the host freed before the launch")

    def _add(self, kind, pc, space, what, bad, addr, lanes, why) -> None:
        i = int(np.flatnonzero(bad)[0])
        self.tally.add(("memcheck", kind, "error", None, _space_name(space), ((what, pc),)), int(bad.sum()),
                       lambda: {"lane": int(lanes[i]), "address": int(addr[i]), "space": _space_name(space),
                                "message": why})


def _what(base: str) -> str:
    return {"ld": "read", "st": "write", "atom": "atomic", "red": "atomic"}.get(base, base)


def _space_name(space: MemSpace) -> str:
    return {MemSpace.CONST: "constant"}.get(space, space.value)



class FreedMemory:
    """A :class:`~gpusim.functional.memory.DeviceMemory` listener (``mem.listeners``) that remembers the
    allocations freed from a heap that outlives launches (a :mod:`gpusim.cupy` session), for memcheck's use
    after free; an allocation made later over a freed range takes it back."""

    def __init__(self):
        self._freed: list = []

    def freed(self, alloc) -> None:
        self._freed.append(alloc)

    def allocated(self, alloc) -> None:
        self._freed = [f for f in self._freed if f.end <= alloc.address or f.address >= alloc.end]

    def allocations(self) -> list:
        return list(self._freed)
