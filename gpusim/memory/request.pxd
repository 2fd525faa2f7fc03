# C types for the compiled build of request.py (see cache.pxd and gpusim/compiled.py): a MemoryRequest is an
# extension type whose fields the compiled memory system reads as C values.

cimport cython


@cython.final
cdef class MemoryRequest:
    cdef public object space
    cdef public long long op, pc, active_lanes, lines, wavefronts, ideal_wavefronts, atomic_flags, masked_lines
    cdef public tuple sectors, atomics
    cdef public bint bypass_l1
