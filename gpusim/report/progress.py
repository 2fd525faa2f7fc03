"""Rich progress bars for long runs: the emulator's and the timing model's, in one display.

``simulate(..., progress=progress_bar())`` shows the timing model's progress: its callback receives
``(cycles, blocks_done, blocks_total)`` about every 0.5 s (see
:meth:`gpusim.timing.gpu.GpuTimingModel.tick_progress`) and shows blocks done out of the total, the cycles
simulated and the simulation rate.  :func:`progress_bars` gives both callbacks of one display:
``.timing`` and ``.emulation``, which receives ``(blocks_done, blocks_total, warp_instructions)`` after every
batch of blocks and about every 0.5 s inside a long one (:class:`gpusim.functional.stream.LaunchStream`),
so a kernel that loops without end shows its warp instructions climbing while no block finishes.  Nothing
is shown when stderr is not a terminal; the display closes itself when the last block is done.
"""
from __future__ import annotations

import sys
import time


class RunProgress:
    """One rich display with a line for the emulator and one for the timing model, each added when first
    reported."""

    def __init__(self, console=None) -> None:
        from rich.console import Console
        self.console = console or Console(stderr=True)
        self._progress = None
        self._tasks: dict[str, int] = {}
        self._t0 = time.perf_counter()

    def _task(self, name: str, total: int, **fields) -> int:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        if self._progress is None:
            self._progress = Progress(TextColumn("{task.description:<10s}"), BarColumn(), MofNCompleteColumn(),
                                      TextColumn("blocks"), TextColumn("{task.fields[detail]}"),
                                      TimeElapsedColumn(), console=self.console, transient=True)
            self._progress.start()
        if name not in self._tasks:
            self._tasks[name] = self._progress.add_task(name, total=total, detail="", **fields)
        return self._tasks[name]

    def timing(self, cycles: int, done: int, total: int) -> None:
        task = self._task("simulating", total)
        rate = cycles / max(time.perf_counter() - self._t0, 1e-9)
        self._progress.update(task, completed=done, total=total, detail=f"{cycles:,} cycles ({rate:,.0f}/s)")
        if done >= total:
            self.close()

    def emulation(self, done: int, total: int, warp_instructions: int) -> None:
        task = self._task("emulating", total)
        rate = warp_instructions / max(time.perf_counter() - self._t0, 1e-9)
        self._progress.update(task, completed=done, total=total,
                              detail=f"{warp_instructions:,} warp instructions ({rate:,.0f}/s)")
        if done >= total and "simulating" not in self._tasks:
            self.close()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            self._tasks.clear()


def progress_bars(*, force: bool = False, console=None) -> RunProgress | None:
    """A :class:`RunProgress`, or None when stderr is not a terminal (unless ``force``)."""
    if not force and not sys.stderr.isatty():
        return None
    return RunProgress(console)


def progress_bar(*, force: bool = False, console=None):
    """The timing model's progress callback, or None when stderr is not a terminal (unless ``force``)."""
    bars = progress_bars(force=force, console=console)
    return None if bars is None else bars.timing
