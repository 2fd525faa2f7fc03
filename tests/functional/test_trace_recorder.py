"""The trace recorder, as a datasheet: one row per warp instruction, grouped by warp in issue order, with its
active and executing masks, and for memory instructions one address row of 32 lanes in the access's state
space (-1 where a lane did not access).  Local memory is recorded as each thread's own offset, never as a
physical (interleaved) address: placing it is the memory system's job."""
import numpy as np
from snippet import kernel

import gpusim
from gpusim.functional.recorder import MEMORY, SECTORS, TraceRecorder
from gpusim.functional.trace import KernelTrace
from gpusim.functional.state import Step
from isa.units import MemSpace

ALL = 0xFFFFFFFF


def trace_of(body: str, params: str = "", args=(), grid=1, block=32):
    res = gpusim.run(kernel(body, params), grid=grid, block=block, args=list(args), record_trace=True)
    return res.trace


def rows(trace, w):
    """(opcode, active, exec) of warp w's rows."""
    r = trace.warp_rows(w)
    return [(trace.instructions[pc].opcode, int(a), int(e))
            for pc, a, e in zip(trace.pc[r], trace.active_mask[r], trace.exec_mask[r])]


def addresses(trace, opcode):
    """Address rows and space names of the memory instruction `opcode`, warp by warp."""
    out = []
    for i in np.flatnonzero(trace.mem_slot >= 0):
        if trace.instructions[trace.pc[i]].opcode == opcode:
            slot = trace.mem_slot[i]
            out.append((trace.addresses[slot], MemSpace.by_code(trace.mem_space[slot]).value))
    return out


# ---- rows and masks -------------------------------------------------------------------------------------
def test_each_warp_instruction_is_one_row_in_the_warps_issue_order():
    t = trace_of("    .reg .b32 %r<3>;\n    mov.u32 %r0, %tid.x;\n    add.u32 %r1, %r0, 1;\n    ret;",
                 block=64)
    assert t.n_warps == 2 and t.n_instructions == 6 and list(t.warp_start) == [0, 3, 6]
    assert rows(t, 0) == rows(t, 1) == [("mov.u32", ALL, ALL), ("add.u32", ALL, ALL), ("ret", ALL, ALL)]


def test_a_partial_warp_has_its_missing_threads_inactive():
    t = trace_of("    ret;", block=40)
    assert rows(t, 1) == [("ret", 0xFF, 0xFF)]


def test_a_false_guard_clears_the_exec_mask_not_the_active_mask():
    t = trace_of("""    .reg .b32 %r<2>; .reg .pred %p;
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p, %r0, 4;
    @%p add.u32 %r1, %r0, 1;
    ret;""")
    assert rows(t, 0)[2] == ("add.u32", ALL, 0xF)


def test_divergent_paths_appear_in_the_order_they_ran_with_their_lanes():
    t = trace_of("""    .reg .b32 %r<3>; .reg .pred %p;
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p, %r0, 8;
    @%p bra LOW;
    add.u32 %r1, %r0, 2;
    membar.cta;
    bra.uni JOIN;
LOW:
    add.u32 %r1, %r0, 1;
JOIN:
    ret;""")      # the membar keeps ptxas's if-conversion (isa.ifconvert) from predicating the adds
    assert [r[0] for r in rows(t, 0)] == ["mov.u32", "setp.lt.u32", "bra", "add.u32", "add.u32", "membar.cta",
                                         "bra.uni", "ret"]
    assert [r[1] for r in rows(t, 0)] == [ALL, ALL, ALL, 0xFF, ~0xFF & ALL, ~0xFF & ALL, ~0xFF & ALL, ALL]


# ---- addresses --------------------------------------------------------------------------------------------
def test_global_accesses_record_the_device_address_of_each_executing_lane():
    t = trace_of("""    .reg .b32 %r<2>; .reg .b64 %rd<4>; .reg .pred %p;
    ld.param.u64 %rd1, [p_out]; mov.u32 %r0, %tid.x;
    setp.lt.u32 %p, %r0, 30;
    mul.wide.u32 %rd2, %r0, 4; add.s64 %rd3, %rd1, %rd2;
    @%p st.global.u32 [%rd3], %r0;""", ".param .u64 p_out", args=[np.zeros(32, np.uint32)])
    ((row, space),) = addresses(t, "st.global.u32")
    base = int(row[0])
    assert space == "global" and list(row[:30]) == [base + 4 * k for k in range(30)]
    assert list(row[30:]) == [-1, -1]                                  # guarded off: no access


def test_shared_accesses_record_the_offset_in_the_blocks_shared_memory():
    t = trace_of("""    .reg .b32 %r<3>;
    .shared .align 4 .b32 buf[64];
    mov.u32 %r0, %tid.x; shl.b32 %r1, %r0, 2;
    st.shared.u32 [%r1+128], %r0;""", grid=2)
    rows_ = addresses(t, "st.shared.u32")
    assert len(rows_) == 2 and all(s == "shared" for _, s in rows_)
    assert all(list(r) == [128 + 4 * k for k in range(32)] for r, _ in rows_)   # the same in both blocks


def test_local_accesses_record_each_threads_own_offset_not_an_interleaved_address():
    t = trace_of("""    .reg .b32 %r<3>; .reg .b64 %rd<3>;
    .local .align 4 .b32 arr[8];
    mov.u32 %r0, %tid.x;
    st.local.u32 [arr+8], %r0;                     // arr[2] of every thread
    mov.u64 %rd0, arr; cvta.local.u64 %rd1, %rd0;  // the same array through a generic pointer
    ld.u32 %r1, [%rd1+12];                         // arr[3]
    """, grid=3, block=64)
    direct = addresses(t, "st.local.u32")
    generic = addresses(t, "ld.u32")
    assert len(direct) == len(generic) == 6                            # one row per warp
    assert all(s == "local" and list(r) == [8] * 32 for r, s in direct)
    assert all(s == "local" and list(r) == [12] * 32 for r, s in generic)


def test_a_generic_access_records_the_space_it_resolved_to_and_the_offset_in_it():
    t = trace_of("""    .reg .b32 %r<3>; .reg .b64 %rd<4>;
    .shared .align 4 .b32 buf[32];
    mov.u32 %r0, %tid.x; mul.wide.u32 %rd0, %r0, 4;
    mov.u64 %rd1, buf; cvta.shared.u64 %rd2, %rd1; add.s64 %rd3, %rd2, %rd0;
    st.u32 [%rd3], %r0;""")
    ((row, space),) = addresses(t, "st.u32")
    assert space == "shared" and list(row) == [4 * k for k in range(32)]


# ---- the recorder itself ----------------------------------------------------------------------------------
def _step(pc, selw, act, exe=None, addr=None, space=None):
    st = Step()
    st.pc, st.selw, st.act = pc, np.array(selw), np.array(act, dtype=np.uint32)
    st.exe = st.act if exe is None else np.array(exe, dtype=np.uint32)
    st.E, st.addr, st.space = None, addr, space
    return st


def test_batches_are_laid_out_by_launch_warp_and_memory_steps_get_one_address_row_per_warp():
    rec = TraceRecorder(kernel="k", grid=(3, 1, 1), block=(32, 1, 1), shared_bytes=0, regs_per_thread=None,
                        instructions=[], meta={}, warps_per_block=1)
    rec.begin_batch(first_warp=0, n_warps=2)
    rec.record(_step(0, [0, 1], [ALL, ALL]))
    rec.record(_step(1, [1], [0x3], addr=np.array([16, 20]), space=MemSpace.SHARED.code))
    rec.record(_step(1, [0], [ALL]))
    first = rec.finish_batch().trace
    rec.begin_batch(first_warp=2, n_warps=1)
    rec.record(_step(0, [0], [0x1]))
    second = rec.finish_batch().trace
    assert (first.first_warp, first.n_warps, second.first_warp, second.n_warps) == (0, 2, 2, 1)
    t = KernelTrace.join([first, second])
    assert list(t.warp_start) == [0, 2, 4, 5]
    assert list(t.pc) == [0, 1, 0, 1, 0] and list(t.active_mask) == [ALL, ALL, ALL, 0x3, 0x1]
    assert list(t.mem_slot) == [-1, -1, -1, 0, -1]                      # warp 1's pc 1 is the memory step
    assert list(t.addresses[0][:3]) == [16, 20, -1] and list(t.mem_space) == [MemSpace.SHARED.code]


def test_a_memory_level_batch_keeps_only_its_memory_rows_and_every_block_counts_its_pcs():
    rec = TraceRecorder(kernel="k", grid=(2, 1, 1), block=(64, 1, 1), shared_bytes=0, regs_per_thread=None,
                        instructions=[None] * 3, meta={}, warps_per_block=2)
    rec.begin_batch(first_warp=0, n_warps=4, level=MEMORY)
    rec.record(_step(0, [0, 1, 2, 3], [ALL] * 4))
    rec.record(_step(1, [2, 3], [0x1, 0x1], addr=np.array([8, 12]), space=MemSpace.GLOBAL.code))
    rec.record(_step(2, [0, 2], [ALL, 0x3]))
    out = rec.finish_batch()
    assert list(out.trace.pc) == [1, 1] and list(out.trace.warp_start) == [0, 0, 0, 1, 2]
    assert list(out.trace.mem_slot) == [0, 1] and list(out.trace.addresses[:, 0]) == [8, 12]
    assert out.counts.warp_counts.tolist() == [[2, 0, 1], [2, 2, 1]]          # block 0: warps 0-1; block 1: 2-3
    assert out.counts.thread_counts.tolist() == [32 * 3, 32 * 2 + 2 + 2]


def test_a_sectors_level_batch_keeps_each_blocks_global_sectors_loads_apart_from_stores():
    from types import SimpleNamespace
    ins = [SimpleNamespace(is_store=False), SimpleNamespace(is_store=True), SimpleNamespace(is_store=False)]
    rec = TraceRecorder(kernel="k", grid=(2, 1, 1), block=(64, 1, 1), shared_bytes=0, regs_per_thread=None,
                        instructions=ins, meta={}, warps_per_block=2)
    rec.begin_batch(first_warp=0, n_warps=4, level=SECTORS)
    rec.record(_step(0, [1, 2], [0x3, 0x1], addr=np.array([64, 70, 256]), space=MemSpace.GLOBAL.code))
    rec.record(_step(1, [3], [0x1], addr=np.array([512]), space=MemSpace.GLOBAL.code))
    rec.record(_step(2, [0], [0x1], addr=np.array([8]), space=MemSpace.SHARED.code))     # not global: not kept
    out = rec.finish_batch()
    s = out.sectors
    assert s.read_block.tolist() == [0, 1] and s.read_sector.tolist() == [2, 8]   # warp 1's two lanes: one sector
    assert s.write_block.tolist() == [1] and s.write_sector.tolist() == [16]
    assert [x.tolist() for x in s.of_blocks(1, 2)] == [[8], [16]]
    assert out.counts.warp_counts.tolist() == [[1, 0, 1], [1, 1, 0]] and out.trace is None


# ---- the file ---------------------------------------------------------------------------------------------
def test_a_trace_file_keeps_branch_targets_and_the_local_frame_and_reads_version_2(tmp_path):
    import io
    import json
    import zipfile

    body = """
    .local .align 4 .b32 arr[8];
    .reg .pred %p;
    .reg .b32 %r<3>;
    mov.u32 %r0, %tid.x;
    setp.lt.u32 %p, %r0, 16;
    @%p bra DONE;
    st.local.u32 [arr+8], %r0;
DONE:
    ret;
"""
    trace = trace_of(body)
    bra = next(i for i in trace.instructions if i.is_branch)
    assert trace.instructions[bra.branch_target].opcode == "ret"
    assert trace.local_bytes_per_thread == 32
    back = KernelTrace.load(trace.save(tmp_path / "t.trace"))
    assert back.instructions == trace.instructions and back.local_bytes_per_thread == 32
    # a version-2 file (before targets and frames were recorded) still loads, with neither
    old = tmp_path / "v2.trace"
    with zipfile.ZipFile(tmp_path / "t.trace") as zin, zipfile.ZipFile(old, "w") as zout:
        for item in zin.namelist():
            data = zin.read(item)
            if item == "header.npy":
                header = np.load(zin.open(item))
                doc = json.loads(bytes(header).decode())
                doc["version"] = 2
                del doc["local_bytes_per_thread"]
                for i in doc["instructions"]:
                    del i["branch_target"]
                buf = io.BytesIO()
                np.save(buf, np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8))
                data = buf.getvalue()
            zout.writestr(item, data)
    v2 = KernelTrace.load(old)
    assert v2.local_bytes_per_thread is None and all(i.branch_target == -1 for i in v2.instructions)


def test_a_version_4_trace_has_its_unread_atoms_made_red_as_a_new_recording_does(tmp_path):
    """Before format 5 an atom nobody reads kept its destination; loading such a file applies
    isa.aggregate's rule from the opcode, so it times as a fresh recording of the same kernel."""
    import io
    import json
    import zipfile
    body = """
    .reg .b32 %r<8>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r0, %tid.x;
    atom.global.add.u32 %r1, [%rd1], %r0;
    atom.global.add.u32 %r2, [%rd1], %r0;
    st.global.u32 [%rd1+4], %r2;
    atom.global.exch.b32 %r3, [%rd1], %r0;
    ret;
"""
    trace = trace_of(body, ".param .u64 p", [np.zeros(4, dtype=np.uint32)])
    atoms = [i for i in trace.instructions if i.is_atomic]
    assert [i.result_unread for i in atoms] == [True, False, False]
    assert atoms[0].dst_regs == () and atoms[0].is_store and not atoms[0].is_load
    path = trace.save(tmp_path / "t.trace")
    assert KernelTrace.load(path).instructions == trace.instructions
    old = tmp_path / "v4.trace"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(old, "w") as zout:
        for item in zin.namelist():
            data = zin.read(item)
            if item == "header.npy":
                doc = json.loads(bytes(np.load(zin.open(item))).decode())
                doc["version"] = 4
                for d in doc["instructions"]:      # as the recorder wrote them before format 5
                    if d["opcode"].startswith("atom"):
                        d.pop("result_unread")
                        d["is_load"], d["is_store"] = True, False
                a0 = next(d for d in doc["instructions"] if d["opcode"].startswith("atom"))
                a0["dst_regs"] = [atoms[1].dst_regs[0] + 1]       # a register nothing reads
                buf = io.BytesIO()
                np.save(buf, np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8))
                data = buf.getvalue()
            zout.writestr(item, data)
    v4 = [i for i in KernelTrace.load(old).instructions if i.is_atomic]
    assert [i.result_unread for i in v4] == [True, False, False]
    assert v4[0].dst_regs == () and v4[0].is_store                 # made red on load
    assert v4[1].dst_regs != () and v4[1].is_load and not v4[1].is_store    # read: kept
