"""How much of the H100's L2 a kernel reads back (l2cap.cu): run on the GPU machine, one call.

    python3 l2cap.py --cubin l2cap.cubin --out DIR          # DIR/l2cap.json
    python3 l2cap.py --cubin l2cap.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine l2cap.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed):

    nvcc -cubin -arch=sm_90 -O3 -o l2cap.cubin l2cap.cu

Cases: cap_reread over 8 to 64 MB, 1056 blocks of 256 threads (8 per SM), the second pass read by the same
block (shift 0), the next block (1) or the block half a grid away (528).  Section ``clock``: CUDA-event
time, median of 5 (``cycles_per_request`` is microseconds per MB read).  Section ``ncu``: each case once
under ncu (default clock and cache control: L2 flushed before each launch): DRAM bytes read, L2 hit rate,
L2 read sectors, fabric sectors, cycles.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "l2cap.cubin built from l2cap.cu (nvcc 13.0 -cubin -arch=sm_90 -O3)"
NCU_METRICS = ["gpc__cycles_elapsed.max", "dram__bytes_read.sum", "dram__bytes_write.sum",
               "lts__t_sectors_op_read.sum", "lts__t_sector_hit_rate.pct", "lts__t_sectors_srcunit_ltcfabric.sum",
               "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
               "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"]
SIZES_MB = (8, 16, 24, 32, 40, 48, 64)
SHIFTS = (0, 1, 528)
MAX_MB = max(SIZES_MB)


def cases() -> list[dict]:
    return [{"kernel": "cap_reread", "mb": mb, "shift": s, "blocks": 1056, "threads": 256}
            for s in SHIFTS for mb in SIZES_MB]


def make_buffers(cp) -> dict:
    n = MAX_MB * 1024 * 1024 // 4
    return {"a": cp.ones(n, dtype=cp.float32), "out": cp.zeros(4, dtype=cp.float32)}


def launch_case(mod, cp, case: dict, bufs: dict) -> float:
    fn = mod.get_function(case["kernel"])
    n = np.int64(case["mb"] * 1024 * 1024 // 4)
    args = (n, bufs["a"], bufs["out"], np.int32(case["shift"]))
    return onecall.launch_us(cp, fn, (case["blocks"],), (case["threads"],), args)


def section_clock(mod, cp) -> list[dict]:
    return onecall.clock_section(mod, cp, cases(), make_buffers, launch_case, lambda case: case["mb"])


def main() -> int:
    rec = onecall.main(doc=__doc__, name="l2cap", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS}, kernel_prefix="cap_", cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        rd = (g.get("dram__bytes_read.sum") or 0) / 2**20
        extra = rd - c["mb"]
        print(f"shift {c['shift']:4d} {c['mb']:3d} MB: DRAM read {rd:7.2f} MB = buffer + {extra:6.2f} "
              f"(second pass misses {100 * extra / c['mb']:5.1f}%), L2 hit {g.get('lts__t_sector_hit_rate.pct')}, "
              f"gpc {g.get('gpc__cycles_elapsed.max')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
