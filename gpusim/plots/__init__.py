"""Figures of a run (matplotlib): ``res.plot.stalls()``, ``res.plot.bank_conflicts()``, ``res.plot.dram()``,
``res.plot.occupancy()``, ``res.plot.source()``, ``res.plot.roofline()``, each returning a
:class:`matplotlib.figure.Figure`; :meth:`ResultPlots.save_all` writes them all (PNG or SVG).

The figure functions themselves (:mod:`gpusim.plots.figures`) take plain data, so they can be tested and
reused without a simulation.
"""
from __future__ import annotations

from pathlib import Path

from gpusim.plots import figures
from gpusim.plots.figures import (STATE_COLORS, bank_conflicts, dram_activity, occupancy_timeline, roofline,
                                  source_view, stall_timeline)

__all__ = ["ResultPlots", "STATE_COLORS", "stall_timeline", "bank_conflicts", "dram_activity",
           "occupancy_timeline", "source_view", "roofline", "FIGURES"]

FIGURES = ("stalls", "bank_conflicts", "dram", "occupancy", "source", "source_cuda", "roofline")


class ResultPlots:
    """The figures of one timing-mode :class:`gpusim.api.RunResult` (the timeline is collected on first
    use if the run did not record it)."""

    def __init__(self, result) -> None:
        if result.timing is None:
            from gpusim.errors import GpusimError
            raise GpusimError("plots need timing mode: run with mode='timing'")
        self.result = result

    @property
    def _tl(self):
        return self.result.timeline

    def _gpu(self):
        g = self.result.gpu
        if isinstance(g, str):
            from gpusim.config import load_gpu
            g = load_gpu(g)
        return g

    def stalls(self, sm: int | None = None, *, bin_cycles: int | None = None, states=None):
        """Stacked warp states over time (whole GPU, or SM ``sm``)."""
        tl = self._tl if bin_cycles is None else self._tl.rebin(bin_cycles)
        return stall_timeline(tl, sm=sm, states=states)

    def bank_conflicts(self, *, bin_cycles: int | None = None):
        tl = self._tl if bin_cycles is None else self._tl.rebin(bin_cycles)
        return bank_conflicts(tl)

    def dram(self, *, bin_cycles: int | None = None):
        tl = self._tl if bin_cycles is None else self._tl.rebin(bin_cycles)
        return dram_activity(tl)

    def occupancy(self, *, bin_cycles: int | None = None):
        tl = self._tl if bin_cycles is None else self._tl.rebin(bin_cycles)
        return occupancy_timeline(tl)

    def source(self, by: str = "ptx", *, top: int = 25, include_selected: bool = True):
        """Stall cycles per PTX line (``by="ptx"``) or per CUDA line (``by="cuda"``, needs ``.loc`` info)."""
        from gpusim.analysis.source import source_table
        r = self.result
        rows = source_table(r.trace, r.timing, by=by)
        return source_view(rows, kernel=r.kernel, gpu=r.timing.gpu, by=by, top=top,
                           include_selected=include_selected)

    def roofline(self):
        from gpusim.analysis.roofline import roofline_point
        r = self.result
        return roofline(roofline_point(r.trace, r.timing, self._gpu()))

    def save_all(self, directory, *, fmt: str = "png", dpi: int = 120) -> list[Path]:
        """Write every figure to ``directory`` as ``<kernel>_<figure>.<fmt>``; returns the paths."""
        from gpusim.analysis.source import has_line_info
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        out = []
        makers = {"stalls": self.stalls, "bank_conflicts": self.bank_conflicts, "dram": self.dram,
                  "occupancy": self.occupancy, "source": self.source, "roofline": self.roofline}
        if has_line_info(self.result.trace):
            makers["source_cuda"] = lambda: self.source("cuda")
        for name, make in makers.items():
            fig = make()
            p = d / f"{self.result.kernel}_{name}.{fmt}"
            fig.savefig(p, dpi=dpi)
            out.append(p)
        return out
