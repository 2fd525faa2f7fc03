# C types for the compiled build of cycle_heap.py (see cache.pxd and gpusim/compiled.py).

cimport cython


@cython.final
cdef class CycleHeap:
    cdef public double[:] items
    cdef public Py_ssize_t size

    cpdef double first(self)

    @cython.locals(items="double[:]", i="Py_ssize_t", parent="Py_ssize_t")
    cpdef void push(self, double cycle)

    @cython.locals(items="double[:]", top=double, n="Py_ssize_t", last=double, i="Py_ssize_t",
                   child="Py_ssize_t")
    cpdef double pop(self)

    cpdef void clear(self)

    @cython.locals(n="Py_ssize_t", bigger="double[:]")
    cdef void _grow(self)
