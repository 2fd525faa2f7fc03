"""Where every state space lives: one map from (space, per-lane offset) to the physical byte addresses the
caches and DRAM see.

A trace records each lane's address *in its state space* (a global address, a shared offset within the
block's shared memory, a local offset within the thread's local memory, a constant-bank or parameter
offset).  This module is the one place that places the spaces in the single physical address space of the
memory hierarchy::

    [2^45,          2^45 + 2^40)    const   (the constant banks; ``CONST_BASE + offset``)
    [2^45 + 2^40,   2^45 + 2^41)    param   (kernel parameters, constant bank 0; ``PARAM_BASE + offset``)
    [0, 2^47) outside those two    global  (as the program sees it: the emulator's heap starts at
                                            0x7F00_0000_0000, a CUDA-looking address)
    [2^47, 2^62)                    local   (interleaved per warp, below)

Shared memory never leaves its SM: its offsets go to the SM's banks as they are (a block's shared memory
starts on a multiple of the 128-byte bank period, so an offset's bank is its physical bank).

Local memory is interleaved as the hardware lays it out (CUDA Programming Guide, "Local Memory": consecutive
32-bit words are accessed by consecutive thread IDs): word ``k`` of the 32 threads of a warp is one
contiguous 128-byte row, so a warp reading one local word moves 4 sectors, as a coalesced global load does.
Thread ``lane`` of warp ``w`` finds byte ``o`` of its local memory at::

    LOCAL_BASE + ((w * words_per_thread + o // 4) * 32 + lane) * 4 + o % 4

Simplification: the local region is sized by the grid (every warp of the launch gets its own rows, by its
index in the trace), where the hardware sizes it by the warps that can be resident and reuses a slot's rows
for the next block; so a later block's local data never hits in L2 on data an earlier block left there.
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import LaunchError
from isa.units import MemSpace

CONST_BASE = 1 << 45
PARAM_BASE = (1 << 45) + (1 << 40)
PARAM_END = (1 << 45) + (1 << 41)
LOCAL_BASE = 1 << 47
LOCAL_END = 1 << 62
WORD_BYTES = 4
WARP_SIZE = 32


class AddressMap:
    """The physical layout of every state space for one kernel launch (see the module docstring).

    ``n_warps``: warps of the launch; ``local_bytes_per_thread``: the local memory each thread uses (the
    largest byte any access touches, plus one).  Raises :class:`LaunchError` if the local region of this
    launch would not fit below 2^62 (64-bit arithmetic throughout; no address is ever negative).
    """

    def __init__(self, n_warps: int, local_bytes_per_thread: int = 0) -> None:
        self.n_warps = int(n_warps)
        self.words_per_thread = max(1, -(-int(local_bytes_per_thread) // WORD_BYTES))
        top = LOCAL_BASE + self.n_warps * self.words_per_thread * WORD_BYTES * WARP_SIZE
        if top > LOCAL_END:
            raise LaunchError(f"local memory: {self.n_warps} warps x {self.words_per_thread * WORD_BYTES} B per "
                              f"thread do not fit the {LOCAL_END - LOCAL_BASE:#x}-byte local region")
        self.local_end = top

    def physical(self, space: MemSpace, offsets: np.ndarray, warps: np.ndarray | None = None) -> np.ndarray:
        """Physical byte addresses (int64, -1 where a lane is inactive) of ``offsets`` (int64 [M, 32], -1 =
        inactive lane) in ``space``; ``warps`` (int [M], the warp of each row) is needed for local."""
        a = np.asarray(offsets, dtype=np.int64)
        on = a >= 0
        if space is MemSpace.GLOBAL:
            bad = on & ((a >= LOCAL_BASE) | ((a >= CONST_BASE) & (a < PARAM_END)))
            if bad.any():
                raise LaunchError(f"global address {int(a[bad][0]):#x} lies in the const/param or local region "
                                  f"of the physical address map (gpusim.memory.address_map)")
            return a
        if space is MemSpace.SHARED:
            return a
        if space is MemSpace.CONST:
            return np.where(on, a + CONST_BASE, -1)
        if space is MemSpace.PARAM:
            return np.where(on, a + PARAM_BASE, -1)
        if space is MemSpace.LOCAL:
            return self._local(a, on, warps)
        raise LaunchError(f"address map: no physical layout for the {space.value!r} space")

    def _local(self, a: np.ndarray, on: np.ndarray, warps) -> np.ndarray:
        if warps is None:
            raise LaunchError("address map: local addresses need the warp of each access")
        w = np.asarray(warps, dtype=np.int64)[:, None]
        words = self.words_per_thread
        if on.any() and (int(a[on].max()) >= words * WORD_BYTES or int(w.max(initial=0)) >= self.n_warps):
            raise LaunchError(f"local offset {int(a[on].max())} or warp {int(w.max())} outside the local region "
                              f"({words * WORD_BYTES} B per thread, {self.n_warps} warps)")
        lane = np.arange(a.shape[1], dtype=np.int64)[None, :] % WARP_SIZE
        phys = LOCAL_BASE + ((w * words + a // WORD_BYTES) * WARP_SIZE + lane) * WORD_BYTES + a % WORD_BYTES
        return np.where(on, phys, -1)

    def local_words(self, offsets: np.ndarray, warps: np.ndarray, access_bytes: int) -> np.ndarray:
        """The physical addresses of every 4-byte word a local access of ``access_bytes`` per lane touches:
        int64 [M, 32 * words] (a 64-bit access is two words, each in its own 128-byte row), -1 = inactive.
        Accesses of up to one word return [M, 32]."""
        a = np.asarray(offsets, dtype=np.int64)
        n = max(1, -(-int(access_bytes) // WORD_BYTES))
        if n == 1:
            return self.physical(MemSpace.LOCAL, a, warps)
        k = np.arange(n, dtype=np.int64) * WORD_BYTES
        wide = np.where(a[:, :, None] >= 0, a[:, :, None] + k[None, None, :], -1)     # [M, 32, n]
        lanes = wide.transpose(0, 2, 1).reshape(a.shape[0], -1)                       # word-major, lane-minor
        return self.physical(MemSpace.LOCAL, lanes, warps)
