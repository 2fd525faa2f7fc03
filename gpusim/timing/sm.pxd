# C types for the compiled build of sm.py (Cython's "augmenting .pxd": sm.py stays the plain-Python model,
# this file only says which attributes and locals are C integers, so that the same code compiles to C).
# Not used by the pure path; see gpusim/timing/compiled.py.

cimport cython
from gpusim.memory.system cimport MemorySystem

cdef long long INF, LSU_PIPE, OP_ALU, OP_BARRIER, OP_BRANCH, OP_EXIT, OP_MEM, OP_MEMBAR
cdef long long NS, SELECTED, NOT_SELECTED, WAIT, BARRIER, BRANCH_RESOLVING, MEMBAR, DRAIN


cdef class SchedulingPolicy:
    cpdef object select(self, list eligible)


@cython.final
cdef class Warp:
    # what a scheduler's look at a warp reads first, so that it shares the object's first cache lines
    cdef public long long dep_ready, pc, state, dep_state, since, row, end, pos
    cdef public long long[::1] scoreboard, stall
    cdef public long long gid, slot, age, last_store_cycle, start_cycle, end_cycle
    cdef public bint done
    cdef public ThreadBlock block
    cdef public SubPartition smsp


@cython.final
cdef class ThreadBlock:
    cdef public long long bid, live, arrived, retire_cycle, start_cycle, bar_done
    cdef public list warps, waiting


@cython.final
cdef class SubPartition:
    cdef public StreamingMultiprocessor sm
    cdef public long long index, next_check, inst_executed, branch_latency, membar_latency, lsu_qi, lsu_qn
    cdef public list warps, at, requests
    cdef public long long[::1] ready_at, pipe_free, pipe_of, throttle, pc_stalls, lsu_q
    cdef public long long[::1] dep_start, dep_reg, dst_start, dst_reg, dst_extra, src_start, src_reg
    cdef public signed char[::1] slot_state
    cdef public int[::1] trace_pc, mem_slot
    cdef public long long[::1] op_of, latency_of, result_state, interval_of, stores, alt_of
    cdef public object select, policy, observer
    cdef public SchedulingPolicy own_policy

    @cython.locals(d="long long", old="long long")
    cpdef void enter_state(self, Warp w, long long state, long long now)

    @cython.locals(w=Warp, r="long long", nxt="long long", s="long long", pc="long long", p="long long",
                   lsu_free="long long", cands=list, spare=list, i="Py_ssize_t", a="long long", ra="long long",
                   own=SchedulingPolicy)
    cpdef void cycle(self, long long now)

    @cython.locals(w=Warp, pc="long long", excl="long long", added=bint)
    cpdef void merge_spare(self, list cands, list spare, long long now)

    @cython.locals(pc="long long", base="long long", d="long long", s="long long", op="long long",
                   st="long long", p="long long",
                   t0="long long", s0="long long", t="long long", r="long long", slot="long long",
                   ready="long long", busy="long long", row="long long", npc="long long", dr="long long",
                   ds="long long", x="long long", n1="long long", start="long long", qn="long long",
                   qi="long long", i="long long", ra="long long", a="long long",
                   sm=StreamingMultiprocessor, b=ThreadBlock, ms=MemorySystem)
    cpdef long long issue(self, Warp w, long long now)

    @cython.locals(end="long long", d="long long")
    cpdef void exit(self, Warp w, long long now)


@cython.final
cdef class StreamingMultiprocessor:
    cdef public long long sm_id, lsu_free, bar_free, bar_arrive, resident_blocks, active_since, cycles_active, blocks_executed
    cdef public object model, kernel, mem_access, observer
    cdef public MemorySystem memory_system
    cdef public list requests, subpartitions, free_slots, launching, retiring
    cdef public long long[::1] pc_stalls
    cdef public int[::1] trace_pc, mem_slot

    cpdef void dispatch(self, long long bid, long long now)

    @cython.locals(w=Warp, b=ThreadBlock)
    cpdef void warp_exited(self, Warp w, long long now)

    @cython.locals(t="long long", w=Warp)
    cpdef void release_barrier(self, ThreadBlock b, long long now)

    @cython.locals(sp=SubPartition, nxt="long long", subs=list, retiring=list, launching=list)
    cpdef long long step(self, long long now)


@cython.final
cdef class StepHeap:
    cdef public long long[::1] cycle, seq, item
    cdef public long long size, next_seq

    cpdef long long first(self)

    @cython.locals(seq="long long", i="long long", parent="long long")
    cpdef void push(self, long long cycle, long long item)

    @cython.locals(top="long long", n="long long", cycle="long long", seq="long long", i="long long",
                   child="long long", other="long long")
    cpdef long long pop(self)


@cython.locals(sm=StreamingMultiprocessor, nxt="long long", i="long long")
cpdef void step_sms(StepHeap heap, list sms, long long now)
