# C types for the compiled build of schedulers.py (see sm.pxd and gpusim/compiled.py).

cimport cython
from gpusim.timing.sm cimport SchedulingPolicy, Warp

cdef frozenset _LONG_WAITS


cdef class LooseRoundRobin(SchedulingPolicy):     # not final: Cython's pure mode refuses a final override
    cdef public long long last_slot

    @cython.locals(last="long long", pick=Warp, w=Warp)
    cpdef object select(self, list eligible)


cdef class GreedyThenOldest(SchedulingPolicy):     # not final: Cython's pure mode refuses a final override
    cdef public object last

    @cython.locals(pick=Warp, w=Warp)
    cpdef object select(self, list eligible)


cdef class TwoLevel(SchedulingPolicy):     # not final: Cython's pure mode refuses a final override
    cdef public long long pool_size
    cdef public list active, pending
    cdef public LooseRoundRobin rr
    cdef public set _known

    @cython.locals(w=Warp, keep=list, ready=list)
    cpdef object select(self, list eligible)
