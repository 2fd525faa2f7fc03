"""The timing behaviour issue 3 lists, visible on real programs (not only on synthetic traces)."""
from __future__ import annotations

import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.timing import simulate

H100 = load_gpu("h100")
SMALL_GPU = H100.replace(**{"sm.count": 4})


@pytest.fixture(scope="module")
def matmul64_trace():
    w = 64
    rng = np.random.default_rng(0)
    a, b = rng.random(w * w, dtype=np.float32), rng.random(w * w, dtype=np.float32)
    r = gpusim.run("matmul_tiled", kernel="matmul_tiled_16", grid=(w // 16, w // 16, 1), block=(16, 16, 1),
                   args=[a, b, np.zeros(w * w, np.float32), np.int32(w)], mode="emulate", record_trace=True)
    return r.trace


def test_matmul_ipc_rises_with_resident_warps(matmul64_trace):
    """The seeds' latency-tolerance argument on the tiled matmul: on one SM, fewer registers per thread ->
    more resident blocks -> more warps to hide load latency behind -> higher IPC, flattening out once the
    shared-memory pipe (mio_throttle) becomes the limit."""
    gpu = H100.replace(**{"sm.count": 1})
    runs = [simulate(matmul64_trace, gpu, regs_per_thread=r) for r in (255, 128, 64, 32)]
    blocks = [r.occupancy.blocks_per_sm for r in runs]
    ipc = [r.ipc for r in runs]
    assert blocks == [1, 2, 4, 8]
    assert all(b > a for a, b in zip(ipc, ipc[1:])), ipc
    # latency-bound: nearly proportional (at the 1590 MHz base clock DRAM's fixed ns are fewer SM cycles than at
    # 1980 MHz, so doubling the warps gains a little less: 1.49x and 1.40x)
    assert ipc[1] > 1.35 * ipc[0] and ipc[2] > 1.35 * ipc[1]
    assert ipc[3] / ipc[2] < min(1.35, ipc[2] / ipc[1])          # then flattening (1.31x after 1.46x)
    assert runs[0].stalls["long_scoreboard"] + runs[0].stalls["short_scoreboard"] > \
        runs[0].stalls["mio_throttle"]
    assert runs[3].stalls["mio_throttle"] > 2 * runs[0].stalls["mio_throttle"]


def test_divergent_reduction_costs_more_passes_than_sequential_addressing():
    res = {n: gpusim.run(n, size="small", mode="timing", gpu=SMALL_GPU).timing
           for n in ("reduce_interleaved", "reduce_sequential")}
    inter, seq = res["reduce_interleaved"].counters, res["reduce_sequential"].counters
    assert inter["smsp__inst_executed.sum"] > 1.3 * seq["smsp__inst_executed.sum"]
    assert inter["smsp__thread_inst_executed_per_inst_executed.ratio"] < \
        seq["smsp__thread_inst_executed_per_inst_executed.ratio"]
    assert res["reduce_interleaved"].cycles > res["reduce_sequential"].cycles


def test_lane_divergence_runs_both_paths_warp_divergence_one():
    lane = gpusim.run("divergence", size="small", mode="timing", gpu=SMALL_GPU).timing.counters
    warp = gpusim.run("divergence", size="small_warp", mode="timing", gpu=SMALL_GPU).timing.counters
    assert lane["smsp__inst_executed.sum"] > 1.6 * warp["smsp__inst_executed.sum"]
    assert warp["smsp__thread_inst_executed_per_inst_executed.ratio"] == 32.0
    assert lane["smsp__thread_inst_executed_per_inst_executed.ratio"] < 20


def test_matmul_256_on_h100_takes_a_plausible_time():
    """Real H100 SXM runs this 256^3 tiled matmul in roughly 10-20 us (kernel time). Whole GPU: slow-ish
    test (~25 s), so only the plausibility band, generous on both sides."""
    r = gpusim.run("matmul_tiled", size="default", mode="timing", gpu=H100)
    assert 5.0 < r.timing.time_us < 40.0, r.timing.time_us


def test_a_warp_accessing_one_local_word_moves_four_sectors():
    """Local memory is interleaved once (by the memory system) so that one word of the 32 threads of a warp
    is 128 contiguous bytes: 4 sectors per request, however large the grid (issue 14)."""
    ptx = """.version 8.0
.target sm_90
.address_size 64
.visible .entry local_word()
{
    .reg .b32 %r<3>;
    .local .align 4 .b32 arr[8];
    mov.u32 %r0, %tid.x;
    st.local.u32 [arr+8], %r0;
    ld.local.u32 %r1, [arr+8];
}
"""
    res = gpusim.run(ptx, grid=264, block=256, args=[], mode="timing")
    c = res.timing.counters
    for op in ("ld", "st"):
        sectors = sum(v for k, v in c.items() if k.startswith("l1tex__t_sectors_pipe_lsu_mem_") and
                      k.endswith(f"_op_{op}.sum"))
        requests = sum(v for k, v in c.items() if k.startswith("l1tex__t_requests_pipe_lsu_mem_") and
                       k.endswith(f"_op_{op}.sum"))
        assert requests == 264 * 8 and sectors == 4 * requests, (op, sectors, requests)
