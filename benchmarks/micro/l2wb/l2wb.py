"""When the H100's L2 writes dirty lines back to DRAM (l2wb.cu): run on the GPU machine, one call.

    python3 l2wb.py --cubin l2wb.cubin --out DIR          # DIR/l2wb.json
    python3 l2wb.py --cubin l2wb.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine l2wb.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed l2wb.ptx):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o l2wb.ptx l2wb.cu && ptxas -arch=sm_90 -O3 l2wb.ptx -o l2wb.cubin

Cases: wb_store, wb_copy and wb_rmw over 2 to 64 MB, 1056 blocks of 256 threads (8 per SM).  Section
``clock``: each case's time from CUDA events (outside ncu; the clock as the driver leaves it), median of 5
launches, in ``cycles_per_request`` as microseconds per MB written.  Section ``ncu``: every case once under
ncu (default clock and cache control: L2 flushed before each launch): DRAM bytes read and written, L2 write
sectors, cycles.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "l2wb.cubin built from l2wb.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

NCU_METRICS = ["gpc__cycles_elapsed.max", "dram__bytes_write.sum", "dram__bytes_read.sum",
               "lts__t_sectors_op_write.sum", "lts__t_sectors_op_read.sum", "lts__t_sector_hit_rate.pct",
               "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
               "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio"]
SIZES_MB = (2, 4, 8, 16, 24, 32, 40, 48, 64)
MAX_MB = max(SIZES_MB)


def cases() -> list[dict]:
    return [{"kernel": k, "mb": mb, "blocks": 1056, "threads": 256}
            for k in ("wb_store", "wb_copy", "wb_rmw") for mb in SIZES_MB]


def make_buffers(cp) -> dict:
    n = MAX_MB * 1024 * 1024 // 4
    return {"a": cp.ones(n, dtype=cp.float32), "b": cp.zeros(n, dtype=cp.float32)}


def launch_case(mod, cp, case: dict, bufs: dict) -> float:
    fn = mod.get_function(case["kernel"])
    n = np.int64(case["mb"] * 1024 * 1024 // 4)
    args = (n, bufs["b"], bufs["a"]) if case["kernel"] == "wb_copy" else (n, bufs["a"], bufs["b"])
    return onecall.launch_us(cp, fn, (case["blocks"],), (case["threads"],), args)


def section_clock(mod, cp) -> list[dict]:
    return onecall.clock_section(mod, cp, cases(), make_buffers, launch_case, lambda case: case["mb"])


def main() -> int:
    rec = onecall.main(doc=__doc__, name="l2wb", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS}, kernel_prefix="wb_", cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        mb = c["mb"]
        wr = (g.get("dram__bytes_write.sum") or 0) / 2**20
        rd = (g.get("dram__bytes_read.sum") or 0) / 2**20
        print(f"{c['kernel']:8s} {mb:3d} MB: {c['cycles_per_request']:7.2f} us/MB  ncu gpc "
              f"{g.get('gpc__cycles_elapsed.max')} DRAM written {wr:7.2f} MB ({wr / mb:5.2f} of the buffer) read "
              f"{rd:7.2f} MB, L2 hit {g.get('lts__t_sector_hit_rate.pct')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
