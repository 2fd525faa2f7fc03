"""A rich progress bar for long simulations: ``simulate(..., progress=progress_bar())``.

The callback receives ``(cycles, blocks_done, blocks_total)`` about every 0.5 s (see
:meth:`gpusim.timing.gpu.GpuTimingModel.tick_progress`) and shows blocks done out of the total, the cycles
simulated and the simulation rate. It prints nothing when stderr is not a terminal; the bar closes itself
when the last block is done.
"""
from __future__ import annotations

import sys
import time


def progress_bar(*, force: bool = False, console=None):
    """A progress callback, or None when stderr is not a terminal (unless ``force``)."""
    if not force and not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = console or Console(stderr=True)
    state = {"progress": None, "task": None, "t0": time.perf_counter()}

    def update(cycles: int, done: int, total: int) -> None:
        p = state["progress"]
        if p is None:
            p = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TextColumn("blocks"),
                         TextColumn("{task.fields[cycles]:,} cycles ({task.fields[rate]:,.0f}/s)"),
                         TimeElapsedColumn(), console=console, transient=True)
            p.start()
            state["progress"] = p
            state["task"] = p.add_task("sim", total=total, cycles=0, rate=0.0)
        rate = cycles / max(time.perf_counter() - state["t0"], 1e-9)
        p.update(state["task"], completed=done, total=total, cycles=cycles, rate=rate)
        if done >= total:
            p.stop()
            state["progress"] = None

    return update
