# C types for the compiled build of interconnect.py (see cache.pxd and gpusim/compiled.py).

cimport cython


@cython.final
cdef class Crossbar:
    cdef public long long latency, bytes_moved
    cdef public double sector_cycles
    cdef public double[:] out_free, in_free

    @cython.locals(f=double)
    cpdef double send(self, double t, long long sm, long long sectors_out, long long sectors_in)
