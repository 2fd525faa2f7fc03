"""The figures. Each function takes plain data (a :class:`~gpusim.analysis.timeline.Timeline`, source rows, a
roofline point) and returns a :class:`matplotlib.figure.Figure` built without pyplot, so nothing is shown
or kept alive behind the caller's back (in a notebook the returned figure displays itself; in a script call
``fig.savefig(path)``).

Every figure has a title naming the kernel and the GPU, axis labels with units, and a legend or colour bar.
"""
from __future__ import annotations

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from gpusim.memory.dram import Command, RowOutcome
from gpusim.timing.warp_states import STALL_REASONS

# One colour per warp state, stable across figures (tab20 order, the issuing states first).
_PALETTE = ["#2ca02c", "#98df8a", "#d62728", "#ff9896", "#1f77b4", "#9467bd", "#ff7f0e", "#ffbb78",
            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#c49c94", "#f7b6d2"]
STATE_COLORS = {r: _PALETTE[i % len(_PALETTE)] for i, r in enumerate(STALL_REASONS)}


def _title(what: str, kernel: str, gpu: str, extra: str = "") -> str:
    return f"{what}: {kernel} on {gpu}" + (f" ({extra})" if extra else "")


def _bin_mid(tl) -> np.ndarray:
    return tl.bin_start + tl.bin_width / 2.0


LAUNCH_COLOR = "0.88"


def _mark_launch(ax, tl, *, legend: bool = True, text: bool = True) -> None:
    """Shade the launch overhead (cycle 0 until the first warp is resident), where every time axis is
    empty, and say what it is."""
    launch = tl.launch_cycles
    if launch <= 0:
        return
    label = f"launch overhead ({launch:,} cycles, {100 * launch / max(tl.cycles, 1):.0f}%)"
    ax.axvspan(0, launch, color=LAUNCH_COLOR, zorder=0, lw=0, label=label if legend else "_" + label)
    if text:
        ax.text(launch / 2, 0.5, "kernel launch:\nno block resident yet", transform=ax.get_xaxis_transform(),
                ha="center", va="center", fontsize="small", color="0.35", rotation=90 if launch < tl.cycles / 8 else 0,
                clip_on=True)


# -- 1. warp states over time ---------------------------------------------------------------------------
def stall_timeline(tl, *, sm: int | None = None, states=None, figsize=(10, 5)) -> Figure:
    """Stacked area of the average number of warps in each state per time bin, for the GPU or one SM."""
    series = tl.stall_series(sm)
    names = [s for s in (states or STALL_REASONS) if series[s].any()]
    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.add_subplot()
    x = _bin_mid(tl)
    if names:
        ax.stackplot(x, [series[s] for s in names], labels=names, colors=[STATE_COLORS[s] for s in names],
                     step=None, linewidth=0)
    else:
        ax.text(0.5, 0.5, "no resident warps", transform=ax.transAxes, ha="center")
    ax.set_xlabel(f"time (SM cycles; bins of {tl.bin_cycles:,})")
    ax.set_ylabel("warps (average per bin)")
    ax.set_xlim(0, max(tl.cycles, 1))
    ax.margins(y=0.02)
    _mark_launch(ax, tl)
    where = "whole GPU" if sm is None else f"SM {sm}"
    ax.set_title(_title("Warp states over time", tl.kernel, tl.gpu, where))
    if names or tl.launch_cycles:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="warp state", fontsize="small")
    return fig


# -- 2. bank conflicts ------------------------------------------------------------------------------------
def bank_conflicts(tl, *, max_points: int = 50_000, figsize=(10, 6)) -> Figure:
    """Each shared access as a point (time, SM) coloured by its wavefronts (conflict degree), and the
    excessive wavefronts (bank conflicts) per time bin with the totals."""
    s = tl.shared
    fig = Figure(figsize=figsize, layout="constrained")
    ax, ax2 = fig.subplots(2, 1, sharex=True, height_ratios=[2, 1])
    n = s["cycle"].size
    if n:
        idx = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).astype(np.int64)
        ways = s["ways"][idx]
        sc = ax.scatter(s["cycle"][idx], s["sm"][idx], c=ways, cmap="viridis", s=6, marker="s",
                        vmin=1, vmax=max(2, int(s["ways"].max())))
        cb = fig.colorbar(sc, ax=ax)
        cb.set_label("wavefronts per request (ways)")
    else:
        ax.text(0.5, 0.5, "no shared-memory accesses", transform=ax.transAxes, ha="center")
    ax.set_ylabel("SM")
    ax.set_title(_title("Shared-memory bank conflicts", tl.kernel, tl.gpu,
                        "sampled" if n > max_points else ""))
    x = _bin_mid(tl)
    ax2.plot(x, tl.shared_conflicts.sum(axis=0), color="#d62728", label="bank conflicts (excessive wavefronts)")
    ax2.plot(x, tl.shared_wavefronts.sum(axis=0), color="#1f77b4", alpha=0.6, label="wavefronts")
    ax2.set_xlabel(f"time (SM cycles; bins of {tl.bin_cycles:,})")
    ax2.set_ylabel("wavefronts per bin")
    ax2.set_xlim(0, max(tl.cycles, 1))
    _mark_launch(ax, tl, legend=False)
    _mark_launch(ax2, tl, text=False)
    ax2.legend(loc="upper right", fontsize="small")
    total, ideal = int(s["ways"].sum()), int(s["ideal"].sum())
    mean = total / n if n else 0.0
    ax2.text(0.01, 0.95, f"{n:,} requests, {total:,} wavefronts (ideal {ideal:,}), {total - ideal:,} conflicts, "
             f"{mean:.2f} ways on average", transform=ax2.transAxes, va="top", fontsize="small",
             bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
    return fig


# -- 3. DRAM ---------------------------------------------------------------------------------------------------
def dram_activity(tl, *, figsize=(11, 8)) -> Figure:
    """Per-channel bytes over time (heat map), commands per channel and bank (heat map), row-hit rate over
    time, and the achieved bandwidth against the peak."""
    d = tl.dram
    fig = Figure(figsize=figsize, layout="constrained")
    (a_heat, a_bank), (a_hit, a_bw) = fig.subplots(2, 2)
    fig.suptitle(_title("DRAM activity", tl.kernel, tl.gpu))
    ext = (0, tl.n_bins * tl.bin_cycles, -0.5, tl.dram_channels - 0.5)
    b = tl.dram_bytes.astype(np.float64)
    im = a_heat.imshow(np.where(b > 0, b, np.nan), aspect="auto", origin="lower", extent=ext, cmap="magma",
                       interpolation="nearest")
    fig.colorbar(im, ax=a_heat).set_label("bytes per bin")
    a_heat.set_xlabel("time (SM cycles)")
    a_heat.set_ylabel("channel")
    a_heat.set_title("bytes per channel over time")
    col = d["command"] >= Command.RD          # column commands: one burst each
    bank_tab = np.zeros((tl.dram_channels, max(tl.dram_banks, 1)))
    np.add.at(bank_tab, (d["channel"][col], d["bank"][col]), 1)
    im2 = a_bank.imshow(np.where(bank_tab > 0, bank_tab, np.nan), aspect="auto", origin="lower", cmap="viridis",
                        interpolation="nearest")
    fig.colorbar(im2, ax=a_bank).set_label("bursts (RD+WR)")
    a_bank.set_xlabel("bank")
    a_bank.set_ylabel("channel")
    a_bank.set_title("bursts per channel and bank")
    x = _bin_mid(tl)
    q = np.clip(d["cycle"] // tl.bin_cycles, 0, tl.n_bins - 1)
    counts = np.zeros((3, tl.n_bins))
    for k in RowOutcome:
        sel = col & (d["outcome"] == k)
        np.add.at(counts[k], q[sel], 1)
    tot = counts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(tot > 0, 100.0 * counts[RowOutcome.HIT] / tot, np.nan)
    a_hit.plot(x, rate, marker=".", color="#2ca02c", label="row-hit rate")
    all_hit = 100.0 * counts[RowOutcome.HIT].sum() / tot.sum() if tot.sum() else 0.0
    a_hit.axhline(all_hit, color="gray", ls="--", label=f"kernel: {all_hit:.1f}%")
    a_hit.set_ylim(-2, 102)
    a_hit.set_xlabel("time (SM cycles)")
    a_hit.set_ylabel("row-buffer hits (% of bursts)")
    a_hit.set_title("row-hit rate")
    a_hit.legend(loc="lower right", fontsize="small")
    gbs = tl.dram_bandwidth() * tl.clock_mhz * 1e6 / 1e9
    peak = tl.dram_peak_bytes_per_cycle * tl.clock_mhz * 1e6 / 1e9
    a_bw.plot(x, gbs, color="#1f77b4", label="achieved")
    a_bw.axhline(peak, color="#d62728", ls="--", label=f"peak {peak:,.0f} GB/s")
    a_bw.set_xlabel("time (SM cycles)")
    a_bw.set_ylabel("bandwidth (GB/s)")
    a_bw.set_title("DRAM bandwidth")
    a_bw.legend(loc="center right", fontsize="small")
    for a in (a_heat, a_hit, a_bw):
        a.set_xlim(0, max(tl.cycles, 1))
    _mark_launch(a_hit, tl, legend=False, text=False)
    _mark_launch(a_bw, tl, text=False)
    a_bw.legend(loc="upper right", fontsize="small")
    a_heat.axvline(tl.launch_cycles, color="0.5", ls=":", lw=1)
    return fig


# -- 4. occupancy ---------------------------------------------------------------------------------------------
def occupancy_timeline(tl, *, figsize=(10, 6)) -> Figure:
    """Resident warps and blocks per SM over time (mean over the SMs that ran blocks, with the min-max
    band) against the theoretical limits."""
    fig = Figure(figsize=figsize, layout="constrained")
    aw, ab = fig.subplots(2, 1, sharex=True)
    x = _bin_mid(tl)
    used = np.unique(tl.warp_sm[tl.warp_start >= 0])
    for ax, data, limit, what in ((aw, tl.active_warps, tl.theoretical_warps_per_sm, "warps"),
                                  (ab, tl.resident_blocks, tl.blocks_per_sm, "blocks")):
        d = data[used] if used.size else np.zeros((1, tl.n_bins))
        ax.fill_between(x, d.min(axis=0), d.max(axis=0), color="#1f77b4", alpha=0.25, label="min-max over SMs")
        ax.plot(x, d.mean(axis=0), color="#1f77b4", label=f"mean over {used.size} SMs with blocks")
        ax.axhline(limit, color="#d62728", ls="--", label=f"theoretical limit ({limit})")
        ax.set_ylabel(f"resident {what} per SM")
        ax.set_ylim(0, max(limit, float(d.max()) if d.size else 0) * 1.1 + 0.5)
        ax.legend(loc="upper right", fontsize="small")
    aw.axhline(tl.max_warps_per_sm, color="gray", ls=":", label=f"hardware max ({tl.max_warps_per_sm})")
    aw.legend(loc="upper right", fontsize="small")
    ab.set_xlabel(f"time (SM cycles; bins of {tl.bin_cycles:,})")
    ab.set_xlim(0, max(tl.cycles, 1))
    _mark_launch(aw, tl)
    _mark_launch(ab, tl, legend=False, text=False)
    aw.legend(loc="upper right", fontsize="small")
    aw.set_title(_title("Occupancy over time", tl.kernel, tl.gpu))
    return fig


# -- 5. source view -------------------------------------------------------------------------------------------
def source_view(rows, *, kernel: str, gpu: str, by: str = "ptx", top: int = 25, include_selected: bool = True,
                figsize=None) -> Figure:
    """Horizontal stacked bars: warp-cycles by state for each source line (the ``top`` lines with the most
    cycles, in source order)."""
    rows = [r for r in rows if r.stall_cycles]
    if len(rows) > top:
        keep = set(id(r) for r in sorted(rows, key=lambda r: -r.stall_cycles)[:top])
        rows = [r for r in rows if id(r) in keep]
    states = [s for i, s in enumerate(STALL_REASONS)
              if (include_selected or s != "selected") and any(r.stalls[i] for r in rows)]
    fig = Figure(figsize=figsize or (12, 2.0 + 0.32 * max(len(rows), 1)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    left = np.zeros(len(rows))
    for s in states:
        i = STALL_REASONS.index(s)
        v = np.array([r.stalls[i] for r in rows], dtype=np.float64)
        ax.barh(y, v, left=left, color=STATE_COLORS[s], label=s, height=0.8)
        left += v
    labels = []
    for r in rows:
        t = r.text if len(r.text) <= 48 else r.text[:45] + "..."
        labels.append(f"{r.key}  {t}")
    ax.set_yticks(y, labels, fontsize="small", family="monospace")
    ax.invert_yaxis()
    ax.set_xlabel("warp-cycles charged to the line (warps waiting to issue it)")
    ax.set_ylabel("PTX line" if by == "ptx" else "CUDA line")
    ax.set_title(_title(f"Stall cycles per {'PTX' if by == 'ptx' else 'CUDA'} line", kernel, gpu,
                        f"top {len(rows)}"))
    if states:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", title="warp state")
    return fig


# -- 6. roofline ------------------------------------------------------------------------------------------------
def roofline(point, *, figsize=(8, 5.5)) -> Figure:
    """Log-log roofline of the GPU (FP32 and FP64 compute roofs, DRAM bandwidth slope) with the kernel's
    point (arithmetic intensity, achieved FLOP/s)."""
    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.add_subplot()
    p = point
    ai = p.arithmetic_intensity
    lo = min(0.01, ai / 10 if np.isfinite(ai) and ai > 0 else 0.01)
    hi = max(1e4, ai * 10 if np.isfinite(ai) else 1e4)
    xs = np.logspace(np.log10(lo), np.log10(hi), 200)
    g = 1e9
    ax.plot(xs, np.minimum(p.peak_flops_per_s, xs * p.peak_dram_bytes_per_s) / g, color="black",
            label=f"FP32 roof {p.peak_flops_per_s / 1e12:,.1f} TFLOP/s, DRAM {p.peak_dram_bytes_per_s / 1e9:,.0f} GB/s")
    ax.plot(xs, np.minimum(p.peak_flops_f64_per_s, xs * p.peak_dram_bytes_per_s) / g, color="gray", ls="--",
            label=f"FP64 roof {p.peak_flops_f64_per_s / 1e12:,.1f} TFLOP/s")
    if p.flops and np.isfinite(ai):
        ax.scatter([ai], [p.flops_per_s / g], s=80, color="#d62728", zorder=3,
                   label=f"{p.kernel}: {ai:.2f} FLOP/B, {p.flops_per_s / g:,.1f} GFLOP/s ({p.bound}-bound: "
                         f"{100 * p.compute_fraction:.2g}% of FP32 peak, {100 * p.bandwidth_fraction:.2g}% of DRAM BW)")
        ax.axvline(p.ridge_point, color="#1f77b4", ls=":", label=f"ridge point {p.ridge_point:.1f} FLOP/B")
    else:
        why = "no floating-point work" if not p.flops else "no DRAM traffic (intensity infinite)"
        ax.text(0.5, 0.1, f"kernel point not shown: {why}", transform=ax.transAxes, ha="center")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
    ax.set_ylabel("performance (GFLOP/s)")
    ax.set_title(_title("Roofline", p.kernel, p.gpu))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    return fig


__all__ = ["stall_timeline", "bank_conflicts", "dram_activity", "occupancy_timeline", "source_view", "roofline",
           "STATE_COLORS", "LogNorm"]
