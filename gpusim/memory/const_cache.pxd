# C types for the compiled build of const_cache.py (see cache.pxd and gpusim/compiled.py).

cimport cython
from gpusim.memory.cache cimport SectoredCache


@cython.final
cdef class ConstantCache:
    cdef public object spec
    cdef public SectoredCache cache
    cdef public long long requests, serialised_cycles
