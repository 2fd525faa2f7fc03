"""The state an instruction handler sees: the narrow interface between the emulator and the semantics.

A handler is ``h(fr, st)`` (see :mod:`gpusim.functional.registry`):

* ``fr`` is the :class:`Frame` of one *batch* of blocks executed together: the register file (one numpy
  array per register, every lane of the batch on its axis: lane ``32 * warp + laneid``), the memory spaces
  (device heap, constant bank, parameters, shared memory per block, local memory per thread), the special
  registers, and the batch's :class:`~gpusim.functional.simt.SimtStack` (only control-flow handlers touch it).
* ``st`` is the :class:`Step`: which warps execute the instruction now and which of their lanes.  ``st.sel``
  indexes the executing lanes in every register array (a slice over all lanes when every warp of the batch
  executes with every lane, else an index array), so an operand is read with ``fr.regs[r][st.sel]``.
"""
from __future__ import annotations

import numpy as np

from gpusim.functional.operands import STORAGE

AR32 = np.arange(32, dtype=np.uint32)   # lane numbers, for bit masks <-> [warps, 32] matrices
FULL_MASK = np.uint32(0xFFFFFFFF)


class Frame:
    """State of one batch of blocks: registers (one array per register over all lanes) and memory spaces.

    The emulator sets the spaces as attributes: ``mem`` (the device heap), ``const``/``const_bytes``,
    ``params``/``param_bytes``, ``shared``/``shared_size`` (``[blocks x shared bytes]``),
    ``local``/``local_size`` (``[threads x local bytes]``), ``special`` (special registers), ``simt``, and the
    launch geometry (``block0``, ``grid``, ``block``, ``lanes_per_block``, ``lane_block_all``).
    """

    def __init__(self, T: int, register_bits: list[int]):
        self.T = T
        self.regs = [np.zeros(T, dtype=STORAGE[b]) for b in register_bits]
        self.recording = False

    def lane_block_shared(self, st: "Step", where) -> np.ndarray:
        """Byte offset of each executing lane's block in the shared-memory buffer."""
        if st.lanes is None and where is None:
            return self.lane_block_all * self.shared_size
        lanes = st.lane_ids(self)
        if where is not None:
            lanes = lanes[where]
        return (lanes // self.lanes_per_block) * self.shared_size


class Step:
    """What executes now: the PC, the warps (batch-local ids ``selw``), their active (``act``) and executing
    (``exe``: active and guard true) lane masks, the executing lanes (``sel``/``lanes``), and the memory
    access the step made (``addr``: state-space byte offset per executing lane; ``space``: its
    :class:`isa.units.MemSpace` code) for the trace recorder."""

    __slots__ = ("pc", "selw", "act", "exe", "E", "sel", "lanes", "addr", "space")

    def lane_ids(self, fr: Frame) -> np.ndarray:
        if self.lanes is None:
            self.lanes = np.arange(fr.T, dtype=np.int64)
        return self.lanes

    def exec_matrix(self) -> np.ndarray:
        """``[warps, 32]`` booleans: lane executes."""
        if self.E is None:
            self.E = ((self.exe[:, None] >> AR32) & 1).astype(bool)
        return self.E
