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

    Simplifications: no virtual memory or pages; the heap is laid out once per launch (allocations are
    made before the buffer is sized, then it is fixed), which is all a single kernel launch needs.
    """

    def __init__(self) -> None:
        self.allocations: list[Allocation] = []
        self._top = 0
        self.buf = np.zeros(0, dtype=np.uint8)
        self._starts = np.zeros(0, dtype=np.int64)
        self._ends = np.zeros(0, dtype=np.int64)

    def allocate(self, name: str, size_bytes: int, data: bytes | np.ndarray | None = None) -> Allocation:
        off = (self._top + ALIGN_BYTES - 1) // ALIGN_BYTES * ALIGN_BYTES
        a = Allocation(name, GLOBAL_BASE + off, int(size_bytes))
        self._top = off + max(int(size_bytes), 1) + GAP_BYTES
        self.allocations.append(a)
        need = (self._top + 15) // 16 * 16
        if need > self.buf.size:
            nb = np.zeros(max(need, self.buf.size * 2), dtype=np.uint8)
            nb[: self.buf.size] = self.buf
            self.buf = nb
        if data is not None:
            raw = np.frombuffer(bytes(data) if not isinstance(data, np.ndarray) else
                                np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            self.buf[off: off + raw.size] = raw
        self._starts = np.array([x.address for x in self.allocations], dtype=np.int64)
        self._ends = np.array([x.end for x in self.allocations], dtype=np.int64)
        return a

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
