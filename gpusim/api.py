"""The public Python API: :func:`run` a kernel in emulate or timing mode.

``gpusim.run(source, kernel=..., grid=..., block=..., args=[...], mode="emulate")`` where ``source`` is a
path to a ``.ptx``/``.cu`` file or PTX text.  Every launch parameter not given comes from the kernel's launch
file (``kernel.toml`` beside it, ``launch=`` another one; the bundled programs have theirs): ``size=`` picks
one of its named sizes (or ``"n=5000"``: the default size with a parameter changed), ``seed=`` its inputs.  The result keeps the
arguments after the launch (arrays come back as new arrays: the caller's are untouched), the module
variables (``symbols``), emulation statistics, and in timing mode the timing result and its counters.

``sanitize="all"`` (or a tool name, or a list: racecheck, initcheck, synccheck, memcheck) runs the launch
under the checker (:mod:`gpusim.check`; emulate mode) and keeps its report in ``res.sanitizer``.
``schedule="reversed"`` or ``"random"`` (with ``schedule_seed``) runs the warps in another order
(:mod:`gpusim.functional.schedule`); under the checker the report then says which outputs changed.
``host={"uninitialised": ["out"], "freed": ["in"]}`` tells the checker which argument buffers the host
allocated without writing, or freed before the launch (a launch file says it with ``host = ...``).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpusim.errors import USER_ERRORS, GpusimError, LaunchError
from gpusim.functional.emulator import DEFAULT_BUDGET, DEFAULT_TRACE_MEMORY_LIMIT, EmulationStats, Emulator
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
    program: object = None          # the launch file's gpusim.launch.LaunchSpec, if any
    size: str | None = None
    _trace: KernelTrace | None = field(default=None, repr=False)
    timing: object = None           # gpusim.timing.TimingResult
    check: object = None            # gpusim.launch.CheckResult when check=True
    sanitizer: object = None        # gpusim.check.CheckReport when sanitize= was given
    gpu: object = None
    inputs: list | None = None      # the arguments as passed in (for references)
    _timeline: object = field(default=None, repr=False)   # gpusim.analysis.timeline.Timeline, see .timeline
    _record_again: object = field(default=None, repr=False)   # () -> KernelTrace, for a run that streamed it

    @property
    def trace(self) -> KernelTrace | None:
        """The launch's whole trace: recorded during the run with ``record_trace=True`` (and in timing mode
        with ``timeline=True``); after a timing run that streamed it (the default), recorded on first use by
        emulating the launch again from its inputs (the same trace: the emulator is deterministic); None in
        emulate mode without ``record_trace``."""
        if self._trace is None and self._record_again is not None:
            self._trace = self._record_again()
        return self._trace

    @property
    def trace_streamed(self) -> bool:
        """True when the timing run streamed the trace and did not keep it whole (``trace`` would emulate the
        launch again to record it)."""
        return self._trace is None and self._record_again is not None

    @trace.setter
    def trace(self, value: KernelTrace | None) -> None:
        self._trace = value

    @property
    def timeline(self):
        """The :class:`gpusim.analysis.timeline.Timeline` (timing mode): collected during the run with
        ``run(..., timeline=True)``, else by simulating the trace again with the collector attached."""
        if self.timing is None:
            raise GpusimError("timelines are recorded in timing mode: run with mode='timing'")
        if self._timeline is None:
            from gpusim.analysis.timeline import collect_timeline
            _, self._timeline = collect_timeline(self.trace, self.gpu, scheduler=self.timing.scheduler,
                                                regs_per_thread=self.timing.regs_per_thread)
        return self._timeline

    def diagnose(self, what_if="auto", *, jobs: int | None = None, progress=None):
        """Why is it slow (timing mode): the limiters ranked by what each costs, measured by re-simulating
        the trace with one mechanism idealised at a time (:func:`gpusim.analysis.diagnosis.diagnose`;
        ``what_if``: "auto", "all", "none" or a list of names)."""
        if self.timing is None:
            raise GpusimError("a diagnosis needs timing mode: run with mode='timing'")
        from gpusim.analysis.diagnosis import diagnose
        dirs = [str(Path(self.source).parent)] if self.source and not self.source.startswith("<") else []
        return diagnose(self.trace, self.timing, self.gpu, what_if=what_if, jobs=jobs, progress=progress,
                        source_dirs=dirs, stats=self.stats)

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
        size = ""
        if self.size is not None and self.program is not None:
            # a derived size (``--grid`` without ``--size``) says its parameters: the problem changed with the launch
            params = self.program.params(self.size)
            size = f"  size {self.size}" + ("" if "=" in self.size or not params else
                                             " (" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")")
        lines = [f"kernel {self.kernel}{size}  grid {self.grid}  block {self.block}  mode {self.mode}",
                 f"  warp instructions {s.warp_instructions:,}  thread instructions {s.thread_instructions:,}  "
                 f"({s.thread_instructions / max(s.warp_instructions, 1):.1f} active threads per warp "
                 f"instruction)",
                 f"  branches {s.branches:,} (divergent {s.divergent_branches:,})  barriers {s.barriers:,}  "
                 f"emulated in {s.wall_seconds:.2f} s ({s.warp_instructions_per_second / 1e6:.2f} M warp-instr/s)"]
        if self.check is not None:
            lines.append(f"  check: {'OK' if self.check.ok else 'FAILED'}  {self.check.message}")
        if self.sanitizer is not None:
            r = self.sanitizer
            lines.append(f"  sanitizer ({', '.join(r.tools)}): {len(r.findings)} findings, {r.errors:,} errors, "
                         f"{r.warnings:,} warnings" + ("" if r.completed else "; the launch did not complete"))
        if self.timing is not None:
            lines.append(self.timing.summary())
        return "\n".join(lines)


def load_module(source: str | Path, *, line_info: bool = True, launch: str | Path | None = None
                ) -> tuple[Module, object]:
    """Resolve a source (``.ptx`` path, ``.cu`` path, a bundled program's name, or PTX text) to a parsed
    module and its launch file's spec (:class:`gpusim.launch.LaunchSpec`): ``launch`` if given, else the
    ``.toml`` beside the source, else None."""
    from gpusim import launch as launchfiles
    spec = launchfiles.load(launch) if launch is not None else None
    text = source if isinstance(source, str) else None
    if isinstance(source, Path) or (isinstance(source, str) and ".entry" not in source and "\n" not in source):
        path = Path(source)
        if spec is None:
            spec = _find_program(path)
        bundled_ptx = _bundled_ptx(path)
        if path.suffix == ".cu":
            if bundled_ptx is not None:
                return load_ptx(bundled_ptx, strict=False), spec
            if not path.exists():
                raise GpusimError(f"{path}: no such file")
            from gpusim.cuda import compile_cuda
            compiled = compile_cuda(path, line_info=line_info)
            # named as `gpusim compile` would write it; errors name the .cu lines through .loc
            return parse_ptx(compiled.ptx, path.with_suffix(".ptx").name, path.parent, strict=False), spec
        if path.exists():
            return load_ptx(path, strict=False), spec
        if bundled_ptx is not None:
            return load_ptx(bundled_ptx, strict=False), spec
        raise GpusimError(f"{source}: no such file (expected a .ptx or .cu file, a bundled program name, "
                          f"or PTX text)")
    if text is None:
        raise GpusimError(f"source must be a path or PTX text, not {type(source).__name__}")
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]
    return parse_ptx(text, f"<ptx {digest}>", strict=False), spec


def _bundled():
    try:
        import programs
    except ImportError:
        return None
    return programs


def _bundled_ptx(path: Path) -> Path | None:
    """The checked-in PTX of a bundled program (``programs/``, ``programs/suites/*/`` or the bug corpus,
    ``programs/bugs/``) that ``path`` names:
    its ``.cu`` (run without a CUDA compiler), its ``.ptx``, or a bare program name."""
    programs = _bundled()
    if programs is None or path.suffix not in ("", ".cu", ".ptx"):
        return None
    if not path.exists():
        if path.suffix == "" and programs.find(path) is not None:
            return programs.find(path).ptx_path
        return None
    ptx = path.with_suffix(".ptx")
    try:
        folder = path.resolve().parent
        inside = folder in (programs.HERE, programs.HERE / "bugs") or folder.parent == programs.SUITES
    except OSError:
        return None
    return ptx if inside and ptx.exists() else None


def _find_program(path: Path):
    """The launch file of a source: the ``.toml`` beside a ``.cu``/``.ptx`` file, or a bundled program's by
    its bare name (``matmul_tiled``)."""
    from gpusim import launch as launchfiles
    beside = launchfiles.find(path)
    if beside is not None:
        return launchfiles.load(beside)
    programs = _bundled()
    if programs is not None and path.suffix == "" and not path.exists():
        return programs.find(path)
    return None


def _no_launch_file(source) -> str:
    if isinstance(source, (str, Path)) and Path(source).suffix in (".cu", ".ptx"):
        toml = Path(source).with_suffix(".toml")
        return (f"{source}: no launch file says how to launch it ({toml} does not exist): write one with "
                f"`gpusim init {source}` and edit it, or name one with --launch FILE (in Python: launch=, or "
                f"grid=, block= and args=)")
    return "grid, block and args are required for PTX text (or name a launch file with launch=)"


def _cuda_params(source, spec, kernel_name: str):
    """The kernel's parameters from its CUDA C signature (for names), when the source is CUDA C."""
    from gpusim.launch import cuda_kernels
    cu = Path(source) if isinstance(source, (str, Path)) and str(source).endswith(".cu") else None
    if cu is None and spec is not None:
        cu = spec.cu_path
    if cu is None or not cu.is_file():
        return None
    try:
        from isa.errors import read_text
        found = cuda_kernels(read_text(cu))
    except USER_ERRORS:
        return None
    if kernel_name in found:
        return found[kernel_name]
    demangled = [k for k in found if kernel_name.startswith(f"_Z{len(k)}{k}")]
    return found[demangled[0]] if len(demangled) == 1 else None


STREAM_LANES = 16384                # threads per emulator batch of a launch streamed in many batches
STREAM_SMALL_BATCHES_ABOVE = 2      # ... of more than this many default-size batches


def _better_sample(first_try, again, keep: bool):
    """The automatic choice between the sampled layouts (:mod:`gpusim.timing.sampling`), given the estimate
    on a few SMs (``first_try``, whose bound is wider than ``AUTO_MAX_BOUND_PCT``: a kernel waiting on
    global memory, whose contention the few SMs lack): sampled in time on the whole GPU when the launch has
    at least ``AUTO_TIME_MIN_WAVES`` full waves (so that the sample costs at most about half a full run),
    kept when its bound is within ``AUTO_MAX_BOUND_PCT``; otherwise, with ``keep``, the estimate with the
    narrower bound, else the launch in full.  ``again(sample)``: the launch timed once more with ``sample``.
    The result's ``sampling`` (or ``sampling_declined``) says what was tried."""
    from gpusim.timing.sampling import AUTO_MAX_BOUND_PCT, AUTO_TIME_MIN_WAVES
    info = first_try.sampling
    tried = [first_try]
    words = f"{info.describe()}: wider than {AUTO_MAX_BOUND_PCT:g}%"
    wave = info.of_sms * max(1, first_try.occupancy.blocks_per_sm)
    if info.n_blocks >= AUTO_TIME_MIN_WAVES * wave:
        timed = again("time")
        if timed.sampling is not None:
            timed.sampling.reason = f"auto, {info.sms} SMs gave +/- {info.error_bound_pct:.0f}%"
            if timed.sampling.trusted:
                return timed
            tried.append(timed)
            words += f"; {timed.sampling.describe()}: wider than {AUTO_MAX_BOUND_PCT:g}%"
    else:
        words += (f"; not sampled in time: {info.n_blocks:,} blocks are {info.n_blocks / wave:.2f} waves of "
                  f"{wave:,}, fewer than the {AUTO_TIME_MIN_WAVES} the automatic choice samples in time")
    if keep:
        return min(tried, key=lambda r: r.sampling.error_bound_pct)
    full = again(False)
    full.sampling_declined = words + ", so timed in full"
    return full


def run(source, kernel: str | None = None, grid=None, block=None, args: list | None = None, *,
        launch: str | Path | None = None, mode: str = "emulate", symbols: dict | None = None, shared_mem: int | None = None, size: str | None = None,
        seed: int = 0, check: bool = False, gpu="h100", regs_per_thread: int | None = None,
        scheduler: str | None = None, budget: int = DEFAULT_BUDGET, record_trace: bool | None = None,
        progress=None, observer=None, timeline: bool = False, fmad: bool = True, sanitize=None,
        schedule: str | None = None, schedule_seed: int | None = None, host: dict | None = None,
        global_races: str = "block", emulation_progress=None, trace_memory_limit: int | None = None,
        sample="auto") -> RunResult:
    """Run a kernel. See the module docstring; ``mode`` is "emulate" (functional only) or "timing";
    ``launch`` names a launch file (default: the ``.toml`` beside the source).

    In timing mode the emulator hands the trace to the timing model batch by batch, and each block's rows
    are dropped once it retires (:mod:`gpusim.timing.feed`), so memory follows the resident blocks;
    ``record_trace=True`` keeps the whole trace instead (``res.trace``; after a streamed run it is recorded
    again on first use).  ``budget``: warp instructions the launch may execute; ``trace_memory_limit``:
    bytes one batch's trace may take while it records (both stop a runaway kernel with a clear error).
    ``progress(cycles, blocks_done, blocks_total)``: the timing model's progress, about every 0.5 s;
    ``emulation_progress(blocks_done, blocks_total, warp_instructions)``: the emulator's, in either mode.
    ``sample``: timing mode's full or sampled simulation (:mod:`gpusim.timing.sampling`): ``"auto"`` (the
    default: sampled when the launch is large, and ``res.timing.sampling`` says so; see
    :func:`_better_sample`), True (sampled, the layout chosen as ``"auto"`` chooses it, never in full), a
    number of SMs (sampled on that many), ``"time"`` (sampled in time on the whole GPU), False (full
    detail).  A timeline needs every warp: ``timeline=True`` times in full.
    ``observer``: a :class:`gpusim.timing.hooks.TimingObserver` that sees the timing model's events;
    ``timeline=True`` records the timeline (``res.timeline``, :mod:`gpusim.analysis.timeline`) during the run.
    ``fmad=False`` keeps every mul and add separately rounded (as ``nvcc --fmad=false``); by default they are
    contracted into fma where ptxas would (:mod:`isa.contract`).
    ``sanitize``, ``schedule``, ``schedule_seed`` (default: ``seed``) and ``host``: the checker (see the
    module docstring); ``global_races``: racecheck on global memory within a block (``"block"``), also across
    blocks (``"grid"``), or not (``"off"``: shared memory only, as compute-sanitizer)."""
    if mode not in MODES:
        raise LaunchError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    from gpusim.check import tools_of
    tools = tools_of(sanitize) if sanitize not in (None, False) else None
    if mode == "timing" and (tools or schedule not in (None, "lockstep")):
        raise LaunchError("sanitize= and schedule= run in emulate mode: pass mode='emulate'")
    budget = DEFAULT_BUDGET if budget is None else budget
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise LaunchError(f"budget must be a positive number of warp instructions, not {budget!r}")
    module, spec = load_module(source, launch=launch)
    generated = False
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
            generated = True
            if symbols is None:
                symbols = spec.make_symbols(sz, seed)
        size = sz
    if grid is None or block is None or args is None:
        raise LaunchError(_no_launch_file(source))
    inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    from gpusim.launch import check_args, resolve_kernel
    k = resolve_kernel(module, kernel)
    if generated:
        check_args(spec, k, _cuda_params(source, spec, k.name))
    if regs_per_thread is None and spec is not None:
        regs_per_thread = spec.registers(k.name)
    emu = Emulator(module, budget=budget, fmad=fmad,
                   trace_memory_limit=DEFAULT_TRACE_MEMORY_LIMIT if trace_memory_limit is None else trace_memory_limit)
    launch_args = dict(symbols=symbols, shared_mem=int(shared_mem or 0), regs_per_thread=regs_per_thread)
    record = bool(record_trace) or (mode == "timing" and timeline)
    streamed = mode == "timing" and not record
    names = _arg_names(spec, k, len(args))
    report = out = None
    if tools:
        from gpusim.check import check_launch
        states = _host_states(host, spec.host_states() if generated else {}, names, k)
        out, report = check_launch(emu, k.name, grid, block, list(args), symbols=symbols,
                                   shared_mem=int(shared_mem or 0), tools=tools, schedule=schedule,
                                   schedule_seed=seed if schedule_seed is None else schedule_seed, host=states,
                                   arg_names=names, global_races=global_races)
    from gpusim.functional.emulator import dim3
    if tools and out is None:     # the checked launch stopped: the report says why
        res = RunResult(kernel=k.name, grid=dim3(grid, "grid"), block=dim3(block, "block"),
                        shared_mem=int(shared_mem or 0), args=None, symbols={}, stats=EmulationStats(),
                        mode=mode, source=module.source_name, program=spec, size=size, inputs=inputs,
                        sanitizer=report)
        return res
    res = RunResult(kernel=k.name, grid=dim3(grid, "grid"), block=dim3(block, "block"),
                    shared_mem=int(shared_mem or 0), args=[], symbols={}, stats=None, mode=mode,
                    source=module.source_name, program=spec, size=size, inputs=inputs, sanitizer=report)
    if mode == "timing":
        from gpusim.timing import simulate
        res.gpu = gpu
        collector = None
        if timeline:
            from gpusim.analysis.timeline import TimelineCollector
            from gpusim.timing.hooks import combine_observers
            collector = TimelineCollector()
            observer = combine_observers(collector, observer)
        if streamed:
            # The emulator runs batch by batch as the timing model's block scheduler reaches the blocks;
            # a launch of many batches runs in smaller ones, so that what one batch records stays small.
            threads = int(np.prod(dim3(grid, "grid"))) * int(np.prod(dim3(block, "block")))
            if threads > STREAM_SMALL_BATCHES_ABOVE * emu.max_lanes:
                emu.max_lanes = STREAM_LANES
            stream = emu.stream(k.name, grid, block, list(args), progress=emulation_progress, **launch_args)
            res.timing = simulate(stream, gpu, scheduler=scheduler, regs_per_thread=regs_per_thread,
                                  progress=progress, observer=observer, sample=sample,
                                  time_next=sample in ("auto", True))
            replay, res.timing._time_replay = res.timing._time_replay, None
            if sample in ("auto", True) and res.timing.sampling is not None and not res.timing.sampling.trusted:
                def again(how):
                    # the launch timed ``how``: in time from the records the first sample kept, else run
                    # again from its inputs
                    nonlocal stream, replay
                    if how == "time" and replay is not None:
                        source, replay = replay, None
                    else:
                        source = stream = Emulator(module, budget=budget, fmad=fmad, max_lanes=emu.max_lanes).stream(
                            k.name, grid, block, [a.copy() if isinstance(a, np.ndarray) else a for a in inputs],
                            progress=emulation_progress, **launch_args)
                    return simulate(source, gpu, scheduler=scheduler, regs_per_thread=regs_per_thread,
                                    progress=progress, observer=observer, sample=how)
                res.timing = _better_sample(res.timing, again, keep=sample is True)
            replay = None
            out = stream.finish()
            res._record_again = lambda: Emulator(module, budget=budget, fmad=fmad).launch(
                k.name, grid, block, [a.copy() if isinstance(a, np.ndarray) else a for a in inputs], record=True,
                **launch_args).trace
            res.timing._trace_again = lambda: res.trace
        else:
            out = emu.launch(k.name, grid, block, list(args), record=True, progress=emulation_progress,
                             **launch_args)
            res.timing = simulate(out.trace, gpu, scheduler=scheduler, regs_per_thread=regs_per_thread,
                                  progress=progress, observer=observer,
                                  sample=False if collector is not None else sample)
            if sample in ("auto", True) and res.timing.sampling is not None and not res.timing.sampling.trusted:
                res.timing = _better_sample(res.timing, lambda how: simulate(
                    out.trace, gpu, scheduler=scheduler, regs_per_thread=regs_per_thread, progress=progress,
                    observer=observer, sample=how), keep=sample is True)
            if collector is not None:
                res._timeline = collector.finish(out.trace, res.timing, gpu)     # PCs as recorded
    elif not tools:
        from gpusim.functional.schedule import schedule as make_schedule
        out = emu.launch(k.name, grid, block, list(args), record=record, progress=emulation_progress,
                         schedule=make_schedule(schedule, seed if schedule_seed is None else schedule_seed),
                         **launch_args)
    res.args, res.symbols, res.stats, res.trace = out.args, out.symbols, out.stats, out.trace
    if check:
        if spec is None:
            raise LaunchError("--check needs a launch file with a [reference]; this source has none")
        if spec.reference_function is None:
            raise LaunchError(f"{spec.label} has no [reference], so there is nothing to check against: add one "
                              f"(function = \"file.py:func\", tolerance = \"exact\" or {{ rtol = ..., atol = ... }})")
        ref = spec.reference(inputs, symbols or {}, size)
        res.check = spec.check(out.args, ref, out.symbols)
    return res


def _arg_names(spec, k, n: int) -> list[str]:
    """The arguments' names: the launch file's, else the PTX parameters'."""
    if spec is not None and len(spec.args) == n:
        return [e.name for e in spec.args]
    return [p.name for p in k.params][:n]


def _host_states(host: dict | None, from_file: dict, names: list[str], k) -> dict[str, list[int]]:
    """``host=`` ({state: [argument names or indices]}) merged with the launch file's states, as indices."""
    from gpusim.launch.spec import HOST_STATES
    out = {st: list(v) for st, v in from_file.items()}
    if not host:
        return out
    if not isinstance(host, dict):
        raise LaunchError(f"host must be a dict {{state: [argument names]}}, not {type(host).__name__}")
    ptx = [p.name for p in k.params]
    for st, args in host.items():
        if st not in HOST_STATES:
            raise LaunchError(f"host: unknown state {st!r}; the states: {', '.join(HOST_STATES)}")
        for a in [args] if isinstance(args, (str, int)) else args:
            if isinstance(a, (int, np.integer)) and 0 <= int(a) < len(names):
                i = int(a)
            elif a in names:
                i = names.index(a)
            elif a in ptx:
                i = ptx.index(a)
            else:
                raise LaunchError(f"host: {st}: no argument {a!r} (arguments: {', '.join(names)})")
            if i not in out.setdefault(st, []):
                out[st].append(i)
    return out
