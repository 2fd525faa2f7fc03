"""The L1 tag stage under load on the H100 (l1gather.cu): run on the GPU machine, one call.

    python3 l1gather.py --cubin l1gather.cubin --out DIR          # DIR/l1gather.json
    python3 l1gather.py --cubin l1gather.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine l1gather.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (here, CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed
l1gather.ptx, the PTX the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o l1gather.ptx l1gather.cu && ptxas -arch=sm_90 -O3 l1gather.ptx -o l1gather.cubin

One block on one SM, 1 to 32 warps.  In l1gather.cu's strides 1, 2, 8, 32, 64 the lines a request touches
are also the lanes in its busiest bank (stride 32: all 32 in bank 0); the strides 5, 9, 17, 33 (5, 9, 17
and 32 lines, no two lanes in one bank) tell the tag stage (4 lines a cycle) from the data stage (one bank
wavefront a cycle).  Section ``clock``: each case's loop in SM cycles from clock64() (the
clock as the driver leaves it), median of 5 launches; ``cycles_per_request`` = loop cycles / (warps x reps x
4 loads) for the gathers (the L1's throughput: every load hits), loop cycles / reps for the chain (the
latency of one request).  Section ``ncu``: every case once under ncu (default clock and cache control): the
L1 counters that say the loads hit and how many requests, sectors and wavefronts they made.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "l1gather.cubin built from l1gather.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

NCU_METRICS = [
    "gpc__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sector_hit_rate.pct", "lts__t_sectors_srcunit_tex_op_read.sum",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
]
# asked in a second ncu call: a name this ncu does not know fails only that call
NCU_WAVEFRONTS = ["l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ld.sum",
                  "l1tex__data_pipe_lsu_wavefronts_mem_lg.sum", "l1tex__data_bank_reads.sum"]
REPS = 256


def cases() -> list[dict]:
    out = []
    for warps in (1, 8, 32):
        for stride in (1, 2, 8, 32, 64):
            out.append({"kernel": "l1_gather", "stride": stride, "warps": warps, "reps": REPS})
        if warps > 1:                                      # as many lines, no two lanes in one bank
            for stride in (5, 9, 17, 33):
                out.append({"kernel": "l1_gather", "stride": stride, "warps": warps, "reps": REPS})
        out.append({"kernel": "l1_gather4", "stride": 1, "warps": warps, "reps": REPS})
    for stride in (1, 8, 32, 9, 33):
        out.append({"kernel": "l1_chain", "stride": stride, "warps": 1, "reps": 512})
    return out


def make_buffers(cp) -> dict:
    rng = np.random.default_rng(5)
    return {"a": cp.asarray(rng.random(64 * 32 * 8 + 64, dtype=np.float32)),
            "zeros": cp.zeros(64 * 32 * 8 + 64, dtype=cp.int32),
            "out": cp.zeros(32 * 32, dtype=cp.float32), "clk": cp.zeros(4, dtype=cp.int64)}


def launch_case(mod, cp, case: dict, bufs: dict) -> int:
    fn = mod.get_function(case["kernel"])
    src = bufs["zeros"] if case["kernel"] == "l1_chain" else bufs["a"]
    args = (np.int32(case["reps"]), np.int32(case["stride"]), src, bufs["out"], bufs["clk"])
    if case["kernel"] != "l1_chain":
        args += (np.int32(1),)                             # step: the windows' order, unknown to ptxas
    fn((1,), (32 * case["warps"],), args)
    cp.cuda.runtime.deviceSynchronize()
    return int(bufs["clk"].get()[0])


def section_clock(mod, cp) -> list[dict]:
    def requests_of(case):
        return case["reps"] if case["kernel"] == "l1_chain" else case["warps"] * case["reps"] * 4
    return onecall.clock_section(mod, cp, cases(), make_buffers, launch_case, requests_of)


def main() -> int:
    rec = onecall.main(doc=__doc__, name="l1gather", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS, "ncu_wavefronts": NCU_WAVEFRONTS}, kernel_prefix="l1_",
                       cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        print(f"{c['kernel']:10s} stride {c['stride']:3d} warps {c['warps']:2d}: {c['cycles_per_request']:7.2f} cyc/req"
              f"  ncu gpc {g.get('gpc__cycles_elapsed.max')} hit% {g.get('l1tex__t_sector_hit_rate.pct')}"
              f" sectors {g.get('l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
