# C types for the compiled build of cycle_table.py (see cache.pxd and gpusim/compiled.py).

cimport cython

cdef long long _EMPTY, _MIN_CAPACITY


@cython.final
cdef class CycleTable:
    cdef public long long[:] keys
    cdef public double[:] cycles
    cdef public long long size, mask

    @cython.locals(x="long long")
    cdef long long _home(self, long long key)

    @cython.locals(keys="long long[:]", i="long long")
    cdef long long _find(self, long long key)

    @cython.locals(i="long long")
    cpdef double get(self, long long key, double default)

    @cython.locals(i="long long")
    cpdef void put(self, long long key, double cycle)

    @cython.locals(keys="long long[:]", cycles="double[:]", mask="long long", i="long long", j="long long",
                   k="long long", h="long long")
    cpdef void pop(self, long long key)

    cpdef void keep_from(self, double cycle)

    cpdef void keep_after(self, double cycle)

    @cython.locals(keys="long long[:]", cycles="double[:]", kept="long long", i="long long", old="long long")
    cdef void _rebuild(self, long long capacity, long long rule, double cycle)
