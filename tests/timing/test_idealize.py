"""What-if idealisations, one mechanism each: what they change in the trace, the requests or the model, and
what they keep (the work, the bytes, reuse)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gpusim.config import load_gpu
from gpusim.errors import GpusimError
from gpusim.functional.trace import popcount32
from gpusim.memory.coalescer import Coalescer
from gpusim.timing import Idealization, simulate
from gpusim.timing.idealize import IDEALIZATIONS, WHAT_IF_NAMES, coalesce_addresses, compact_divergence
from gpusim.timing.lsu import LsuFrontEnd, reused_loads, slot_origins
from gpusim.timing.synthetic import ins, make_trace

HALF = 0x0000FFFF
ODD = 0x55555555


@pytest.fixture(scope="module")
def h100():
    return load_gpu("h100").replace(**{"sm.count": 1, "kernel_launch_cycles": 0, "kernel_launch_ns": 0, "block_launch_cycles": 0})


def test_every_what_if_says_what_it_changes_and_cannot():
    assert set(WHAT_IF_NAMES) == {"launch", "occupancy", "coalescing", "banks", "reuse", "latency", "divergence",
                                  "dram", "atomics", "barriers"}
    for spec in IDEALIZATIONS.values():
        assert spec.title and len(spec.changes) > 40 and len(spec.cannot) > 40
    assert Idealization.of("banks", "launch").names == ("launch", "banks") and not Idealization()
    with pytest.raises(GpusimError, match="unknown what-if 'bank'.*banks"):
        Idealization.of("bank")


# -- coalescing --------------------------------------------------------------------------------------------
def strided_store_trace(stride_bytes: int, n_warps: int = 8):
    """n_warps warps each store one word per lane, lanes ``stride_bytes`` apart; warp w is offset by 4w bytes
    (transpose_naive's pattern: warps share the lines, each writing another word of them)."""
    t = make_trace([ins("st.global", src=[1]), ins("exit")], n_blocks=1, warps_per_block=n_warps)
    lanes = np.arange(32, dtype=np.int64)
    t.addresses = (1 << 20) + np.arange(n_warps, dtype=np.int64)[:, None] * 4 + lanes[None, :] * stride_bytes
    return t


def test_perfect_coalescing_packs_each_request_into_its_fewest_sectors():
    t = strided_store_trace(4096)
    before = Coalescer.coalesce(t.addresses, 4)
    assert before.sectors_per_request.tolist() == [32] * 8 and before.lines_per_request.tolist() == [32] * 8
    ideal = coalesce_addresses(t)
    after = Coalescer.coalesce(ideal.addresses, 4)
    assert after.sectors_per_request.tolist() == [4] * 8 and after.lines_per_request.tolist() == [1] * 8
    # the bytes moved stay: 8 x 32 distinct words before and after
    assert np.unique(ideal.addresses).size == np.unique(t.addresses).size == 256
    assert t.addresses[0, 0] == (1 << 20)                                  # the input is left alone


def test_perfect_coalescing_keeps_reuse_and_the_byte_in_the_word():
    t = strided_store_trace(4096, n_warps=2)
    t.addresses[1] = t.addresses[0] + 2                 # warp 1 touches the same words, 2 bytes in
    ideal = coalesce_addresses(t).addresses
    assert (ideal[1] == ideal[0] + 2).all()             # same word -> same new word; offset kept
    assert Coalescer.coalesce(ideal, 2).sectors_per_request.tolist() == [4, 4]


def test_perfect_coalescing_leaves_coalesced_and_broadcast_requests_alone():
    t = make_trace([ins("ld.global", dst=[1]), ins("ld.global", dst=[2]), ins("exit")])
    t.addresses[1] = 4096                               # every lane reads one word: 1 sector
    after = Coalescer.coalesce(coalesce_addresses(t).addresses, 4)
    assert after.sectors_per_request.tolist() == [4, 1]


def test_perfect_coalescing_speeds_up_strided_stores(h100):
    t = strided_store_trace(4096, n_warps=32)
    base = simulate(t, h100)
    ideal = simulate(t, h100, ideal=Idealization.of("coalescing"))
    assert ideal.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 4 * 32
    assert base.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 32 * 32
    assert ideal.cycles < base.cycles


# -- divergence --------------------------------------------------------------------------------------------
def test_no_divergence_packs_a_blocks_threads_into_full_warps():
    """4 warps of one block run pc 1 (a shared load) with 16 lanes each, and pc 2 (a barrier) with 16 lanes:
    pc 1 keeps 2 rows with full masks carrying the 64 threads' addresses in order; the barrier stays in
    every warp."""
    prog = [ins("alu", dst=[1]), ins("ld.shared", dst=[2], src=[1]), ins("bar"), ins("exit")]
    t = make_trace(prog, warps_per_block=4, warp_masks=[[0xFFFFFFFF, HALF, HALF, 0xFFFFFFFF]] * 4)
    lanes = np.arange(32)
    t.addresses[:] = -1
    for w in range(4):                                  # slot w: warp w's shared load, lanes 0..15 active
        t.addresses[w, :16] = (w * 16 + lanes[:16]) * 8
    p = compact_divergence(t)
    assert t.n_instructions == 16 and p.n_instructions == 14
    assert np.bincount(p.pc, minlength=4).tolist() == [4, 2, 4, 4]
    rows = np.flatnonzero(p.pc == 1)
    assert p.active_mask[rows].tolist() == [0xFFFFFFFF, 0xFFFFFFFF]
    assert popcount32(p.active_mask).sum() == popcount32(t.active_mask).sum()         # no thread lost
    packed = p.addresses[p.mem_slot[rows]]
    assert packed.ravel().tolist() == (np.arange(64) * 8).tolist()
    assert p.warp_start.tolist() == [0, 4, 8, 11, 14]       # warps 2 and 3 lost their load
    assert p.mem_space.size == p.addresses.shape[0] == 2 and (p.mem_slot[p.pc != 1] == -1).all()
    bars = p.active_mask[p.pc == 2]
    assert bars.tolist() == [HALF] * 4                       # barriers never packed


def test_no_divergence_leaves_uniform_and_tail_warps_alone():
    prog = [ins("alu", dst=[1]), ins("exit")]
    t = make_trace(prog, n_blocks=2, warps_per_block=2, warp_masks=[[0xFFFFFFFF, 0xFFFFFFFF]] * 3 + [[ODD, ODD]])
    p = compact_divergence(t)
    assert p is t or p.n_instructions == t.n_instructions   # 48 threads need 2 warps in block 1: nothing to pack


def test_no_divergence_runs_fewer_warp_instructions(h100):
    prog = [ins("alu", dst=[1]), *[ins("fma", dst=[2], src=[2]) for _ in range(8)], ins("exit")]
    masks = [[0xFFFFFFFF] + [ODD] * 8 + [0xFFFFFFFF]] * 8
    t = make_trace(prog, warps_per_block=8, warp_masks=masks)
    base = simulate(t, h100)
    ideal = simulate(t, h100, ideal=Idealization.of("divergence"))
    assert base.counters["smsp__inst_executed.sum"] == 8 * 10
    assert ideal.counters["smsp__inst_executed.sum"] == 8 * 2 + 4 * 8
    assert ideal.counters["smsp__thread_inst_executed.sum"] == base.counters["smsp__thread_inst_executed.sum"]
    assert ideal.cycles < base.cycles


# -- the hooks in the model ------------------------------------------------------------------------------------
def test_conflict_free_shared_memory_takes_the_ideal_wavefronts(h100):
    t = make_trace([ins("ld.shared", dst=[1]), ins("fma", dst=[2], src=[1]), ins("exit")])
    t.addresses[0] = np.arange(32) * 128                # stride 32 words: one bank, 32-way
    base, ideal = LsuFrontEnd(h100).requests(t)[0], LsuFrontEnd(h100, Idealization.of("banks")).requests(t)[0]
    assert (base.wavefronts, base.ideal_wavefronts) == (32, 1)
    assert (ideal.wavefronts, ideal.ideal_wavefronts) == (1, 1)
    assert simulate(t, h100, ideal=Idealization.of("banks")).cycles < simulate(t, h100).cycles


def test_global_loads_from_shared_memory(h100):
    t = make_trace([ins("ld.global", dst=[1]), ins("fma", dst=[2], src=[1]), ins("st.global", src=[2]),
                    ins("exit")])
    reqs = LsuFrontEnd(h100, Idealization.of("reuse")).requests(t)
    assert reqs[0].space.value == "shared" and reqs[0].wavefronts == 1
    assert reqs[1].space.value == "global"               # stores are unchanged
    base, ideal = simulate(t, h100), simulate(t, h100, ideal=Idealization.of("reuse"))
    assert base.stalls["long_scoreboard"] > 200 > ideal.stalls["long_scoreboard"]


def test_reused_loads_are_re_reads_of_sectors():
    t = make_trace([ins("ld.global", dst=[1]), ins("ld.global", dst=[2]), ins("exit")], warps_per_block=2)
    t.addresses[:] = np.arange(32) * 4                  # every load reads the same 4 sectors
    t.addresses[3, 31] = 4096                           # ... but warp 1's second load touches a new one
    slot_warp, slot_pc = slot_origins(t)
    assert reused_loads(t, slot_pc, slot_warp).tolist() == [False, True, True, False]


def test_data_another_block_read_is_not_reuse():
    """Only a block's own re-reads count: tiling inside a block cannot avoid reading what other blocks read."""
    t = make_trace([ins("ld.global", dst=[1]), ins("exit")], n_blocks=2, warps_per_block=1)
    t.addresses[:] = np.arange(32) * 4                  # both blocks read the same 4 sectors
    slot_warp, slot_pc = slot_origins(t)
    assert reused_loads(t, slot_pc, slot_warp).tolist() == [False, False]


def test_infinite_dram_bandwidth_serves_every_burst_at_the_idle_latency(h100):
    from gpusim.memory.dram import DramController, UnlimitedDram
    spec = h100.memory.dram
    d = UnlimitedDram(spec)
    lat = DramController(spec).closed_row_read_ck()
    assert [d.access(100, a * 32) for a in range(64)] == [100 + lat] * 64    # no queueing, whatever the bank
    assert d.counters()["dram__bytes_read.sum"] == 64 * 32


def _chase(n_loads: int = 8, warps: int = 1):
    """Each load's address register is the previous load's result (a pointer chase); every load touches a
    new line, so it misses L1 and L2 and goes to DRAM."""
    return make_trace([*[ins("ld.global", dst=[1], src=[1]) for _ in range(n_loads)], ins("exit")],
                      warps_per_block=warps)


def test_no_memory_latency_reads_return_at_the_l1_hit_latency_plus_their_queueing(h100):
    """A chase of DRAM reads, one at a time: with no fixed latency and no DRAM waiting (both what-ifs) a
    read's 4 sectors take the L1 hit latency plus at most their 32-byte trips through the SM's crossbar port
    (the port's time overlaps the request's own when nothing else is in flight); with
    the latency what-if alone they also queue behind each other at their DRAM bank."""
    from gpusim.memory.system import MemorySystem
    reqs = LsuFrontEnd(h100).requests(_chase())
    l1_hit = h100.memory.l1.hit_latency_cycles
    port = 4 * 32 / h100.memory.interconnect.bytes_per_cycle_per_port
    took = {}
    for free, unlimited in ((False, False), (True, False), (True, True)):
        mem = MemorySystem(h100, latency_free_reads=free, unlimited_dram=unlimited)
        mem.begin(reqs)
        now, took[free, unlimited] = 1000, []
        for r in reqs:
            ready, _ = mem.access(now, 0, r)
            took[free, unlimited].append(ready - now)
            now = ready + 10
    dram_trip = h100.memory.l2.hit_latency_near_cycles + h100.memory.dram.latency_ns * h100.clock_mhz / 1000
    assert min(took[False, False]) >= dram_trip                             # a DRAM trip each
    assert all(l1_hit <= t <= l1_hit + port + 1 for t in took[True, True])
    assert all(a <= b < 100 for a, b in zip(took[True, True], took[True, False]))


def test_no_memory_latency_speeds_up_dependent_loads_not_arithmetic(h100):
    chase = _chase(warps=2)
    base, ideal = simulate(chase, h100), simulate(chase, h100, ideal=Idealization.of("latency"))
    assert base.cycles > 3 * ideal.cycles
    assert base.stalls["long_scoreboard"] > 3 * ideal.stalls["long_scoreboard"]
    assert ideal.counters["dram__bytes_read.sum"] == base.counters["dram__bytes_read.sum"]   # same traffic
    fma = make_trace([*[ins("fma", dst=[1], src=[1]) for _ in range(32)], ins("exit")], n_blocks=4,
                     warps_per_block=8)
    assert simulate(fma, h100, ideal=Idealization.of("latency")).cycles == simulate(fma, h100).cycles


def test_no_memory_latency_keeps_the_bandwidth_limit(h100):
    """32 warps stream 8 new lines each from a DRAM of 2 channels (1/40 of the H100's): without the latency
    the loads queue for the DRAM, so the kernel still takes at least its bytes over the DRAM's peak
    bandwidth (774 cycles, more than the SM's crossbar port or the issue of 256 loads would need)."""
    narrow = h100.replace(**{"memory.dram.channels": 2})
    stream = make_trace([*[ins("ld.global", dst=[k]) for k in range(1, 9)],
                         ins("fma", dst=[9], src=list(range(1, 9))), ins("exit")], warps_per_block=32)
    base, ideal = simulate(stream, narrow), simulate(stream, narrow, ideal=Idealization.of("latency"))
    moved = ideal.counters["dram__bytes_read.sum"]
    floor = moved / narrow.memory.dram.peak_bytes_per_s * narrow.clock_mhz * 1e6
    assert moved == 32 * 8 * 128 and floor > moved / narrow.memory.interconnect.bytes_per_cycle_per_port
    assert floor <= ideal.cycles < base.cycles


def test_full_occupancy_lifts_the_register_limit(h100):
    chain = [ins("fma", dst=[1], src=[1]) for _ in range(16)]           # latency-bound: more warps hide it
    t = make_trace([*chain, ins("exit")], n_blocks=8, warps_per_block=8, regs_per_thread=255)
    base = simulate(t, h100)
    ideal = simulate(t, h100, ideal=Idealization.of("occupancy"))
    assert base.occupancy.blocks_per_sm == 1 and base.occupancy.limiting == ("registers",)
    assert ideal.occupancy.blocks_per_sm == 8 and ideal.cycles < base.cycles


def test_zero_launch_overhead():
    gpu = load_gpu("h100").replace(**{"sm.count": 1})
    t = make_trace([ins("alu", dst=[1]), ins("exit")])
    base, ideal = simulate(t, gpu), simulate(t, gpu, ideal=Idealization.of("launch"))
    assert base.cycles - ideal.cycles == gpu.kernel_launch_latency_cycles
    assert ideal.warp_start_cycle[0] == gpu.block_launch_cycles


def test_no_barrier_waits(h100):
    # warp 0 runs 20 instructions before the barrier, warp 1 one: warp 1 waits there
    t = make_trace([ins("alu", dst=[1]), ins("bar"), ins("exit")], warps_per_block=2,
                   warp_pcs=[[0] * 20 + [1, 2], [0, 1, 2]])
    base, ideal = simulate(t, h100), simulate(t, h100, ideal=Idealization.of("barriers"))
    assert base.stalls["barrier"] > 0 and ideal.stalls["barrier"] == 0
    assert ideal.warp_end_cycle[1] < base.warp_end_cycle[1]


def test_no_atomic_contention_counts_one_operation_per_address(h100):
    t = make_trace([ins("ld.global", dst=[1]), ins("exit")])
    t.instructions[0] = dataclasses.replace(t.instructions[0], opcode="atom.global.add.u32", is_atomic=True)
    t.addresses[0] = 4096                               # 32 lanes on one word
    base = LsuFrontEnd(h100).requests(t)[0]
    ideal = LsuFrontEnd(h100, Idealization.of("atomics")).requests(t)[0]
    assert base.atomics[0][2] == 32 and ideal.atomics[0][2] == 1
    assert simulate(t, h100, ideal=Idealization.of("atomics")).cycles < simulate(t, h100).cycles
