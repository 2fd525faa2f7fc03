"""The one address map: where each state space lives physically, local memory interleaved per warp.

The trace records local accesses as per-thread offsets into the thread's local memory (0 .. local size);
the map interleaves them as the hardware does, so a warp reading one local word moves one 128-byte row.
Hand-built traces test the map alone; a kernel with a local array tests it end to end.
"""
import numpy as np
import pytest

from gpusim.config import load_gpu
from gpusim.errors import LaunchError
from gpusim.functional.trace import KernelTrace, StaticInstr
from gpusim.memory.address_map import CONST_BASE, LOCAL_BASE, LOCAL_END, PARAM_BASE, AddressMap
from gpusim.memory.coalescer import Coalescer
from gpusim.memory.request import STORE
from gpusim.timing import simulate
from gpusim.timing.lsu import LsuFrontEnd
from isa.units import MemSpace

LANES = np.arange(32, dtype=np.int64)
HEAP = 0x7F00_0000_0000          # where the emulator's global heap starts


def sectors(addresses, access_bytes=4):
    return int(Coalescer.coalesce(np.atleast_2d(addresses), access_bytes).sectors_per_request.sum())


def test_one_local_word_of_a_warp_is_one_128_byte_row():
    amap = AddressMap(n_warps=4, local_bytes_per_thread=64)
    phys = amap.physical(MemSpace.LOCAL, np.full((1, 32), 8), np.array([2]))
    assert np.array_equal(phys[0], phys[0, 0] + 4 * LANES)          # lanes adjacent
    assert phys[0, 0] % 128 == 0
    assert sectors(phys) == 4


def test_warps_and_words_get_disjoint_rows():
    amap = AddressMap(n_warps=3, local_bytes_per_thread=16)
    offs = np.array([np.full(32, o) for o in (0, 4, 8, 12)] * 3)
    warps = np.repeat(np.arange(3), 4)
    phys = amap.physical(MemSpace.LOCAL, offs, warps)
    rows = phys[:, 0] // 128
    assert len(set(rows.tolist())) == 12 and (phys >= LOCAL_BASE).all()
    assert phys.max() < amap.local_end


def test_a_64_bit_local_access_is_two_rows_of_a_warp():
    amap = AddressMap(n_warps=1, local_bytes_per_thread=16)
    words = amap.local_words(np.full((1, 32), 8), np.array([0]), 8)
    assert words.shape == (1, 64) and sectors(words) == 8


def test_inactive_lanes_stay_inactive():
    amap = AddressMap(n_warps=1, local_bytes_per_thread=8)
    offs = np.where(LANES < 16, 4, -1)[None, :]
    phys = amap.physical(MemSpace.LOCAL, offs, np.array([0]))
    assert (phys[0, 16:] == -1).all() and sectors(phys) == 2


def test_large_grids_stay_positive_and_above_the_global_heap():
    n_warps = 2_000_000 * 8                        # two million 256-thread blocks
    amap = AddressMap(n_warps=n_warps, local_bytes_per_thread=1024)
    last = amap.physical(MemSpace.LOCAL, np.full((1, 32), 1020), np.array([n_warps - 1]))
    assert (last > 0).all() and last.max() < amap.local_end <= LOCAL_END
    assert LOCAL_BASE > HEAP + (1 << 39)           # a 512 GB heap still ends below local memory
    with pytest.raises(LaunchError, match="local region"):
        AddressMap(n_warps=1 << 40, local_bytes_per_thread=1 << 20)


def test_const_param_and_global_do_not_overlap():
    amap = AddressMap(n_warps=1)
    one = np.zeros((1, 32), dtype=np.int64)
    assert amap.physical(MemSpace.CONST, one)[0, 0] == CONST_BASE
    assert amap.physical(MemSpace.PARAM, one)[0, 0] == PARAM_BASE
    assert amap.physical(MemSpace.GLOBAL, one + HEAP)[0, 0] == HEAP
    for bad in (LOCAL_BASE, CONST_BASE + 64, PARAM_BASE):
        with pytest.raises(LaunchError, match="global address"):
            amap.physical(MemSpace.GLOBAL, one + bad)


def local_array_trace(n_warps: int, words: int) -> KernelTrace:
    """Each thread stores then loads ``words`` words of a local array, as per-thread offsets 0, 4, ...;
    one instruction per word and direction, then exit."""
    instrs = []
    for k in range(words):
        instrs.append(StaticInstr(pc=len(instrs), opcode="st.local.u32", unit="lsu", latency_class="global",
                                  src_regs=(1,), mem_space="local", access_bytes=4, is_store=True))
    for k in range(words):
        instrs.append(StaticInstr(pc=len(instrs), opcode="ld.local.u32", unit="lsu", latency_class="global",
                                  dst_regs=(2,), mem_space="local", access_bytes=4, is_load=True))
    instrs.append(StaticInstr(pc=len(instrs), opcode="ret", unit="branch", latency_class="none", is_exit=True))
    per_warp = len(instrs)
    pc = np.tile(np.arange(per_warp, dtype=np.int32), n_warps)
    mem = np.tile(np.arange(per_warp) < 2 * words, n_warps)
    slot = np.full(pc.size, -1, dtype=np.int32)
    slot[mem] = np.arange(int(mem.sum()), dtype=np.int32)
    offsets = np.tile(np.concatenate([np.arange(words), np.arange(words)]) * 4, n_warps)
    n = pc.size
    return KernelTrace(
        kernel="local_array", grid=(n_warps, 1, 1), block=(32, 1, 1), shared_bytes=0, regs_per_thread=32,
        instructions=instrs, warp_block=np.arange(n_warps, dtype=np.int32),
        warp_in_block=np.zeros(n_warps, np.int32), warp_start=np.arange(n_warps + 1, dtype=np.int64) * per_warp,
        pc=pc, active_mask=np.full(n, 0xFFFFFFFF, np.uint32), exec_mask=np.full(n, 0xFFFFFFFF, np.uint32),
        mem_slot=slot, addresses=np.repeat(offsets[:, None], 32, axis=1).astype(np.int64),
        mem_space=np.full(int(mem.sum()), MemSpace.LOCAL.code, np.uint8))


def test_per_thread_local_offsets_cost_4_sectors_per_warp_access():
    n_warps, words = 6, 5
    trace = local_array_trace(n_warps, words)
    requests = LsuFrontEnd(load_gpu("h100")).requests(trace)
    assert [len(r.sectors) for r in requests] == [4] * (2 * words * n_warps)
    assert len({s for r in requests for s in r.sectors}) == 4 * words * n_warps   # a row per (warp, word)
    res = simulate(trace, "h100")
    c = res.counters
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 4 * words * n_warps
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4 * words * n_warps
    assert c["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == words * n_warps
    # write-through, once per sector from the SMs, and the loads' L1 misses (they hit the lines the stores
    # wrote); what is homed in the other L2 partition crosses the fabric and is looked up again there
    loads_to_l2 = c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum"]
    assert c["lts__t_sectors_srcunit_tex.sum"] == 4 * words * n_warps + loads_to_l2
    assert c["lts__t_sectors_op_read.sum"] + c["lts__t_sectors_op_write.sum"] == \
        c["lts__t_sectors_srcunit_tex.sum"] + c["lts__t_sectors_srcunit_ltcfabric.sum"]
    assert c["lts__t_sectors_lookup_miss.sum"] == c["lts__t_sectors_srcunit_ltcfabric.sum"] / 2 == \
        c["lts__t_sectors_op_read.sum"] - loads_to_l2             # far loads miss the copy, hit at home


LOCAL_ARRAY_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry local_array(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .local .align 8 .b32 arr[8];
    mov.u32 %r0, %tid.x;
    mov.u32 %r5, %ctaid.x;
    mad.lo.u32 %r6, %r5, 128, %r0;
    st.local.u32 [arr+4], %r0;
    st.local.v2.u32 [arr+8], {%r6, %r0};
    ld.local.u32 %r1, [arr+4];
    ld.local.v2.u32 {%r2, %r3}, [arr+8];
    add.u32 %r4, %r1, %r2;
    add.u32 %r4, %r4, %r3;
    ld.param.u64 %rd0, [out];
    cvta.to.global.u64 %rd1, %rd0;
    mul.wide.u32 %rd2, %r6, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
}
"""


def test_a_kernel_with_a_local_array_costs_4_sectors_per_warp_word_end_to_end():
    """Each thread keeps three words in a local array: one 32-bit store and load (4 sectors per warp), one
    64-bit pair (8 sectors: two rows of the warp), then one coalesced global store of the sum."""
    import gpusim
    blocks, threads = 64, 128
    warps = blocks * threads // 32
    res = gpusim.run(LOCAL_ARRAY_PTX, grid=blocks, block=threads, args=[np.zeros(blocks * threads, np.uint32)],
                     mode="timing")
    gid = np.arange(blocks * threads)
    assert np.array_equal(res.args[0], 2 * (gid % threads) + gid)
    c = res.counters
    assert c["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 2 * warps
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == (4 + 8) * warps
    assert c["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 3 * warps
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == (4 + 8 + 4) * warps
    requests = LsuFrontEnd(load_gpu("h100")).requests(res.trace)
    local = [r for r in requests if r.space is MemSpace.LOCAL]
    assert all(min(r.sectors) * 32 >= LOCAL_BASE for r in local)
    stores = [r for r in local if r.op == STORE]
    assert len({s for r in stores for s in r.sectors}) == sum(len(r.sectors) for r in stores)   # no overlap
