"""Constant-cache misses on the H100 (cwalk.cu): run on the GPU machine, one call.

    python3 cwalk.py --cubin cwalk.cubin --out DIR           # DIR/cwalk.json
    python3 cwalk.py --cubin cwalk.cubin launch SPEC.json    # (ncu's child) launch each case once

On the GPU machine cwalk.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed cwalk.ptx):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o cwalk.ptx cwalk.cu && ptxas -arch=sm_90 -O3 cwalk.ptx -o cwalk.cubin

One warp, one dependent LDC at a time over a 64 KB __constant__ array, stride 4 B to 2 KB.  Section
``clock``: the loop's SM cycles per load from clock64() (the clock as the driver leaves it), median of 5:
``cold`` with L2 flushed before each launch (a 256 MB buffer written: the constant data comes from DRAM),
``warm`` right after another launch of the same case (the data in L2).  Section ``ncu``: every case once
under ncu (default clock and cache control: L2 flushed): ``gpc__cycles_elapsed.max`` and the L2/DRAM sectors.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall

CUBIN = "cwalk.cubin built from cwalk.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

NCU_METRICS = ["gpc__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
               "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_requests_srcunit_tex_op_read.sum",
               "lts__t_sectors_op_read.sum", "dram__bytes_read.sum",
               "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"]
STRIDES = (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)


def cases() -> list[dict]:
    return [{"kernel": "cwalk", "stride_bytes": s, "n": min(512, 16384 // (s // 4) - 1)} for s in STRIDES]


def launch_case(mod, cp, case: dict, bufs: dict) -> int:
    fn = mod.get_function("cwalk")
    fn((1,), (32,), (np.int32(case["n"]), np.int32(case["stride_bytes"] // 4), bufs["out"], bufs["clk"]))
    cp.cuda.runtime.deviceSynchronize()
    return int(bufs["clk"].get()[0])


def make_buffers(cp) -> dict:
    return {"out": cp.zeros(32, dtype=cp.int32), "clk": cp.zeros(4, dtype=cp.int64),
            "flush": cp.zeros(64 << 20, dtype=cp.float32)}


def section_clock(mod, cp) -> list[dict]:
    bufs = make_buffers(cp)
    rows = []
    for case in cases():
        launch_case(mod, cp, case, bufs)
        for how in ("cold", "warm"):
            runs = []
            for _ in range(5):
                if how == "cold":
                    bufs["flush"].fill(1.0)
                else:
                    launch_case(mod, cp, case, bufs)
                cp.cuda.runtime.deviceSynchronize()
                runs.append(launch_case(mod, cp, case, bufs))
            med = statistics.median(runs)
            rows.append({**case, "l2": how, "loop_cycles_median": med, "loop_cycles_runs": runs,
                         "cycles_per_load": med / case["n"]})
            print(f"clock {case} {how} {med / case['n']:.1f} cyc/load", flush=True)
    return rows


def main() -> int:
    rec = onecall.main(doc=__doc__, name="cwalk", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS}, kernel_prefix="cwalk", cubin_note=CUBIN)
    for r in (rec or {}).get("ncu", {}).get("rows", []):
        g = r["ncu"]
        print(f"stride {r['stride_bytes']:5d} n {r['n']:4d}: ncu gpc {g['gpc__cycles_elapsed.max']} "
              f"l2 sectors {g['lts__t_sectors_op_read.sum']} dram {g['dram__bytes_read.sum']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
