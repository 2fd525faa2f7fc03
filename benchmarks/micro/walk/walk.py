"""One thread's loads in flight on the H100 (walk.cu): run on the GPU machine, one call.

    python3 walk.py --cubin walk.cubin --out DIR            # both sections, DIR/walk.json
    python3 walk.py --cubin walk.cubin --campaign rows      # second call: DIR/walk_rows.json
    python3 walk.py --cubin walk.cubin launch SPEC.json     # (ncu's child) launch each case once

Build (here, with the CUDA 13.0 toolkit; the cubin is a build product, not committed; the simulator runs the
committed walk.ptx, the very PTX the cubin is assembled from):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o walk.ptx walk.cu && ptxas -arch=sm_90 -O3 walk.ptx -o walk.cubin

Section ``clock``: every case outside ncu (the clock as the driver leaves it), L2 flushed before each launch
(a 256 MB buffer written), the loop's SM cycles from clock64() in the kernel, median of 5.
Section ``ncu``: every case once under ``ncu`` with its default clock control (locked base clock) and cache
control (caches flushed before each kernel): ``gpc__cycles_elapsed.max`` and the memory counters, the numbers
``gpusim validate`` compares with.

Cases: the gramschmidt_1-like walk (``walk_sum``) and its ``#pragma unroll 1`` form at strides of 4 B to
64 KB (power-of-two and not), K hand-written independent loads per trip (``walk_ilp_K``, K = 1..64), and
spmv_csr_scalar's row walk (``walk_csr``: val[i] * x[col[i]]) over a DRAM-sized and an L1-sized x, by one thread and by every thread of
a block of 32 or 128 (``walk_csr_rows``); the clock section also times a few walks with the data left in L2
(``warm_l2``).  Campaign ``rows``: ``walk_csr_rows`` by 1 to 256 threads (1 to 32 lanes of one warp, then
2 to 8 warps), x in DRAM or in L1.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import io
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CAMPAIGN = "walk"      # --campaign: "walk" (walk.json) or "rows" (walk_rows.json)
NCU_METRICS = [
    "gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second", "sm__cycles_active.max",
    "dram__cycles_elapsed.avg.per_second", "smsp__inst_executed.sum", "dram__bytes_read.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sector_hit_rate.pct", "l1tex__t_sector_hit_rate.pct",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warp_latency_per_inst_issued.ratio",
]


def cases(campaign: str = "walk") -> list[dict]:
    if campaign == "rows":
        # the second call: spmv_csr_scalar's per-thread rows against the lanes and warps walking them
        return [{"kernel": "walk_csr_rows", "m": 512, "nx": nx, "threads": t}
                for nx in (16 << 20, 4096) for t in (1, 2, 4, 8, 16, 32, 64, 128, 256)]
    out = []
    for kern in ("walk_sum", "walk_sum_u1"):
        for stride_b in (4, 64, 256, 4096, 8192, 8196, 65536):
            out.append({"kernel": kern, "m": 2048, "stride_bytes": stride_b})
        out.append({"kernel": kern, "m": 200, "stride_bytes": 256})          # gramschmidt_1 small's column
    for k in (1, 2, 4, 8, 16, 32, 64):
        for stride_b in (256, 8192):
            out.append({"kernel": f"walk_ilp_{k}", "m": 2048, "stride_bytes": stride_b})
    for kern in ("walk_csr", "walk_csr_u1"):
        for nx in (16 << 20, 4096):                                         # 64 MB of x (DRAM), 16 KB (L1)
            out.append({"kernel": kern, "m": 2048, "nx": nx})
    for threads in (32, 128):
        for nx in (16 << 20, 4096):
            out.append({"kernel": "walk_csr_rows", "m": 512, "nx": nx, "threads": threads})
    return out


def launch_case(mod, cp, case: dict, bufs: dict) -> int:
    fn = mod.get_function(case["kernel"])
    out, clk = bufs["out"], bufs["clk"]
    if case["kernel"].startswith("walk_csr"):
        val, col, x = bufs["val"], bufs[("col", case["nx"])], bufs["x"]
        fn((1,), (case.get("threads", 32),), (np.int32(case["m"]), val, col, x, out, clk))
    else:
        fn((1,), (32,), (np.int32(case["m"]), np.int32(case["stride_bytes"] // 4), bufs["a"], out, clk))
    cp.cuda.runtime.deviceSynchronize()
    return int(clk.get()[0])


def make_buffers(cp) -> dict:
    rng = np.random.default_rng(11)
    bufs = {"a": cp.asarray(rng.random(2048 * 65536 // 4 + 64, dtype=np.float32)),
            "out": cp.zeros(256, dtype=cp.float32), "clk": cp.zeros(4, dtype=cp.int64),
            "val": cp.asarray(rng.random(256 * 512, dtype=np.float32)),
            "x": cp.asarray(rng.random(16 << 20, dtype=np.float32)),
            "flush": cp.zeros(64 << 20, dtype=cp.float32)}
    for nx in (16 << 20, 4096):
        bufs[("col", nx)] = cp.asarray(rng.integers(0, nx, 256 * 512, dtype=np.int32))
    return bufs


def provenance() -> dict:
    import cupy as cp
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])

    def sh(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False).stdout.strip()
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {e}"
    return {"gpu": name, "sm_count": props["multiProcessorCount"],
            "driver": cp.cuda.runtime.driverGetVersion(), "runtime": cp.cuda.runtime.runtimeGetVersion(),
            "cupy": cp.__version__,
            "nvidia_smi": sh(["nvidia-smi", ("--query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,"
                                             "clocks.max.mem,power.limit,pstate"), "--format=csv,noheader"]),
            "ncu": sh(["ncu", "--version"]).splitlines()[-1:],
            "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "cubin": "walk.cubin built from walk.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"}


def section_clock(mod, cp) -> list[dict]:
    bufs = make_buffers(cp)
    rows = []
    warm = [{**c, "warm_l2": True} for c in cases(CAMPAIGN)
            if c["kernel"] in ("walk_sum", "walk_sum_u1", "walk_ilp_1", "walk_ilp_8", "walk_ilp_32")
            and c.get("stride_bytes") in (256, 8192) and c["m"] == 2048]
    for case in cases(CAMPAIGN) + warm:
        launch_case(mod, cp, case, bufs)                       # warm-up (module, TLB; L2 for warm_l2)
        runs = []
        for _ in range(5):
            if not case.get("warm_l2"):
                bufs["flush"].fill(1.0)                       # evict the walk's lines from L2
            cp.cuda.runtime.deviceSynchronize()
            runs.append(launch_case(mod, cp, case, bufs))
        med = statistics.median(runs)
        rows.append({**case, "loop_cycles_median": med, "loop_cycles_runs": runs,
                     "cycles_per_element": med / case["m"]})
        print(f"clock {case} {med / case['m']:.1f} cyc/elem", flush=True)
    return rows


def section_ncu(args) -> dict:
    spec = Path(args.out) / "ncu_spec.json"
    spec.write_text(json.dumps(cases(CAMPAIGN)))
    cmd = ["ncu", "--csv", "--page", "raw", "--print-units", "base", "-k", "regex:^walk_",
           "--metrics", ",".join(NCU_METRICS), sys.executable, str(Path(__file__).resolve()),
           "--cubin", args.cubin, "--campaign", CAMPAIGN, "launch", str(spec)]
    return ncu_case_rows(cmd, cases(CAMPAIGN), NCU_METRICS, "walk_", Path(args.out))


def ncu_case_rows(cmd: list[str], case_list: list[dict], metrics: list[str], kernel_prefix: str, out_dir: Path) -> dict:
    """Run ``cmd`` (ncu --csv --page raw over a child that launches ``case_list`` in order), keep its output in
    ``out_dir`` and pair each case with the metrics of the kernel launch it made (None where ncu gave none)."""
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=400, check=False)
    (out_dir / "ncu_stdout.csv").write_text(p.stdout)
    (out_dir / "ncu_stderr.txt").write_text(p.stderr[-20000:])
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    rows = [r for r in rows if r.get("Kernel Name", "").startswith(kernel_prefix)]
    out = []
    for case, r in zip(case_list, rows):
        vals = {}
        for m in metrics:
            try:
                vals[m] = float(r[m].replace(",", ""))
            except (KeyError, ValueError):
                vals[m] = None
        out.append({**case, "kernel_seen": r.get("Kernel Name"), "ncu": vals})
    return {"command": " ".join(cmd[:10]) + " ...", "rc": p.returncode, "seconds": round(time.time() - t0, 1),
            "rows": out}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "walk.cubin"))
    ap.add_argument("--out", default="/tmp/walk")
    ap.add_argument("--campaign", default="walk", choices=("walk", "rows"))
    ap.add_argument("what", nargs="*", default=["clock", "ncu"])
    args = ap.parse_args()
    global CAMPAIGN
    CAMPAIGN = args.campaign
    import cupy as cp
    mod = cp.RawModule(path=args.cubin)
    if args.what[:1] == ["launch"]:
        bufs = make_buffers(cp)
        for case in json.loads(Path(args.what[1]).read_text()):
            launch_case(mod, cp, case, bufs)
        return 0
    Path(args.out).mkdir(parents=True, exist_ok=True)
    rec = {"what": __doc__.split("\n\n")[0], "provenance": provenance()}
    if "clock" in args.what:
        rec["clock"] = section_clock(mod, cp)
    rec["provenance_after_clock"] = provenance()["nvidia_smi"]
    if "ncu" in args.what:
        rec["ncu"] = section_ncu(args)
    Path(args.out, "walk.json" if CAMPAIGN == "walk" else f"walk_{CAMPAIGN}.json").write_text(json.dumps(rec, indent=1))
    ncu_rows = rec.get("ncu", {}).get("rows", [])
    for i, c in enumerate(rec.get("clock", [])):
        g = ncu_rows[i]["ncu"]["gpc__cycles_elapsed.max"] if i < len(ncu_rows) and not c.get("warm_l2") else "-"
        print(f"{c['kernel']:13s} m={c['m']:5d} {c.get('stride_bytes', c.get('nx')):>9} t={c.get('threads', 32):3d} "
              f"{'warm' if c.get('warm_l2') else 'cold'} clock {c['cycles_per_element']:7.1f} cyc/elem  ncu gpc {g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
