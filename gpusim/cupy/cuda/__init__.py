"""``cupy.cuda`` of the simulator: the device, streams and events on the simulated clock, device memory
and its pool, memory hooks, and the runtime calls programs make (see each module's docstring for what is
modelled)."""
from __future__ import annotations

from gpusim.cupy.cuda import memory_hook, runtime
from gpusim.cupy.cuda.device import Device
from gpusim.cupy.cuda.memory import (Memory, MemoryPointer, MemoryPool, OutOfMemoryError, PooledMemory, alloc,
                                     get_default_pool)
from gpusim.cupy.cuda.memory_hook import MemoryHook
from gpusim.cupy.cuda.stream import Event, Stream, get_current_stream, get_elapsed_time

__all__ = ["Device", "Event", "Stream", "get_current_stream", "get_elapsed_time", "Memory", "MemoryPointer",
           "MemoryPool", "PooledMemory", "OutOfMemoryError", "alloc", "MemoryHook", "memory_hook", "runtime",
           "get_device_id", "is_available"]


def get_device_id() -> int:
    return 0


def is_available() -> bool:
    return True
