"""Figures tested on known inputs (labels, titles, legends, plotted values), not pixels."""
import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure

matplotlib.use("Agg")

from gpusim.analysis.timeline import Timeline  # noqa: E402
from gpusim.plots import figures  # noqa: E402
from gpusim.timing.warp_states import STALL_REASONS, StallReason  # noqa: E402

I64 = np.int64


def _arr(*v):
    return np.array(v, dtype=I64)


def tiny_timeline():
    """2 SMs, 2 warps, 100 cycles, bins of 50. Warp 0 on SM 0: long_scoreboard [0,60), selected [60,61),
    wait [61,100). Warp 1 on SM 1: barrier [20,70). Shared accesses: SM 0 at 10 (4 ways, ideal 1) and at 60
    (1 way). DRAM: channel 1 bank 2 ACT+RD (miss) at cycle 10, RD (hit) at cycle 70."""
    LS, SEL, W, B = (int(StallReason.LONG_SCOREBOARD), int(StallReason.SELECTED), int(StallReason.WAIT),
                     int(StallReason.BARRIER))
    intervals = {"warp": _arr(0, 0, 0, 1), "start": _arr(0, 60, 61, 20), "end": _arr(60, 61, 100, 70),
                 "state": _arr(LS, SEL, W, B), "pc": _arr(0, 1, 2, 0)}
    issues = {"cycle": _arr(60), "sm": _arr(0), "smsp": _arr(1), "warp": _arr(0), "pc": _arr(1)}
    shared = {"cycle": _arr(10, 60), "sm": _arr(0, 0), "warp": _arr(0, 0), "pc": _arr(1, 1), "ptx_line": _arr(5, 5),
              "ways": _arr(4, 1), "ideal": _arr(1, 1), "conflicts": _arr(3, 0)}
    global_ = {"cycle": _arr(), "sm": _arr(), "warp": _arr(), "pc": _arr(), "ptx_line": _arr(), "sectors": _arr()}
    dram = {"cycle": _arr(10, 10, 70), "ck": _arr(10, 10, 70), "channel": _arr(1, 1, 1), "bank": _arr(2, 2, 2),
            "command": _arr(0, 2, 2), "outcome": _arr(-1, 1, 0)}
    return Timeline(kernel="k", gpu="g", cycles=100, n_sm=2, n_smsp=4, max_warps_per_sm=64,
                    theoretical_warps_per_sm=48, blocks_per_sm=3, clock_mhz=1000.0, dram_channels=2, dram_banks=4,
                    dram_burst_bytes=32, dram_peak_bytes_per_cycle=64.0, intervals=intervals, issues=issues,
                    shared=shared, global_=global_, dram=dram, warp_sm=_arr(0, 1), warp_smsp=_arr(1, 0),
                    warp_block=_arr(0, 1), warp_start=_arr(0, 20), warp_end=_arr(100, 70), bin_cycles=50)


def test_tiny_timeline_series():
    tl = tiny_timeline()
    s = tl.stall_series()
    assert s["long_scoreboard"].tolist() == [1.0, 0.2]
    assert s["barrier"].tolist() == [0.6, 0.4]
    assert s["selected"].tolist() == [0.0, 0.02]
    assert tl.stall_series(sm=1)["long_scoreboard"].tolist() == [0, 0]
    assert tl.active_warps.tolist() == [[1, 1], [0.6, 0.4]]
    assert tl.resident_blocks.tolist() == [[1, 1], [0.6, 0.4]]
    assert tl.issued[0, 1].tolist() == [0, 1]
    assert tl.shared_conflicts.tolist() == [[3, 0], [0, 0]]
    assert tl.dram_bytes.tolist() == [[0, 0], [32, 32]]


def test_stall_timeline_figure():
    tl = tiny_timeline()
    fig = figures.stall_timeline(tl)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert "k on g" in ax.get_title() and "whole GPU" in ax.get_title()
    assert "cycles" in ax.get_xlabel() and "warps" in ax.get_ylabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["selected", "long_scoreboard", "wait", "barrier"]     # nonzero states, canonical order
    # the top of the stack is the number of resident warps per bin
    top = ax.collections[-1].get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(tl.active_warps.sum(axis=0).max())
    fig1 = figures.stall_timeline(tl, sm=1)
    assert "SM 1" in fig1.axes[0].get_title()
    assert [t.get_text() for t in fig1.axes[0].get_legend().get_texts()] == ["barrier"]


def test_bank_conflicts_figure():
    tl = tiny_timeline()
    fig = figures.bank_conflicts(tl)
    ax, cbar, ax2 = fig.axes[0], fig.axes[-1], fig.axes[1]
    assert "bank conflicts" in ax.get_title().lower() and "k on g" in ax.get_title()
    off = ax.collections[0].get_offsets()
    assert off[:, 0].tolist() == [10, 60] and off[:, 1].tolist() == [0, 0]
    assert ax.collections[0].get_array().tolist() == [4, 1]
    lines = {l.get_label(): l.get_ydata().tolist() for l in ax2.get_lines()}
    assert lines["bank conflicts (excessive wavefronts)"] == [3, 0]
    assert any("3 conflicts" in t.get_text() for t in ax2.texts)
    assert "wavefronts" in cbar.get_ylabel()


def test_dram_figure():
    tl = tiny_timeline()
    fig = figures.dram_activity(tl)
    assert "DRAM activity: k on g" == fig._suptitle.get_text()
    heat, bank, hit, bw = fig.axes[:4]
    assert heat.get_ylabel() == "channel" and "time" in heat.get_xlabel()
    data = np.ma.filled(np.ma.masked_invalid(heat.get_images()[0].get_array()), 0)
    assert data.tolist() == [[0, 0], [32, 32]]
    assert np.ma.filled(bank.get_images()[0].get_array(), 0)[1, 2] == 2
    rate = [l for l in hit.get_lines() if l.get_label() == "row-hit rate"][0].get_ydata()
    assert rate.tolist() == [0.0, 100.0]
    ach = [l for l in bw.get_lines() if l.get_label() == "achieved"][0].get_ydata()
    assert ach.tolist() == pytest.approx([32 / 50 * 1e9 / 1e9, 32 / 50])    # bytes/cycle x 1 GHz -> GB/s
    peak = [l for l in bw.get_lines() if l.get_label().startswith("peak")][0]
    assert peak.get_ydata()[0] == pytest.approx(64.0)
    assert bw.get_ylabel() == "bandwidth (GB/s)"


def test_occupancy_figure():
    tl = tiny_timeline()
    fig = figures.occupancy_timeline(tl)
    aw, ab = fig.axes
    assert "Occupancy over time: k on g" == aw.get_title()
    mean = [l for l in aw.get_lines() if l.get_label().startswith("mean")][0]
    assert mean.get_ydata().tolist() == [0.8, 0.7]
    limit = [l for l in aw.get_lines() if l.get_label().startswith("theoretical")][0]
    assert limit.get_ydata()[0] == 48
    blim = [l for l in ab.get_lines() if l.get_label().startswith("theoretical")][0]
    assert blim.get_ydata()[0] == 3
    assert "warps" in aw.get_ylabel() and "blocks" in ab.get_ylabel() and "cycles" in ab.get_xlabel()


def test_source_view_figure():
    from gpusim.analysis.source import SourceLine
    st = np.zeros(len(STALL_REASONS), dtype=np.int64)
    a, b = st.copy(), st.copy()
    a[int(StallReason.LONG_SCOREBOARD)], a[0] = 90, 10
    b[int(StallReason.BARRIER)] = 40
    rows = [SourceLine("L10", 10, None, "ld.global.f32", [0], 4, 128, a),
            SourceLine("L12", 12, None, "bar.sync", [1], 4, 128, b),
            SourceLine("L13", 13, None, "ret", [2], 4, 128, st)]
    fig = figures.source_view(rows, kernel="k", gpu="g")
    ax = fig.axes[0]
    assert [t.get_text().split()[0] for t in ax.get_yticklabels()] == ["L10", "L12"]     # zero rows dropped
    assert "PTX line" in ax.get_ylabel() and "k on g" in ax.get_title()
    widths = {c.get_label(): [p.get_width() for p in c.patches] for c in ax.containers}
    assert widths["long_scoreboard"] == [90, 0] and widths["barrier"] == [0, 40] and widths["selected"] == [10, 0]
    fig2 = figures.source_view(rows, kernel="k", gpu="g", top=1, by="cuda")
    assert len(fig2.axes[0].get_yticklabels()) == 1 and "CUDA" in fig2.axes[0].get_title()


def test_roofline_figure():
    from gpusim.analysis.roofline import RooflinePoint
    p = RooflinePoint(kernel="k", gpu="g", flops=1e9, flops_f64=0, dram_bytes=1e8, seconds=1e-3,
                      peak_flops_per_s=1e13, peak_flops_f64_per_s=5e12, peak_dram_bytes_per_s=1e12)
    fig = figures.roofline(p)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "FLOP" in ax.get_xlabel() and "GFLOP/s" in ax.get_ylabel() and "k on g" in ax.get_title()
    pt = ax.collections[0].get_offsets()[0]
    assert pt[0] == pytest.approx(10.0) and pt[1] == pytest.approx(1e9 / 1e-3 / 1e9)
    roof = ax.get_lines()[0].get_ydata()
    assert roof.max() == pytest.approx(1e4)                   # 10 TFLOP/s in GFLOP/s
    assert p.ridge_point == 10.0 and p.bound == "latency"      # 10% of both roofs
    assert "latency-bound" in ax.collections[0].get_label()


def test_result_plots_all_figures(transpose_run, tmp_path):
    paths = transpose_run.plot.save_all(tmp_path)
    assert {p.stem.split("transpose_smem_")[1] for p in paths} == {"stalls", "bank_conflicts", "dram", "occupancy",
                                                                   "source", "source_cuda", "roofline"}
    assert all(p.stat().st_size > 10_000 for p in paths)
    fig = transpose_run.plot.stalls(sm=0, bin_cycles=100)
    assert "SM 0" in fig.axes[0].get_title() and "bins of 100" in fig.axes[0].get_xlabel()
    assert "transpose_smem on h100" in transpose_run.plot.roofline().axes[0].get_title()


def test_figures_mark_the_launch_overhead():
    """Before the first warp is resident (the kernel launch) every time axis is empty: each figure shades it
    and names it."""
    import dataclasses
    tl = dataclasses.replace(tiny_timeline(), warp_start=_arr(30, 20))
    assert tl.launch_cycles == 20
    for fig in (figures.stall_timeline(tl), figures.occupancy_timeline(tl), figures.dram_activity(tl),
                figures.bank_conflicts(tl)):
        spans = [p for ax in fig.axes for p in ax.patches
                 if p.get_label().lstrip("_").startswith("launch overhead (20 cycles")]
        assert spans, fig.axes[0].get_title()
        x0, x1 = spans[0].get_x(), spans[0].get_x() + spans[0].get_width()
        assert (x0, x1) == (0, 20)
        legends = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
        assert any(t.startswith("launch overhead (20 cycles, 20%)") for t in legends)
    assert not any("launch" in p.get_label() for ax in figures.stall_timeline(tiny_timeline()).axes
                   for p in ax.patches)                      # a warp resident at cycle 0: nothing to mark
