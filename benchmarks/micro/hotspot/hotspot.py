"""Hot spots in L2 on the GH100 (hotspot.cu): atomics and stores of every SM to one address; one call.

    python3 hotspot.py --cubin hotspot.cubin --out DIR [--sass FILE]   # DIR/hotspot.json
    python3 hotspot.py --cubin hotspot.cubin launch SPEC.json         # (ncu's child) launch each case once

On the GPU machine the repository travels whole (hotspot.py finds ../onecall.py and ../walk/walk.py).

Build (CUDA 13.0; the cubin is a build product, not committed; the PTX is committed beside it):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o hotspot.ptx hotspot.cu && ptxas -arch=sm_90 -O3 hotspot.ptx -o hotspot.cubin

Cases: grids of 132 x k blocks (k = 1, 8) of 256 threads; each warp loops n times, n chosen per case on the
device so that a launch takes 200-2000 us (about 300).  One lane a warp: ATOM (result used) and RED (unused),
int and float, on 1, 2, 8 or 32 lines (warp w on line w % m); 2 and 32 lanes of float on one word (ATOM and
RED); 32 lanes of int on one word (ptxas 13.0 does not aggregate them: 32 RED lanes); stores of 1 by one lane
(1 and 8 lines), by two lanes to one word, by one lane to the warp's own line, and a volatile one-lane store;
and the sparse cases (``*_gap``): each warp spins ``gap`` SM cycles after each store (ATOM), so that the GPU
offers warps / gap requests an SM cycle.  Section ``clock``: each case's kernel time from CUDA events (median
of 5 launches, the clock as the driver leaves it).  Section ``ncu``: every case once under ncu
(``--clock-control`` as given, default ``none``: the workplace's machines are not to have their clocks
locked; ``base`` is ncu's own default, which the H100 records used; cache control left at its default).
Per case: SM cycles per operation = ``gpc__cycles_elapsed.max`` / operations, L2 cycles per operation =
``lts__cycles_elapsed.avg`` / operations, where an operation is one warp instruction (a request) and, for the
cases of 2 and 32 lanes, also one lane.  ``--sass FILE``: the cubin's ``cuobjdump -sass`` written to FILE and
the opcodes of each kernel counted into the record.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import onecall  # noqa: E402  (launch_us, and through it walk.py's provenance)

CUBIN = "hotspot.cubin built from hotspot.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"
PREFIX = "hs_"
NCU_METRICS = [
    "gpc__cycles_elapsed.max", "smsp__inst_executed.sum",
    "lts__t_requests_srcunit_tex_op_red.sum", "lts__t_requests_srcunit_tex_op_atom.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_requests_srcunit_tex_op_write.sum",
    "lts__cycles_elapsed.avg", "lts__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second",
]
# asked in a second ncu call: a name this ncu does not know fails only that call
NCU_EXTRA = [
    "lts__t_sectors_srcunit_tex_op_red.sum", "lts__t_sectors_srcunit_tex_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "lts__t_sectors_srcunit_ltcfabric.sum",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
    # the busiest slice (how many slices the lines fell on) and the writes leaving the L1s
    "lts__t_requests_srcunit_tex_op_red.max", "lts__t_requests_srcunit_tex_op_atom.max",
    "lts__t_requests_srcunit_tex_op_write.max", "l1tex__m_l1tex2xbar_write_sectors.sum",
]
WORDS = 1 << 19          # buf: 2 MB, room for 8448 warps' own lines (32 words each)
THREADS = 256
TARGET_US, LOW_US, HIGH_US = 300.0, 200.0, 2000.0
SASS_OPS = ("ATOMG", "ATOM", "REDG", "RED", "REDUX", "VOTE", "VOTEU", "POPC", "FLO", "SHFL", "STG", "MEMBAR",
            "ATOMS", "S2R", "BRA")


def cases() -> list[dict]:
    """The cases without n (chosen on the device); lanes = active lanes a warp, m = lines."""
    out = []
    for k in (1, 8):
        for kern in ("hs_atom_i1", "hs_red_i1", "hs_atom_f1", "hs_red_f1"):
            for m in (1, 2, 8, 32):
                out.append({"kernel": kern, "lanes": 1, "m": m, "k": k})
        for kern, lanes in (("hs_atom_f2", 2), ("hs_red_f2", 2), ("hs_atom_f32", 32), ("hs_red_f32", 32),
                            ("hs_red_i32", 32)):
            out.append({"kernel": kern, "lanes": lanes, "m": 1, "k": k})
        for kern, lanes, m in (("hs_st1", 1, 1), ("hs_st1", 1, 8), ("hs_st2", 2, 1), ("hs_stown", 1, 1),
                               ("hs_stv1", 1, 1)):
            out.append({"kernel": kern, "lanes": lanes, "m": m, "k": k})
    # sparse requests: `gap` SM cycles between a warp's stores (atomics); offered = warps / gap a cycle
    for kern, m, k, gap in (("hs_st1_gap", 1, 1, 250), ("hs_st1_gap", 1, 1, 500), ("hs_st1_gap", 1, 1, 1000),
                            ("hs_st1_gap", 1, 1, 2000), ("hs_st1_gap", 1, 1, 4000), ("hs_st1_gap", 1, 8, 4000),
                            ("hs_st1_gap", 1, 8, 8000), ("hs_st1_gap", 1, 8, 16000), ("hs_st2_gap", 1, 1, 1000),
                            ("hs_st2_gap", 1, 8, 8000), ("hs_st1_gap", 8, 1, 500), ("hs_stown_gap", 1, 1, 250),
                            ("hs_stown_gap", 1, 8, 2000), ("hs_atom_i1_gap", 1, 1, 1000),
                            ("hs_atom_i1_gap", 1, 8, 8000)):
        out.append({"kernel": kern, "lanes": 2 if "st2" in kern else 1, "m": m, "k": k, "gap": gap})
    for c in out:
        c["blocks"] = 132 * c["k"]
        c["warps"] = c["blocks"] * THREADS // 32
    return out


def make_buffers(cp) -> dict:
    buf = cp.zeros(WORDS, dtype=cp.int32)
    out = cp.zeros(132 * 8 * THREADS, dtype=cp.int32)
    return {"i": (buf, out), "f": (buf.view(cp.float32), out.view(cp.float32))}


def _args(case: dict, n: int, bufs: dict) -> tuple:
    buf, out = bufs["f" if "_f" in case["kernel"] else "i"]
    args = (np.int32(n), np.int32(case["m"]), np.int32(0), buf, out)
    return args + (np.int32(case["gap"]),) if "gap" in case else args


def launch_case(mod, cp, case: dict, bufs: dict) -> None:
    bufs["i"][0].fill(0)                                   # float counters stay far below 2^24
    mod.get_function(case["kernel"])((case["blocks"],), (THREADS,), _args(case, case["n"], bufs))
    cp.cuda.runtime.deviceSynchronize()


def time_us(mod, cp, case: dict, n: int, bufs: dict) -> float:
    bufs["i"][0].fill(0)
    cp.cuda.runtime.deviceSynchronize()
    return onecall.launch_us(cp, mod.get_function(case["kernel"]), (case["blocks"],), (THREADS,),
                             _args(case, n, bufs))


def choose_n(mod, cp, case: dict, bufs: dict) -> tuple[int, list]:
    """n so that one launch takes LOW_US..HIGH_US (aiming at TARGET_US); the tries (n, us) beside it."""
    n, tries = 64, []
    time_us(mod, cp, case, n, bufs)                        # warm-up (module load)
    for _ in range(8):
        t = time_us(mod, cp, case, n, bufs)
        tries.append((n, round(t, 1)))
        if LOW_US <= t <= HIGH_US or (t > HIGH_US and n <= 4) or n >= 1 << 22:
            break
        n = max(4, min(1 << 22, int(n * min(64.0, TARGET_US / t))))
    return n, tries


def section_clock(mod, cp) -> list[dict]:
    bufs = make_buffers(cp)
    rows = []
    for case in cases():
        n, tries = choose_n(mod, cp, case, bufs)
        runs = [round(time_us(mod, cp, case, n, bufs), 2) for _ in range(5)]
        med = statistics.median(runs)
        rows.append({**case, "n": n, "n_tries": tries, "kernel_us_runs": runs, "kernel_us_median": med})
        print(f"clock {case['kernel']:14s} gap {case.get('gap', 0):5d} lanes {case['lanes']:2d} m {case['m']:2d} "
              f"k {case['k']} n {n:7d}: "
              f"{med:9.1f} us  {med * 1e3 / (case['warps'] * n):.3f} ns/request", flush=True)
    return rows


def query_metrics() -> set[str] | None:
    """The metric base names ``ncu --query-metrics`` lists for the device (None when the query fails)."""
    try:
        p = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True, timeout=120, check=False)
    except Exception:  # noqa: BLE001
        return None
    names = {ln.split()[0] for ln in p.stdout.splitlines() if ln.split() and "__" in ln.split()[0]}
    return names or None


def ncu_run(script: str, cubin: str, spec: Path, metrics: list[str], rows: list[dict], clock_control: str):
    """One ncu process over every case of ``spec``: (its section without rows, the metric values per case)."""
    cmd, rc, stdout, stderr, seconds = onecall.run_ncu(script, cubin, spec, metrics, PREFIX, clock_control, 200)
    vals_rows = onecall.ncu_rows(stdout, PREFIX, metrics)[:len(rows)]
    sec = {"command": " ".join(cmd[:11]) + " ...", "rc": rc, "seconds": seconds,
           "stderr_tail": (stderr + stdout[-800:])[-1500:] if rc or not vals_rows else ""}
    return sec, vals_rows


def ncu_section(script: str, cubin: str, out_dir: str, metrics: list[str], rows: list[dict],
                clock_control: str, known: set[str] | None) -> tuple[dict, list[dict]]:
    """Every case launched once under ncu (its n from the clock section).  A metric ncu names in its error
    is dropped and the call made again; failing that, those ``--query-metrics`` does not list."""
    spec = Path(out_dir) / "ncu_spec.json"
    spec.write_text(json.dumps([{k: r[k] for k in ("kernel", "lanes", "m", "k", "blocks", "warps", "n", "gap")
                                 if k in r} for r in rows]))
    sec, vals = ncu_run(script, cubin, spec, metrics, rows, clock_control)
    dropped: list[str] = []
    if not vals:
        named = [m for m in metrics if m.split(".")[0] in sec["stderr_tail"]]
        unknown = [m for m in metrics if known is not None and m.split(".")[0] not in known]
        for drop in (named, unknown):
            keep = [m for m in metrics if m not in drop]
            if drop and keep:
                first = sec
                sec, vals = ncu_run(script, cubin, spec, keep, rows, clock_control)
                sec["first_try"] = first
                dropped = drop
                if vals:
                    break
    sec["dropped"] = dropped
    return sec, vals


def sass_summary(cubin: str, sass_file: str) -> dict:
    """``cuobjdump -sass`` of the cubin into ``sass_file``; per kernel the count of each opcode of interest
    (modifiers kept, e.g. REDG.E.ADD.F32.FTZ.RN.STRONG.GPU) and the total of SASS instructions."""
    p = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, timeout=60, check=False)
    Path(sass_file).write_text(p.stdout)
    out: dict[str, dict] = {}
    fn = None
    for ln in p.stdout.splitlines():
        mfn = re.search(r"Function : (\S+)", ln)
        if mfn:
            fn = mfn.group(1)
            out[fn] = {"instructions": 0, "ops": Counter()}
            continue
        mi = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", ln)
        if fn and mi:
            out[fn]["instructions"] += 1
            op = mi.group(2)
            if op.split(".")[0] in SASS_OPS:
                out[fn]["ops"][op] += 1
    return {f: {"instructions": v["instructions"], "ops": dict(v["ops"])} for f, v in sorted(out.items())}


def derive(row: dict) -> dict:
    """SM and L2 cycles per request (warp instruction) and per lane from the ncu counters."""
    g = row.get("ncu", {})
    gpc, lts = g.get("gpc__cycles_elapsed.max"), g.get("lts__cycles_elapsed.avg")
    req = row["warps"] * row["n"]
    lanes = req * row["lanes"]
    d = {"requests": req, "lane_ops": lanes, "ns_per_request_events": row["kernel_us_median"] * 1e3 / req}
    if "gap" in row:
        d["offered_requests_per_sm_cycle"] = row["warps"] / row["gap"]
    if gpc:
        d["sm_cycles_per_request"] = gpc / req
        d["sm_cycles_per_lane"] = gpc / lanes
    if lts:
        d["l2_cycles_per_request"] = lts / req
        d["l2_cycles_per_lane"] = lts / lanes
    for name in ("red", "atom", "write"):
        v = g.get(f"lts__t_requests_srcunit_tex_op_{name}.sum")
        if v is not None:
            d[f"lts_{name}_requests_per_request"] = v / req
            top = g.get(f"lts__t_requests_srcunit_tex_op_{name}.max")
            if v > 0 and top:
                d[f"lts_{name}_busiest_slice_share"] = top / v
            if name == "write" and v > 0 and lts:
                d["l2_cycles_per_lts_write_request"] = lts / v
    return d


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "hotspot.cubin"))
    ap.add_argument("--out", default="/tmp/hotspot")
    ap.add_argument("--sass", default=None)
    ap.add_argument("--clock-control", default="none", choices=["none", "base"])
    ap.add_argument("what", nargs="*", default=["clock", "ncu"])
    args = ap.parse_args()
    opened = onecall.module_or_launch(args, make_buffers, launch_case)
    if opened is None:
        return 0
    mod, cp = opened
    Path(args.out).mkdir(parents=True, exist_ok=True)
    rec = {"what": __doc__.split("\n\n")[0], "device_note": "",
           "provenance": {**onecall.device_provenance(), "cubin": CUBIN}}
    rec["device_note"] = (f"measured on {rec['provenance']['gpu']} (GH100, the H100's chip; its HBM differs: "
                          "these cases are L2-bound); ncu --clock-control " + args.clock_control)
    if args.sass:
        rec["sass"] = sass_summary(args.cubin, args.sass)
    rows = section_clock(mod, cp)
    rec["provenance_after_clock"] = onecall.device_provenance()["nvidia_smi"]
    rec["rows"] = rows
    Path(args.out, "hotspot.json").write_text(json.dumps(rec, indent=1))      # kept if ncu fails
    known = query_metrics()
    script = str(Path(__file__).resolve())
    for key, metrics in (("ncu", NCU_METRICS), ("ncu_extra", NCU_EXTRA)):
        sec, vals = ncu_section(script, args.cubin, args.out, metrics, rows, args.clock_control, known)
        for row, v in zip(rows, vals):
            seen = v.pop("kernel_seen")
            if seen != row["kernel"]:
                sec.setdefault("mismatch", []).append([row["kernel"], seen])
            row.setdefault("ncu", {}).update(v)
        rec[key] = sec
        print(f"{key}: rc {sec['rc']} {sec['seconds']} s rows {len(vals)} dropped {sec['dropped']} "
              f"{sec['stderr_tail']}", flush=True)
        Path(args.out, "hotspot.json").write_text(json.dumps(rec, indent=1))
    for row in rows:
        row["derived"] = derive(row)
    rec["rows"] = rows
    Path(args.out, "hotspot.json").write_text(json.dumps(rec, indent=1))
    print(f"{'kernel':14s} {'gap':>5s} ln  m k {'requests':>10s} {'gpc cyc':>10s} {'SMcyc/req':>9s} {'L2cyc/req':>9s} "
          f"{'L2cyc/lane':>10s} {'red':>5s} {'atom':>5s} {'write':>5s}  sass")
    for r in rows:
        d, g = r["derived"], r.get("ncu", {})
        ops = rec.get("sass", {}).get(r["kernel"], {}).get("ops", {})
        mem = ",".join(f"{o}x{c}" for o, c in ops.items() if o.split(".")[0] in ("ATOMG", "REDG", "STG", "REDUX",
                                                                              "ATOM", "RED"))
        print(f"{r['kernel']:14s} {r.get('gap', 0):5d} {r['lanes']:2d} {r['m']:2d} {r['k']} {d['requests']:10d} "
              f"{g.get('gpc__cycles_elapsed.max') or 0:10.0f} {d.get('sm_cycles_per_request', 0):9.3f} "
              f"{d.get('l2_cycles_per_request', 0):9.3f} {d.get('l2_cycles_per_lane', 0):10.3f} "
              f"{d.get('lts_red_requests_per_request', -1):5.2f} {d.get('lts_atom_requests_per_request', -1):5.2f} "
              f"{d.get('lts_write_requests_per_request', -1):5.2f}  {mem}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
