# C types for the compiled build of mapping.py (see gpusim/memory/cache.pxd and gpusim/compiled.py).

cimport cython


@cython.final
cdef class AddressMapping:
    cdef public object name
    cdef public tuple fields
    cdef public long long n_channels, banks_per_group
    cdef public bint xor_channel
    cdef public long long _ch_div, _ch_size, _bg_div, _bg_size, _bank_div, _bank_size, _row_div

    @cython.locals(ch="long long", bg="long long", bank="long long", row="long long")
    cpdef (long long, long long, long long, long long) map(self, long long burst)
