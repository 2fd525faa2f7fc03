"""Memory spaces of the functional emulator.

* :class:`DeviceMemory` — the global heap: byte-addressed, one numpy buffer, allocations with guard gaps,
  every access bounds- and alignment-checked against the allocation table (vectorised with
  ``searchsorted``).  Kernel arguments are copied in ("device buffers") and module ``.global`` variables
  live here too.
* Shared memory is one buffer per batch of blocks ``[blocks x shared_bytes]``; local memory one buffer
  ``[threads x local_bytes]``; both are owned by the emulator's frame.  These are the emulator's storage,
  not a model of the hardware's layout: the trace records state-space offsets and the memory system maps
  them to physical addresses.
* Generic addresses (``cvta``) map the spaces into one 64-bit space with fixed windows (below), so generic
  loads and stores find their space by address, as the hardware does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusim.errors import GpusimError
from isa.units import MemSpace

GLOBAL_BASE = 0x7F00_0000_0000      # first byte of the device heap (looks like a CUDA address)
# generic address of offset 0 of each space other than global (whose generic addresses are its own)
GENERIC_WINDOWS = {
    MemSpace.SHARED: 0x0100_0000_0000,
    MemSpace.LOCAL: 0x0200_0000_0000,
    MemSpace.CONST: 0x0300_0000_0000,
    MemSpace.PARAM: 0x0400_0000_0000,
}
WINDOW_SIZE = 0x0100_0000_0000

GAP_BYTES = 256          # guard gap between allocations, so a small overrun is caught
ALIGN_BYTES = 256        # cudaMalloc alignment

# generic-window base by MemSpace code (0 for global), to turn generic addresses into state-space offsets
WINDOW_BASE_BY_CODE = np.zeros(len(MemSpace), dtype=np.int64)
for _space, _base in GENERIC_WINDOWS.items():
    WINDOW_BASE_BY_CODE[_space.code] = _base


def window_space(addr: np.ndarray) -> np.ndarray:
    """:class:`~isa.units.MemSpace` code per generic address (global where no other window holds it)."""
    a = addr.astype(np.int64)
    out = np.full(a.shape, MemSpace.GLOBAL.code, dtype=np.uint8)
    for space, base in GENERIC_WINDOWS.items():
        out[(a >= base) & (a < base + WINDOW_SIZE)] = space.code
    return out


@dataclass
class Allocation:
    name: str
    address: int
    size_bytes: int

    @property
    def end(self) -> int:
        return self.address + self.size_bytes


class DeviceMemory:
    """The device's global memory: a heap of allocations in one byte buffer.

    Allocations are 256-byte aligned (as ``cudaMalloc``) with a guard gap after each, so that a small overrun
    falls outside every allocation and faults.  :meth:`free` unmaps an allocation (a later access faults, as
    on the GPU) and its range becomes a hole that a later :meth:`allocate` may reuse (first fit); the heap
    never moves, so an address stays valid for as long as its allocation lives (a :mod:`gpusim.cupy`
    session keeps one heap across all its launches).  Freed memory is not cleared, as ``cudaMalloc`` does
    not clear.

    ``listeners``: objects told of every ``allocated(alloc)`` and ``freed(alloc)`` (either method may be
    missing): the hook a sanitizer's shadow memory uses to follow allocations and frees.  Allocation and
    free are host operations, so this costs nothing while kernels run.

    Simplifications: no virtual memory or pages; holes are not merged with the top of the heap (the buffer
    only grows).
    """

    def __init__(self) -> None:
        self.allocations: list[Allocation] = []      # live ones, by address
        self.listeners: list = []
        self._top = 0
        self._holes: list[tuple[int, int]] = []      # freed [start, end) heap offsets, by address
        self.buf = np.zeros(0, dtype=np.uint8)
        self._starts = np.zeros(0, dtype=np.int64)
        self._ends = np.zeros(0, dtype=np.int64)

    def allocate(self, name: str, size_bytes: int, data: bytes | np.ndarray | None = None) -> Allocation:
        need = max(int(size_bytes), 1) + GAP_BYTES
        off = self._from_hole(need)
        if off is None:
            off = (self._top + ALIGN_BYTES - 1) // ALIGN_BYTES * ALIGN_BYTES
            self._top = off + need
        a = Allocation(name, GLOBAL_BASE + off, int(size_bytes))
        top = (self._top + 15) // 16 * 16
        if top > self.buf.size:
            nb = np.zeros(max(top, self.buf.size * 2), dtype=np.uint8)
            nb[: self.buf.size] = self.buf
            self.buf = nb
        if data is not None:
            raw = np.frombuffer(bytes(data) if not isinstance(data, np.ndarray) else
                                np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            self.buf[off: off + raw.size] = raw
        self.allocations.append(a)
        if len(self.allocations) > 1 and a.address < self.allocations[-2].address:
            self.allocations.sort(key=lambda x: x.address)
        self._index()
        for lst in self.listeners:
            if hasattr(lst, "allocated"):
                lst.allocated(a)
        return a

    def _from_hole(self, need: int) -> int | None:
        for i, (h0, h1) in enumerate(self._holes):
            off = (h0 + ALIGN_BYTES - 1) // ALIGN_BYTES * ALIGN_BYTES
            if off + need <= h1:
                rest = [(h0, off)] if off - h0 >= ALIGN_BYTES else []
                if h1 - (off + need) >= ALIGN_BYTES + GAP_BYTES:
                    rest.append((off + need, h1))
                self._holes[i:i + 1] = rest
                return off
        return None

    def free(self, alloc: Allocation) -> None:
        """Unmap ``alloc``: accesses to it fault from now on, and its range may be handed out again."""
        try:
            i = next(j for j, x in enumerate(self.allocations) if x is alloc)
        except StopIteration:
            raise GpusimError(f"{alloc.name} [{alloc.address:#x}, {alloc.end:#x}) is not a live allocation "
                              f"(freed twice?)") from None
        del self.allocations[i]
        self._index()
        h0 = alloc.address - GLOBAL_BASE
        h1 = h0 + max(alloc.size_bytes, 1) + GAP_BYTES
        holes = self._holes + [(h0, h1)]
        holes.sort()
        merged: list[tuple[int, int]] = []
        for a, b in holes:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
            else:
                merged.append((a, b))
        self._holes = merged
        for lst in self.listeners:
            if hasattr(lst, "freed"):
                lst.freed(alloc)

    def _index(self) -> None:
        self._starts = np.array([x.address for x in self.allocations], dtype=np.int64)
        self._ends = np.array([x.end for x in self.allocations], dtype=np.int64)

    def find(self, address: int) -> Allocation | None:
        """The live allocation holding byte ``address``, if any."""
        i = int(np.searchsorted(self._starts, address, side="right")) - 1
        if i >= 0 and address < int(self._ends[i]):
            return self.allocations[i]
        return None

    def view(self, address: int, size_bytes: int) -> np.ndarray:
        """The bytes [address, address + size_bytes) of the heap as a writable view (valid until the next
        allocation, which may grow the buffer)."""
        off = int(address) - GLOBAL_BASE
        if off < 0 or off + size_bytes > self.buf.size:
            raise GpusimError(f"[{address:#x}, {address + size_bytes:#x}) lies outside the device heap")
        return self.buf[off: off + size_bytes]

    def read(self, alloc: Allocation) -> np.ndarray:
        off = alloc.address - GLOBAL_BASE
        return self.buf[off: off + alloc.size_bytes].copy()

    def write(self, alloc: Allocation, data: np.ndarray) -> None:
        raw = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
        if raw.size > alloc.size_bytes:
            raise GpusimError(f"{alloc.name}: {raw.size} bytes do not fit in its {alloc.size_bytes}")
        off = alloc.address - GLOBAL_BASE
        self.buf[off: off + raw.size] = raw

    def contains_range(self, lo: int, hi: int) -> bool:
        """True if the byte range [lo, hi) lies inside one allocation."""
        i = int(np.searchsorted(self._starts, lo, side="right")) - 1
        return i >= 0 and hi <= int(self._ends[i])

    def check(self, addr: np.ndarray, size: int) -> np.ndarray:
        """Return a boolean array: True where [addr, addr+size) lies inside one allocation."""
        idx = np.searchsorted(self._starts, addr, side="right") - 1
        ok = idx >= 0
        idxc = np.maximum(idx, 0)
        ok &= addr + size <= self._ends[idxc] if self._ends.size else np.zeros_like(ok)
        return ok

    def nearest(self, address: int) -> str:
        if not self.allocations:
            return "no allocations"
        best = min(self.allocations, key=lambda a: 0 if a.address <= address < a.end else
                   min(abs(address - a.address), abs(address - a.end)))
        if best.address <= address < best.end:
            return f"inside '{best.name}' [{best.address:#x}, {best.end:#x}) at offset {address - best.address}"
        rel = address - best.end if address >= best.end else best.address - address
        where = "past the end of" if address >= best.end else "before"
        return (f"{rel} bytes {where} '{best.name}' [{best.address:#x}, {best.end:#x}), "
                f"{best.size_bytes} bytes")
