"""The public Python API: :func:`run` a kernel in emulate or timing mode.

``gpusim.run(source, kernel=..., grid=..., block=..., args=[...], mode="emulate")`` where ``source`` is a
path to a ``.ptx``/``.cu`` file or PTX text.  For a bundled program (``programs/``) every launch parameter
not given comes from its manifest (``size=`` picks one of its named sizes).  The result keeps the
arguments after the launch (arrays come back as new arrays: the caller's are untouched), the module
variables (``symbols``), emulation statistics, and in timing mode the timing result and its counters.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpusim.errors import GpusimError, LaunchError
from gpusim.functional.emulator import DEFAULT_BUDGET, EmulationStats, Emulator
from gpusim.functional.trace import KernelTrace
from isa.parser import load_ptx, parse_ptx
from isa.program import Module

MODES = ("emulate", "timing")


@dataclass
class RunResult:
    """What :func:`run` returns. ``timing`` is set in timing mode (see :mod:`gpusim.timing`)."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_mem: int
    args: list
    symbols: dict[str, np.ndarray]
    stats: EmulationStats
    mode: str
    source: str
    program: object = None          # programs.ProgramSpec for bundled programs
    size: str | None = None
    trace: KernelTrace | None = None
    timing: object = None           # gpusim.timing.TimingResult
    check: object = None            # programs CheckResult when check=True
    gpu: object = None
    inputs: list | None = None      # the arguments as passed in (for references)
    _timeline: object = field(default=None, repr=False)   # gpusim.stats.timeline.Timeline, see .timeline

    @property
    def timeline(self):
        """The :class:`gpusim.stats.timeline.Timeline` (timing mode): collected during the run with
        ``run(..., timeline=True)``, else by simulating the trace again with the collector attached."""
        if self.timing is None:
            raise GpusimError("timelines are recorded in timing mode: run with mode='timing'")
        if self._timeline is None:
            from gpusim.stats.timeline import collect_timeline
            _, self._timeline = collect_timeline(self.trace, self.gpu, scheduler=self.timing.scheduler,
                                                regs_per_thread=self.timing.regs_per_thread)
        return self._timeline

    @property
    def plot(self):
        """Figures of this run: ``res.plot.stalls()``, ``.bank_conflicts()``, ``.dram()``, ``.occupancy()``,
        ``.source()``, ``.roofline()`` (see :mod:`gpusim.plots`)."""
        from gpusim.plots import ResultPlots
        return ResultPlots(self)

    @property
    def counters(self) -> dict:
        if self.timing is None:
            raise GpusimError("counters are computed in timing mode: run with mode='timing'")
        return self.timing.counters

    @property
    def stalls(self) -> dict:
        if self.timing is None:
            raise GpusimError("stall reasons are computed in timing mode: run with mode='timing'")
        return self.timing.stalls

    @property
    def cycles(self) -> int:
        if self.timing is None:
            raise GpusimError("cycles are computed in timing mode: run with mode='timing'")
        return self.timing.cycles

    def summary(self) -> str:
        s = self.stats
        lines = [f"kernel {self.kernel}  grid {self.grid}  block {self.block}  mode {self.mode}",
                 f"  warp instructions {s.warp_instructions:,}  thread instructions {s.thread_instructions:,}  "
                 f"({s.thread_instructions / max(s.warp_instructions, 1):.1f} active threads per warp "
                 f"instruction)",
                 f"  branches {s.branches:,} (divergent {s.divergent_branches:,})  barriers {s.barriers:,}  "
                 f"emulated in {s.wall_seconds:.2f} s ({s.warp_instructions_per_second / 1e6:.2f} M warp-instr/s)"]
        if self.check is not None:
            lines.append(f"  check: {'OK' if self.check.ok else 'FAILED'}  {self.check.message}")
        if self.timing is not None:
            lines.append(self.timing.summary())
        return "\n".join(lines)


def load_module(source: str | Path, *, line_info: bool = True) -> tuple[Module, object]:
    """Resolve a source (``.ptx`` path, ``.cu`` path, or PTX text) to a parsed module and its program spec."""
    spec = None
    text = source if isinstance(source, str) else None
    if isinstance(source, Path) or (isinstance(source, str) and ".entry" not in source and "\n" not in source):
        path = Path(source)
        spec = _find_program(path)
        if path.suffix == ".cu":
            if spec is not None and spec.ptx_path is not None and Path(spec.ptx_path).exists() and \
                    (not path.exists() or _same_file(path, spec.cu_path)):
                return load_ptx(spec.ptx_path), spec
            if not path.exists():
                raise GpusimError(f"{path}: no such file")
            from gpusim.cuda import compile_cuda
            compiled = compile_cuda(path, line_info=line_info)
            return parse_ptx(compiled.ptx, path.name), spec
        if path.suffix == ".ptx" or path.exists():
            if not path.exists() and spec is not None and spec.ptx_path is not None:
                path = Path(spec.ptx_path)
            return load_ptx(path), spec
        if spec is not None and spec.ptx_path is not None:
            return load_ptx(spec.ptx_path), spec
        raise GpusimError(f"{source}: no such file (expected a .ptx or .cu file, a bundled program name, "
                          f"or PTX text)")
    if text is None:
        raise GpusimError(f"source must be a path or PTX text, not {type(source).__name__}")
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]
    return parse_ptx(text, f"<ptx {digest}>"), None


def _same_file(a: Path, b) -> bool:
    try:
        return b is not None and Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _find_program(path: Path):
    """The bundled program a path names: the bundled file itself, or a bare program name (``matmul_tiled``).
    A user's own file that merely shares a name with a bundled one is not given its manifest."""
    try:
        import programs
    except ImportError:
        return None
    try:
        spec = programs.find(path)
    except Exception:  # noqa: BLE001 - an unknown path is simply not a bundled program
        return None
    if spec is None:
        return None
    if not path.exists():
        return spec
    bundled = [p for p in (spec.cu_path, spec.ptx_path) if p is not None]
    return spec if any(_same_file(path, b) for b in bundled) else None


def run(source, kernel: str | None = None, grid=None, block=None, args: list | None = None, *,
        mode: str = "emulate", symbols: dict | None = None, shared_mem: int | None = None, size: str | None = None,
        seed: int = 0, check: bool = False, gpu="h100", regs_per_thread: int | None = None,
        scheduler: str | None = None, budget: int = DEFAULT_BUDGET, record_trace: bool | None = None,
        progress=None, hooks=None, timeline: bool = False) -> RunResult:
    """Run a kernel. See the module docstring; ``mode`` is "emulate" (functional only) or "timing".
    ``timeline=True`` records the timeline (``res.timeline``, :mod:`gpusim.stats.timeline`) during the run."""
    if mode not in MODES:
        raise LaunchError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    module, spec = load_module(source)
    inputs = None
    if spec is not None and (grid is None or block is None or args is None):
        if size is None and args is None and (grid is not None or block is not None):
            # the launch was overridden: find (or derive) the problem size that fits it
            dflt = spec.launch(spec.default_size)
            size = spec.size_for_launch(grid if grid is not None else dflt.grid,
                                        block if block is not None else dflt.block)
            if size is None:
                raise LaunchError(f"program {spec.name}: no size fits grid {grid} x block {block} "
                                  f"(sizes: {', '.join(spec.sizes)}); choose --size, or pass args")
        sz = size or spec.default_size
        spec.params(sz)   # an unknown size is an error naming the sizes
        launch = spec.launch(sz)
        kernel = kernel or launch.kernel
        grid = grid if grid is not None else launch.grid
        block = block if block is not None else launch.block
        shared_mem = shared_mem if shared_mem is not None else launch.shared_mem
        if args is None:
            args = spec.make_args(sz, seed)
            if symbols is None:
                symbols = spec.make_symbols(sz, seed)
        size = sz
    if grid is None or block is None:
        raise LaunchError("grid and block are required (no manifest entry gives them for this source)")
    if args is None:
        raise LaunchError("args are required (no manifest entry gives them for this source)")
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    k = module.kernel(kernel)
    if regs_per_thread is None and spec is not None:
        regs_per_thread = spec.registers(k.name)
    emu = Emulator(module, budget=budget)
    record = (mode == "timing") if record_trace is None else record_trace
    out = emu.launch(k.name, grid, block, list(args), symbols=symbols, shared_mem=int(shared_mem or 0),
                     record=record, regs_per_thread=regs_per_thread)
    from gpusim.functional.emulator import dim3
    res = RunResult(kernel=k.name, grid=dim3(grid, "grid"), block=dim3(block, "block"),
                    shared_mem=int(shared_mem or 0), args=out.args, symbols=out.symbols, stats=out.stats,
                    mode=mode, source=module.source_name, program=spec, size=size, trace=out.trace,
                    inputs=inputs)
    if check:
        if spec is None:
            raise LaunchError("--check needs a bundled program's reference; this source has none")
        ref = spec.reference(inputs, symbols or {}, size)
        res.check = spec.check(out.args, ref)
    if mode == "timing":
        from gpusim.timing import simulate
        res.gpu = gpu
        collector = None
        if timeline:
            from gpusim.stats.timeline import TimelineCollector, combine_hooks
            collector = TimelineCollector()
            hooks = combine_hooks(collector, hooks)
        res.timing = simulate(out.trace, gpu, scheduler=scheduler, regs_per_thread=regs_per_thread,
                              progress=progress, hooks=hooks)
        if collector is not None:
            res._timeline = collector.finish(out.trace, res.timing, gpu)
    return res
