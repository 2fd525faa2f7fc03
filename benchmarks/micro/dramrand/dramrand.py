"""Random accesses over L2- to DRAM-sized tables on the H100 (dramrand.cu): run on the GPU machine, one call.

    python3 dramrand.py --cubin dramrand.cubin --out DIR          # DIR/dramrand.json
    python3 dramrand.py --cubin dramrand.cubin launch SPEC.json   # (ncu's child) launch each case once

On the GPU machine dramrand.py, ../onecall.py and ../walk/walk.py go in one folder with the cubin.

Build (the cubin is a build product, not committed; the simulator runs the committed dramrand.ptx, the PTX
the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o dramrand.ptx dramrand.cu && ptxas -arch=sm_90 -O3 dramrand.ptx -o dramrand.cubin

The whole chip at full occupancy (4224 blocks of 256 threads, 8 per SM: four waves), every thread 16
independent accesses to random words of a zero-filled table of 8 MB to 1 GB: random 4-byte loads (dr_load),
RED.ADD (dr_red), ATOM.ADD (dr_atom), stores (dr_store), 8-byte atomicXor (dr_xor64, HPCC RandomAccess's
update).  Section ``clock``: each case's time from CUDA events outside ncu (the boost clock), median of 5
launches after one warm-up, each launch a new stretch of the random sequence; ``ops_per_ns``.  Section
``ncu``: every case once under ncu (default clock and cache control: base clock, L2 flushed before each
launch, as the suite records): cycles and the L2/DRAM sector counters that say how many sectors each access
cost.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # the ncu section, the command line, the provenance

CUBIN = "dramrand.cubin built from dramrand.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"

KERNELS = ("dr_load", "dr_red", "dr_atom", "dr_store", "dr_xor64")
TABLE_MB = (8, 32, 64, 128, 256, 1024)
BLOCKS, THREADS, ITERS = 4224, 256, 16

NCU_METRICS = [
    "gpc__cycles_elapsed.max", "gpu__time_duration.sum", "sm__cycles_active.avg",
    "dram__sectors_read.sum", "dram__sectors_write.sum",
    "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum",
    "lts__t_sectors_srcunit_tex.sum", "lts__t_requests_srcunit_tex.sum", "lts__t_sectors_srcunit_ltcfabric.sum",
    "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum", "lts__t_sectors_op_atom.sum",
    "lts__t_sectors_op_red.sum",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
]
# asked in a second ncu call: a name this ncu does not know fails only that call
NCU_EXTRA = ["dram__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sectors_srcnode_gpc.sum",
             "lts__average_t_sector_hit_rate_realtime.pct", "lts__t_sectors_srcunit_tex_lookup_miss.sum",
             "lts__t_sectors_srcunit_tex_lookup_hit.sum"]


def cases() -> list[dict]:
    return [{"kernel": k, "table_mb": mb, "blocks": BLOCKS, "threads": THREADS, "iters": ITERS}
            for k in KERNELS for mb in TABLE_MB]


def words(case: dict) -> int:
    """Words in the table (4 bytes; 8 for dr_xor64): a power of two."""
    return case["table_mb"] * (1 << 20) // (8 if case["kernel"] == "dr_xor64" else 4)


def make_buffers(cp) -> dict:
    return {"t": cp.zeros(max(TABLE_MB) << 20, dtype=cp.uint8), "sink": cp.zeros(4, dtype=cp.uint32)}


def launch_case(mod, cp, case: dict, bufs: dict, seed: int = 0) -> None:
    fn = mod.get_function(case["kernel"])
    args = (bufs["t"], np.uint32(words(case) - 1), np.int32(case["iters"]), np.uint32(seed), bufs["sink"])
    fn((case["blocks"],), (case["threads"],), args)


def section_clock(mod, cp) -> list[dict]:
    bufs = make_buffers(cp)
    rows = []
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for case in cases():
        ops = case["blocks"] * case["threads"] * case["iters"]
        launch_case(mod, cp, case, bufs, seed=0x7000000)     # warm-up (module, TLB)
        runs = []
        for r in range(5):
            start.record()
            launch_case(mod, cp, case, bufs, seed=(r + 1) << 25)   # a stretch of the sequence not used before
            end.record()
            end.synchronize()
            runs.append(cp.cuda.get_elapsed_time(start, end))
        ms = statistics.median(runs)
        rows.append({**case, "ops": ops, "ms_median": ms, "ms_runs": runs, "ops_per_ns": ops / (ms * 1e6)})
        print(f"clock {case['kernel']:9s} {case['table_mb']:5d} MB: {ms:.4f} ms, {ops / (ms * 1e6):.2f} ops/ns",
              flush=True)
    return rows


def main() -> int:
    rec = onecall.main(doc=__doc__, name="dramrand", script=str(Path(__file__).resolve()), cases=cases,
                       make_buffers=make_buffers, launch_case=launch_case, section_clock=section_clock,
                       ncu_metrics={"ncu": NCU_METRICS, "ncu_extra": NCU_EXTRA}, kernel_prefix="dr_",
                       cubin_note=CUBIN)
    if rec is None:
        return 0
    for c, g in onecall.clock_with_ncu(rec):
        cyc = g.get("gpc__cycles_elapsed.max")
        print(f"{c['kernel']:9s} {c['table_mb']:5d} MB: {c['ops_per_ns']:6.2f} ops/ns (boost)  ncu cycles {cyc}"
              f" ops/cycle {c['ops'] / cyc if cyc else float('nan'):.2f}  dram rd {g.get('dram__sectors_read.sum')}"
              f" wr {g.get('dram__sectors_write.sum')}  lts miss {g.get('lts__t_sectors_lookup_miss.sum')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
