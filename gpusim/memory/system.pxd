# C types for the compiled build of system.py (Cython's "augmenting .pxd": system.py stays the plain-Python
# model, this file only says which attributes and locals are C numbers).  See gpusim/compiled.py.

cimport cython
from gpusim.memory.cache cimport SectoredCache
from gpusim.memory.const_cache cimport ConstantCache
from gpusim.memory.cycle_heap cimport CycleHeap
from gpusim.memory.cycle_table cimport CycleTable
from gpusim.memory.dram.controller cimport DramController
from gpusim.memory.interconnect cimport Crossbar
from gpusim.memory.request cimport MemoryRequest

cdef tuple _POPCOUNT4
cdef object SHARED, CONST, PARAM
cdef long long ATOMIC, ATOMIC_FLOAT, ATOMIC_RETURNS, LOAD, STORE


@cython.locals(c="long long")
cdef long long _ceil(double x)


@cython.final
cdef class MemorySystem:
    cdef public object gpu, spec
    cdef public long long n_sm, n_slices, l1_hit, icnt_latency, tags_per_cycle, l1_bytes, inflight_lines
    cdef public long long slice_latency, far_extra, _read_icnt_cut, dram_overhead_ck, _dram_idle_read_ck
    cdef public long long _shared_wpc, _shared_latency, _const_fill_sectors
    cdef public double core_mhz, miss_cycles, l2_mhz, slice_request_cycles, slice_sector_cycles
    cdef public double store_beat_cycles, slice_write_beat_cycles, atomic_packet_cycles
    cdef public double _atom_same, _atom_same_float, _atom_request, _atom_return_request, _atom_word
    cdef public double _atom_return_word, dram_mhz, _ck_per_core, _core_per_ck
    cdef public DramController dram
    cdef public bint atomics_serialise, latency_free_reads, partition_copies, fetch_pairs, atomic_same_sector_joins
    cdef public long long slices_per_partition
    cdef public long long[:] sm_partition, slice_partition, _shared_cycles, l1_free, shared_free, const_free
    cdef public long long[:] atom_last_sector
    cdef public double[:] miss_free, slice_free
    cdef public list l1, const, l2, inflight
    cdef public Crossbar icnt
    cdef public long long inflight_waits, lrc_merged, lrc_limit, atom_free_limit, fabric_sectors, tex_sectors
    cdef public long long l2_reads, l2_writes, l2_atoms, l2_reds, l2_atomic_lanes, atomic_serialised
    cdef public long long warm_fetched, warm_written_back
    cdef public double inflight_wait_cycles, store_wb_accepted, store_merge_window
    cdef public long long store_merge_lines
    cdef public list store_open
    cdef public long long l2_write_requests, store_merges
    cdef public bint write_back_waits
    cdef public CycleTable lrc, atom_free
    cdef public set _params_installed

    @cython.locals(c=SectoredCache)
    cdef SectoredCache _l1(self, long long sm)

    @cython.locals(c=SectoredCache)
    cdef SectoredCache _l2(self, long long sl)

    @cython.locals(c=ConstantCache)
    cdef ConstantCache _const(self, long long sm)

    @cython.locals(line="long long")
    cpdef long long slice_of(self, long long sector)

    cpdef long long slice_of_line(self, long long line)

    @cython.locals(busy="long long", start="long long", op="long long")
    cpdef tuple access(self, long long now, long long sm, MemoryRequest request)

    @cython.locals(passes="long long", start="long long")
    cdef tuple _tag_stage(self, long long now, long long sm, MemoryRequest request)

    @cython.locals(held=CycleHeap, free=double)
    cdef double _line_slot(self, double t, long long sm)

    @cython.locals(held=CycleHeap)
    cdef double _slice_cost(self, double n)
    cdef void _hold_line(self, long long sm, double until)

    @cython.locals(m=double)
    cdef double _send(self, double t, long long sm, long long sectors_out, long long sectors_in, double port_cycles)

    @cython.locals(t="long long", passes="long long", ready="long long", l1=SectoredCache, bypass=bint,
                   sent=double, line="long long", mask="long long", sector="long long", r="long long",
                   ln="long long")
    cdef tuple _global_load(self, long long now, long long sm, MemoryRequest request)

    @cython.locals(m=double, icnt="long long", back="long long", l1=SectoredCache, base="long long",
                   k="long long")
    cdef tuple _read_line(self, double t, long long sm, long long line, long long mask, bint bypass)

    @cython.locals(base="long long", lrc=CycleTable, data=double, n="long long", k="long long", d=double,
                   sl="long long", start=double, cost=double, far=bint, l2=SectoredCache, tag="long long",
                   ready=double, far_misses="long long", r="long long")
    cdef double _slice_read(self, double arrive, long long sm, long long line, long long mask)

    @cython.locals(lrc=CycleTable, k="long long")
    cdef void _note_in_flight(self, double arrive, long long base, long long mask, double d)

    @cython.locals(per="long long")
    cdef long long _copy_slice(self, long long home, long long partition)

    @cython.locals(base="long long", csl="long long", copy=SectoredCache, start=double, tag="long long",
                   ready=double, missed="long long", k="long long", r="long long", n_missed="long long",
                   d=double, l2=SectoredCache, home_start=double, home_tag="long long", home_ready=double,
                   evicted=list, far_d=double)
    cdef double _copy_read(self, double arrive, long long partition, long long sl, long long line, long long mask,
                           long long n)

    @cython.locals(home="long long", p="long long", c=SectoredCache)
    cdef void _drop_copies(self, long long sl, long long line)

    @cython.locals(m="long long", arrival_ck="long long", done_ck="long long", r="long long", evicted=list,
                   buddy="long long", pair_ck="long long", rb="long long")
    cdef long long _dram_fill(self, long long t, long long sector, SectoredCache l2, bint latency_free=*,
                              bint pair=*)

    @cython.locals(l2=SectoredCache, r="long long")
    cdef double _l2_data(self, double tag, long long sector, long long sl)

    @cython.locals(arrival_ck="long long", last_ck="long long", ck="long long", s="long long")
    cdef double _write_back(self, double t, list evicted)

    @cython.locals(t="long long", passes="long long", l1=SectoredCache, bypass=bint, slot=double, left=double,
                   line="long long", mask="long long", sector="long long", ln="long long", ready="long long",
                   i="long long", masked="long long", merge=bint)
    cdef tuple _global_store(self, long long now, long long sm, MemoryRequest request)

    @cython.locals(n="long long", m=double, arrive=double, base="long long", sl="long long", l2=SectoredCache,
                   start=double, cost=double, evicted=list, k="long long", beats="long long", held_until=double,
                   accepted=double, o=list, opened=dict, t0=double, close=double, taken=double)
    cdef tuple _write_line(self, double t, long long sm, long long line, long long mask, long long masked,
                           bint merge=*)

    @cython.locals(new="long long", sl="long long", n="long long", l2=SectoredCache, evicted=list, base="long long",
                   k="long long", close=double, m=double, port=double)
    cdef tuple _join_store(self, double t, long long sm, long long line, long long mask, long long masked, list o)

    @cython.locals(t="long long", passes="long long", flags="long long", op_cycles=double, req_cycles=double,
                   word_cycles=double, words=dict, ready="long long", atom_free=CycleTable, prev_sector="long long",
                   slot=double, sector_back="long long", sector="long long", word="long long",
                   count="long long", sent=double, sl="long long", is_far=bint, far="long long",
                   arrive=double, tag=double, cost=double, data=double, start=double, done=double,
                   back="long long", packets="long long", most="long long", begin="long long")
    cdef tuple _global_atomic(self, long long now, long long sm, MemoryRequest request)

    @cython.locals(cc=ConstantCache, n="long long", busy="long long", start="long long", t="long long",
                   ready="long long", cache=SectoredCache, sector="long long", r="long long", arrive="long long")
    cdef tuple _constant(self, long long now, long long sm, MemoryRequest request)

    @cython.locals(n="long long", first="long long", mine="long long", line="long long", lo="long long",
                   hi="long long", mask="long long", s="long long", r="long long")
    cdef long long _const_fill(self, long long arrive, long long sm, long long sector, SectoredCache cache)
