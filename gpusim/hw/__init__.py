"""Side by side with a real GPU: run the bundled programs through CuPy, read Nsight Compute counters, keep
recorded references (``tests/golden/<gpu>/``) and compare the simulator with them.

* :mod:`gpusim.hw.runner` -- one program on the real GPU through ``cupy.RawModule``: the checked-in PTX (or
  the CUDA C through NVRTC), the launch file's seeded inputs and symbols, the same launch; outputs and kernel
  time (CUDA events, warm-up, median of repeats).
* :mod:`gpusim.hw.ncu` -- the same launches once under ``ncu`` with the metric list the simulator mirrors;
  the CSV parsed into ``{metric: value}`` per launch.
* :mod:`gpusim.hw.record` -- records (JSON + ``.npz`` of small outputs) with provenance.
* :mod:`gpusim.hw.compare` -- simulated vs measured: outputs, counters, cycles; ``validate`` over a folder
  of records (MAPE of ``gpc__cycles_elapsed.max``, Pearson correlation of log cycles, worst cases).

Nothing here imports CuPy at module level: without CuPy or a GPU the functions that need one raise
:class:`gpusim.errors.ToolMissingError`; comparing with records needs neither.
"""
from __future__ import annotations

__all__ = ["runner", "ncu", "record", "compare"]
