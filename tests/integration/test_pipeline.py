"""The whole pipeline (PTX -> functional emulator -> trace -> timing model -> memory system) on the bundled
programs: results equal to emulate mode, sane counters, and the seeds' tables coming out exactly through it.

Most tests shrink the GPU to a few SMs (``sm.count``) where the point is not whole-GPU behaviour: the
simulated cycle count grows, the work per simulated instruction does not, and the suite stays fast.
"""
from __future__ import annotations

from math import gcd

import numpy as np
import pytest

import gpusim
import programs
from gpusim.config import load_gpu
from gpusim.memory.dram import Command
from gpusim.timing import TimingObserver
from gpusim.timing.divrem import find_divisions
from gpusim.timing.warp_states import STALL_REASONS

H100 = load_gpu("h100")
SMALL_GPU = H100.replace(**{"sm.count": 4})

CASES = [(name, size) for name in programs.names() for size in programs.get(name).sizes
         if size.startswith("small")]


def _timing(name, size=None, gpu=SMALL_GPU, **kw):
    return gpusim.run(name, size=size, mode="timing", gpu=gpu, **kw)


# -- every program ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,size", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_program_in_timing_mode_equals_emulate_mode_and_its_counters_are_sane(name, size):
    emu = gpusim.run(name, size=size, mode="emulate", check=True)
    tim = _timing(name, size, check=True)
    assert emu.check.ok, emu.check.message
    assert tim.check.ok, tim.check.message
    assert len(emu.args) == len(tim.args)
    for a, b in zip(emu.args, tim.args):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
    # the timing model issues the trace ptxas would run: merged vector accesses are one instruction, an integer
    # division the steps of its SASS sequence ("rem.u32:IMAD.HI.U32", gpusim.timing.divrem), a short if body
    # every warp, as predicated instructions no lane of a warp that skipped it executes (gpusim.timing.ifconvert)
    res, trace = tim.timing, tim.timing.trace
    steps = np.array([":" in i.opcode for i in trace.instructions], dtype=bool)
    divisions = np.isin(tim.trace.pc, list(find_divisions(tim.trace)))
    lanes_on, lanes_on_recorded = np.asarray(trace.exec_mask) != 0, np.asarray(tim.trace.exec_mask) != 0
    assert int((lanes_on & ~steps[trace.pc]).sum()) <= int((lanes_on_recorded & ~divisions).sum())
    c = res.counters
    assert res.cycles > 0
    assert c["gpc__cycles_elapsed.max"] == res.cycles
    assert c["smsp__inst_executed.sum"] == trace.n_instructions
    assert int(res.per_sm["inst_executed"].sum()) == trace.n_instructions
    # every resident warp-cycle is in exactly one state; "selected" is one cycle per issued instruction
    assert res.stalls["selected"] == trace.n_instructions
    assert set(res.stalls) == set(STALL_REASONS)
    assert all(v >= 0 for v in res.stalls.values())
    resident = int((res.warp_end_cycle - res.warp_start_cycle).sum())
    assert sum(res.stalls.values()) == resident == int(res.stalls_by_warp.sum())
    assert sum(sum(d.values()) for d in res.stalls_by_pc.values()) == resident
    assert (res.warp_end_cycle <= res.cycles).all()
    assert 0 < c["sm__inst_executed.avg.per_cycle_active"] <= SMALL_GPU.sm.subpartitions


# -- shared-memory bank conflicts: the seeds' stride table ---------------------------------------------
@pytest.mark.parametrize("stride", [1, 2, 3, 4, 8, 32, 33])   # the seeds' bank-conflict-by-stride table
def test_smem_stride_probe_gives_the_seeds_bank_conflict_ways(stride):
    p = programs.get("smem_stride_probe").params(f"stride_{stride}")
    res = _timing("smem_stride_probe", f"stride_{stride}").timing
    c = res.counters
    ways = gcd(stride, 32)            # a warp hits 32 / gcd banks, gcd words each
    requests = p["blocks"] * p["block"] // 32 * p["reps"]
    assert c["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == requests * ways
    assert c["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == requests * (ways - 1)
    # the copy-in stores are consecutive words: conflict-free
    assert c["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0


def test_bank_conflicts_cost_time_as_short_scoreboard():
    # The conflicted loads queue for the shared pipe and the warps wait for their data, as ncu reports on the
    # H100 (tests/golden/h100/smem_stride_probe__default.json: short_scoreboard 66.7 warp-cycles per issue,
    # mio_throttle 1.9)
    free = _timing("smem_stride_probe", "stride_1").timing
    conflicted = _timing("smem_stride_probe", "stride_32").timing
    assert conflicted.cycles > free.cycles
    assert conflicted.stalls["short_scoreboard"] > 10 * max(1, free.stalls["short_scoreboard"])
    assert conflicted.stalls["short_scoreboard"] > 10 * conflicted.stalls["mio_throttle"]


# -- global-memory coalescing: sectors per request --------------------------------------------------------
@pytest.mark.parametrize("size,sectors", [("stride_1", 4), ("stride_2", 8), ("stride_4", 16), ("stride_8", 32),
                                          ("stride_16", 32), ("stride_32", 32), ("offset_1", 5)])
def test_gmem_stride_probe_gives_the_seeds_sectors_per_request(size, sectors):
    p = programs.get("gmem_stride_probe").params(size)
    c = _timing("gmem_stride_probe", size).timing.counters
    requests = p["n"] // 32
    assert c["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == requests
    assert c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == requests * sectors
    assert c["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"] == sectors
    # the writes out[i] are always coalesced
    assert c["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"] == 4


# -- transposes ------------------------------------------------------------------------------------------
def _transpose(name, w=64, h=64):
    rng = np.random.default_rng(0)
    src = rng.random(w * h, dtype=np.float32)
    r = gpusim.run(name, grid=(w // 32, h // 32, 1), block=(32, 32, 1),
                   args=[src, np.zeros(w * h, np.float32), np.int32(w), np.int32(h)], mode="timing", gpu=SMALL_GPU)
    np.testing.assert_array_equal(r.args[1], src.reshape(h, w).T.ravel())
    return r.timing


def test_unpadded_transpose_has_32_way_conflicts_on_its_column_reads_and_padded_none():
    smem = _transpose("transpose_smem").counters
    padded = _transpose("transpose_padded").counters
    reads = 64 * 64 // 32       # one shared load per warp, every warp full
    assert smem["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 32 * reads
    assert smem["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 31 * reads
    assert padded["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == reads
    assert padded["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 0
    for c in (smem, padded):     # row writes into the tile are conflict-free in both
        assert c["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] == 0


# -- DRAM bandwidth ------------------------------------------------------------------------------------
class _DramBursts(TimingObserver):
    def __init__(self):
        self.by_channel: dict[int, list[int]] = {}

    def on_dram_command(self, e):
        if e.command in (Command.RD, Command.WR):
            self.by_channel.setdefault(e.channel, []).append(e.ck)


def test_streaming_kernel_reaches_near_peak_dram_bandwidth_and_never_exceeds_it():
    # 16 SMs against 8 pseudo-channels: enough requests in flight to saturate them with a small kernel
    gpu = H100.replace(**{"sm.count": 16, "memory.dram.channels": 4})
    dram = gpu.memory.dram
    n = 1 << 16
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    bursts_seen = _DramBursts()
    r = gpusim.run("vector_add", grid=(n // 256, 1, 1), block=(256, 1, 1),
                   args=[a, b, np.zeros(n, np.float32), np.int32(n)], mode="timing", gpu=gpu, observer=bursts_seen)
    np.testing.assert_array_equal(r.args[2], a + b)
    c = r.timing.counters
    moved = c["dram__bytes_read.sum"] + c["dram__bytes_write.sum"]
    assert c["dram__bytes_read.sum"] >= 2 * n * 4          # both inputs come from DRAM once
    nbl = dram.timings.nBL
    bursts = [t for ts in bursts_seen.by_channel.values() for t in ts]
    assert len(bursts) * 32 == moved
    window_s = (max(bursts) - min(bursts) + nbl) / (dram.clock_mhz * 1e6)
    achieved = moved / window_s
    assert achieved <= dram.peak_bytes_per_s * 1.0001
    assert achieved >= 0.8 * dram.peak_bytes_per_s, f"{achieved / dram.peak_bytes_per_s:.1%} of peak"
    # no channel's data bus carries more than one burst per nBL
    for ts in bursts_seen.by_channel.values():
        ts = sorted(ts)
        assert all(t1 - t0 >= nbl for t0, t1 in zip(ts, ts[1:]))
    # and over the whole kernel the average is below peak too
    assert moved / (r.timing.cycles / (gpu.clock_mhz * 1e6)) < dram.peak_bytes_per_s
