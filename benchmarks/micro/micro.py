"""Microbenchmarks of the mechanisms the H100 model must get right (issue 14, item 2), through CuPy.

    python3 benchmarks/micro/micro.py --cubin micro.cubin --rec /tmp/mb SECTION     # on the GPU machine

Sections (each writes ``<rec>/<section>.json`` with the provenance; benchmarks/micro/run_device.sh runs
them all in one device call, each under its own timeout):

  info      provenance, every kernel's registers / shared / local bytes, the ncu metric list
  targets   (ncu) the 1 MB table chase / gather by 1056 x 256 and the naive 1024^2 / 512^2 transposes
  clocks    FFMA loop, DRAM stream, L2 stream: in-kernel clock64 / %globaltimer outside ncu (boost), and
            under ncu with its default clock control (locked base) and with ``--clock-control none``
  carveout  (ncu) launch__* occupancy and shared-memory-configuration metrics for many shared-memory
            sizes and block sizes
  sweep     bandwidth of read / copy / scale / gather against resident warps per SM (1..64), independent
            loads per thread (1, 2, 4, 8) and element size (4, 8, 16 B), DRAM- or L2-resident, on the whole
            chip and on one SM (CUDA events and in-kernel %globaltimer, warm-up, median of 5)
  latency   a pointer chase in one thread while the other SMs stream (L2 and DRAM chains)
  atomics   RED / ATOM / CAS / warp-aggregated throughput for one, a few, distinct coalesced and scattered
            addresses; the latency of one dependent atomic
  points    (ncu) counters at the sweep's saturation points and for the atomics
  sweep2, latency2, carveout2, points2   second call: L2 sets read with blocks spread (no cross-SM coalescing),
            one SM against the carve-out preference, the chaser's SM left idle, a finer carve-out grid, the
            L2 request coalescer (lrc__*) and pending loads (sm__inst_pending_*)
  sweep3, carveout3, points3             third call: one SM against eight L1 sizes and unseen carve-out launches,
            each predicted before the call (predictions_campaign3.json); the loaded-latency kernel under ncu

The ncu sections run ``ncu ... python3 micro.py launch SPEC.json`` (this file, ``launch``): the child
launches each case once; ncu profiles only kernels named ``mb_*``.  A failed case or a metric this ncu
lacks is recorded and skipped; the other cases go on.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

import harness  # noqa: E402 - this folder is on sys.path when micro.py runs as a script
from harness import (  # noqa: E402
    HERE, GiB, KiB, MiB, AtomRunner, Bench, _apply_smem_attrs, _chain, _reset_smem_attrs, log, ncu_path,
    run_cases_events, run_ncu, save, section_launch, sh, smi_clocks)

OPS = ("read", "copy", "scale", "gather")
VECS = {4: "float", 8: "float2", 16: "float4"}
WARPS = (1, 2, 4, 8, 16, 32, 48, 64)
ILPS = (1, 2, 4, 8)

# ----------------------------------------------------------------------------------------------------
# ncu metric lists (names this ncu does not know are dropped and recorded, not fatal)
# ----------------------------------------------------------------------------------------------------
CLOCK_METRICS = [
    "gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.avg.per_second", "sm__cycles_active.avg", "gpu__time_duration.sum",
    "dram__cycles_elapsed.avg", "dram__cycles_elapsed.sum", "dram__cycles_elapsed.max",
    "dram__cycles_elapsed.avg.per_second",
    "fbpa__cycles_elapsed.avg", "fbpa__cycles_elapsed.sum", "fbpa__cycles_elapsed.avg.per_second",
    "lts__cycles_elapsed.avg", "lts__cycles_elapsed.sum", "lts__cycles_elapsed.max",
    "lts__cycles_elapsed.avg.per_second", "lts__cycles_active.avg",
    "ltc__cycles_elapsed.avg.per_second", "l1tex__cycles_elapsed.avg.per_second",
    "sys__cycles_elapsed.avg.per_second", "gpu__cycles_elapsed.max", "gpu__cycles_elapsed.avg.per_second",
    "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes.sum.per_second",
    "dram__bytes.sum.peak_sustained", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.sum", "lts__t_bytes.sum", "lts__t_bytes.sum.per_second", "lts__t_bytes.sum.peak_sustained",
    "lts__t_sectors.sum.peak_sustained", "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__m_xbar2l1tex_read_bytes.sum", "l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed", "smsp__inst_executed.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
]

COUNTER_METRICS = [
    "gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second", "gpu__time_duration.sum",
    "sm__cycles_active.avg", "sm__cycles_elapsed.avg", "sm__warps_active.avg.per_cycle_active",
    "smsp__inst_executed.sum", "smsp__average_warp_latency_per_inst_issued.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", "l1tex__t_sector_hit_rate.pct",
    "l1tex__m_xbar2l1tex_read_sectors.sum", "l1tex__m_l1tex2xbar_write_sectors.sum",
    "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.sum", "lts__t_requests.sum", "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
    "lts__t_sectors_op_atom.sum", "lts__t_sectors_op_red.sum",
    "lts__t_requests_op_read.sum", "lts__t_requests_op_atom.sum", "lts__t_requests_op_red.sum",
    "lts__t_sectors_srcunit_tex.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum", "lts__t_sectors_srcunit_ltcfabric.sum",
    "lts__t_requests_srcunit_tex.sum", "lts__t_sectors_srcunit_tex_op_red.sum",
    "lts__t_sectors_srcunit_tex_op_atom.sum", "lts__t_requests_srcunit_tex_op_red.sum",
    "lts__t_requests_srcunit_tex_op_atom.sum",
    "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum", "lts__t_sector_hit_rate.pct",
    "lts__t_sectors_srcunit_tex_lookup_hit.sum", "lts__t_sectors_srcunit_tex_lookup_miss.sum",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.sum.per_cycle_elapsed", "lts__cycles_elapsed.avg", "lts__cycles_elapsed.avg.per_second",
    "lts__cycles_active.avg", "lts__d_sectors.sum", "lts__t_tag_requests.sum",
    "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__sectors_read.sum", "dram__sectors_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram__cycles_elapsed.avg",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "smsp__sass_inst_executed_op_global_atom.sum", "smsp__sass_inst_executed_op_global_red.sum",
    "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
]

LAUNCH_METRICS = [
    "launch__block_size", "launch__grid_size", "launch__registers_per_thread", "launch__thread_count",
    "launch__shared_mem_config_size", "launch__shared_mem_per_block", "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic", "launch__shared_mem_per_block_driver",
    "launch__occupancy_limit_blocks", "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps", "launch__occupancy_limit_barriers", "launch__occupancy_per_block_size",
    "launch__occupancy_per_register_count", "launch__occupancy_per_shared_mem_size",
    "launch__waves_per_multiprocessor", "launch__func_cache_config", "launch__sm_count",
    "launch__uses_green_context", "launch__cluster_max_active", "launch__occupancy_cluster_pct",
    "sm__maximum_warps_per_active_cycle_pct", "sm__maximum_warps_avail_per_active_cycle",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
]


# ----------------------------------------------------------------------------------------------------
# sections
# ----------------------------------------------------------------------------------------------------
def section_info(args) -> None:
    b = Bench(dram_bytes=64 * MiB)
    kernels = {}
    names = [f"mb_s_{op}_i{i}_v{v}_cg{c}_lb{lb}" for op in OPS for i in ILPS for v in VECS for c in (0, 1)
             for lb in (1, 2)]
    names += ["mb_loaded_latency", "mb_ffma", "mb_table_chase", "mb_table_gather", "mb_transpose_naive",
              "mb_atom_latency", "mb_atom_uniform_i", "mb_atom_uniform_f", "mb_smem_dyn", "mb_smem_s8192_dyn",
              "mb_smem_regheavy"] + [f"mb_atom_{k}" for k in ("red_i", "atom_i", "red_f", "atom_f", "cas",
                                                              "casloop", "wagg_i", "wagg_f")]
    for n in names:
        try:
            fn = b.f(n)
            kernels[n] = {"regs": fn.num_regs, "local_bytes": fn.local_size_bytes, "static_smem": fn.shared_size_bytes,
                          "max_threads": fn.max_threads_per_block}
        except Exception as e:  # noqa: BLE001
            kernels[n] = {"error": str(e)}
    ncu = ncu_path()
    nmetrics = None
    if ncu:
        q = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True, timeout=240)
        names_q = sorted({r[0].strip().strip('"') for r in csv.reader(io.StringIO(q.stdout)) if r})
        (Path(args.rec) / "ncu_metrics.txt").write_text("\n".join(names_q))
        nmetrics = len(names_q)
    save("info", {"kernels": kernels, "ncu_path": ncu, "ncu_base_metrics_listed": nmetrics,
                  "nvidia_smi_q_clock": sh(["nvidia-smi", "-q", "-d", "CLOCK,PERFORMANCE,POWER"], 30)})
    log("info:", len(kernels), "kernels;", nmetrics, "ncu metrics")


def sweep_plan(nsm: int) -> list[dict]:
    plan = []

    def add(mem, sms, ops, vecs, ilps, warps, cg, tag):
        for op in ops:
            for v in vecs:
                for i in ilps:
                    for w in warps:
                        plan.append({"op": op, "vec": v, "ilp": i, "warps": w, "sms": sms, "mem": mem,
                                     "cg": cg, "group": tag})
    # priority order: the chip at 4 B, then one SM, then vector widths, then the cache-operator comparisons
    add("dram", nsm, OPS, (4,), ILPS, WARPS, 0, "chip_dram_v4")
    add("l2", nsm, OPS, (4,), ILPS, WARPS, 1, "chip_l2_v4")
    add("l2", 1, ("read", "gather", "copy"), (4,), ILPS, WARPS, 1, "sm1_l2_v4")
    add("dram", 1, ("read", "gather", "copy"), (4,), ILPS, WARPS, 0, "sm1_dram_v4")
    add("dram", nsm, ("read", "copy", "gather"), (8, 16), ILPS, WARPS, 0, "chip_dram_vec")
    add("l2", nsm, ("read", "copy", "gather"), (8, 16), ILPS, WARPS, 1, "chip_l2_vec")
    add("l2", 1, ("read", "gather"), (8, 16), ILPS, WARPS, 1, "sm1_l2_vec")
    add("dram", 1, ("read", "gather"), (8, 16), ILPS, WARPS, 0, "sm1_dram_vec")
    add("dram", nsm, ("read", "copy"), (4, 16), (1, 4), WARPS, 1, "chip_dram_cg")
    add("l2", nsm, ("read",), (4, 16), (1, 4), WARPS, 0, "chip_l2_default_ld")
    add("l2", 16, ("read", "gather"), (16, 4), (4,), WARPS, 1, "sm16_l2")
    add("dram", 16, ("read",), (16,), (4,), WARPS, 0, "sm16_dram")
    return plan


def sweep2_plan(nsm: int) -> list[dict]:
    """Second campaign: L2-resident sets read with blocks spread over the set (no cross-SM coalescing), and
    the in-flight limit against the L1 size (one SM, one 1024-thread block, the carve-out preference set)."""
    plan = []
    for op, vecs in (("read", (4, 16)), ("copy", (4, 16))):
        for v in vecs:
            for i in ILPS:
                for w in WARPS:
                    plan.append({"op": op, "vec": v, "ilp": i, "warps": w, "sms": nsm, "mem": "l2", "cg": 1,
                                 "spread": True, "group": "chip_l2_spread"})
    for w in WARPS:
        plan.append({"op": "read", "vec": 16, "ilp": 4, "warps": w, "sms": 16, "mem": "l2", "cg": 1, "spread": True,
                     "group": "sm16_l2_spread"})
    carves = (0, 5, 10, 20, 30, 45, 60, 75, 90, 100)
    l1 = [("dram", "read", 16, 8, 0), ("dram", "read", 4, 8, 0), ("dram", "gather", 4, 8, 0),
          ("dram", "read", 16, 8, 1), ("l2", "read", 16, 8, 1), ("l2", "gather", 4, 8, 1), ("dram", "copy", 16, 4, 0),
          ("dram", "gather", 16, 8, 0)]
    for mem, op, v, i, cg in l1:
        for c in carves:
            plan.append({"op": op, "vec": v, "ilp": i, "warps": 32, "sms": 1, "mem": mem, "cg": cg, "smem": 0,
                         "carve": c, "group": "sm1_carve"})
    for mem, op, v, i, cg in (("dram", "read", 16, 8, 0), ("dram", "gather", 4, 8, 0), ("l2", "read", 16, 4, 1)):
        for c in carves:
            plan.append({"op": op, "vec": v, "ilp": i, "warps": 32, "sms": nsm, "mem": mem, "cg": cg, "smem": 0,
                         "carve": c, "spread": True, "group": "chip_carve"})
    # the demand side at a fixed large L1 (carve 0): one SM, warps x ILP for 16-byte DRAM reads and gathers
    for op, v in (("read", 16), ("gather", 4)):
        for i in ILPS:
            for w in (1, 2, 4, 8, 16, 32):
                plan.append({"op": op, "vec": v, "ilp": i, "warps": w, "sms": 1, "mem": "dram", "cg": 0, "smem": 0,
                             "carve": 0, "group": "sm1_dram_carve0"})
    return plan


# Third campaign: the in-flight limit against the L1 size (256 KB minus the carve-out the driver picks for
# the dynamic shared memory; 1024-thread blocks of >= 40 registers, so one block per SM), and predictions
# made before the run from the first two campaigns (benchmarks/micro/predictions_campaign3.json).
L1_DYN = (0, 28672, 61440, 98304, 131072, 163840, 196608, 229376)


def sweep3_plan(nsm: int) -> list[dict]:
    plan = []
    for mem, op, v, i, cg in (("dram", "read", 16, 8, 0), ("dram", "gather", 4, 8, 0), ("l2", "gather", 4, 8, 1),
                              ("l2", "read", 16, 8, 1), ("dram", "gather", 16, 8, 0), ("dram", "copy", 16, 4, 0)):
        for d in L1_DYN:
            plan.append({"op": op, "vec": v, "ilp": i, "warps": 32, "sms": 1, "mem": mem, "cg": cg, "smem": d,
                         "group": "sm1_l1size"})
    for mem, op, v, i, cg in (("dram", "gather", 4, 8, 0), ("dram", "read", 16, 8, 0)):
        for d in L1_DYN:
            plan.append({"op": op, "vec": v, "ilp": i, "warps": 32, "sms": nsm, "mem": mem, "cg": cg, "smem": d,
                         "group": "chip_l1size"})
    return plan


def section_sweep3(args) -> None:
    section_sweep(args, plan_fn=sweep3_plan, name="sweep3")


def carveout3_cases() -> list[dict]:
    """Unseen launches for the carve-out rule (predictions in the case, made before the run)."""
    cases = []
    for b in (96, 160, 224, 320, 448, 640, 896, 992):
        for d in (1536, 5120, 10240, 20480, 40960):
            cases.append({"kind": "smem", "kernel": "mb_smem_dyn", "block": b, "dyn": d, "static": 0})
    for nacc in (8, 24, 40, 56, 88, 120):
        for b in (64, 96, 192):
            for d in (2048, 6144):
                cases.append({"kind": "smem", "kernel": f"mb_smem_regs{nacc}", "block": b, "dyn": d, "static": 0})
    for b in (64, 128, 512, 768, 1024):
        cases.append({"kind": "ffma_block", "kernel": "mb_ffma", "block": b, "dyn": 0, "static": 0})
    for b in (128, 512):
        cases.append({"kind": "chase_block", "kernel": "mb_table_chase", "block": b, "dyn": 0, "static": 0})
    for d in L1_DYN:
        cases.append({"kind": "smem", "kernel": "mb_s_read_i8_v16_cg0_lb1", "block": 1024, "dyn": d, "static": 16,
                      "stream_args": True})
    return cases


def section_carveout3(args) -> None:
    section_carveout(args, cases_fn=carveout3_cases, name="carveout3")


def section_points3(args) -> None:
    """ncu of the loaded-latency kernel (how many loads each SM keeps pending while one thread chases), and of
    one SM at three L1 sizes."""
    cases = [{"kind": "loaded_latency", "chain": "dram", "mode": 2, "bps": 8},
             {"kind": "loaded_latency", "chain": "dram", "mode": 2, "bps": 2},
             {"kind": "loaded_latency", "chain": "dram", "mode": 3, "bps": 8},
             {"kind": "loaded_latency", "chain": "l2", "mode": 1, "bps": 8}]
    for d in (0, 163840, 196608):
        for op, v in (("read", 16), ("gather", 4)):
            cases.append({"kind": "stream", "cfg": {"op": op, "ilp": 8, "vec": v, "cg": 0, "warps": 32, "sms": 1,
                                                    "mem": "dram", "smem": d}, "iters": 256 if op == "read" else 64})
    doc = {"cases": cases}
    doc["ncu"] = run_ncu(cases, COUNTER_METRICS + POINTS2_EXTRA, tag="points3", dram_bytes=256 * MiB, group=4)
    save("points3", doc)
    log("points3 done")


def section_sweep2(args) -> None:
    section_sweep(args, plan_fn=sweep2_plan, name="sweep2")


def section_sweep(args, plan_fn=None, name="sweep") -> None:
    b = Bench(dram_bytes=GiB)
    plan = (plan_fn or sweep_plan)(b.nsm)
    t_end = time.time() + args.budget
    rows, skipped = [], 0
    last_save = time.time()
    for k, cfg in enumerate(plan):
        if time.time() > t_end:
            skipped = len(plan) - k
            break
        try:
            rows.append(b.stream_measure(cfg))
        except Exception as e:  # noqa: BLE001
            rows.append({**cfg, "error": f"{type(e).__name__}: {e}"})
            log("sweep error", cfg, e)
        if time.time() - last_save > 20:
            save(name, {"rows": rows, "planned": len(plan), "done": len(rows), "partial": True})
            last_save = time.time()
    save(name, {"rows": rows, "planned": len(plan), "done": len(rows), "skipped_for_time": skipped,
                   "method": "in-kernel %globaltimer window over the active blocks (first start to last end); "
                             "size chosen for ~1 ms; 1 warm-up; median of 5 launches; DRAM configs walk a 1 GiB "
                             "buffer with a cursor so nothing is re-read from L2; L2 configs use an 8 MB set "
                             "(read, gather) or 4+4 MB (copy, scale)"})
    log(f"{name}: {len(rows)} of {len(plan)} configs, skipped {skipped}")



LATENCY_CONFIGS = [("l2", 0, 0), ("l2", 1, 1), ("l2", 1, 2), ("l2", 1, 4), ("l2", 1, 8),
                   ("dram", 0, 0), ("dram", 2, 1), ("dram", 2, 2), ("dram", 2, 4), ("dram", 2, 8), ("dram", 3, 4),
                   ("dram", 3, 8), ("dram", 1, 8), ("l2small", 0, 0), ("l2small", 2, 8), ("l2", 2, 8)]
# second campaign: each loaded case twice, the chaser's SM streaming too and left idle (skip)
LATENCY2_CONFIGS = [(c, m, b, skip) for (c, m, b) in (("l2", 0, 0), ("l2", 1, 2), ("l2", 1, 4), ("l2", 1, 8),
                                                       ("dram", 0, 0), ("dram", 2, 2), ("dram", 2, 4), ("dram", 2, 8),
                                                       ("dram", 3, 8))
                    for skip in ((False, True) if m else (False,))]


def section_latency2(args) -> None:
    section_latency(args, configs=LATENCY2_CONFIGS, name="latency2")


def section_latency(args, configs=None, name="latency") -> None:
    import cupy as cp
    b = Bench(dram_bytes=GiB)
    rng = np.random.default_rng(7)
    fn = b.f("mb_loaded_latency")
    chains = {"l2": _chain(cp, 2 * MiB, 2048, rng), "l2small": _chain(cp, 128 * KiB, 2048, rng),
              "dram": _chain(cp, 64 * MiB, 32 * KiB, rng)}
    lat = cp.zeros(1024, dtype=cp.uint32)
    res = cp.zeros(8, dtype=cp.uint64)
    stat = cp.zeros(3, dtype=cp.uint64)
    done = cp.zeros(1, dtype=cp.uint32)
    A, B = b.buf("A"), b.buf("B")
    configs = [c if len(c) == 4 else (*c, False) for c in (configs or LATENCY_CONFIGS)]
    mode_names = {0: "none", 1: "l2_read", 2: "dram_read", 3: "dram_copy"}
    rows = []
    chaser_sm = None
    for chain_key, mode, bps, skip in configs:
        buf, start, nodes = chains[chain_key]
        steps = min(nodes, 2048) if chain_key == "dram" else 2048
        warm = 0 if chain_key == "dram" else 1
        record = 1024 if chain_key != "dram" else 512
        mask4 = (8 * MiB) // 16 - 1 if mode == 1 else (GiB // 16) - 1
        grid = max(1, b.nsm * bps)
        runs = []
        try:
            for rep in range(3):
                if chain_key == "dram":
                    b.flush_l2(float(rep + 3))
                done.fill(0)
                stat[0] = 0
                stat[1] = np.uint64(2 ** 64 - 1)
                stat[2] = 0
                b.sync()
                skip_sm = chaser_sm if (skip and chaser_sm is not None) else 0xFFFFFFFF
                fn((grid,), (256,), (start, np.int32(steps), np.int32(warm), lat, np.int32(record), res, A, B,
                                     np.uint64(mask4), np.int32(mode), np.int32(200000), done, stat,
                                     np.uint32(50_000), b.sink, np.uint32(skip_sm)))
                b.sync()
                r = res.get().astype(np.int64)
                if chaser_sm is None:
                    chaser_sm = int(r[5])
                s = stat.get().astype(np.int64)
                lv = lat.get()[:min(record, 1024)].astype(np.int64)
                stream_ns = int(s[2] - s[1]) if mode and s[2] > 0 else None
                runs.append({"skip_sm": skip_sm if skip_sm != 0xFFFFFFFF else None,
                             "chaser_sm_idle": bool(skip and int(r[5]) == skip_sm),
                             "cycles_per_load": r[0] / steps, "ns_per_load": r[1] / steps,
                             "sm_mhz": r[0] / r[1] * 1000.0 if r[1] else None, "chaser_smid": int(r[5]),
                             "record_loop_cycles_per_load": r[6] / record if record else None,
                             "per_load_cycles_pct": {p: float(np.percentile(lv, p)) for p in (5, 10, 25, 50, 75, 90, 95, 99)},
                             "stream_bytes": int(s[0]) if mode else 0, "stream_window_ns": stream_ns,
                             "stream_gbps": (s[0] / stream_ns) if stream_ns else None,
                             "chase_start_to_stream_end_ns": int(s[2] - r[2]) if mode and s[2] > 0 else None})
            med = sorted(runs, key=lambda x: x["cycles_per_load"])[1]
            rows.append({"chain": chain_key, "chain_nodes": nodes, "steps": steps, "stream": mode_names[mode],
                         "chaser_sm_skipped": bool(skip),
                         "stream_blocks_per_sm": bps, "stream_warps_per_sm": bps * 8, "grid": grid,
                         "cycles_per_load_median": med["cycles_per_load"], "ns_per_load_median": med["ns_per_load"],
                         "median_run": med, "runs": runs})
            log(name, chain_key, mode_names[mode], bps, "skip" if skip else "", f"{med['cycles_per_load']:.0f} cyc",
                f"{med['ns_per_load']:.0f} ns", "stream GB/s", med["stream_gbps"])
        except Exception as e:  # noqa: BLE001
            rows.append({"chain": chain_key, "stream": mode_names[mode], "stream_blocks_per_sm": bps,
                         "error": f"{type(e).__name__}: {e}"})
            log("latency error", chain_key, mode, bps, e)
        save(name, {"rows": rows, "partial": True})
    save(name, {"rows": rows, "method": "block 0 thread 0 chases with ld.global.cg after 50 us; the other "
                     "blocks (256 threads, 4 x 16 B loads in flight per thread) stream until it is done; "
                     "median of 3; DRAM chain: 2048 nodes 32 KB apart in random order over 64 MB after a 128 MB "
                     "write; L2 chain: 1024 nodes 2 KB apart over 2 MB, walked once first; l2small: 64 nodes"})


def atom_cases(nsm: int) -> list[dict]:
    full = (nsm * 8, 256)
    nthreads = full[0] * full[1]
    cases = []

    def add(op, label, naddr=1, spread=32, scatter=0, launch=full, **kw):
        cases.append({"op": op, "pattern": label, "naddr": naddr, "spread": spread, "scatter": scatter,
                      "grid": launch[0], "block": launch[1], **kw})
    for op in ("red_i", "atom_i", "red_f", "atom_f"):
        add(op, "one")
        for n in (2, 4, 8, 32):
            add(op, f"few{n}_lines", naddr=n, spread=32)
        for n in (8, 32):
            add(op, f"few{n}_words", naddr=n, spread=1)
        add(op, "distinct_coalesced", naddr=nthreads, spread=1)
        add(op, "distinct_scattered", scatter=1)
    add("cas", "one")
    add("cas", "distinct_coalesced", naddr=nthreads, spread=1)
    add("casloop", "one", launch=(nsm, 32))
    add("casloop", "distinct_coalesced", naddr=nthreads, spread=1)
    for op in ("wagg_i", "wagg_f"):
        add(op, "one")
        add(op, "few8_lines", naddr=8, spread=32)
        add(op, "distinct_lines", naddr=nthreads // 32, spread=32)
    add("uniform_i", "one")
    add("uniform_f", "one")
    for launch in ((1, 32), (1, 1024), (nsm, 32), (nsm, 256)):
        add("red_i", "one", launch=launch, scale=True)
        add("red_f", "one", launch=launch, scale=True)
    add("red_i", "distinct_coalesced", naddr=nsm * 32, spread=1, launch=(nsm, 32), scale=True)
    return cases



def section_atomics(args) -> None:
    import cupy as cp
    b = Bench(dram_bytes=64 * MiB)
    ar = AtomRunner(b)
    rows = []
    # latency of one dependent atomic (unloaded), one thread
    res = cp.zeros(4, dtype=cp.uint64)
    fn = b.f("mb_atom_latency")
    lat = []
    for _ in range(3):
        fn((1,), (1,), (ar.ibuf, np.int32(2000), res))
        b.sync()
        r = res.get().astype(np.int64)
        lat.append({"cycles_per_atom": r[0] / 2000, "ns_per_atom": r[1] / 2000})
    for c in atom_cases(b.nsm):
        try:
            rows.append(ar.measure(c))
            x = rows[-1]
            log("atom", c["op"], c["pattern"], c["grid"], c["block"], f"{x['thread_ops_per_ns']:.3f} ops/ns",
                f"{x['atomics_per_ns']:.3f} atomics/ns")
        except Exception as e:  # noqa: BLE001
            rows.append({**c, "error": f"{type(e).__name__}: {e}"})
            log("atom error", c, e)
    save("atomics", {"rows": rows, "latency_one_thread": lat,
                     "method": "CUDA events, 1 warm-up, median of 5, sized for ~1.5 ms; thread_ops = threads x "
                               "iters (elements for the warp-aggregated kernels); atomics_per_ns counts one "
                               "atomic per thread, or per warp for wagg"})


def section_clocks_events(b: Bench) -> dict:
    """FFMA, DRAM copy and L2 read outside ncu: SM MHz from clock64 / %globaltimer, median of 5."""
    import cupy as cp
    out = {"smi_before": smi_clocks()}
    fn = b.f("mb_ffma")
    x = cp.ones(256, dtype=cp.float32)
    grid = b.nsm * 8
    n = 2000
    for _ in range(2):
        fn((grid,), (256,), (x, np.int32(n), np.float32(0.9999), np.float32(0.0001), b.times))
    b.sync()
    rs = []
    for _ in range(5):
        b.ev0.record()
        fn((grid,), (256,), (x, np.int32(n), np.float32(0.9999), np.float32(0.0001), b.times))
        b.ev1.record()
        b.ev1.synchronize()
        t = b.times[: 4 * grid].get().reshape(grid, 4).astype(np.int64)
        rs.append({"events_ms": cp.cuda.get_elapsed_time(b.ev0, b.ev1),
                   "sm_mhz_median": float(np.median(t[:, 2] / np.maximum(t[:, 1] - t[:, 0], 1)) * 1000),
                   "window_ns": int(t[:, 1].max() - t[:, 0].min()), "block_cycles_median": float(np.median(t[:, 2]))})
    ffma = grid * 256 * n * 16 * 8
    out["ffma"] = {"runs": rs, "ffma_per_thread": n * 128, "grid": grid, "block": 256, "ffma_total": ffma,
                   "ffma_per_sm_cycle": ffma / b.nsm / statistics.median(r["block_cycles_median"] for r in rs)}
    out["smi_after_ffma"] = smi_clocks()
    for label, cfg in (("dram_copy", {"op": "copy", "ilp": 4, "vec": 16, "cg": 0, "warps": 32, "sms": b.nsm,
                                      "mem": "dram"}),
                       ("l2_read", {"op": "read", "ilp": 4, "vec": 16, "cg": 1, "warps": 32, "sms": b.nsm,
                                    "mem": "l2"})):
        out[label] = b.stream_measure(cfg, target_ns=3.0e6)
    out["smi_after_streams"] = smi_clocks()
    return out


CLOCK_CASES = [
    {"kind": "ffma", "n": 2000},
    {"kind": "stream", "cfg": {"op": "copy", "ilp": 4, "vec": 16, "cg": 0, "warps": 32, "sms": 10 ** 6, "mem": "dram"},
     "iters": 64},
    {"kind": "stream", "cfg": {"op": "read", "ilp": 4, "vec": 16, "cg": 1, "warps": 32, "sms": 10 ** 6, "mem": "l2"},
     "iters": 256},
]


def section_clocks(args) -> None:
    b = Bench(dram_bytes=256 * MiB)
    doc = {}
    try:
        doc["events"] = section_clocks_events(b)
    except Exception as e:  # noqa: BLE001
        doc["events"] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()}
    save("clocks", doc)
    del b
    for mode in ("base", "none"):
        extra = [] if mode == "base" else ["--clock-control", "none"]
        doc[f"ncu_{mode}"] = run_ncu(CLOCK_CASES, CLOCK_METRICS, extra=extra, tag=f"clocks_{mode}",
                                     dram_bytes=256 * MiB)
        save("clocks", doc)
    doc["smi_end"] = smi_clocks()
    save("clocks", doc)
    log("clocks done")


TARGET_CASES = [
    {"kind": "table_chase", "steps": 16}, {"kind": "table_chase", "steps": 64}, {"kind": "table_chase", "steps": 256},
    {"kind": "table_gather", "steps": 64},
    {"kind": "transpose", "n": 1024}, {"kind": "transpose", "n": 512}, {"kind": "transpose", "n": 2048},
]


def section_targets(args) -> None:
    doc = {"cases": TARGET_CASES}
    # CUDA-event times outside ncu too (boost clock, warm L2 after the first launch)
    try:
        doc["events"] = run_cases_events(TARGET_CASES)
    except Exception as e:  # noqa: BLE001
        doc["events"] = {"error": f"{type(e).__name__}: {e}"}
    save("targets", doc)
    doc["ncu"] = run_ncu(TARGET_CASES, COUNTER_METRICS, tag="targets", dram_bytes=64 * MiB)
    save("targets", doc)
    log("targets done")


def carveout_cases() -> list[dict]:
    cases = []
    for s in (0, 1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 40960, 49152):
        for blk in (32, 256, 1024):
            cases.append({"kind": "smem", "kernel": f"mb_smem_s{s}", "block": blk, "dyn": 0, "static": s})
    for d in (1024, 8192, 16384, 32768, 49152, 65536, 102400, 135168, 167936, 200704, 232448):
        for blk in (128, 1024):
            cases.append({"kind": "smem", "kernel": "mb_smem_dyn", "block": blk, "dyn": d, "static": 0})
    for d in (8192, 65536):
        cases.append({"kind": "smem", "kernel": "mb_smem_s8192_dyn", "block": 256, "dyn": d, "static": 8192})
    cases.append({"kind": "smem", "kernel": "mb_smem_regheavy", "block": 256, "dyn": 0, "static": 8192})
    cases.append({"kind": "smem", "kernel": "mb_smem_regheavy", "block": 128, "dyn": 0, "static": 8192})
    cases.append({"kind": "smem", "kernel": "mb_smem_dyn", "block": 256, "dyn": 16384, "static": 0,
                  "max_dyn_attr": 200704})
    for pref in (0, 25, 50, 100):
        cases.append({"kind": "smem", "kernel": "mb_smem_s8192", "block": 256, "dyn": 0, "static": 8192,
                      "carveout_pref": pref})
    return cases


def carveout2_cases() -> list[dict]:
    """A finer grid for the driver's carve-out choice: first a few launches in a fresh process (does the
    previous launch matter?), then dynamic shared memory x block size, then register counts, then the
    stream kernel under each carve-out preference (the L1 size of the sweep2 'carve' configs)."""
    cases = []
    for s_, b in ((1024, 256), (0, 256), (0, 32), (0, 256), (1024, 256)):
        cases.append({"kind": "smem", "kernel": f"mb_smem_s{s_}", "block": b, "dyn": 0, "static": s_, "order_test": True})
    for b in (32, 64, 128, 192, 256, 384, 512, 768, 1024):
        for d in (512, 1024, 2048, 3072, 4096, 8192, 12288, 16384, 24576):
            cases.append({"kind": "smem", "kernel": "mb_smem_dyn", "block": b, "dyn": d, "static": 0})
    for nacc in (8, 24, 40, 56, 88, 120):
        for b in (128, 256):
            for d in (1024, 4096, 8192):
                cases.append({"kind": "smem", "kernel": f"mb_smem_regs{nacc}", "block": b, "dyn": d, "static": 0})
    for c in (0, 5, 10, 20, 30, 45, 60, 75, 90, 100):
        cases.append({"kind": "smem", "kernel": "mb_s_read_i8_v16_cg0_lb1", "block": 1024, "dyn": 0, "static": 16,
                      "carveout_pref": c, "stream_args": True})
    return cases


def section_carveout2(args) -> None:
    section_carveout(args, cases_fn=carveout2_cases, name="carveout2")


def section_carveout(args, cases_fn=None, name="carveout") -> None:
    cases = (cases_fn or carveout_cases)()
    doc = {"cases": cases}
    # the driver's own occupancy calculator for each case (outside ncu)
    try:
        b = Bench(dram_bytes=64 * MiB)
        occ = []
        from cupy.cuda import driver
        for c in cases:
            fn = b.f(c["kernel"])
            try:
                _apply_smem_attrs(fn, c)
                ptr = fn.kernel.ptr if hasattr(fn, "kernel") else fn.ptr
                n = driver.occupancyMaxActiveBlocksPerMultiprocessor(ptr, c["block"], c["dyn"])
            except Exception as e:  # noqa: BLE001
                n = f"{type(e).__name__}: {e}"
            occ.append({"regs": fn.num_regs, "static_smem": fn.shared_size_bytes, "occupancy_blocks": n})
            _reset_smem_attrs(fn, c)
        doc["driver_occupancy"] = occ
    except Exception as e:  # noqa: BLE001
        doc["driver_occupancy"] = {"error": f"{type(e).__name__}: {e}"}
    save(name, doc)
    doc["ncu"] = run_ncu(cases, LAUNCH_METRICS, tag=name, dram_bytes=64 * MiB,
                         sections=("LaunchStats", "Occupancy"), group=160)
    save(name, doc)
    log(name, "done")


def section_points(args) -> None:
    nsm = 132
    sweep = {}
    try:
        sw = json.loads((Path(args.rec) / "sweep.json").read_text())
        for r in sw["rows"]:
            if "iters" in r:
                sweep[(r["op"], r["ilp"], r["vec"], r["cg"], r["warps"], r["sms"] if r["sms"] < 132 else 10 ** 6,
                       r["mem"])] = r["iters"]
    except Exception:  # noqa: BLE001
        pass

    def st(op, ilp, vec, cg, warps, sms, mem, default_iters):
        key = (op, ilp, vec, cg, warps, sms, mem)
        it = sweep.get(key, default_iters)
        if mem == "dram":   # the ncu child has 256 MB buffers
            it = min(it, max(1, (256 * MiB // vec // 2) // ((sms if sms < nsm else nsm) *
                                                          Bench.occupancy(warps)["bps"] * ilp *
                                                          Bench.occupancy(warps)["threads"])))
        return {"kind": "stream", "cfg": {"op": op, "ilp": ilp, "vec": vec, "cg": cg, "warps": warps, "sms": sms,
                                          "mem": mem}, "iters": it}
    big = 10 ** 6
    cases = [
        st("read", 4, 16, 0, 32, big, "dram", 16), st("copy", 4, 16, 0, 32, big, "dram", 8),
        st("read", 1, 4, 0, 8, big, "dram", 64), st("gather", 4, 4, 0, 64, big, "dram", 32),
        st("read", 4, 16, 1, 32, big, "l2", 256), st("read", 4, 16, 0, 32, big, "l2", 256),
        st("copy", 4, 16, 1, 32, big, "l2", 128), st("gather", 4, 4, 1, 64, big, "l2", 128),
        st("read", 1, 4, 1, 8, big, "l2", 256),
        st("read", 8, 16, 1, 32, 1, "l2", 256), st("gather", 8, 4, 1, 32, 1, "l2", 256),
        st("read", 8, 16, 0, 32, 1, "dram", 256), st("gather", 8, 4, 0, 32, 1, "dram", 256),
    ]
    at = [c for c in atom_cases(nsm) if not c.get("scale")]
    pick = {("red_i", "one"), ("atom_i", "one"), ("red_f", "one"), ("red_i", "few8_lines"), ("red_i", "few32_words"),
            ("red_i", "distinct_coalesced"), ("red_i", "distinct_scattered"), ("atom_i", "distinct_scattered"),
            ("wagg_i", "one"), ("uniform_i", "one"), ("cas", "one")}
    prev = {}
    try:
        ad = json.loads((Path(args.rec) / "atomics.json").read_text())
        for r in ad["rows"]:
            if "iters" in r and not r.get("scale"):
                prev[(r["op"], r["pattern"])] = r["iters"]
    except Exception:  # noqa: BLE001
        pass
    for c in at:
        if (c["op"], c["pattern"]) in pick:
            cases.append({"kind": "atom", "case": c, "iters": max(1, prev.get((c["op"], c["pattern"]), 64) // 2)})
    doc = {"cases": cases}
    doc["ncu"] = run_ncu(cases, COUNTER_METRICS, tag="points", dram_bytes=256 * MiB, group=4)
    save("points", doc)
    log("points done")


POINTS2_EXTRA = [
    "lrc__xbar2lrc_requests_op_read.sum", "lrc__lrc2xbar_sectors_op_read.sum", "lrc__xbar2gpc_sectors_op_read.sum",
    "lrc__lts2lrc_sectors_op_read.sum", "lrc__request_sectors_op_read_coalescable.sum",
    "lrc__lrc2xbar_sectors_op_read_coalescing_achieved.sum", "lrc__lrc2xbar_sectors_op_read_coalescing_none.sum",
    "lrc__xbar2gpc_sectors_op_read_coalescing_achieved_type_hardware.sum", "lrc__cycles_elapsed.avg",
    "sm__inst_pending_pipe_lsu_mem_lg_cmd_read.sum", "sm__inst_pending_pipe_lsu_mem_lg_cmd_read.avg.per_cycle_active",
    "sm__inst_pending_pipe_lsu_mem_lg_cmd_read.max.per_cycle_active",
    "l1tex__m_l1tex2xbar_req_cycles_stalled.sum", "l1tex__m_l1tex2xbar_req_cycles_active.sum",
    "launch__shared_mem_config_size", "l1tex__data_bank_reads.sum",
]


def section_points2(args) -> None:
    """ncu at the second campaign's points: L2 reads walked in step vs spread (the L2 request coalescer),
    the in-flight loads of one SM at the largest and smallest L1 (sm__inst_pending), the targets again."""
    prev = {}
    try:
        sw = json.loads((Path(args.rec) / "sweep2.json").read_text())
        for r in sw["rows"]:
            if "iters" in r:
                prev[_cfg_key(r["cfg"])] = r["iters"]
    except Exception:  # noqa: BLE001
        pass
    big = 10 ** 6

    def st(default_iters, **cfg):
        cfg.setdefault("cg", 0)
        cfg.setdefault("sms", big)
        it = prev.get(_cfg_key({**cfg, "sms": cfg["sms"] if cfg["sms"] < 132 else 132}), default_iters)
        if cfg["mem"] == "dram":
            occ = Bench.occupancy(cfg["warps"])
            it = min(it, max(1, (256 * MiB // cfg["vec"] // 2) // ((cfg["sms"] if cfg["sms"] < 132 else 132) *
                                                                  occ["bps"] * cfg["ilp"] * occ["threads"])))
        return {"kind": "stream", "cfg": cfg, "iters": it}
    cases = [
        st(256, op="read", ilp=4, vec=16, cg=1, warps=32, mem="l2"),
        st(256, op="read", ilp=4, vec=16, cg=1, warps=32, mem="l2", spread=True),
        st(256, op="read", ilp=8, vec=4, cg=1, warps=32, mem="l2", spread=True),
        st(128, op="copy", ilp=4, vec=16, cg=1, warps=32, mem="l2", spread=True),
        st(256, op="read", ilp=4, vec=16, cg=1, warps=64, mem="l2", spread=True),
        st(256, op="read", ilp=8, vec=16, warps=32, sms=1, mem="dram", smem=0, carve=0),
        st(256, op="read", ilp=8, vec=16, warps=32, sms=1, mem="dram", smem=0, carve=100),
        st(256, op="gather", ilp=8, vec=4, warps=32, sms=1, mem="dram", smem=0, carve=0),
        st(256, op="gather", ilp=8, vec=4, warps=32, sms=1, mem="dram", smem=0, carve=100),
        st(256, op="gather", ilp=8, vec=4, cg=1, warps=32, sms=1, mem="l2", smem=0, carve=0),
        st(32, op="gather", ilp=8, vec=4, warps=32, mem="dram", smem=0, carve=0),
        st(32, op="gather", ilp=8, vec=4, warps=32, mem="dram", smem=0, carve=100),
        st(16, op="read", ilp=8, vec=16, warps=32, mem="dram", smem=0, carve=100),
        {"kind": "table_chase", "steps": 64}, {"kind": "transpose", "n": 1024}, {"kind": "transpose", "n": 512},
    ]
    doc = {"cases": cases}
    doc["ncu"] = run_ncu(cases, COUNTER_METRICS + POINTS2_EXTRA, tag="points2", dram_bytes=256 * MiB, group=4)
    save("points2", doc)
    log("points2 done")


def _cfg_key(r: dict) -> tuple:
    return tuple(r.get(k) for k in ("op", "ilp", "vec", "cg", "warps", "sms", "mem", "spread", "smem", "carve"))


# ----------------------------------------------------------------------------------------------------
def summary(args) -> None:
    """A short table of the headline numbers (the device call prints it last)."""
    rec = Path(args.rec)

    def load(n):
        try:
            return json.loads((rec / f"{n}.json").read_text())
        except Exception:  # noqa: BLE001
            return None
    sw = load("sweep")
    if sw:
        rows = [r for r in sw["rows"] if r.get("gbps")]
        print(f"sweep: {len(rows)} configs measured of {sw.get('planned')}")
        for grp in ("chip_dram_v4", "chip_l2_v4", "sm1_l2_v4", "sm1_dram_v4"):
            for op in OPS:
                rr = [r for r in rows if r["group"] == grp and r["op"] == op]
                if rr:
                    best = max(rr, key=lambda r: r["gbps"])
                    w64 = {r["ilp"]: round(r["gbps"]) for r in rr if r["warps"] == max(x["warps"] for x in rr)}
                    print(f"  {grp:14s} {op:6s} best {best['gbps']:8.1f} GB/s (w{best['warps']} i{best['ilp']}) "
                          f"max-warps by ilp {w64}")
    sw2 = load("sweep2")
    if sw2:
        rows = [r for r in sw2["rows"] if r.get("gbps")]
        print(f"sweep2: {len(rows)} configs measured of {sw2.get('planned')}")
        for op in ("read", "copy"):
            for v in (4, 16):
                rr = [r for r in rows if r["group"] == "chip_l2_spread" and r["op"] == op and r["vec"] == v]
                if rr:
                    best = max(rr, key=lambda r: r["gbps"])
                    print(f"  chip_l2_spread {op} v{v}: best {best['gbps']:.0f} GB/s (w{best['warps']} i{best['ilp']})")
        for grp in ("sm1_carve", "chip_carve"):
            combos = sorted({(r["mem"], r["op"], r["vec"], r["cg"]) for r in rows if r["group"] == grp})
            for cmb in combos:
                rr = sorted([r for r in rows if r["group"] == grp and (r["mem"], r["op"], r["vec"], r["cg"]) == cmb],
                            key=lambda r: r["carve"])
                print(f"  {grp} {cmb}: " + " ".join(f"{r['carve']}:{r['gbps']:.1f}/b{r['blocks_per_active_sm_max']}"
                                                    for r in rr))
    for lname in ("latency", "latency2"):
        la = load(lname)
        if not la:
            continue
        for r in la["rows"]:
            if "cycles_per_load_median" in r:
                m = r["median_run"]
                print(f"{lname} {r['chain']:7s} stream {r['stream']:9s} bps {r['stream_blocks_per_sm']}"
                      f"{' skip' if r.get('chaser_sm_skipped') else ''}: "
                      f"{r['cycles_per_load_median']:7.1f} cyc {r['ns_per_load_median']:7.1f} ns "
                      f"@{m['sm_mhz'] or 0:.0f} MHz; stream {m['stream_gbps'] or 0:.0f} GB/s")
    at = load("atomics")
    if at:
        print("atomics latency:", at.get("latency_one_thread"))
        for r in at["rows"]:
            if "thread_ops_per_ns" in r and (r["pattern"] in ("one", "distinct_coalesced", "distinct_scattered",
                                                               "few8_lines") or r.get("scale")):
                print(f"  {r['op']:8s} {r['pattern']:20s} {r['grid']}x{r['block']}: {r['thread_ops_per_ns']:8.3f} "
                      f"ops/ns {r['atomics_per_ns']:8.3f} atomics/ns")
    cl = load("clocks")
    if cl:
        ev = cl.get("events", {})
        if "ffma" in ev:
            print("clocks events: ffma MHz", [round(r["sm_mhz_median"]) for r in ev["ffma"]["runs"]],
                  "dram copy MHz", ev.get("dram_copy", {}).get("sm_mhz"), "l2 MHz", ev.get("l2_read", {}).get("sm_mhz"))
        for mode in ("base", "none"):
            n = cl.get(f"ncu_{mode}")
            if n and n.get("rows"):
                for r in n["rows"]:
                    x = r.get("ncu") or {}
                    print(f"  ncu {mode}: {(x.get('kernel') or '')[:24]:24s} gpc {x.get('gpc__cycles_elapsed.max')} "
                          f"sm/s {x.get('sm__cycles_elapsed.avg.per_second')} dram/s "
                          f"{x.get('dram__cycles_elapsed.avg.per_second')} lts/s {x.get('lts__cycles_elapsed.avg.per_second')}")
    for n in ("targets", "carveout", "points", "carveout2", "points2"):
        d = load(n)
        if d and isinstance(d.get("ncu"), dict):
            rows = d["ncu"].get("rows", [])
            got = sum(1 for r in rows if r.get("ncu"))
            print(f"{n}: ncu rows {got}/{len(d.get('cases', rows))}; dropped {len(d['ncu'].get('metrics_dropped', []))} "
                  f"metrics; groups {[g.get('error', g.get('rc')) for g in d['ncu'].get('groups', [])]}")
    t = load("targets")
    if t and isinstance(t.get("ncu"), dict):
        for r in t["ncu"]["rows"]:
            x = r.get("ncu") or {}
            print(f"  {r['case']}: gpc {x.get('gpc__cycles_elapsed.max')} lts sectors {x.get('lts__t_sectors.sum')} "
                  f"dram rd {x.get('dram__bytes_read.sum')}")
    c = load("carveout2") or load("carveout")
    if c and isinstance(c.get("ncu"), dict):
        for r in c["ncu"]["rows"][::6]:
            x = r.get("ncu") or {}
            cc = r["case"]
            print(f"  carve {cc['kernel']:18s} b{cc['block']:5d} s{cc['static']:6d} d{cc['dyn']:7d} "
                  f"{cc.get('carveout_pref', '')!s:4s} cfg {x.get('launch__shared_mem_config_size')} "
                  f"limS {x.get('launch__occupancy_limit_shared_mem')} drv {x.get('launch__shared_mem_per_block_driver')}")


SECTIONS = {"sweep3": section_sweep3, "carveout3": section_carveout3, "points3": section_points3,
            "sweep2": section_sweep2, "latency2": section_latency2, "carveout2": section_carveout2,
            "points2": section_points2,
            "info": section_info, "sweep": section_sweep, "latency": section_latency, "atomics": section_atomics,
            "clocks": section_clocks, "targets": section_targets, "carveout": section_carveout,
            "points": section_points, "launch": section_launch, "summary": summary}

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", default=str(HERE / "micro.cubin"))
    ap.add_argument("--rec", default="/tmp/mb")
    ap.add_argument("section", choices=sorted(SECTIONS))
    ap.add_argument("--spec")
    ap.add_argument("--budget", type=float, default=150.0)
    ap.add_argument("--plan", action="store_true", help="sweep: print the plan's size and exit")
    ARGS = harness.ARGS = ap.parse_args(argv)
    Path(ARGS.rec).mkdir(parents=True, exist_ok=True)
    if ARGS.plan:
        print(len(sweep_plan(132)), "sweep configs")
        return 0
    SECTIONS[ARGS.section](ARGS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
