"""Device memory, as ``cupy.cuda.memory``: allocations, pointers and the memory pool.

Every allocation is an allocation of the session's one heap (:class:`gpusim.functional.memory.DeviceMemory`),
so a :class:`MemoryPointer`'s ``ptr`` is the address a kernel sees, pointer arithmetic on it works as on the
GPU, and two arrays viewing one allocation alias.  The default pool works as CuPy's does in outline:
requests are rounded up to 512 bytes, a block given back (the array was deleted) is kept for a later request
of the same rounded size, ``free_all_blocks()`` returns the kept blocks to the device (then an access to one
faults).  A pooled block is still device memory, so a kernel that reads a deleted array's block reads
whatever is there, as on the GPU; hooks (:mod:`~gpusim.cupy.cuda.memory_hook`) see every free.

Not modelled: CuPy's block splitting and merging across sizes, streams' separate free lists, managed and
pinned memory, limits other than ``set_limit(size=)``.
"""
from __future__ import annotations

import numpy as np

from gpusim.cupy import _session
from gpusim.cupy.cuda import memory_hook
from gpusim.errors import GpusimError

ROUND_BYTES = 512


class OutOfMemoryError(MemoryError):
    """The pool's limit would be exceeded (``cupy.cuda.memory.OutOfMemoryError``)."""


class Memory:
    """One device allocation (``cupy.cuda.memory.Memory``): ``ptr`` and ``size`` in bytes."""

    def __init__(self, size: int, name: str = "cupy.cuda.Memory"):
        self.session = _session.session()
        self.size = int(size)
        self.device_id = 0
        self.alloc = self.session.mem.allocate(name, self.size) if self.size else None
        self.ptr = 0 if self.alloc is None else self.alloc.address
        if self.alloc is not None:
            memory_hook.call("alloc_postprocess", device_id=0, mem_size=self.size, mem_ptr=self.ptr)

    def free(self) -> None:
        if self.alloc is not None:
            self.session.mem.free(self.alloc)
            self.alloc = None


class PooledMemory:
    """A block handed out by a :class:`MemoryPool`; it goes back to the pool when nothing refers to it."""

    def __init__(self, pool: "MemoryPool", block: Memory, size: int):
        self.pool = pool
        self.block = block
        self.size = int(size)
        self.ptr = block.ptr
        self.device_id = 0
        self.session = block.session

    @property
    def alloc(self):
        return self.block.alloc

    def __del__(self):
        pool = self.pool
        if pool is not None:
            self.pool = None
            pool._give_back(self.block, self.size, id(self))


class MemoryPointer:
    """A pointer into device memory (``cupy.cuda.MemoryPointer``): ``mem`` (the allocation it keeps alive),
    ``ptr`` (the device address), ``+``/``-`` an offset in bytes."""

    def __init__(self, mem, offset: int):
        self.mem = mem
        self.ptr = (0 if mem is None else mem.ptr) + int(offset)
        self.device_id = 0

    @property
    def device(self):
        from gpusim.cupy.cuda.device import Device
        return Device(0)

    def __int__(self) -> int:
        return self.ptr

    def __add__(self, offset: int) -> "MemoryPointer":
        return MemoryPointer(self.mem, self.ptr - (0 if self.mem is None else self.mem.ptr) + int(offset))

    __radd__ = __add__

    def __sub__(self, offset: int) -> "MemoryPointer":
        return self + (-int(offset))

    def __repr__(self) -> str:
        return f"<gpusim.cupy.cuda.MemoryPointer {self.ptr:#x}>"

    def _bytes(self, size: int) -> np.ndarray:
        if self.mem is None or size == 0:
            if size:
                raise GpusimError("null device pointer")
            return np.zeros(0, np.uint8)
        sess = self.mem.session
        a = sess.mem.find(self.ptr)
        if a is None or self.ptr + size > a.end:
            raise GpusimError(f"[{self.ptr:#x}, {self.ptr + size:#x}) is not inside one live device allocation "
                              f"({sess.mem.nearest(self.ptr)})")
        return sess.mem.view(self.ptr, size)

    def copy_from_host(self, host, size: int) -> None:
        """Copy ``size`` bytes from a host buffer (a numpy array or anything with the buffer protocol)."""
        src = np.frombuffer(memoryview(host).cast("B"), dtype=np.uint8)[:size]
        self._bytes(size)[:] = src
        self.mem.session.transfer_bytes["host to device"] += size

    def copy_to_host(self, host, size: int) -> None:
        dst = np.frombuffer(memoryview(host).cast("B"), dtype=np.uint8)
        dst[:size] = self._bytes(size)
        self.mem.session.transfer_bytes["device to host"] += size

    def copy_from_device(self, src: "MemoryPointer", size: int) -> None:
        data = src._bytes(size).copy()
        self._bytes(size)[:] = data
        self.mem.session.transfer_bytes["device to device"] += size

    def memset(self, value: int, size: int) -> None:
        self._bytes(size)[:] = value & 0xFF
        self.mem.session.note_host_op("memset")

    copy_from_host_async = copy_from_host
    copy_to_host_async = copy_to_host
    copy_from_device_async = copy_from_device
    memset_async = memset


class MemoryPool:
    """The device memory pool (``cupy.cuda.MemoryPool``; see the module docstring)."""

    def __init__(self, allocator=None):
        self.session = _session.session()
        self._free: dict[int, list[Memory]] = {}
        self._in_use = 0
        self._held = 0
        self._limit = 0

    def malloc(self, size: int) -> MemoryPointer:
        size = int(size)
        if size < 0:
            raise ValueError(f"negative allocation size {size}")
        if size == 0:
            return MemoryPointer(None, 0)
        rounded = -(-size // ROUND_BYTES) * ROUND_BYTES
        where = _session.caller_location()
        memory_hook.call("malloc_preprocess", device_id=0, size=size, mem_size=rounded)
        kept = self._free.get(rounded)
        if kept:
            block = kept.pop()
        else:
            if self._limit and self._held + rounded > self._limit:
                raise OutOfMemoryError(f"out of memory allocating {rounded:,} bytes (the pool limit is "
                                       f"{self._limit:,} bytes, {self._held:,} held)")
            block = Memory(rounded)
            self._held += rounded
        block.alloc.name = f"{rounded} B block ({where})"
        self._in_use += rounded
        mem = PooledMemory(self, block, rounded)
        memory_hook.call("malloc_postprocess", device_id=0, size=size, mem_size=rounded, mem_ptr=block.ptr,
                         pmem_id=id(mem))
        return MemoryPointer(mem, 0)

    def _give_back(self, block: Memory, size: int, pmem_id: int) -> None:
        memory_hook.call("free_preprocess", device_id=0, mem_size=size, mem_ptr=block.ptr, pmem_id=pmem_id)
        self._in_use -= size
        if block.alloc is not None:
            block.alloc.name = f"{size} B block (free in the pool)"
            self._free.setdefault(size, []).append(block)
        memory_hook.call("free_postprocess", device_id=0, mem_size=size, mem_ptr=block.ptr, pmem_id=pmem_id)

    def free_all_blocks(self, stream=None) -> None:
        """Return every block the pool keeps to the device."""
        for blocks in self._free.values():
            for b in blocks:
                self._held -= b.size
                b.alloc.name = f"{b.size} B block (freed by free_all_blocks)"
                b.free()
        self._free.clear()

    def free_all_free(self) -> None:
        self.free_all_blocks()

    def used_bytes(self) -> int:
        return self._in_use

    def total_bytes(self) -> int:
        return self._held

    def free_bytes(self) -> int:
        return self._held - self._in_use

    def n_free_blocks(self) -> int:
        return sum(len(v) for v in self._free.values())

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        if fraction is not None:
            raise GpusimError("set_limit(fraction=) needs the device's memory size: give size= in bytes")
        self._limit = int(size or 0)

    def get_limit(self) -> int:
        return self._limit


def get_default_pool() -> MemoryPool:
    """The current session's pool."""
    s = _session.session()
    if s.pool is None or s.pool.session is not s:
        s.pool = MemoryPool()
    return s.pool


def alloc(size: int) -> MemoryPointer:
    """Allocate ``size`` bytes from the default pool (``cupy.cuda.alloc``)."""
    return get_default_pool().malloc(size)
