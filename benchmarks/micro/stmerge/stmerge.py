"""The merge window of global stores in the GH100's L1 (stmerge.cu): L2 write requests per store; one call.

    python3 stmerge.py --cubin stmerge.cubin --out DIR [--sass FILE]   # DIR/stmerge.json
    python3 stmerge.py --cubin stmerge.cubin launch SPEC.json         # (ncu's child) launch each case once
    python3 stmerge.py compact DIR/stmerge.json OUT.json               # the record's golden form (main writes
                                                                       # it too, as DIR/stmerge.golden.json)

On the GPU machine the repository travels whole (stmerge.py finds ../onecall.py, ../hotspot/hotspot.py and
../walk/walk.py).  Build (CUDA 13.0; the cubin is a build product, not committed; the PTX is committed):

    nvcc -ptx -arch=sm_90 -O3 -lineinfo -o stmerge.ptx stmerge.cu && ptxas -arch=sm_90 -O3 stmerge.ptx -o stmerge.cubin

Every case is 132 blocks (one an SM) of W warps; lane 0 of each warp stores (stmerge.cu says how the target
line and word are chosen and how the stores are timed on the SM clock).  Groups:
  c1_own / c1_shared   one warp an SM, a store every `gap` SM cycles (0: back to back, pN: N reads of %clock
                       between stores) to the SM's own line (slices idle) / to one address for all SMs (busy)
  c1_vol / c1_rlx      the same with st.volatile (STG.E.STRONG.SYS) / st.relaxed.gpu stores
  c2_pair              every 2048 cycles two stores to the SM's line word 0, `stagger` cycles apart, by one
                       warp (wb 0) or by two warps (wb 1)
  c3_pair              the same with the second store on another word of the sector (ob 1), another sector
                       of the line (ob 8) or another line (ob 262144)
  c2_inter / c3_inter  W warps an SM, warp w storing at T0 + w*d + k*W*d: the SM's stores d cycles apart,
                       consecutive ones from different warps; same word (wsel 0), word w%8 (wsel 1), sector
                       w%4 (wsel 2); on the SM's line (lsel 1) or the one address (lsel 0)
  c4_x                 store, then X, every trip (X: a load of the same word (L1 / .cg / volatile), of another
                       line, __threadfence, __threadfence_block, fence.acq_rel.gpu, a load waited for later)
  c5_8w / c5_drain     8 warps an SM as c1 (all warps start together), and W warps each on its own line
  c6_sto               as c1 / c5_8w, each store followed (stm_gap_sto, stm_x_sto) or preceded (_sto_b) by a
                       store to a line no other store of the launch writes meanwhile (SHOC BFS's levels[u]
                       beside its *flag), and the plain stores beside them in the same call: whether a store
                       to another line sends the waiting one out (flag_requests_per_store: the write requests
                       less one per other store and per record, per flag store)
  c8_many              lane 0 stores to the target, then m = wsel other lines are written (each line once in
                       31+ trips): by one STG of m lanes (stm_many: an uncoalesced store, as a naive
                       transpose's) or by m STGs of lane 0 (stm_seq); flag_requests_per_store as c6_sto with
                       m other-line requests a trip: how many lines an SM keeps open for merging
  c9_tr                a naive transpose's stores (stm_tr): lanes 0..m-1 (m = wsel) of each of W warps store to m
                       lines, lane l to line l, warp w to word w % 8, back to back: the block's warps write the
                       same m lines; lsel 1 the block's own lines, 0 the same lines for every block;
                       requests_per_line_store: the write requests per line written
  c7_ldo               as c6_sto with an L2 load (ld.global.cg: an L1 miss every time) of another line after
                       each store instead (stm_gap_ldo, stm_x_ldo; its value used after the next store):
                       whether a read request leaving the SM sends the waiting store out
Section ``clock``: n chosen per case so that a launch takes 150-2000 us (about 300), CUDA-event time (median of
5), and from the kernel's own records the SM cycles a warp's loop trip took, the stores' lateness against
the schedule, and the SMs used.  Section ``ncu``: each case once under ncu (--clock-control none: the
workplace's rule is never to lock or change clocks; cache control default).  Per case: L2 write requests
per store (``lts__t_requests_srcunit_tex_op_write.sum`` / stores) and L1-to-crossbar write sectors per store
(``l1tex__m_l1tex2xbar_write_sectors.sum`` / stores); stores counts the loop's stores only (each warp also
writes one 16-byte record at the end: ``extra_record_stores``).
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "hotspot"))
import onecall  # noqa: E402  (launch_us, and through it walk.py's provenance)
from hotspot import query_metrics  # noqa: E402

CUBIN = "stmerge.cubin built from stmerge.ptx (nvcc 13.0 -ptx -arch=sm_90 -O3 -lineinfo; ptxas 13.0 -O3)"
PREFIX = "stm_"
BLOCKS = 132
PERIOD = 2048            # the pairs' period
FAR = 32 * 8192          # words: the pairs' "another line"
NCU_METRICS = [
    "gpc__cycles_elapsed.max", "smsp__inst_executed.sum",
    "lts__t_requests_srcunit_tex_op_write.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
    "l1tex__m_l1tex2xbar_write_sectors.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "lts__t_requests_srcunit_tex_op_write.max",
    "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__cycles_elapsed.avg", "lts__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
]
NCU_CORE = NCU_METRICS[:5]
TARGET_US, LOW_US, HIGH_US = 300.0, 150.0, 2000.0
SASS_OPS = ("STG", "LDG", "MEMBAR", "FENCE", "CCTL", "ERRBAR", "CS2R", "S2R", "S2UR", "BAR", "BRA")


def cases() -> list[dict]:
    """Every case without n: kernel, group, W (warps a block), lsel, wsel (ob for pairs), gap, stagger, wb."""
    out = []

    def add(group, kernel, W=1, lsel=1, wsel=0, gap=0, stagger=0, wb=0, **kw):
        out.append({"group": group, "kernel": kernel, "W": W, "lsel": lsel, "wsel": wsel, "gap": gap,
                    "stagger": stagger, "wb": wb, **kw})

    gaps = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
    for lsel, g in ((1, "c1_own"), (0, "c1_shared")):
        add(g, "stm_tight", lsel=lsel)
        for pad in (1, 2, 4, 8):
            add(g, f"stm_tight_p{pad}", lsel=lsel, pad=pad)
        for gap in gaps:
            add(g, "stm_gap", lsel=lsel, gap=gap)
    for lsel in (1, 0):
        add("c1_vol", "stm_tight_vol", lsel=lsel)
        for gap in (32, 128, 512):
            add("c1_vol", "stm_gap_vol", lsel=lsel, gap=gap)
        add("c1_rlx", "stm_tight_rlx", lsel=lsel)
        add("c1_rlx", "stm_gap_rlx", lsel=lsel, gap=128)
    # pairs: `stagger` cycles between store A (warp 0, word 0) and store B (word ob; warp wb)
    for st in (0, 16, 32, 64, 128, 256, 512):
        add("c2_pair", "stm_pair", W=2, wsel=0, gap=PERIOD, stagger=st, wb=0)
    for st in (0, 8, 16, 32, 64, 128, 256, 512, 1024):
        add("c2_pair", "stm_pair", W=2, wsel=0, gap=PERIOD, stagger=st, wb=1)
    for ob, sts in ((1, (0, 16, 64, 256)), (8, (0, 16, 64, 256)), (FAR, (0,))):
        for st in sts:
            add("c3_pair", "stm_pair", W=2, wsel=ob, gap=PERIOD, stagger=st, wb=1)
    for ob, sts in ((1, (0, 64)), (8, (0,)), (FAR, (0,))):
        for st in sts:
            add("c3_pair", "stm_pair", W=2, wsel=ob, gap=PERIOD, stagger=st, wb=0)
    # interleaved: the SM's stores d cycles apart, consecutive ones from different warps
    for wsel, g in ((0, "c2_inter"), (1, "c3_inter")):
        for W in (2, 8, 32):
            for d in (8, 32, 128):
                add(g, "stm_gap", W=W, wsel=wsel, gap=W * d, stagger=d, d=d)
    for d in (8, 32, 128):
        add("c3_inter", "stm_gap", W=8, wsel=2, gap=8 * d, stagger=d, d=d)
    for wsel, g in ((0, "c2_inter"), (1, "c3_inter")):
        for d in (8, 32, 128):
            add(g, "stm_gap", W=8, lsel=0, wsel=wsel, gap=8 * d, stagger=d, d=d)
    # a load or a fence after every store
    xs = ("stm_x_none", "stm_x_ld", "stm_x_ldcg", "stm_x_ldvol", "stm_x_ldother", "stm_x_fence",
          "stm_x_fence_cta", "stm_x_fence_acqrel", "stm_x_ld_late")
    for lsel in (1, 0):
        for k in xs:
            add("c4_x", k, lsel=lsel)
        for k in ("stm_x_none", "stm_x_ld", "stm_x_fence"):
            add("c4_x", k, W=8, lsel=lsel)
    # 8 warps an SM, all starting together (stagger 0), as hotspot's *_gap cases
    for lsel in (1, 0):
        add("c5_8w", "stm_tight", W=8, lsel=lsel)
        for gap in gaps[:-1]:
            add("c5_8w", "stm_gap", W=8, lsel=lsel, gap=gap)
    add("c5_8w", "stm_tight", W=8, lsel=2)
    for gap in (32, 128, 512):
        add("c5_8w", "stm_gap", W=8, lsel=2, gap=gap)
    for W in (1, 2, 4, 16, 32):
        add("c5_drain", "stm_tight", W=W, lsel=2)
    # a store to another line beside each store
    for lsel in (0, 1):
        for W, gs in ((1, (64, 128, 256, 512, 1024)), (8, (256, 1024, 2048))):
            for gap in gs:
                for k in ("stm_gap", "stm_gap_sto"):
                    add("c6_sto", k, W=W, lsel=lsel, gap=gap)
            add("c6_sto", "stm_gap_sto_b", W=W, lsel=lsel, gap=gs[1])
        for W in (1, 8):
            add("c6_sto", "stm_x_none", W=W, lsel=lsel)
            add("c6_sto", "stm_x_sto", W=W, lsel=lsel)
    # an L1-missing load beside each store
    for lsel in (0, 1):
        for W, gs in ((1, (32, 128, 256, 1024)), (8, (256, 1024, 2048))):
            for gap in gs:
                for k in ("stm_gap", "stm_gap_ldo"):
                    add("c7_ldo", k, W=W, lsel=lsel, gap=gap)
        for W in (1, 8):
            add("c7_ldo", "stm_x_none", W=W, lsel=lsel)
            add("c7_ldo", "stm_x_ldo", W=W, lsel=lsel)
    # m other lines written between two stores to the target
    for W in (1, 8):
        for k in ("stm_many", "stm_seq"):
            for m in (0, 1, 2, 3, 4, 6, 8, 16, 31):
                add("c8_many", k, W=W, lsel=0, wsel=m)
    # a naive transpose's stores: m lines a store, the block's warps on the same lines
    for lsel in (1, 0):
        for W in (1, 2, 8):
            for m in (1, 2, 8, 32):
                add("c9_tr", "stm_tr", W=W, lsel=lsel, wsel=m)
    for i, c in enumerate(out):
        c["id"] = i
        c["blocks"] = BLOCKS
        c["storing_warps"] = BLOCKS * (c["W"] if c["kernel"] != "stm_pair" else (1 if c["wb"] == 0 else 2))
    return out


def stores_of(c: dict) -> int:
    """The loop's stores over the GPU (a pair trip is two stores)."""
    return c["blocks"] * c["n"] * (2 if c["kernel"] == "stm_pair" else c["W"])


def make_buffers(cp) -> dict:
    return {"buf": cp.zeros(1 << 21, dtype=cp.int32), "out": cp.zeros(BLOCKS * 32 * 4, dtype=cp.uint32)}


def _args(c: dict, n: int, bufs: dict) -> tuple:
    i32 = np.int32
    if c["kernel"] == "stm_pair":
        return (i32(n), i32(c["gap"]), i32(0), i32(c["lsel"]), i32(c["wsel"]), i32(c["stagger"]), i32(c["wb"]),
                bufs["buf"], bufs["out"])
    return (i32(n), i32(c["gap"]), i32(0), i32(c["lsel"]), i32(c["wsel"]), i32(c["stagger"]), bufs["buf"],
            bufs["out"])


def launch_case(mod, cp, c: dict, bufs: dict) -> None:
    mod.get_function(c["kernel"])((c["blocks"],), (32 * c["W"],), _args(c, c["n"], bufs))
    cp.cuda.runtime.deviceSynchronize()


def time_us(mod, cp, c: dict, n: int, bufs: dict) -> float:
    cp.cuda.runtime.deviceSynchronize()
    return onecall.launch_us(cp, mod.get_function(c["kernel"]), (c["blocks"],), (32 * c["W"],), _args(c, n, bufs))


def choose_n(mod, cp, c: dict, bufs: dict) -> tuple[int, list]:
    """n so that one launch takes LOW_US..HIGH_US (aiming at TARGET_US); the tries (n, us) beside it."""
    if c["kernel"].startswith(("stm_gap", "stm_pair")):
        per = max(c["gap"], 24)
    elif c["kernel"] == "stm_tr":
        per = 4 * c["W"] * c["wsel"]
    elif c["kernel"] in ("stm_many", "stm_seq"):
        per = 40 * c["W"] * (1 + c["wsel"])
    elif c["kernel"].startswith("stm_x") and c["kernel"] != "stm_x_none":
        per = 200 * c["W"]
    else:
        per = 4 * c["W"]
    n = max(16, int(TARGET_US * 1980 / per))
    tries = []
    time_us(mod, cp, c, min(n, 64), bufs)                  # warm-up
    for _ in range(6):
        t = time_us(mod, cp, c, n, bufs)
        tries.append((n, round(t, 1)))
        if LOW_US <= t <= HIGH_US or n >= 1 << 24:
            break
        n = max(16, min(1 << 24, int(n * min(64.0, TARGET_US / max(t, 1.0)))))
    return n, tries


def own_records(c: dict, out) -> dict:
    """From the warps' records: SM cycles a loop trip took (median, min, max over warps), lateness a store,
    the SMs used.  Pairs: lateness of warp 0 (A) and warp 1 (B) apart."""
    rec = out.get().reshape(-1, 4)[: c["blocks"] * c["W"]]
    per_block = rec.reshape(c["blocks"], c["W"], 4)
    if c["kernel"] == "stm_pair":
        active = per_block[:, :1] if c["wb"] == 0 else per_block
    else:
        active = per_block
    el = active[..., 0].astype(np.float64).ravel() / c["n"]
    d = {"cycles_per_trip_median": round(float(np.median(el)), 2), "cycles_per_trip_min": round(float(el.min()), 2),
         "cycles_per_trip_max": round(float(el.max()), 2),
         "sms_used": int(len(set(per_block[:, 0, 2].tolist())))}
    if c["kernel"].startswith(("stm_gap", "stm_pair")):
        late = active[..., 1].astype(np.float64) / c["n"]
        d["late_cycles_per_store_median"] = round(float(np.median(late)), 2)
        if c["kernel"] == "stm_pair" and c["wb"] == 1:
            d["late_A_median"] = round(float(np.median(late[:, 0])), 2)
            d["late_B_median"] = round(float(np.median(late[:, 1])), 2)
            d["distance_cycles_median"] = round(float(np.median(c["stagger"] + late[:, 1] - late[:, 0])), 2)
    return d


def section_clock(mod, cp, cs: list[dict]) -> list[dict]:
    bufs = make_buffers(cp)
    rows = []
    for c in cs:
        n, tries = choose_n(mod, cp, c, bufs)
        c = {**c, "n": n}
        runs = [round(time_us(mod, cp, c, n, bufs), 2) for _ in range(5)]
        row = {**c, "n_tries": tries, "kernel_us_runs": runs, "kernel_us_median": statistics.median(runs),
               "own": own_records(c, bufs["out"])}
        rows.append(row)
        print(f"clock {c['id']:3d} {c['group']:9s} {c['kernel']:18s} W {c['W']:2d} l {c['lsel']} w {c['wsel']:6d} "
              f"gap {c['gap']:5d} st {c['stagger']:4d} wb {c['wb']} n {n:8d} {row['kernel_us_median']:8.1f} us "
              f"trip {row['own']['cycles_per_trip_median']:8.1f} cyc", flush=True)
    return rows


def ncu_run(script: str, cubin: str, spec: Path, metrics: list[str], n_rows: int) -> tuple[dict, list[dict]]:
    try:
        cmd, rc, stdout, stderr, seconds = onecall.run_ncu(script, cubin, spec, metrics, PREFIX, "none", 300)
    except Exception as e:  # noqa: BLE001
        cmd, rc, stdout, stderr, seconds = ["ncu"], f"{type(e).__name__}", "", str(e), 0.0
    got = onecall.ncu_rows(stdout, PREFIX, metrics)
    vals = got[:n_rows]
    sec = {"command": " ".join(cmd[:11]) + " ...", "metrics": metrics, "rc": rc,
           "seconds": seconds, "rows_seen": len(got),
           "stderr_tail": (stderr + stdout[-800:])[-1500:] if rc or len(vals) < n_rows else ""}
    return sec, vals


def section_ncu(script: str, cubin: str, out_dir: str, rows: list[dict]) -> tuple[dict, list[dict]]:
    spec = Path(out_dir) / "ncu_spec.json"
    keys = ("id", "kernel", "W", "lsel", "wsel", "gap", "stagger", "wb", "blocks", "n")
    spec.write_text(json.dumps([{k: r[k] for k in keys} for r in rows]))
    sec, vals = ncu_run(script, cubin, spec, NCU_METRICS, len(rows))
    if not vals:
        known = query_metrics()
        keep = [m for m in NCU_METRICS if known is None or m.split(".")[0] in known]
        if keep == NCU_METRICS:
            keep = NCU_CORE
        first = sec
        sec, vals = ncu_run(script, cubin, spec, keep, len(rows))
        sec["first_try"] = first
    return sec, vals


def sass_summary(cubin: str, sass_file: str) -> dict:
    """``cuobjdump -sass`` into ``sass_file``; per kernel its instruction count, opcodes of interest (with
    modifiers), and the opcodes of its loops (the instructions between a backward branch and its target)."""
    p = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, timeout=60, check=False)
    Path(sass_file).write_text(p.stdout)
    funcs: dict[str, list[tuple[int, str, str]]] = {}
    fn = None
    for ln in p.stdout.splitlines():
        mfn = re.search(r"Function : (\S+)", ln)
        if mfn:
            fn = mfn.group(1)
            funcs[fn] = []
            continue
        mi = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)(.*?);", ln)
        if fn and mi:
            funcs[fn].append((int(mi.group(1), 16), mi.group(3), mi.group(4)))
    out = {}
    for f, ins in sorted(funcs.items()):
        ops = Counter(op for _, op, _ in ins if op.split(".")[0] in SASS_OPS)
        loops = []
        for addr, op, rest in ins:
            mb = re.search(r"0x([0-9a-f]+)", rest) if op.startswith("BRA") else None
            if mb and int(mb.group(1), 16) < addr:
                body = [o for a, o, _ in ins if int(mb.group(1), 16) <= a <= addr]
                loops.append({"from": hex(int(mb.group(1), 16)), "to": hex(addr), "instructions": len(body),
                              "mem_ops": [o for o in body if o.split(".")[0] in ("STG", "LDG", "MEMBAR", "FENCE",
                                                                                  "CCTL", "ERRBAR")]})
        out[f] = {"instructions": len(ins), "ops": dict(ops), "loops": loops}
    return out


def derive(row: dict) -> dict:
    g = row.get("ncu", {})
    stores = stores_of(row)
    d = {"stores": stores, "extra_record_stores": row["storing_warps"]}
    w, s = g.get("lts__t_requests_srcunit_tex_op_write.sum"), g.get("l1tex__m_l1tex2xbar_write_sectors.sum")
    if w is not None and "_sto" in row["kernel"]:         # one other store a trip: a request each
        d["flag_requests_per_store"] = round(max(0.0, w - stores - d["extra_record_stores"]) / stores, 4)
    if w is not None and row["kernel"] == "stm_tr":
        d["requests_per_line_store"] = round(max(0.0, w - d["extra_record_stores"]) / (stores * row["wsel"]), 4)
    if w is not None and row["kernel"] in ("stm_many", "stm_seq"):      # m other lines a trip: a request each
        d["flag_requests_per_store"] = round(max(0.0, w - row["wsel"] * stores - d["extra_record_stores"]) / stores, 4)
    if w is not None:
        d["l2_write_requests_per_store"] = round(w / stores, 4)
        d["l2_write_requests_per_store_less_records"] = round(max(0.0, w - d["extra_record_stores"]) / stores, 4)
    if s is not None:
        d["xbar_write_sectors_per_store"] = round(s / stores, 4)
    st = g.get("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
    if st is not None:
        d["l1_st_requests_per_store"] = round(st / stores, 4)
    gpc = g.get("gpc__cycles_elapsed.max")
    if gpc:
        d["sm_cycles_per_store_per_sm"] = round(gpc * row["blocks"] / stores, 3)
        if w:
            d["l2_write_requests_per_sm_cycle_per_sm"] = round(w / gpc / row["blocks"], 4)
    own = row.get("own", {})
    if row["kernel"] != "stm_pair":             # mean cycles between two stores of one SM
        d["sm_store_spacing_cycles"] = round(own.get("cycles_per_trip_median", 0) / row["W"], 2)
    return d


RATE_METRICS = ("lts__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second")


def compact_record(rec: dict) -> str:
    """The record's golden form (tests/golden/h100/micro/stmerge.json, under 200 KB): per row the 5 event
    times and the n tries dropped (their median kept), the warps' fastest and slowest trip replaced by their
    difference (``own.trip_spread``), ``derived.l2_write_requests_per_store_less_records`` dropped (``derived``
    keeps ``extra_record_stores``), the two clock-rate metrics moved out of the rows to ``ncu.clock_rates``
    ([min, max] over the rows); one row, and one kernel of ``sass``, a line."""
    rec = json.loads(json.dumps(rec))
    rates: dict[str, list] = {}
    for row in rec.get("rows", []):
        row.pop("n_tries", None)
        row.pop("kernel_us_runs", None)
        own = row.get("own", {})
        if "cycles_per_trip_min" in own:
            own["trip_spread"] = round(own.pop("cycles_per_trip_max") - own.pop("cycles_per_trip_min"), 2)
        row.get("derived", {}).pop("l2_write_requests_per_store_less_records", None)
        for m in RATE_METRICS:
            v = row.get("ncu", {}).pop(m, None)
            if v is not None:
                rates.setdefault(m, []).append(v)
    if rates and "ncu" in rec:
        rec["ncu"]["clock_rates"] = {m: [min(v), max(v)] for m, v in rates.items()}
    parts = []
    for k, v in rec.items():
        if k == "rows":
            parts.append('"rows": [\n' + ",\n".join(json.dumps(x, separators=(",", ":")) for x in v) + "\n]")
        elif k == "sass":
            parts.append('"sass": {\n' + ",\n".join(json.dumps(f) + ": " + json.dumps(x, separators=(",", ":"))
                                                    for f, x in v.items()) + "\n}")
        else:
            parts.append(json.dumps(k) + ": " + json.dumps(v, indent=1))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main() -> int:
    if sys.argv[1:2] == ["compact"]:
        Path(sys.argv[3]).write_text(compact_record(json.loads(Path(sys.argv[2]).read_text())))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "stmerge.cubin"))
    ap.add_argument("--out", default="/tmp/stmerge")
    ap.add_argument("--sass", default=None)
    ap.add_argument("--groups", default=None, help="only these case groups (comma-separated, e.g. c6_sto)")
    ap.add_argument("what", nargs="*", default=["clock", "ncu"])
    args = ap.parse_args()
    opened = onecall.module_or_launch(args, make_buffers, launch_case)
    if opened is None:
        return 0
    mod, cp = opened
    Path(args.out).mkdir(parents=True, exist_ok=True)
    jf = Path(args.out, "stmerge.json")
    rec = {"what": __doc__.split("\n\n")[0],
           "provenance": {**onecall.device_provenance(), "cubin": CUBIN},
           "clock_note": ("ncu --clock-control none and no clock set anywhere (the workplace's rule: never lock or "
                          "change clocks); nvidia-smi clocks before and after in provenance; cache control default")}
    rec["device_note"] = f"measured on {rec['provenance']['gpu']} (GH100, the H100's chip)"
    if args.sass:
        rec["sass"] = sass_summary(args.cubin, args.sass)
    t0 = time.time()
    chosen = [c for c in cases() if not args.groups or c["group"] in args.groups.split(",")]
    rows = section_clock(mod, cp, chosen)
    rec["clock_seconds"] = round(time.time() - t0, 1)
    rec["provenance_after_clock"] = onecall.device_provenance()["nvidia_smi"]
    rec["rows"] = rows
    jf.write_text(json.dumps(rec, indent=1))
    sec, vals = section_ncu(str(Path(__file__).resolve()), args.cubin, args.out, rows)
    for row, v in zip(rows, vals):
        seen = v.pop("kernel_seen")
        if seen != row["kernel"]:
            sec.setdefault("mismatch", []).append([row["id"], row["kernel"], seen])
        row["ncu"] = v
    rec["ncu"] = sec
    rec["provenance_after_ncu"] = onecall.device_provenance()["nvidia_smi"]
    print(f"ncu: rc {sec['rc']} {sec['seconds']} s rows {len(vals)}/{len(rows)} {sec['stderr_tail'][-600:]}",
          flush=True)
    for row in rows:
        row["derived"] = derive(row)
    jf.write_text(json.dumps(rec, indent=1))
    Path(args.out, "stmerge.golden.json").write_text(compact_record(rec))
    print(f"{'id':>3s} {'group':9s} {'kernel':18s} {'W':>2s} l {'wsel':>6s} {'gap':>5s} {'stag':>4s} wb "
          f"{'trip':>7s} {'spc':>6s} {'late':>6s} {'dist':>6s} {'req/st':>7s} {'sec/st':>7s} {'l1st':>5s} sms")
    for r in rows:
        d, o = r["derived"], r["own"]
        print(f"{r['id']:3d} {r['group']:9s} {r['kernel']:18s} {r['W']:2d} {r['lsel']} {r['wsel']:6d} {r['gap']:5d} "
              f"{r['stagger']:4d} {r['wb']:2d} {o['cycles_per_trip_median']:7.1f} "
              f"{d.get('sm_store_spacing_cycles', -1):6.1f} {o.get('late_cycles_per_store_median', -1):6.1f} "
              f"{o.get('distance_cycles_median', -1):6.1f} {d.get('l2_write_requests_per_store', -1):7.4f} "
              f"{d.get('xbar_write_sectors_per_store', -1):7.4f} {d.get('l1_st_requests_per_store', -1):5.2f} "
              f"{o['sms_used']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
