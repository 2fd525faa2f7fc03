"""Scattered stores under load on the H100 (stscatter.cu): run on the GPU machine, one call.

    python3 stscatter.py --cubin stscatter.cubin --out DIR          # DIR/stscatter.json
    python3 stscatter.py --cubin stscatter.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine stscatter.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed
stscatter.ptx, the PTX the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o stscatter.ptx stscatter.cu && ptxas -arch=sm_90 -O3 stscatter.ptx -o stscatter.cubin

Cases: one block of 8 or 32 warps on one SM, and 132 blocks of 8 warps (every SM; the lines written stay
within L2).  Section ``clock``: each case's loop in SM cycles from clock64() (the clock as the driver leaves
it), the median over blocks, median of 5 launches; ``cycles_per_request`` = loop cycles / (warps per block x
reps x 4 stores).  Section ``ncu``: every case once under ncu (default clock and cache control).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "stscatter.cubin built from stscatter.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

NCU_METRICS = [
    "gpc__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lts__t_sectors_op_write.sum", "lts__t_sectors_srcunit_ltcfabric.sum", "dram__bytes_write.sum",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
]
NCU_WAVEFRONTS = ["l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_st.sum",
                  "l1tex__m_xbar2l1tex_read_sectors.sum", "l1tex__m_l1tex2xbar_write_sectors.sum"]
REPS = 256
FLOATS = 40 * 1024 * 1024                                    # 160 MB


def cases() -> list[dict]:
    out = []
    for warps in (8, 32):
        for stride in (1, 8, 32, 33):
            out.append({"kernel": "st_scatter", "stride": stride, "warps": warps, "blocks": 1, "reps": REPS})
        for stride in (1, 8):
            out.append({"kernel": "st_scatter4", "stride": stride, "warps": warps, "blocks": 1, "reps": REPS})
    for stride in (1, 8, 33):
        out.append({"kernel": "st_scatter", "stride": stride, "warps": 8, "blocks": 132, "reps": REPS})
    out.append({"kernel": "st_scatter4", "stride": 1, "warps": 8, "blocks": 132, "reps": REPS})
    return out


def make_buffers(cp) -> dict:
    return {"a": cp.zeros(FLOATS, dtype=cp.float32), "clk": cp.zeros(132, dtype=cp.int64)}


def launch_case(mod, cp, case: dict, bufs: dict) -> float:
    fn = mod.get_function(case["kernel"])
    args = (np.int32(case["reps"]), np.int32(case["stride"]), bufs["a"], bufs["clk"], np.int32(1))
    fn((case["blocks"],), (32 * case["warps"],), args)
    cp.cuda.runtime.deviceSynchronize()
    return float(np.median(bufs["clk"].get()[:case["blocks"]]))


def section_clock(mod, cp) -> list[dict]:
    return onecall.clock_section(mod, cp, cases(), make_buffers, launch_case,
                                 lambda case: case["warps"] * case["reps"] * 4)


def main() -> int:
    rec = onecall.main(doc=__doc__, name="stscatter", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS, "ncu_wavefronts": NCU_WAVEFRONTS}, kernel_prefix="st_",
                       cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        print(f"{c['kernel']:11s} stride {c['stride']:3d} warps {c['warps']:2d} blocks {c['blocks']:3d}: "
              f"{c['cycles_per_request']:7.2f} cyc/req  ncu gpc {g.get('gpc__cycles_elapsed.max')}"
              f" st sectors {g.get('l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum')}"
              f" lts writes {g.get('lts__t_sectors_op_write.sum')} lg_throttle "
              f"{g.get('smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
