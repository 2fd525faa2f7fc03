"""The checker: finds the bugs a GPU hides (races, barrier misuse, uninitialised reads, bad addresses) while
the emulator runs a launch, with the tools compute-sanitizer users know.

    res = gpusim.run("kernel.cu", sanitize="all")          # or "racecheck", ["initcheck", "memcheck"]
    print(res.sanitizer.format())                           # a CheckReport; .findings, .ok, .errors
    res = gpusim.run("kernel.cu", sanitize=True, schedule="random", schedule_seed=3)
    res.sanitizer.outputs_changed                           # the outputs that differ from the lockstep order

    gpusim check kernel.cu [--tool racecheck|initcheck|synccheck|memcheck|all] [--schedule reversed]

The tools (each module's docstring says exactly what it reports and why):

* :mod:`~gpusim.check.racecheck`: shared-memory hazards between threads of a block (RAW, WAR, WAW), with
  both accesses' lines; the same for global memory within a block and across blocks; hazards between lanes
  of one warp without ``__syncwarp()`` (warnings, as compute-sanitizer gives them).
* :mod:`~gpusim.check.initcheck`: reads of shared, local and global memory that nothing wrote.
* :mod:`~gpusim.check.synccheck`: barriers in divergent code or completed without exited threads, barrier
  deadlocks, member masks of ``__syncwarp``/``__shfl_*_sync``/``__ballot_sync`` that do not fit the lanes.
* :mod:`~gpusim.check.memcheck`: out-of-bounds (of the allocation, the space, and the variable the address
  came from) and misaligned accesses, use of a freed buffer.

How it attaches to the emulator: :mod:`~gpusim.check.checker`; shadow memory: :mod:`~gpusim.check.shadow`;
findings and their printing: :mod:`~gpusim.check.report`; the variables' extents and the address
provenance: :mod:`~gpusim.check.symbols`.  The warp schedules (``lockstep``, ``reversed``, ``random``):
:mod:`gpusim.functional.schedule`.

What gpusim finds beyond compute-sanitizer, measured on the bug corpus: ``programs/bugs/README.md``.
"""
from __future__ import annotations

import numpy as np

from gpusim.check.checker import Checker
from gpusim.check.report import TOOLS, Access, CheckReport, Finding
from gpusim.errors import BarrierDeadlockError, BudgetExceededError, IllegalAddressError, LaunchError
from gpusim.functional.schedule import Lockstep, schedule as make_schedule

__all__ = ["check_launch", "tools_of", "Checker", "CheckReport", "Finding", "Access", "TOOLS"]


def tools_of(sanitize) -> tuple[str, ...]:
    """The tools ``sanitize=`` names: True or "all" (every tool), a name, "a,b", or a list of names."""
    if sanitize is True or sanitize == "all":
        return TOOLS
    names = sanitize.split(",") if isinstance(sanitize, str) else list(sanitize)
    names = [n.strip() for n in names if n and n.strip()]
    if "all" in names:
        return TOOLS
    bad = [n for n in names if n not in TOOLS]
    if bad or not names:
        raise LaunchError(f"sanitize: unknown tool {bad[0] if bad else sanitize!r}; the tools: "
                          f"{', '.join(TOOLS)} (or 'all')")
    return tuple(t for t in TOOLS if t in names)


def check_launch(emulator, kernel: str, grid, block, args: list, *, symbols=None, shared_mem: int = 0,
                 tools=TOOLS, schedule=None, schedule_seed: int = 0, host: dict | None = None,
                 global_races: str = "block", arg_names: list[str] | None = None):
    """Run one launch under the checker: ``(LaunchOutput or None when it did not complete, CheckReport)``.

    Under a schedule other than lockstep the launch is also run in the lockstep order (same poison fills,
    no tools) and the report lists the outputs that differ (``report.outputs_changed``)."""
    sched = make_schedule(schedule, schedule_seed)
    checker = Checker(tools, host, global_races, arg_names)
    kw = dict(symbols=symbols, shared_mem=shared_mem)
    out, stopped = None, None
    try:
        out = emulator.launch(kernel, grid, block, args, schedule=sched, checker=checker, **kw)
    except BarrierDeadlockError as e:
        checker.deadlock(e)
        stopped = str(e).partition("\n")[0]
    except (IllegalAddressError, BudgetExceededError) as e:
        stopped = str(e).partition("\n")[0]
    report = checker.report(str(sched), out is not None, stopped)
    if out is not None and not isinstance(sched, Lockstep):
        try:
            ref = emulator.launch(kernel, grid, block, args, schedule=Lockstep(), checker=Checker((), host), **kw)
        except (BarrierDeadlockError, IllegalAddressError, BudgetExceededError) as e:
            report.outputs_changed = [f"the lockstep run did not complete ({str(e).partition(chr(10))[0]})"]
        else:
            report.outputs_changed = changed_outputs(ref, out, arg_names, str(sched))
    return out, report


def changed_outputs(ref, out, arg_names: list[str] | None, schedule: str) -> list[str]:
    """One line per output (array argument or module variable) whose bits differ between two launches."""
    lines = []
    for i, (a, b) in enumerate(zip(ref.args, out.args)):
        if isinstance(a, np.ndarray):
            name = f"{arg_names[i]} (arg {i})" if arg_names and i < len(arg_names) else f"arg {i}"
            lines += _differ(name, a, b, schedule)
    for n in ref.symbols:
        lines += _differ(f"symbol {n}", ref.symbols[n], out.symbols.get(n), schedule)
    return lines


def _differ(name: str, a: np.ndarray, b: np.ndarray | None, schedule: str) -> list[str]:
    if b is None:
        return []
    fa, fb = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    ba, bb = fa.view(np.uint8).reshape(fa.size, -1), fb.view(np.uint8).reshape(fb.size, -1)
    diff = np.flatnonzero((ba != bb).any(axis=1))
    if diff.size == 0:
        return []
    j = int(diff[0])
    at = np.unravel_index(j, a.shape) if a.ndim > 1 else j
    return [f"{name}: {diff.size:,} of {fa.size:,} elements differ (first at [{at}]: {fa[j].item()!r} in the "
            f"lockstep order, {fb[j].item()!r} under {schedule})"]
