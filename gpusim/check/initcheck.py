"""initcheck: reads of memory that nothing wrote since it was allocated.

Shadow "written" flags (:class:`gpusim.check.shadow.WrittenBytes`) cover the block's shared memory and each
thread's local memory (nothing written when the block starts) and the global heap (the launch's arguments
and module variables are written: the host copied them in; an argument the launch file marks
``host = "uninitialised"`` is not).  A read (``ld``, and the read half of an atomic) of any byte not written is
reported with its line, thread and address; a write sets the flags.

In check mode the unwritten memory also *holds* a poison pattern (every byte ``0xFF``: NaN as a float, -1 as
an integer) instead of the zeros the emulator otherwise gives, so that a kernel that reads it computes
visibly wrong results, as it would on a GPU where the memory holds whatever was there.
"""
from __future__ import annotations

import numpy as np

from gpusim.check.shadow import WrittenBytes
from gpusim.functional.memory import GLOBAL_BASE
from isa.units import MemSpace

POISON = 0xFF


class InitCheck:
    """The initcheck tool of one launch (see the module docstring)."""

    tool = "initcheck"

    def __init__(self, tally, variables):
        self.tally = tally
        self.variables = variables
        self.shadow: dict[MemSpace, WrittenBytes] = {}
        self.window = (0, 0)             # global memory: the heap bytes [lo, hi) the global shadow covers

    def begin_launch(self, dev, uninitialised: list) -> None:
        """Global memory is all written (the host copied it in) but for the uninitialised buffers: the shadow
        covers only the span of those, so a launch without any costs nothing here."""
        self.shadow.pop(MemSpace.GLOBAL, None)
        if not uninitialised:
            return
        lo = min(a.address for a in uninitialised) - GLOBAL_BASE
        hi = max(a.end for a in uninitialised) - GLOBAL_BASE
        g = WrittenBytes((hi - lo + 15) // 16 * 16, written=True)
        for a in uninitialised:
            g.flags[a.address - GLOBAL_BASE - lo: a.end - GLOBAL_BASE - lo] = False
        self.shadow[MemSpace.GLOBAL] = g
        self.window = (lo, hi)

    def begin_batch(self, fr) -> None:
        for space, size in ((MemSpace.SHARED, fr.shared.size), (MemSpace.LOCAL, fr.local.size)):
            sh = self.shadow.get(space)
            if sh is not None and sh.flags.size == size:
                sh.flags.fill(False)      # a new batch's memory: nothing written yet
            else:
                self.shadow[space] = WrittenBytes(size)

    def access(self, fr, pc: int, op: str, space: MemSpace, lanes, phys, offsets, elem: int, vec: int) -> None:
        sh = self.shadow.get(space)
        if sh is None:
            return
        if space is MemSpace.GLOBAL:
            lo, hi = self.window
            inside = (phys >= lo) & (phys < hi)
            if not inside.any():
                return
            if not inside.all():
                lanes, phys, offsets = lanes[inside], phys[inside], offsets[inside]
            phys = phys - lo
        if op in ("read", "atomic"):
            bad = np.zeros(phys.shape, dtype=bool)
            for k in range(vec):
                bad |= sh.unwritten(phys + k * elem, elem)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                name = self.variables.name_of(space, int(offsets[i])) if space is not MemSpace.GLOBAL else None
                what = "atomic" if op == "atomic" else "read"
                self.tally.add(
                    ("initcheck", "uninitialised read", "error", None, space.value, ((what, pc),)), int(bad.sum()),
                    lambda: {"lane": int(lanes[i]), "address": int(offsets[i]), "space": space.value,
                             "message": f"{'read' if op == 'read' else 'atomic read-modify-write'} of "
                                        f"{elem * vec} bytes at {space.value} {int(offsets[i]):#x}"
                                        + (f" ({name})" if name else "")
                                        + (f" ({fr.mem.nearest(int(offsets[i]))})" if space is MemSpace.GLOBAL
                                           else "")
                                        + " that nothing wrote since it was allocated"})
        if op != "read":           # write, atomic, atomic-init
            for k in range(vec):
                sh.write(phys + k * elem, elem)

