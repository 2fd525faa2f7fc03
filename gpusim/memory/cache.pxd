# C types for the compiled build of cache.py (Cython's "augmenting .pxd": cache.py stays the plain-Python
# model, this file only says which attributes and locals are C integers).  See gpusim/compiled.py.

cimport cython
from gpusim.memory.cycle_heap cimport CycleHeap

cdef long long NO_FILL, _SET_HASH, _LOW16


@cython.final
cdef class SectoredCache:
    cdef public long long n_sets, ways, spl, clock, mshrs, _hash_mod, last_line, last_way
    cdef public long long hits, misses, mshr_merges, mshr_stall_cycles, evicted_dirty
    cdef public long long dirty_count, dirty_limit_sectors, early_written_back, dirty_head
    cdef public long long[::1] dirtied
    cdef public object dirty_order
    cdef public long long[::1] tag, valid, dirty, used, ready
    cdef public CycleHeap outstanding

    @cython.locals(n="long long")
    cpdef long long set_of(self, long long line)

    @cython.locals(spl="long long", line="long long", sub="long long", w="long long", k="long long",
                   r="long long")
    cpdef long long probe(self, long long now, long long sector)

    @cython.locals(first="long long", w="long long")
    cdef long long _find(self, long long line)

    @cython.locals(w="long long")
    cdef long long _where(self, long long line)

    @cython.locals(heap=CycleHeap, t="long long")
    cpdef long long mshr_start(self, long long now)

    @cython.locals(w="long long", spl="long long", first="long long", x="long long", victim="long long",
                   v_valid="long long", v_dirty="long long", base="long long", k="long long")
    cdef long long _way(self, long long line, list evicted)

    @cython.locals(spl="long long", line="long long", sub="long long", w="long long")
    cpdef void fill(self, long long sector, long long ready, list evicted=*)

    @cython.locals(spl="long long", line="long long", sub="long long", w="long long")
    cpdef bint warm(self, long long sector, long long ready, list evicted=*)

    @cython.locals(line="long long", w="long long")
    cpdef bint holds(self, long long sector)

    @cython.locals(w="long long", spl="long long", k="long long")
    cpdef bint discard_line(self, long long line)

    @cython.locals(spl="long long", line="long long", sub="long long", w="long long", present=bint)
    cpdef bint write(self, long long sector, bint allocate, list evicted=*)

    @cython.locals(n="Py_ssize_t", line="long long", stamp="long long", w="long long", d="long long",
                   base="long long", k="long long", kept_line="long long", kept_stamp="long long")
    cdef void _clean_one(self, long long keep, list out)

    @cython.locals(i="Py_ssize_t", line="long long", stamp="long long", w="long long")
    cdef void _compact_order(self)
