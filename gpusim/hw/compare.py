"""Simulated vs measured: output agreement, Nsight counters with ratios, cycles (one launch; the validation
over every record is :mod:`gpusim.hw.validate`).

    >>> from gpusim.hw.compare import compare_record
    >>> print(compare_record("tests/golden/h100/matmul_tiled__small.json").text)

Measured values come from a record (:mod:`gpusim.hw.record`) or from a live run (:func:`measure_live`:
CuPy, plus ncu when it is on the PATH).  Simulated values come from ``gpusim.run(..., mode="timing")`` with
the same program, size and seed.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Counters shown by ``gpusim hw compare``, in this order (those both sides have).
COMPARED = (
    "gpc__cycles_elapsed.max",
    "sm__cycles_active.avg",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
    "launch__occupancy_limit_blocks",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum", "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum", "dram__bytes_write.sum",
    "smsp__average_warp_latency_per_inst_issued.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
)

CYCLES = "gpc__cycles_elapsed.max"


# -- records ------------------------------------------------------------------------------------------------
def load_record(path) -> dict:
    """A record's JSON with ``"arrays"`` (``{arg_index: array}`` from the ``.npz``, ``{}`` if none) and
    ``"path"``."""
    path = Path(path)
    doc = json.loads(path.read_text())
    npz = path.with_suffix(".npz")
    doc["arrays"] = {}
    if npz.exists():
        with np.load(npz) as z:
            doc["arrays"] = {int(k[3:]): z[k] for k in z.files}
    doc["path"] = str(path)
    return doc


# -- outputs ------------------------------------------------------------------------------------------------
def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind == "f" else a


def output_agreement(simulated: np.ndarray, measured: np.ndarray) -> dict:
    """Bit-exact element count and max relative error of ``simulated`` against ``measured``."""
    s, m = np.asarray(simulated), np.asarray(measured)
    if s.shape != m.shape or s.dtype != m.dtype:
        return {"n": int(m.size), "bit_exact": 0, "max_rel_err": math.inf,
                "note": f"{s.dtype}{list(s.shape)} vs {m.dtype}{list(m.shape)}"}
    exact = int(np.count_nonzero(_bits(s) == _bits(m)))
    s64, m64 = s.astype(np.float64), m.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.abs(s64 - m64)
        rel = np.where(m64 != 0, d / np.abs(m64), np.where(d == 0, 0.0, np.inf))
    return {"n": int(m.size), "bit_exact": exact, "max_rel_err": float(np.nanmax(rel)) if rel.size else 0.0}


def outputs_vs_record(sim_args: list, rec: dict) -> dict[int, dict]:
    """Per output argument: agreement with the record's arrays, or with its digest when it kept none."""
    from gpusim.hw.record import sha256
    out = {}
    for idx_s, desc in rec["outputs"].items():
        idx = int(idx_s)
        a = np.asarray(sim_args[idx])
        if idx in rec.get("arrays", {}):
            out[idx] = output_agreement(a, rec["arrays"][idx])
        else:
            same = sha256(a) == desc["sha256"]
            out[idx] = {"n": int(np.prod(desc["shape"])), "bit_exact": int(np.prod(desc["shape"])) if same else None,
                        "max_rel_err": 0.0 if same else None, "note": "digest " + ("matches" if same else "differs")}
    return out


# -- counters -----------------------------------------------------------------------------------------------
def counter_rows(simulated: dict, measured: dict, names=COMPARED) -> list[tuple[str, float | None, float | None,
                                                                                float | None]]:
    rows = []
    for k in names:
        s, m = simulated.get(k), measured.get(k)
        if s is None and m is None:
            continue
        s = float(s) if isinstance(s, (int, float, np.number)) else None
        m = float(m) if isinstance(m, (int, float, np.number)) else None
        ratio = (s / m) if (s is not None and m not in (None, 0.0)) else (1.0 if s == m == 0.0 else None)
        rows.append((k, s, m, ratio))
    return rows


def _fmt(v) -> str:
    if v is None:
        return "-"
    if abs(v) >= 1e4 or (v == int(v) and abs(v) < 1e15):
        return f"{v:,.0f}" if v == int(v) else f"{v:,.1f}"
    return f"{v:.3g}"


@dataclass
class Comparison:
    program: str | None
    size: str | None
    outputs: dict
    counters: list
    cycles_sim: float | None
    cycles_hw: float | None
    time_ms_hw: float | None = None
    clock_mhz_sim: float | None = None
    text: str = ""

    @property
    def cycles_error(self) -> float | None:
        if not self.cycles_sim or not self.cycles_hw:
            return None
        return (self.cycles_sim - self.cycles_hw) / self.cycles_hw


def format_comparison(c: Comparison, gpu_name: str = "") -> str:
    lines = [f"{c.program} [{c.size}]  simulated ({gpu_name or 'preset'}) vs measured", "", "outputs:"]
    for idx, o in sorted(c.outputs.items()):
        be = "?" if o.get("bit_exact") is None else f"{o['bit_exact']:,}/{o['n']:,} bit-exact"
        mre = "?" if o.get("max_rel_err") is None else f"{o['max_rel_err']:.3g}"
        lines.append(f"  arg {idx}: {be}, max relative error {mre}" + (f"  ({o['note']})" if o.get("note") else ""))
    lines += ["", f"  {'counter':62s} {'simulated':>14s} {'measured':>14s} {'ratio':>7s}"]
    for k, s, m, r in c.counters:
        lines.append(f"  {k:62s} {_fmt(s):>14s} {_fmt(m):>14s} {('-' if r is None else f'{r:.2f}'):>7s}")
    lines.append("")
    if c.cycles_sim is not None and c.cycles_hw:
        lines.append(f"cycles: simulated {c.cycles_sim:,.0f}, measured {c.cycles_hw:,.0f} "
                     f"(gpc__cycles_elapsed.max), error {100 * c.cycles_error:+.1f}%")
    elif c.cycles_sim is not None:
        lines.append(f"cycles: simulated {c.cycles_sim:,.0f}; measured: none (no ncu counters)")
    if c.time_ms_hw:
        lines.append(f"kernel time on the GPU (CUDA events, median): {c.time_ms_hw * 1000:.1f} us")
    return "\n".join(lines)


def simulate(program: str, size: str, seed: int = 0, gpu="h100", mode: str = "timing", **run_options):
    """``gpusim.run`` of a record's program (a bundled program or a suite program ``<suite>/<name>``)."""
    import gpusim
    import programs
    spec = programs.get(program)
    return gpusim.run(spec.ptx_path, launch=spec.path, size=size, seed=seed, mode=mode, gpu=gpu, **run_options)


def compare_record(path_or_rec, gpu="h100", sim=None) -> Comparison:
    rec = load_record(path_or_rec) if not isinstance(path_or_rec, dict) else path_or_rec
    sim = sim or simulate(rec["program"], rec["size"], rec.get("seed", 0), gpu)
    counters = rec.get("counters") or {}
    c = Comparison(program=rec["program"], size=rec["size"], outputs=outputs_vs_record(sim.args, rec),
                   counters=counter_rows(sim.timing.counters, counters), cycles_sim=float(sim.timing.cycles),
                   cycles_hw=rec.get("cycles"), time_ms_hw=rec.get("time_ms"))
    c.text = format_comparison(c, getattr(sim.timing, "gpu", ""))
    return c


def measure_live(program: str, size: str | None = None, seed: int = 0, use_ncu: bool = True,
                 backend: str = "ptx") -> dict:
    """A record-shaped dict from a live run (CuPy; ncu counters when ncu is on the PATH)."""
    from gpusim.hw.ncu import ncu_path, profile
    from gpusim.hw.record import output_summary
    from gpusim.hw.runner import run_on_gpu
    r = run_on_gpu(program, size, seed=seed, backend=backend)
    import programs
    spec = programs.get(r.program) if r.program else None
    desc, _ = output_summary(spec, r.outputs, r.reference.keys() if r.reference else range(len(r.outputs)))
    rec = {"program": r.program, "size": r.size, "seed": seed, "outputs": desc,
           "arrays": {int(k): np.asarray(r.outputs[int(k)]) for k in desc}, "time_ms": r.time_ms,
           "counters": {}, "cycles": None, "check": r.check}
    if use_ncu and ncu_path() is not None:
        row = profile([(r.program, r.size)], seed=seed)[0]
        rec["counters"] = {k: v for k, v in row.items() if "__" in k}
        rec["cycles"] = rec["counters"].get(CYCLES)
    return rec


def plot_comparison(c: Comparison, path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = [(k, s, m) for k, s, m, _ in c.counters if s and m and s > 0 and m > 0]
    fig, ax = plt.subplots(figsize=(6.5, 6))
    if pts:
        m = np.array([p[2] for p in pts])
        s = np.array([p[1] for p in pts])
        ax.loglog(m, s, "o")
        for k, si, mi in pts:
            ax.annotate(k.split("__", 1)[-1][:28], (mi, si), fontsize=6)
        lo, hi = min(m.min(), s.min()) * 0.5, max(m.max(), s.max()) * 2
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    ax.set_xlabel("measured (ncu)")
    ax.set_ylabel("simulated")
    ax.set_title(f"{c.program} [{c.size}]: counters, simulated vs measured")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
