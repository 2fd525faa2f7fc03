# C types for the compiled build of controller.py (see gpusim/memory/cache.pxd and gpusim/compiled.py).

cimport cython
from gpusim.memory.dram.mapping cimport AddressMapping

cdef long long _PRUNE_SLOTS, _RECENT


@cython.locals(lo="Py_ssize_t", hi="Py_ssize_t", mid="Py_ssize_t")
cdef Py_ssize_t _after(long long[:] times, Py_ssize_t base, Py_ssize_t n, long long t)

@cython.locals(i="Py_ssize_t", x="long long")
cdef long long _spaced(long long[:] times, Py_ssize_t base, Py_ssize_t n, long long t, long long gap)

@cython.locals(base="Py_ssize_t", n="Py_ssize_t", p="Py_ssize_t", i="Py_ssize_t")
cdef void _remember(long long[:] times, long long[:] counts, Py_ssize_t k, long long t)


@cython.final
cdef class SlotCalendar:
    cdef public long long[:] starts, ends
    cdef public Py_ssize_t n
    cdef public long long taken, newest, prune_slots

    @cython.locals(p="Py_ssize_t")
    cpdef long long first_free(self, long long slot)

    @cython.locals(starts="long long[:]", ends="long long[:]", n="Py_ssize_t", p="Py_ssize_t", i="Py_ssize_t",
                   joins_before=bint, joins_after=bint)
    cpdef void claim(self, long long slot)

    @cython.locals(starts="long long[:]", ends="long long[:]", n="Py_ssize_t", q="Py_ssize_t", i="Py_ssize_t")
    cdef void _forget_before(self, long long horizon)

    @cython.locals(n="Py_ssize_t", starts="long long[:]", ends="long long[:]")
    cdef void _grow(self)


@cython.final
cdef class DramChannel:
    cdef public object t, observer
    cdef public long long index, n_banks, banks_per_group, refresh_offset, slot_ck
    cdef public bint policy_closed
    cdef public long long nBL, nCL, nCWL, nRTW, nWTR_S, nRCD, nRCDW, nRP, nRAS, nRC, nRTP, nWR
    cdef public long long nCCD_L, nRRD_S, nRRD_L, nFAW, nREFI, nRFCpb
    cdef public long long[:] open_row, bank_next_act, bank_next_pre, bank_col_ready, bank_epoch
    cdef public long long[:] bank_reads, bank_writes, bank_hits, bank_misses, bank_conflicts
    cdef public long long[:] acts, bg_acts, bg_cols, acts_n, bg_acts_n, bg_cols_n
    cdef public long long last_read_col, last_write_end
    cdef public SlotCalendar bus
    cdef public long long reads, writes, row_hits, row_misses, row_conflicts, busy_ck
    cdef public long long write_queue_entries
    cdef public list wq_bank, wq_row, wq_accepted, wq_free

    @cython.locals(phase="long long")
    cdef long long _outside_refresh(self, long long t, long long bank)

    @cython.locals(acts="long long[:]", n="Py_ssize_t", t0="long long", p="Py_ssize_t", k="Py_ssize_t",
                   first="long long", fifth="long long")
    cdef long long _act_slot(self, long long t, long long bg, long long bank)

    @cython.locals(bg="long long", epoch="long long", open_row="long long", col="long long", act="long long",
                   pre="long long", cas="long long", slot_ck="long long", slot="long long",
                   spaced="long long", data_start="long long", data_end="long long")
    cdef long long _serve(self, long long arrival, long long bank, long long row, bint is_write, bint count)

    @cython.locals(order=list, row="long long", bank="long long", ends=list, busy_until="long long",
                   accepted="long long")
    cdef void _drain(self, long long t)

    @cython.locals(j="Py_ssize_t", accepted="long long")
    cpdef long long access(self, long long arrival, long long bank, long long row, bint is_write)


cdef class DramController:
    cdef public object spec, timings
    cdef public long long n_channels, burst_bytes
    cdef public AddressMapping mapping
    cdef public list channels

    @cython.locals(ch="long long", _bg="long long", bank="long long", row="long long", c=DramChannel)
    cpdef long long access(self, long long arrival_ck, long long address, bint is_write=*)


cdef class UnlimitedDram(DramController):
    cdef public long long _latency_ck

    @cython.locals(ch="long long", _bg="long long", bank="long long", _row="long long", c=DramChannel)
    cpdef long long access(self, long long arrival_ck, long long address, bint is_write=*)
