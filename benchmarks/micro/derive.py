"""The parameters the H100 model needs, derived from the microbenchmark records (tests/golden/h100/micro/).

    python3 benchmarks/micro/derive.py              # print the tables of gpusim/hw/README.md, write params.json
    python3 benchmarks/micro/derive.py --figure gpusim/hw/under_load.png

Every figure here is computed from the committed records, so the README tables and the tests in
tests/hw/test_micro_records.py read the same numbers.  No GPU needed.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REC = ROOT / "tests" / "golden" / "h100" / "micro"

KiB = 1024
CARVEOUTS_KB = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)      # H100 shared-memory configurations
SMEM_PER_SM = 233472                                             # 228 KB
L1_PLUS_SMEM = 256 * KiB


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    return json.loads((REC / f"{name}.json").read_text())


def rows(name: str, **match) -> list[dict]:
    return [r for r in load(name)["rows"] if all(r.get(k) == v for k, v in match.items())]


def one(name: str, **match) -> dict:
    rr = rows(name, **match)
    assert len(rr) == 1, (name, match, len(rr))
    return rr[0]


def ncu_rows(name: str, key: str = "ncu") -> list[dict]:
    return [r for r in load(name)[key]["rows"] if r.get("ncu")]


# ----------------------------------------------------------------------------------------------------
# the driver's shared-memory carve-out (what ncu reports as launch__shared_mem_config_size)
# ----------------------------------------------------------------------------------------------------
def occupancy_limits(block_threads: int, regs_per_thread: int) -> tuple[int, int, int]:
    """(warps, blocks, registers) limits in blocks per SM, as launch__occupancy_limit_* report them."""
    warps = math.ceil(block_threads / 32)
    lim_w = 64 // warps
    regs_per_warp = math.ceil(max(regs_per_thread, 1) * 32 / 256) * 256
    lim_r = ((65536 // 4) // regs_per_warp) * 4 // warps
    return lim_w, 32, lim_r


def smem_per_block(static: int, dynamic: int) -> int:
    """launch__shared_mem_per_block_allocated: static + dynamic + 1 KB reserved, in 128-byte units (ncu's
    launch__shared_mem_per_block is the same sum, not rounded)."""
    return math.ceil((static + dynamic + 1024) / 128) * 128


def _config_for(nbytes: int) -> int | None:
    for c in CARVEOUTS_KB:
        if c * KiB >= nbytes:
            return c * KiB
    return None


def carveout_config(block_threads: int, regs_per_thread: int, static: int, dynamic: int) -> int:
    """The carve-out (bytes) the driver picks when the kernel sets no preference.

    Empirical, from 279 launches on the H100 (driver 580.159.04): let occ be the blocks per SM that warps,
    registers and the 32-block limit allow, S the shared memory per block.  The driver sizes shared memory
    for a target of min(32, 4 x occ) blocks when the kernel uses no shared memory, else 2 x occ (occ itself
    when occ is 1 or the block has more than 896 threads), but does not go past 132 KB for the part of the
    target beyond occ; it never gives fewer than occ blocks (or as many as fit) room."""
    s = smem_per_block(static, dynamic)
    lim_w, lim_b, lim_r = occupancy_limits(block_threads, regs_per_thread)
    occ = min(lim_w, lim_b, lim_r)
    if static + dynamic == 0:
        target = min(lim_b, 4 * occ)
    elif occ == 1 or block_threads > 896:
        target = occ
    else:
        target = min(lim_b, 2 * occ)
    fit = SMEM_PER_SM // s
    c_occ = _config_for(min(occ, fit) * s)
    c_tgt = _config_for(min(target, fit) * s)
    if c_tgt > 132 * KiB:
        return min(c_tgt, max(132 * KiB, c_occ))
    return c_tgt


def carveout_cases() -> list[dict]:
    """Every default-preference launch with launch statistics: kernel, block, registers, shared sizes,
    config and limits as ncu reported them, and the campaign (3 = predicted before it was measured)."""
    out = []
    for name in ("carveout", "carveout2", "carveout3", "clocks"):
        doc = load(name)
        blocks = [doc["ncu"]] if "ncu" in doc else [doc["ncu_base"], doc["ncu_none"]]
        for b in blocks:
            for r in b["rows"]:
                x, c = r.get("ncu"), r.get("case", {})
                if not x or "carveout_pref" in c or "launch__registers_per_thread" not in x:
                    continue
                out.append({"record": name, "campaign": doc.get("campaign"), "kernel": x["kernel"],
                            "block": x["launch__block_size"], "regs": x["launch__registers_per_thread"],
                            "static": x["launch__shared_mem_per_block_static"],
                            "dynamic": x["launch__shared_mem_per_block_dynamic"],
                            "per_block": x["launch__shared_mem_per_block"],
                            "allocated": x["launch__shared_mem_per_block_allocated"],
                            "config": x["launch__shared_mem_config_size"],
                            "limit_shared_mem": x["launch__occupancy_limit_shared_mem"],
                            "limit_warps": x["launch__occupancy_limit_warps"],
                            "limit_registers": x["launch__occupancy_limit_registers"]})
    return out


# ----------------------------------------------------------------------------------------------------
# parameters
# ----------------------------------------------------------------------------------------------------
def clocks() -> dict:
    cl = load("clocks")
    out = {}
    for mode in ("base", "none"):
        for r in cl[f"ncu_{mode}"]["rows"]:
            x = r["ncu"]
            k = {"mb_ffma": "ffma", "mb_s_copy_i4_v16_cg0_lb1": "dram_copy", "mb_s_read_i4_v16_cg1_lb1": "l2_read"}[
                x["kernel"]]
            out[(mode, k)] = x
    sm = {m: out[(m, "ffma")]["gpc__cycles_elapsed.avg.per_second"] / 1e6 for m in ("base", "none")}
    l2 = {m: statistics.mean(out[(m, k)]["lts__cycles_elapsed.avg.per_second"] for k in ("ffma", "dram_copy", "l2_read"))
          / 1e6 for m in ("base", "none")}
    dram = {m: statistics.mean(out[(m, k)]["dram__cycles_elapsed.avg.per_second"]
                               for k in ("ffma", "dram_copy", "l2_read")) / 1e6 for m in ("base", "none")}
    x = out[("base", "ffma")]
    ratios = {k: out[("none", k)]["gpc__cycles_elapsed.max"] / out[("base", k)]["gpc__cycles_elapsed.max"]
              for k in ("ffma", "dram_copy", "l2_read")}
    ev = cl["events"]["ffma"]["runs"]
    return {
        "sm_clock_base_mhz": sm["base"], "sm_clock_boost_mhz": sm["none"],
        "sm_clock_outside_ncu_mhz": statistics.median(r["sm_mhz_median"] for r in ev),
        "l2_clock_base_mhz": l2["base"], "l2_clock_boost_mhz": l2["none"],
        "dram_clock_base_mhz": dram["base"], "dram_clock_boost_mhz": dram["none"],
        "sys_clock_mhz": x["gpu__cycles_elapsed.avg.per_second"] / 1e6,
        "l2_slices": round(x["lts__cycles_elapsed.sum"] / x["lts__cycles_elapsed.avg"]),
        "dram_units": round(x["dram__cycles_elapsed.sum"] / x["dram__cycles_elapsed.avg"]),
        "dram_peak_bytes_per_dram_cycle": x["dram__bytes.sum.peak_sustained"],
        "lts_peak_bytes_per_l2_cycle": x["lts__t_bytes.sum.peak_sustained"],
        "lts_peak_sectors_per_slice_cycle": x["lts__t_sectors.sum.peak_sustained"] / round(
            x["lts__cycles_elapsed.sum"] / x["lts__cycles_elapsed.avg"]),
        "xbar2l1_peak_bytes_per_sm_cycle": x["l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained"] / 132,
        "boost_over_base_cycles": ratios,
        "boost_over_base_sm_clock": sm["none"] / sm["base"],
        "cycles": {f"{m}/{k}": out[(m, k)]["gpc__cycles_elapsed.max"] for (m, k) in out},
        "duration_ns": {f"{m}/{k}": out[(m, k)]["gpu__time_duration.sum"] for (m, k) in out},
    }


def _best(name, **match):
    rr = [r for r in rows(name, **match) if r.get("gbps")]
    return max(rr, key=lambda r: r["gbps"]) if rr else None


def memory() -> dict:
    c = clocks()
    l2mhz = c["l2_clock_base_mhz"]
    slices = c["l2_slices"]
    dram_peak = c["dram_peak_bytes_per_dram_cycle"] * c["dram_clock_base_mhz"] / 1e3          # GB/s
    read = max(_best("sweep", group=g, op="read")["gbps"] for g in ("chip_dram_v4", "chip_dram_vec"))
    copy = max(_best("sweep", group=g, op="copy")["gbps"] for g in ("chip_dram_v4", "chip_dram_vec"))
    gath = _best("sweep", group="chip_dram_v4", op="gather")
    gath_l2 = _best("sweep", group="chip_l2_v4", op="gather")
    pts = {json.dumps(r["case"].get("cfg", r["case"]), sort_keys=True): r["ncu"] for r in ncu_rows("points")}
    g = pts[json.dumps({"op": "gather", "ilp": 4, "vec": 4, "cg": 0, "warps": 64, "sms": 10 ** 6, "mem": "dram"},
                       sort_keys=True)]
    dram_bytes_per_miss = g["dram__sectors_read.sum"] * 32 / g["lts__t_sectors_srcunit_tex.sum"]
    gl2 = pts[json.dumps({"op": "gather", "ilp": 4, "vec": 4, "cg": 1, "warps": 64, "sms": 10 ** 6, "mem": "l2"},
                         sort_keys=True)]
    p2 = {json.dumps(r["case"].get("cfg", r["case"]), sort_keys=True): r["ncu"] for r in ncu_rows("points2")}
    spread = p2[json.dumps({"op": "read", "ilp": 4, "vec": 16, "cg": 1, "warps": 32, "mem": "l2", "spread": True,
                            "sms": 10 ** 6}, sort_keys=True)]
    same = p2[json.dumps({"op": "read", "ilp": 4, "vec": 16, "cg": 1, "warps": 32, "mem": "l2", "sms": 10 ** 6},
                         sort_keys=True)]
    slice_tbps = spread["lrc__lts2lrc_sectors_op_read.sum"] * 32 / spread["gpu__time_duration.sum"] / 1e3
    sm1_l2 = max(r["gbps"] for r in rows("sweep3", group="sm1_l1size", op="read", mem="l2"))
    sm1_gl2 = max(r["gbps"] for r in rows("sweep3", group="sm1_l1size", op="gather", mem="l2"))
    mhz = statistics.median(r["sm_mhz"] for r in rows("sweep3", group="sm1_l1size"))
    # the demand side of one SM: 32 warps x 8 x 512 B, pending LDG.128 from ncu -> Little's law
    p_one = [r["ncu"] for r in ncu_rows("points3") if r["case"].get("cfg", {}).get("smem") == 0
             and r["case"]["cfg"]["op"] == "read"][0]
    pending = p_one["sm__inst_pending_pipe_lsu_mem_lg_cmd_read.sum"] / (p_one["sm__cycles_active.avg"] * 132)
    sm1_read = p_one["dram__bytes_read.sum"] / p_one["gpu__time_duration.sum"]       # the same launch, under ncu
    hold_dram = pending * 512 / sm1_read
    fabric = {}
    for label, name, key in (("dram_read", "points", {"op": "read", "ilp": 4, "vec": 16, "cg": 0, "warps": 32,
                                                      "sms": 10 ** 6, "mem": "dram"}),
                             ("l2_read", "points", {"op": "read", "ilp": 4, "vec": 16, "cg": 1, "warps": 32,
                                                    "sms": 10 ** 6, "mem": "l2"})):
        x = pts[json.dumps(key, sort_keys=True)]
        fabric[label] = x["lts__t_sectors_srcunit_ltcfabric.sum"] / x["lts__t_sectors_srcunit_tex.sum"]
    return {
        "dram_peak_gbps": dram_peak, "dram_read_gbps": read, "dram_copy_gbps": copy,
        "dram_read_fraction_of_peak": read / dram_peak,
        "dram_random_sectors_per_ns": gath["gbps"] / 4, "dram_bytes_per_random_sector": dram_bytes_per_miss,
        "l2_random_sectors_per_ns": gath_l2["gbps"] / 4,
        "l2_random_requests_per_slice_cycle": gath_l2["gbps"] / 4 / (slices * l2mhz / 1e3),
        "l2_gather_lts_requests_per_sector": gl2["lts__t_requests.sum"] / gl2["lts__t_sectors.sum"],
        "l2_slice_read_tbps": slice_tbps,
        "l2_slice_sectors_per_cycle": spread["lrc__lts2lrc_sectors_op_read.sum"] /
        (spread["lts__cycles_elapsed.avg"] * slices),
        "l2_delivered_tbps_spread": spread["lrc__xbar2gpc_sectors_op_read.sum"] * 32 / spread["gpu__time_duration.sum"] / 1e3,
        "lrc_coalescing_spread": spread["lrc__xbar2gpc_sectors_op_read.sum"] / spread["lrc__lts2lrc_sectors_op_read.sum"],
        "lrc_coalescing_same_lines": same["lrc__xbar2gpc_sectors_op_read.sum"] / same["lrc__lts2lrc_sectors_op_read.sum"],
        "l2_read_best_sweep_gbps": max(r["gbps"] for r in rows("sweep2", group="chip_l2_spread", op="read")),
        "sm_l2_read_gbps": sm1_l2, "sm_l2_read_bytes_per_cycle": sm1_l2 / (mhz / 1e3),
        "sm_miss_lines_per_cycle": sm1_gl2 / 4 / (mhz / 1e3), "sm_mhz_in_sweep": mhz,
        "sm_dram_read_pending_ldg128": pending, "sm_dram_read_gbps_under_ncu": sm1_read,
        "sm_dram_read_hold_ns": hold_dram,
        "fabric_share": fabric,
    }


def l1_law(l1_bytes: int, op: str, mem: str, vec: int, hold: dict | None = None) -> float:
    """Bandwidth of one SM (GB/s) with 32 warps x 8 independent loads, when at most l1_bytes are in flight
    (the law of the third campaign; hold times and caps from campaigns 1-2)."""
    h = hold or {"dram_read": 444.0, "dram_gather": 690.0, "l2_gather": 187.0, "l2_read": 154.0}
    if (op, mem) == ("read", "dram"):
        return min(212.0, l1_bytes / h["dram_read"])
    if (op, mem) == ("gather", "dram"):
        return min(6.5 * vec / 4, l1_bytes / 128 / h["dram_gather"] * vec)
    if (op, mem) == ("gather", "l2"):
        return min(1.98 * vec, l1_bytes / 128 / h["l2_gather"] * vec)
    if (op, mem) == ("read", "l2"):
        return min(245.0, l1_bytes / h["l2_read"])
    raise ValueError((op, mem))


def inflight() -> list[dict]:
    """One SM, 32 warps x 8 loads, against the L1 size the carve-out leaves: measured vs predicted."""
    out = []
    for r in rows("sweep3", group="sm1_l1size"):
        if r["op"] == "copy":
            continue
        cfg = carveout_config(1024, r["regs"], 16, r["smem"])
        l1 = L1_PLUS_SMEM - cfg
        out.append({"op": r["op"], "mem": r["mem"], "vec": r["vec"], "smem": r["smem"], "config": cfg, "l1": l1,
                    "gbps": r["gbps"], "predicted": l1_law(l1, r["op"], r["mem"], r["vec"])})
    return out


def latency() -> list[dict]:
    out = []
    for name in ("latency", "latency2"):
        for r in load(name)["rows"]:
            if "cycles_per_load_median" not in r:
                continue
            m = r["median_run"]
            out.append({"record": name, "chain": r["chain"], "stream": r["stream"],
                        "stream_warps_per_sm": r["stream_warps_per_sm"], "chaser_sm_idle": r.get("chaser_sm_skipped",
                                                                                                  False),
                        "cycles": r["cycles_per_load_median"], "ns": r["ns_per_load_median"],
                        "stream_gbps": m["stream_gbps"], "sm_mhz": m["sm_mhz"]})
    return out


def atomics() -> dict:
    a = load("atomics")
    l2mhz = clocks()["l2_clock_base_mhz"]
    slices = clocks()["l2_slices"]
    table = {}
    for r in a["rows"]:
        if "atomics_per_ns" not in r or r.get("scale"):
            continue
        table[(r["op"], r["pattern"])] = r
    per = {}
    for (op, pat), r in table.items():
        per[f"{op}/{pat}"] = {"thread_ops_per_ns": r["thread_ops_per_ns"], "atomics_per_ns": r["atomics_per_ns"],
                              "l2_cycles_per_atomic": l2mhz / 1e3 / r["atomics_per_ns"],
                              "slice_cycles_per_atomic": slices * l2mhz / 1e3 / r["atomics_per_ns"]}
    scale = [r for r in a["rows"] if r.get("scale")]
    lat = a["latency_one_thread"]
    return {"per_pattern": per, "scale": [{k: r[k] for k in ("op", "pattern", "grid", "block", "atomics_per_ns")}
                                           for r in scale],
            "atom_latency_cycles": statistics.median(x["cycles_per_atom"] for x in lat),
            "atom_latency_ns": statistics.median(x["ns_per_atom"] for x in lat)}


def targets() -> list[dict]:
    t = load("targets")
    ev = {json.dumps(e["case"], sort_keys=True): e for e in t["events"]}
    out = []
    for r in t["ncu"]["rows"]:
        x = r["ncu"]
        out.append({"case": r["case"], "cycles": x["gpc__cycles_elapsed.max"], "ns": x["gpu__time_duration.sum"],
                    # CUDA-event times outside ncu: the table kernels only (the transpose's timed call also
                    # checked its output, so its event time is not the kernel's)
                    "events_us_boost": (ev[json.dumps(r["case"], sort_keys=True)]["ms_median"] * 1e3
                                        if r["case"]["kind"].startswith("table") else None),
                    "l1_ld_sectors": x["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
                    "l1_st_sectors": x["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"],
                    "l1_hit_pct": x["l1tex__t_sector_hit_rate.pct"],
                    "lts_sectors": x["lts__t_sectors.sum"], "lts_fabric": x["lts__t_sectors_srcunit_ltcfabric.sum"],
                    "lts_pct": x["lts__throughput.avg.pct_of_peak_sustained_elapsed"],
                    "dram_read": x["dram__bytes_read.sum"], "warps_active": x["sm__warps_active.avg.per_cycle_active"]})
    return out


def params() -> dict:
    cases = carveout_cases()
    fit = [c for c in cases if carveout_config(c["block"], c["regs"], c["static"], c["dynamic"]) == c["config"]]
    return {"clocks": clocks(), "memory": memory(), "atomics": atomics(),
            "carveout_rule": {"launches": len(cases), "matched": len(fit),
                              "unseen_campaign3": sum(1 for c in cases if c["campaign"] == 3)},
            "inflight": inflight(), "latency": latency(), "targets": targets()}


# ----------------------------------------------------------------------------------------------------
def figure(path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    for i in (1, 2, 4, 8):
        rr = sorted(rows("sweep", group="chip_dram_v4", op="read", ilp=i), key=lambda r: r["warps"])
        ax[0, 0].plot([r["warps"] for r in rr], [r["gbps"] for r in rr], "o-", label=f"4 B, ILP {i}")
    rr = sorted(rows("sweep", group="chip_dram_vec", op="read", ilp=8, vec=16), key=lambda r: r["warps"])
    ax[0, 0].plot([r["warps"] for r in rr if r.get("gbps")], [r["gbps"] for r in rr if r.get("gbps")], "k^--",
                  label="16 B, ILP 8")
    ax[0, 0].set(xscale="log", xlabel="resident warps per SM", ylabel="GB/s", title="DRAM read, 132 SMs (1 GiB)")
    ax[0, 0].axhline(memory()["dram_peak_gbps"], color="grey", lw=0.8)
    ax[0, 0].legend(fontsize=7)
    for i in (1, 2, 4, 8):
        rr = sorted(rows("sweep2", group="chip_l2_spread", op="read", ilp=i, vec=4), key=lambda r: r["warps"])
        ax[0, 1].plot([r["warps"] for r in rr], [r["gbps"] for r in rr], "o-", label=f"read 4 B, ILP {i}")
    rr = sorted(rows("sweep", group="chip_l2_v4", op="gather", ilp=4), key=lambda r: r["warps"])
    ax[0, 1].plot([r["warps"] for r in rr], [r["gbps"] * 8 for r in rr], "k^--", label="gather: sector GB/s")
    ax[0, 1].set(xscale="log", xlabel="resident warps per SM", ylabel="GB/s", title="L2-resident (8 MB), 132 SMs")
    ax[0, 1].legend(fontsize=7)
    inf = inflight()
    for (op, mem, vec), mk in ((("read", "dram", 16), "o"), (("gather", "dram", 16), "s"), (("read", "l2", 16), "^"),
                               (("gather", "l2", 4), "v")):
        rr = sorted([r for r in inf if (r["op"], r["mem"], r["vec"]) == (op, mem, vec)], key=lambda r: r["l1"])
        ln = ax[1, 0].plot([r["l1"] / KiB for r in rr], [r["gbps"] for r in rr], mk, label=f"{op} {mem} {vec} B")
        ax[1, 0].plot([r["l1"] / KiB for r in rr], [r["predicted"] for r in rr], "--", color=ln[0].get_color())
    ax[1, 0].set(xlabel="L1 KB left by the carve-out", ylabel="GB/s (one SM)", yscale="log",
                 title="One SM: measured (marks) vs predicted before (dashed)")
    ax[1, 0].legend(fontsize=7)
    lat = latency()
    for chain, stream, mk in (("l2", "l2_read", "o"), ("dram", "dram_read", "s")):
        for idle in (False, True):
            rr = [r for r in lat if r["chain"] == chain and r["stream"] in (stream, "none") and r["chaser_sm_idle"] == idle
                  and r["record"] == "latency2"]
            rr.sort(key=lambda r: r["stream_warps_per_sm"])
            ax[1, 1].plot([r["stream_warps_per_sm"] for r in rr], [r["ns"] for r in rr], mk + ("--" if idle else "-"),
                          label=f"{chain} chase, {stream} stream{' (chaser SM idle)' if idle else ''}")
    ax[1, 1].set(xlabel="streaming warps per SM", ylabel="ns per dependent load", title="Latency under load")
    ax[1, 1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--figure")
    ap.add_argument("--params", default=str(REC / "params.json"))
    a = ap.parse_args(argv)
    p = params()
    Path(a.params).write_text(json.dumps(p, indent=1, default=str))
    print(json.dumps({k: p[k] for k in ("clocks", "memory", "carveout_rule")}, indent=1, default=str))
    if a.figure:
        figure(Path(a.figure))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
