"""Scattered float atomics (RED) on the H100 (redscatter.cu): run on the GPU machine, one call.

    python3 redscatter.py --cubin redscatter.cubin --out DIR          # DIR/redscatter.json
    python3 redscatter.py --cubin redscatter.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine redscatter.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed
redscatter.ptx, the PTX the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o redscatter.ptx redscatter.cu && ptxas -arch=sm_90 -O3 redscatter.ptx -o redscatter.cubin

Cases: one block of 8 or 32 warps on one SM; 8 blocks of 8 warps (8 SMs, the slices nearly idle); 132 blocks
of 8 warps (every SM).  Section ``clock``: each case's loop in SM cycles from clock64() (the clock as the
driver leaves it), the median over blocks, median of 5 launches; ``cycles_per_request`` = loop cycles /
(warps per block x reps x REDs per trip).  Section ``ncu``: every case once under ncu (default clock and cache
control).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "redscatter.cubin built from redscatter.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

NCU_METRICS = [
    "gpc__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "lts__t_requests_op_red.sum", "lts__t_sectors_op_red.sum", "lts__t_sectors_srcunit_ltcfabric.sum",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
    "lts__cycles_active.avg", "lts__cycles_elapsed.avg", "lts__cycles_elapsed.avg.per_second",
]
NCU_WAVEFRONTS = ["l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_red.sum",
                  "l1tex__m_l1tex2xbar_write_sectors.sum", "l1tex__m_xbar2l1tex_read_sectors.sum",
                  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
REPS = 128
FLOATS = 40 * 1024 * 1024                                    # 160 MB
REDS_PER_TRIP = {"red_scatter": 4, "red_scatter_ld": 2}


def cases() -> list[dict]:
    if os.environ.get("REDSCATTER_SET") == "rate":
        return rate_cases()
    out = []
    for warps in (8, 32):
        for stride in (0, 1, 2, 8, 33):
            out.append({"kernel": "red_scatter", "stride": stride, "warps": warps, "blocks": 1, "reps": REPS})
    for stride in (1, 8, 33):
        out.append({"kernel": "red_scatter_ld", "stride": stride, "warps": 8, "blocks": 1, "reps": REPS})
    for blocks in (8, 132):
        for stride in (0, 1, 8, 33):
            out.append({"kernel": "red_scatter", "stride": stride, "warps": 8, "blocks": blocks, "reps": REPS})
    return out


def rate_cases() -> list[dict]:
    """``REDSCATTER_SET=rate``: the slices' rate for coalesced REDs from every SM (132 blocks, stride 1, one
    line of 32 words a RED), at 8 and 32 warps an SM, each warp turning over 8 lines (step 1) or adding to the
    same 4 lines every trip (step 0: a warp's REDs on the same words back to back, as the atomics campaign's
    kernel and HeCBench atomic_cost do)."""
    return [{"kernel": "red_scatter", "stride": 1, "warps": warps, "blocks": 132, "reps": REPS, "step": step}
            for warps in (8, 32) for step in (1, 0)]


def make_buffers(cp) -> dict:
    return {"a": cp.zeros(FLOATS, dtype=cp.float32), "lut": cp.zeros(256, dtype=cp.float32),
            "clk": cp.zeros(132, dtype=cp.int64)}


def launch_case(mod, cp, case: dict, bufs: dict) -> float:
    fn = mod.get_function(case["kernel"])
    args = (np.int32(case["reps"]), np.int32(case["stride"]), bufs["a"], bufs["lut"], bufs["clk"],
            np.int32(case.get("step", 1)))
    fn((case["blocks"],), (32 * case["warps"],), args)
    cp.cuda.runtime.deviceSynchronize()
    return float(np.median(bufs["clk"].get()[:case["blocks"]]))


def section_clock(mod, cp) -> list[dict]:
    return onecall.clock_section(mod, cp, cases(), make_buffers, launch_case,
                                 lambda case: case["warps"] * case["reps"] * REDS_PER_TRIP[case["kernel"]])


def main() -> int:
    rec = onecall.main(doc=__doc__, name="redscatter", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS, "ncu_wavefronts": NCU_WAVEFRONTS}, kernel_prefix="red_",
                       cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        print(f"{c['kernel']:14s} stride {c['stride']:3d} warps {c['warps']:2d} blocks {c['blocks']:3d}: "
              f"{c['cycles_per_request']:7.2f} cyc/req  ncu gpc {g.get('gpc__cycles_elapsed.max')}"
              f" red sectors {g.get('l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum')}"
              f" lts red {g.get('lts__t_sectors_op_red.sum')} lg_throttle "
              f"{g.get('smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
