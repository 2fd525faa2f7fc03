"""Queue depth in front of the shared-memory pipe and the L1's global path on the H100 (mioqueue.cu): run on
the GPU machine, one call.

    python3 mioqueue.py --cubin mioqueue.cubin --out DIR          # DIR/mioqueue.json
    python3 mioqueue.py --cubin mioqueue.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine mioqueue.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed mioqueue.ptx,
the PTX the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o mioqueue.ptx mioqueue.cu && ptxas -arch=sm_90 -O3 mioqueue.ptx -o mioqueue.cubin

Cases: one block of 1 to 32 warps (one SM), loads with stride 1 (one wavefront, one line) or 32 words (32-way
bank conflict; 32 lines).  Section ``clock``: one warm-up launch, then 3; for the last, every warp's clock
after each of its 16 loads and after their sum, as cycles since its clock before the first load
(``issue_cycles``: warps x 17), and the median over warps of the cycles to issue all 16 (``cycles_per_request``
= that / 16).  Section ``ncu``: every case once under ncu, with its warp-state ratios.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "mioqueue.cubin built from mioqueue.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

STATES = ("mio_throttle", "short_scoreboard", "lg_throttle", "long_scoreboard", "wait", "not_selected", "selected",
          "barrier", "no_instruction", "math_pipe_throttle", "dispatch_stall", "branch_resolving")
NCU_METRICS = ["gpc__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
               "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] + [
    f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STATES]


def cases() -> list[dict]:
    out = []
    for stride in (1, 32):
        out += [{"kernel": "q_lds", "stride": stride, "warps": w} for w in (1, 4, 8, 16, 32)]
    for stride in (1, 32):
        out += [{"kernel": "q_ldg", "stride": stride, "warps": w} for w in (1, 4, 8, 32)]
    return out


def make_buffers(cp) -> dict:
    return {"a": cp.arange(32 * 32 + 16, dtype=cp.float32), "out": cp.zeros(1024, dtype=cp.float32),
            "ts": cp.zeros(32 * 18, dtype=cp.uint32)}


def launch_case(mod, cp, case: dict, bufs: dict) -> np.ndarray:
    fn = mod.get_function(case["kernel"])
    if case["kernel"] == "q_lds":
        args = (np.int32(case["stride"]), bufs["out"], bufs["ts"])
    else:
        args = (np.int32(case["stride"]), bufs["a"], bufs["out"], bufs["ts"])
    fn((1,), (32 * case["warps"],), args)
    cp.cuda.runtime.deviceSynchronize()
    ts = bufs["ts"].get()[:case["warps"] * 18].reshape(case["warps"], 18).astype(np.int64)
    return (ts[:, :17] - ts[:, 17:18]) & 0xFFFFFFFF


def section_clock(mod, cp) -> list[dict]:
    bufs = make_buffers(cp)
    rows = []
    for case in cases():
        for _ in range(3):
            launch_case(mod, cp, case, bufs)
        d = launch_case(mod, cp, case, bufs)
        issue16 = statistics.median(d[:, 15].tolist())
        rows.append({**case, "issue_cycles": d.tolist(), "cycles_per_request": issue16 / 16})
        print(f"clock {case} median over warps: after load 0..15 "
              f"{[int(statistics.median(d[:, j].tolist())) for j in range(16)]} after the sum "
              f"{int(statistics.median(d[:, 16].tolist()))}", flush=True)
    return rows


def main() -> int:
    rec = onecall.main(doc=__doc__, name="mioqueue", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS}, kernel_prefix="q_", cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        st = {s: g.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in STATES[:5]}
        print(f"{c['kernel']:6s} stride {c['stride']:2d} warps {c['warps']:2d}: {c['cycles_per_request']:6.2f} "
              f"cyc/load issued  ncu gpc {g.get('gpc__cycles_elapsed.max')} {st}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
