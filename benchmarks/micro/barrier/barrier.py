"""bar.sync on the H100 (barrier.cu): run on the GPU machine, one call.

    python3 barrier.py --cubin barrier.cubin --out DIR          # DIR/barrier.json
    python3 barrier.py --cubin barrier.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine barrier.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed barrier.ptx,
the PTX the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o barrier.ptx barrier.cu && ptxas -arch=sm_90 -O3 barrier.ptx -o barrier.cubin

Cases: one block of 1 to 32 warps (one SM).  Section ``clock``: each case's loop in SM cycles from clock64(),
median of 5 launches; ``cycles_per_request`` = loop cycles per trip (bar_loop: one barrier a trip; bar_lds:
two; bar_tree: one plus one per halving down to a warp).  Section ``ncu``: every case once under ncu (default
clock and cache control), with its warp-state ratios.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "barrier.cubin built from barrier.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

STATES = ("barrier", "short_scoreboard", "wait", "mio_throttle", "not_selected", "selected", "no_instruction",
          "branch_resolving", "math_pipe_throttle", "dispatch_stall")
NCU_METRICS = ["gpc__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
               "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] + [
    f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STATES]
REPS = 256


def cases() -> list[dict]:
    out = [{"kernel": "bar_loop", "warps": w, "reps": REPS} for w in (1, 2, 4, 8, 16, 32)]
    out += [{"kernel": "bar_lds", "warps": w, "reps": REPS} for w in (1, 8, 32)]
    out += [{"kernel": "bar_tree", "warps": w, "reps": REPS} for w in (8, 32)]
    return out


def make_buffers(cp) -> dict:
    return {"out": cp.zeros(1024, dtype=cp.float32), "clk": cp.zeros(1, dtype=cp.int64)}


def launch_case(mod, cp, case: dict, bufs: dict) -> float:
    fn = mod.get_function(case["kernel"])
    fn((1,), (32 * case["warps"],), (np.int32(case["reps"]), bufs["out"], bufs["clk"]))
    cp.cuda.runtime.deviceSynchronize()
    return float(bufs["clk"].get()[0])


def section_clock(mod, cp) -> list[dict]:
    return onecall.clock_section(mod, cp, cases(), make_buffers, launch_case, lambda case: case["reps"])


def main() -> int:
    rec = onecall.main(doc=__doc__, name="barrier", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS}, kernel_prefix="bar_", cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        st = {s: g.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in STATES[:4]}
        print(f"{c['kernel']:9s} warps {c['warps']:2d}: {c['cycles_per_request']:7.2f} cyc/trip  ncu gpc "
              f"{g.get('gpc__cycles_elapsed.max')} {st}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
