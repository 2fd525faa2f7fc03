"""Memory hooks, as ``cupy.cuda.memory_hook``: observers of the memory pool.

A :class:`MemoryHook` subclass used as a context manager (``with hook:``) is told of every allocation the
pool makes from the device (``alloc_*``), every block it hands to an array (``malloc_*``) and every block an
array gives back (``free_*``), with the same keyword arguments as CuPy's.  This is the host-side hook a
sanitizer uses to learn of frees (use after free of a pooled block); the heap-level hook underneath is
``DeviceMemory.listeners`` (:mod:`gpusim.functional.memory`).
"""
from __future__ import annotations

_hooks: list = []


class MemoryHook:
    """Base class of memory hooks (override the methods you need; each receives keyword arguments)."""

    name = "MemoryHook"

    def __enter__(self):
        _hooks.append(self)
        return self

    def __exit__(self, *exc):
        _hooks.remove(self)

    def alloc_preprocess(self, **kw):
        pass

    def alloc_postprocess(self, **kw):
        pass

    def malloc_preprocess(self, **kw):
        pass

    def malloc_postprocess(self, **kw):
        pass

    def free_preprocess(self, **kw):
        pass

    def free_postprocess(self, **kw):
        pass


def call(event: str, **kw) -> None:
    for h in list(_hooks):
        getattr(h, event)(**kw)


def get_memory_hooks() -> dict:
    return {h.name: h for h in _hooks}
