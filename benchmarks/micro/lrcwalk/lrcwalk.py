"""Many SMs walking the same records at once (lrcwalk.cu) under Nsight Compute: run on the GPU machine, one call.

    python3 lrcwalk.py --cubin lrcwalk.cubin --out DIR          # DIR/lrcwalk.json (+ ncu's raw CSV)
    python3 lrcwalk.py --cubin lrcwalk.cubin launch SPEC.json   # (ncu's child) launch each case once

Build (CUDA 13.0; the cubin is a build product, not committed; the simulator runs the committed lrcwalk.ptx,
the PTX the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o lrcwalk.ptx lrcwalk.cu && ptxas -arch=sm_90 -O3 lrcwalk.ptx -o lrcwalk.cubin

Cases: n records (40 B each), one thread per record, blocks of 256 threads (8 warps, one block per SM), grid G
of 1 to 64 blocks; ``together``: every block walks the records from record 0, ``spread``: block b starts at
record b * n / G.  Each case runs once under ncu with its default clock control (locked base clock) and cache
control (caches flushed before each kernel): ``gpc__cycles_elapsed.max``, the L1/L2/LRC/DRAM sector counts.
The question: is one SM's latency-bound walk faster when other SMs have just asked the L2 for the same
sectors (the L2 request coalescer, LRC, serving a read still in flight), i.e. do cycles fall as G grows when
together and not when spread?
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "walk"))
from walk import ncu_case_rows, provenance  # noqa: E402

NCU_METRICS = [
    "gpc__cycles_elapsed.max", "sm__cycles_active.max", "smsp__inst_executed.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
    "lts__t_sectors_op_read.sum", "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum", "lts__t_requests_srcunit_tex_op_read.sum",
    "lrc__xbar2lrc_requests_op_read.sum", "lrc__lts2lrc_sectors_op_read.sum", "lrc__xbar2gpc_sectors_op_read.sum",
    "lrc__lrc2xbar_sectors_op_read_coalescing_achieved.sum", "lrc__request_sectors_op_read_coalescable.sum",
    "dram__sectors_read.sum",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
]
BLOCK = 256


def cases() -> list[dict]:
    out = []
    for grid, n in ((1, 8192), (2, 8192), (4, 8192), (8, 8192), (16, 8192), (32, 8192), (64, 16384)):
        for mode in ("together", "spread"):
            if grid == 1 and mode == "spread":
                continue
            out.append({"grid": grid, "n": n, "mode": mode, "j0_stride": 0 if mode == "together" else n // grid})
    return out


def launch_case(mod, cp, case: dict) -> None:
    import numpy as np
    rng = np.random.default_rng(0)
    recs = cp.asarray(rng.uniform(0.0, 1.0, size=(case["n"], 10)).astype(np.float32))
    mod.get_function("lrc_walk")((case["grid"],), (BLOCK,),
                                 (recs, np.int32(case["n"]), np.int32(case["j0_stride"]),
                                  np.float32(6.67259e-11), np.float32(1e-4)))
    cp.cuda.Device().synchronize()


def section_ncu(args) -> dict:
    spec = Path(args.out) / "ncu_spec.json"
    spec.write_text(json.dumps(cases()))
    # ncu refuses the whole run for one unknown name: keep the metrics this ncu lists
    q = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True, timeout=120, check=False).stdout
    known = {ln.split()[0] for ln in q.splitlines() if ln.strip()}
    metrics = [m for m in NCU_METRICS if m.rsplit(".", 1)[0] in known]
    cmd = ["ncu", "--csv", "--page", "raw", "--print-units", "base", "-k", "regex:^lrc_walk",
           "--metrics", ",".join(metrics), sys.executable, str(Path(__file__).resolve()),
           "--cubin", args.cubin, "launch", str(spec)]
    rec = ncu_case_rows(cmd, cases(), metrics, "lrc_walk", Path(args.out))
    for row in rec["rows"]:
        vals = row["ncu"]
        print(f"{row['mode']:9s} grid {row['grid']:3d} n {row['n']:6d}: {vals.get('gpc__cycles_elapsed.max')} cycles, "
              f"L2 reads {vals.get('lts__t_sectors_op_read.sum')}, L1 misses "
              f"{vals.get('l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum')}", flush=True)
    return rec


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "lrcwalk.cubin"))
    ap.add_argument("--out", default="/tmp/lrcwalk")
    ap.add_argument("what", nargs="*", default=["ncu"])
    args = ap.parse_args()
    import cupy as cp
    mod = cp.RawModule(path=args.cubin)
    if args.what[:1] == ["launch"]:
        for case in json.loads(Path(args.what[1]).read_text()):
            launch_case(mod, cp, case)
        return 0
    Path(args.out).mkdir(parents=True, exist_ok=True)
    prov = provenance()
    prov["cubin"] = "lrcwalk.cubin from lrcwalk.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"
    rec = {"what": __doc__.split("\n\n")[0], "provenance": prov, "block": BLOCK, "ncu": section_ncu(args)}
    (Path(args.out) / "lrcwalk.json").write_text(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
