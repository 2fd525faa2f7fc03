"""Why is it slow: a simulated kernel's limiters, in plain words with the evidence, ranked by what each
costs, the cost measured by what-if re-simulation wherever a mechanism can be idealised.

:func:`diagnose` looks at a timing result and its trace and collects the evidence for each limiter a GPU
programmer checks: launch overhead, too few blocks or a tail wave, occupancy and its limiting resource,
global-memory latency not hidden (the loads' wait, issue-slot use, occupancy, the line whose loads are
waited on), DRAM bandwidth, uncoalesced accesses (sectors per request and the CUDA
line), shared-memory bank conflicts (ways and the line), divergence (active threads per warp), barrier
waits and atomic contention.  For each limiter that shows up it re-simulates the *same* trace with that one
mechanism idealised (:mod:`gpusim.timing.idealize`) and measures the speed-up, so the ranking is measured,
not guessed; the what-ifs run in parallel processes, one per CPU.

Ranking.  A limiter's cost is the share of the kernel's cycles its what-if removes; the limiters that no
what-if can idealise (a grid with too few blocks: no simulation can invent blocks) are estimated from the
SMs' idle time and say so.  Launch overhead is a fixed cost of every launch, not a property of the
kernel's code: it is always shown as the first part of the time, and it is ranked as the limiter only
when it takes at least half of the kernel's time (then the launch costs more than all of the kernel's
own work, and no change to the code can gain as much as giving each launch more work).
"""
from __future__ import annotations

import os
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpusim.functional.trace import popcount32
from gpusim.timing.idealize import IDEALIZATIONS, WHAT_IF_NAMES, Idealization, compact_divergence
from gpusim.timing.warp_states import STALL_REASONS, StallReason
from isa.units import MemSpace

#: Limiters that cost less than this share of the kernel's time are not listed.
MIN_SHARE = 0.02
#: What-ifs run in parallel processes from this many warp instructions in the trace on.
PARALLEL_FROM_INSTRUCTIONS = 50_000
#: Launch overhead is ranked as the limiter from this share of the time on (see the module docstring).
LAUNCH_DOMINANT = 0.5


@dataclass
class WhatIfResult:
    """One what-if re-simulation: the same trace with one mechanism idealised."""

    name: str
    title: str
    changes: str
    cannot: str
    cycles: int
    baseline_cycles: int
    wall_seconds: float

    @property
    def speedup(self) -> float:
        return self.baseline_cycles / self.cycles if self.cycles else float("inf")

    @property
    def share(self) -> float:
        """The share of the kernel's cycles the idealised mechanism cost (negative: idealising slowed it)."""
        return 1.0 - self.cycles / self.baseline_cycles if self.baseline_cycles else 0.0

    def as_dict(self) -> dict:
        return {"name": self.name, "title": self.title, "changes": self.changes, "cannot": self.cannot,
                "cycles": self.cycles, "baseline_cycles": self.baseline_cycles, "speedup": self.speedup,
                "share": self.share, "wall_seconds": self.wall_seconds}


@dataclass
class Finding:
    """One limiter: what it is, what it costs (``share`` of the time; ``measured`` by a what-if or
    estimated), the evidence, and what to do about it."""

    key: str
    title: str
    share: float
    measured: bool
    evidence: list[str]
    advice: str
    what_if: WhatIfResult | None = None
    lines: list[str] = field(default_factory=list)      # "file.cu:24" of the lines the evidence names

    def as_dict(self) -> dict:
        return {"key": self.key, "title": self.title, "share": self.share, "measured": self.measured,
                "evidence": self.evidence, "advice": self.advice, "lines": self.lines,
                "what_if": self.what_if.as_dict() if self.what_if else None}


@dataclass
class Diagnosis:
    """The limiters of one kernel on one GPU, ranked (``findings``), every what-if that ran, and the
    mechanisms that were not measured with the reason (``skipped``)."""

    kernel: str
    gpu: str
    cycles: int
    clock_mhz: float
    launch_cycles: int               # cycles before the first warp issued
    kernel_launch_cycles: int        # of which the kernel launch (the config's kernel_launch_cycles)
    bound: str                       # the roofline's verdict in words
    findings: list[Finding]
    what_ifs: list[WhatIfResult]
    skipped: dict[str, str]
    notes: list[str] = field(default_factory=list)

    @property
    def top(self) -> Finding | None:
        return self.findings[0] if self.findings else None

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "gpu": self.gpu, "cycles": self.cycles, "clock_mhz": self.clock_mhz,
                "launch_cycles": self.launch_cycles, "kernel_launch_cycles": self.kernel_launch_cycles,
                "bound": self.bound, "findings": [f.as_dict() for f in self.findings],
                "what_ifs": [w.as_dict() for w in self.what_ifs], "skipped": self.skipped, "notes": self.notes}

    def text(self, width: int = 110) -> str:
        """The diagnosis as plain text (what ``gpusim run`` prints)."""
        us = self.cycles / self.clock_mhz
        body = self.cycles - self.launch_cycles
        out = [f"why is it slow: {self.kernel} on {self.gpu}, {self.cycles:,} cycles ({us:,.2f} us)",
               f"  time: launch {self.launch_cycles:,} cycles ({_pct(self.launch_cycles / self.cycles)}: kernel "
               f"launch {self.kernel_launch_cycles:,}, then the first block's), blocks running {body:,} "
               f"({_pct(body / self.cycles)})",
               _wrap(f"bound: {self.bound}", width, "  ", "    ")]
        if not self.findings:
            out.append("  no limiter costs more than "
                       f"{_pct(MIN_SHARE)} of the time")
        for i, f in enumerate(self.findings, 1):
            if f.what_if is not None:
                w = f.what_if
                cost = (f"what-if {w.title}: {w.cycles:,} cycles, {w.speedup:.2f}x faster "
                        f"(it costs {_pct(f.share)} of the time)")
            else:
                cost = f"costs about {_pct(f.share)} of the time (estimated, not re-simulated)"
            out.append(_wrap(f"{i}. {f.title}: {cost}", width, "  ", "     "))
            for e in f.evidence:
                out.append(_wrap(f"- {e}", width, "     ", "       "))
            out.append(_wrap(f"fix: {f.advice}", width, "     ", "       "))
        if self.what_ifs:
            out.append("  what-ifs (the same trace re-simulated with one mechanism idealised):")
            for w in sorted(self.what_ifs, key=lambda w: w.cycles):
                out.append(f"    {w.title:<34s} {w.cycles:>12,} cycles  {w.speedup:5.2f}x")
                out.append(_wrap(f"changes: {w.changes}", width, "      ", "        "))
                out.append(_wrap(f"cannot: {w.cannot}", width, "      ", "        "))
        if self.skipped:
            out.append(_wrap("not re-simulated: " + "; ".join(f"{IDEALIZATIONS[k].title} ({v})"
                                                                for k, v in self.skipped.items()),
                             width, "  ", "    "))
        for n in self.notes:
            out.append(_wrap(n, width, "  ", "    "))
        return "\n".join(out)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%" if abs(x) >= 0.095 else f"{100 * x:.1f}%"


def _wrap(text: str, width: int, first: str, rest: str) -> str:
    return "\n".join(textwrap.wrap(text, width=width, initial_indent=first, subsequent_indent=rest,
                                   break_on_hyphens=False, break_long_words=False))


# -- evidence ---------------------------------------------------------------------------------------------
class _Lines:
    """Labels of PCs by CUDA line (with the source text) or, without line info, by PTX line."""

    def __init__(self, trace, source_dirs=()) -> None:
        from gpusim.analysis.source import _cuda_text
        self.instrs = trace.instructions
        self._text = _cuda_text
        self.search = [Path(d) for d in source_dirs]
        try:
            import programs
            self.search.append(Path(programs.__file__).parent)
        except ImportError:
            pass
        self._cache: dict[int, tuple[str, str]] = {}

    def key(self, pc: int) -> tuple[str, str]:
        """(``file.cu:24`` or ``PTX line 57``, the source text or the opcode)."""
        if pc not in self._cache:
            ins = self.instrs[pc]
            if ins.src_line is not None:
                name = Path(ins.src_file).name if ins.src_file else "?"
                text = self._text(ins.src_file, ins.src_line, self.search)
                self._cache[pc] = (f"{name}:{ins.src_line}", text)
            else:
                self._cache[pc] = (f"PTX line {ins.ptx_line}", ins.opcode)
        return self._cache[pc]

    def label(self, pc: int) -> str:
        where, text = self.key(pc)
        return f"{where} `{text}`" if text else where


@dataclass
class _PcMemory:
    """Per-PC totals of the memory requests the LSU builds for the trace (index: pc)."""

    requests: np.ndarray          # requests with at least one active lane
    sectors: np.ndarray
    ideal_sectors: np.ndarray
    wavefronts: np.ndarray
    ideal_wavefronts: np.ndarray
    space: list                   # the MemSpace of the pc's requests (None: no request)
    op: np.ndarray
    atomic_lanes: np.ndarray      # lanes of atomics
    atomic_addresses: np.ndarray  # distinct addresses they hit (per request, summed)


def _memory_by_pc(trace, gpu) -> _PcMemory:
    from gpusim.timing.lsu import LsuFrontEnd, slot_origins
    n = len(trace.instructions)
    reqs = LsuFrontEnd(gpu).requests(trace)
    _, slot_pc = slot_origins(trace)
    z = [np.zeros(n, dtype=np.int64) for _ in range(8)]
    requests, sectors, ideal_s, wav, ideal_w, op, a_lanes, a_addr = z
    space: list = [None] * n
    size = [max(1, i.access_bytes) for i in trace.instructions]
    for pc, r in zip(slot_pc.tolist(), reqs):
        if r is None:
            continue
        space[pc] = r.space
        op[pc] = r.op
        if not r.active_lanes:
            continue
        requests[pc] += 1
        s = len(r.sectors)
        sectors[pc] += s
        if r.space is MemSpace.GLOBAL or r.space is MemSpace.LOCAL:
            ideal_s[pc] += min(s, -(-r.active_lanes * size[pc] // 32))
        wav[pc] += r.wavefronts
        ideal_w[pc] += r.ideal_wavefronts
        if r.atomics:
            a_lanes[pc] += sum(c for _, _, c in r.atomics)
            a_addr[pc] += len(r.atomics)
    return _PcMemory(requests, sectors, ideal_s, wav, ideal_w, space, op, a_lanes, a_addr)


def _lane_stride(trace, pc: int) -> int | None:
    """The most common distance in bytes between consecutive active lanes' addresses of ``pc``."""
    rows = np.flatnonzero((np.asarray(trace.pc) == pc) & (np.asarray(trace.mem_slot) >= 0))[:256]
    if rows.size == 0:
        return None
    a = trace.addresses[np.asarray(trace.mem_slot)[rows]].astype(np.int64)
    d = np.diff(a, axis=1)[(a[:, 1:] >= 0) & (a[:, :-1] >= 0)]
    if d.size == 0:
        return None
    vals, counts = np.unique(d, return_counts=True)
    return int(vals[np.argmax(counts)])


# -- what-ifs ---------------------------------------------------------------------------------------------
_JOB: dict = {}


def _what_if_job(name: str) -> tuple[str, int, float]:
    from gpusim.timing import simulate
    t0 = time.perf_counter()
    r = simulate(_JOB["trace"], _JOB["gpu"], ideal=Idealization.of(name), **_JOB["kwargs"])
    return name, r.cycles, time.perf_counter() - t0


def run_what_ifs(trace, gpu, names, baseline_cycles: int, *, jobs: int | None = None, progress=None,
                 **simulate_kwargs) -> list[WhatIfResult]:
    """Re-simulate ``trace`` once per name in ``names``, each with that one mechanism idealised; in up to
    ``jobs`` processes (default: one per CPU).  ``progress(done, total, name)`` after each one."""
    names = list(dict.fromkeys(names))
    bad = [n for n in names if n not in IDEALIZATIONS]
    if bad:
        Idealization.of(*bad)           # the error names the known ones
    results: dict[str, tuple[int, float]] = {}
    if jobs is None:
        # a process costs more to start than a small trace costs to simulate
        jobs = 1 if trace.n_instructions < PARALLEL_FROM_INSTRUCTIONS else (os.cpu_count() or 1)
    jobs = max(1, min(len(names), jobs))
    _JOB.update(trace=trace, gpu=gpu, kwargs=simulate_kwargs)
    try:
        if jobs > 1 and "fork" in _start_methods():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
                futures = [pool.submit(_what_if_job, n) for n in names]
                for f in as_completed(futures):
                    name, cycles, wall = f.result()
                    results[name] = (cycles, wall)
                    if progress is not None:
                        progress(len(results), len(names), name)
        else:
            for n in names:
                name, cycles, wall = _what_if_job(n)
                results[name] = (cycles, wall)
                if progress is not None:
                    progress(len(results), len(names), name)
    finally:
        _JOB.clear()
    out = []
    for n in names:
        spec = IDEALIZATIONS[n]
        cycles, wall = results[n]
        out.append(WhatIfResult(n, spec.title, spec.changes, spec.cannot, cycles, baseline_cycles, wall))
    return out


def _start_methods() -> list[str]:
    import multiprocessing
    return multiprocessing.get_all_start_methods()


# -- the diagnosis ----------------------------------------------------------------------------------------
class _Evidence:
    """Everything the findings are built from, computed once."""

    def __init__(self, trace, timing, gpu, source_dirs=()) -> None:
        from gpusim.analysis.source import attributed_stalls
        self.trace, self.timing, self.gpu = trace, timing, gpu
        self.lines = _Lines(trace, source_dirs)
        n = len(trace.instructions)
        self.n_pcs = n
        self.stalls = attributed_stalls(trace, timing)                  # [pc, state]
        self.warp_cycles = max(1, int(self.stalls.sum()))
        pcs = np.asarray(trace.pc, dtype=np.int64)
        self.execs = np.bincount(pcs, minlength=n)[:n]
        self.threads = np.bincount(pcs, weights=popcount32(trace.active_mask).astype(np.float64), minlength=n)[:n]
        self.mem = _memory_by_pc(trace, gpu)
        c = timing.counters
        self.c = c
        start = np.asarray(timing.warp_start_cycle)
        started = start[start >= 0]
        self.first_warp = int(started.min()) if started.size else 0
        self.cycles = int(timing.cycles)
        self.inst = max(1, int(c["smsp__inst_executed.sum"]))

    def state_share(self, state: StallReason, pcs=None) -> float:
        col = self.stalls[:, int(state)]
        return float(col.sum() if pcs is None else col[pcs].sum()) / self.warp_cycles

    def state_cycles(self, pcs, *states) -> int:
        return int(self.stalls[np.ix_(np.atleast_1d(pcs), [int(s) for s in states])].sum())


def diagnose(trace, timing, gpu, *, what_if="auto", jobs: int | None = None, progress=None,
             source_dirs=(), stats=None) -> Diagnosis:
    """The diagnosis of ``trace`` timed as ``timing`` on ``gpu`` (a config or a preset name).

    ``what_if``: ``"auto"`` re-simulates each mechanism that shows up in the evidence; ``"all"`` every
    one; ``None``/``"none"`` none (the ranking is then estimated from the evidence); or a list of names
    (:data:`gpusim.timing.idealize.WHAT_IF_NAMES`).  ``jobs``: processes for the what-ifs.
    ``progress(done, total, name)`` after each what-if.  ``stats``: the emulator's statistics, if at hand
    (divergent branches).
    """
    from gpusim.analysis.roofline import roofline_point
    from gpusim.config import load_gpu
    gpu = load_gpu(gpu)
    ev = _Evidence(trace, timing, gpu, source_dirs)
    candidates = _candidates(ev)            # name -> (why it is worth a what-if or None, finding builder)
    if what_if in (None, "none", False):
        chosen: list[str] = []
    elif what_if == "all":
        chosen = list(WHAT_IF_NAMES)
    elif what_if == "auto":
        chosen = [n for n in WHAT_IF_NAMES if candidates[n][0] is None]
    else:
        chosen = list(what_if)
        Idealization.of(*chosen)
    skipped = {n: candidates[n][0] or "not asked for" for n in WHAT_IF_NAMES if n not in chosen}
    kwargs = {"scheduler": timing.scheduler, "regs_per_thread": timing.regs_per_thread}
    results = run_what_ifs(trace, gpu, chosen, ev.cycles, jobs=jobs, progress=progress, **kwargs) if chosen else []
    by_name = {w.name: w for w in results}
    findings = []
    for name, (_, build) in candidates.items():
        f = build(by_name.get(name))
        if f is not None:
            findings.append(f)
    blocks = _blocks_finding(ev)
    if blocks is not None:
        findings.append(blocks)
    ranked = _rank(findings, ev)
    rp = roofline_point(trace, timing, gpu)
    notes = []
    if stats is not None and getattr(stats, "branches", 0):
        notes.append(f"branches: {stats.branches:,}, of which {stats.divergent_branches:,} diverged "
                     f"({_pct(stats.divergent_branches / stats.branches)})")
    return Diagnosis(kernel=trace.kernel, gpu=gpu.name, cycles=ev.cycles, clock_mhz=float(gpu.clock_mhz),
                     launch_cycles=ev.first_warp, kernel_launch_cycles=int(gpu.kernel_launch_latency_cycles),
                     bound=rp.bound_text(), findings=ranked, what_ifs=results, skipped=skipped, notes=notes)


def _rank(findings: list[Finding], ev: _Evidence) -> list[Finding]:
    keep = []
    for f in findings:
        if f.key == "launch":
            if ev.first_warp / ev.cycles >= LAUNCH_DOMINANT:
                keep.append(f)
            continue
        if f.share >= MIN_SHARE:
            keep.append(f)
    return sorted(keep, key=lambda f: (f.key != "launch", -f.share))


# Each candidate: (None if a what-if is worth running, else the reason not to), and a builder that turns
# the what-if's result (or None) into a Finding (or None when there is nothing to report).
def _candidates(ev: _Evidence) -> dict:
    return {
        "launch": _launch(ev), "occupancy": _occupancy(ev), "coalescing": _coalescing(ev), "banks": _banks(ev),
        "reuse": _global_reuse(ev), "latency": _latency(ev), "divergence": _divergence(ev), "dram": _dram(ev),
        "atomics": _atomics(ev), "barriers": _barriers(ev),
    }


def _finding(key, title, w, estimate, evidence, advice, lines=()) -> Finding:
    """A finding whose cost is the what-if's (when it ran) or the estimate."""
    if w is not None:
        return Finding(key, title, w.share, True, evidence, advice, w, list(lines))
    return Finding(key, title, estimate, False, evidence, advice, None, list(lines))


def _launch(ev: _Evidence):
    share = ev.first_warp / ev.cycles if ev.cycles else 0.0
    why = None if share >= LAUNCH_DOMINANT else (f"launch is {_pct(share)} of the time, less than the blocks' "
                                                 f"own work")

    def build(w):
        g = ev.gpu
        evidence = [f"the kernel launch takes {g.kernel_launch_latency_cycles:,} cycles before the first block "
                    f"is dispatched, and a block {g.block_launch_cycles:,} more before its first warp issues: the "
                    f"first warp issues at cycle {ev.first_warp:,} of {ev.cycles:,} ({_pct(share)})",
                    f"the blocks then run for {ev.cycles - ev.first_warp:,} cycles: the kernel does too little "
                    f"work per launch for the launch to be hidden"]
        return _finding("launch", "launch overhead", w, share, evidence,
                        "give each launch more work (a larger problem, several small kernels fused into one); "
                        "the launch costs the same whatever the kernel does")
    return why, build


def _blocks_finding(ev: _Evidence) -> Finding | None:
    t, occ, g = ev.timing, ev.timing.occupancy, ev.gpu
    n_sm = g.sm.count
    n_blocks = ev.trace.n_blocks
    body = ev.cycles - ev.first_warp
    if body <= 0:
        return None
    busy = float(np.asarray(t.per_sm["cycles_active"]).sum())
    idle = max(0.0, 1.0 - busy / (n_sm * body))
    share = idle * body / ev.cycles
    per_wave = max(1, occ.blocks_per_sm * n_sm)
    used = int((np.asarray(t.per_sm["blocks_executed"]) > 0).sum())
    evidence = [f"{n_blocks:,} blocks of {ev.trace.threads_per_block} threads; {n_sm} SMs hold "
                f"{occ.blocks_per_sm} each ({per_wave:,} at once): {n_blocks / per_wave:.2f} waves, "
                f"{used} of {n_sm} SMs ran a block",
                f"the SMs were idle {_pct(idle)} of the time the blocks ran ({body:,} cycles)"]
    if n_blocks < n_sm:
        title, advice = "too few blocks", (f"give the grid at least {n_sm} blocks (smaller blocks, or less work "
                                           f"per thread) so every SM has work")
    elif n_blocks > per_wave and (n_blocks % per_wave) and (n_blocks % per_wave) / per_wave < 0.5:
        title = "tail wave"
        evidence.append(f"the last wave has {n_blocks % per_wave:,} blocks for room for {per_wave:,}")
        advice = "size the grid to a whole number of waves, or give each block less work so the tail is short"
    else:
        title, advice = "SMs idle (load imbalance)", "balance the work between blocks; more, smaller blocks even it out"
    evidence.append("estimated from the SMs' idle time: no what-if can invent blocks the grid does not have")
    return Finding("blocks", title, share, False, evidence, advice)


def _occupancy(ev: _Evidence):
    occ, c = ev.timing.occupancy, ev.c
    n_sm = ev.gpu.sm.count
    limited = [r for r in occ.limiting if r in ("registers", "shared_mem")]
    why = None
    if occ.occupancy_pct >= 100.0 or not limited:
        why = f"occupancy is limited by {', '.join(occ.limiting) or 'nothing'}, which the block size fixes"
    elif ev.trace.n_blocks <= occ.blocks_per_sm * n_sm:
        why = "the grid has no more blocks than the SMs already hold"

    def build(w):
        if why is not None and w is None:
            return None
        achieved = c["sm__warps_active.avg.pct_of_peak_sustained_active"]
        evidence = [f"theoretical occupancy {occ.occupancy_pct:.0f}%: {occ.blocks_per_sm} blocks of "
                    f"{occ.warps_per_block} warps per SM, limited by {', '.join(occ.limiting)} "
                    f"({ev.timing.regs_per_thread} registers per thread, {ev.trace.shared_bytes:,} B of shared "
                    f"memory per block); achieved {achieved:.0f}%"]
        estimate = ev.state_share(StallReason.LONG_SCOREBOARD) * (1 - occ.occupancy_pct / 100)
        return _finding("occupancy", "occupancy", w, estimate, evidence,
                        "use fewer registers per thread (__launch_bounds__, -maxrregcount) or less shared "
                        "memory per block, so more blocks fit on an SM")
    return why, build


_OP_KIND = {0: "loads", 1: "stores", 2: "atomics"}      # MemoryRequest.op, in words


def _top_pcs(values: np.ndarray, k: int = 3) -> list[int]:
    order = np.argsort(-values, kind="stable")
    return [int(p) for p in order[:k] if values[p] > 0]


def _excess(m: _PcMemory, space: MemSpace, actual: np.ndarray, ideal: np.ndarray) -> tuple[np.ndarray, int]:
    """(per PC: ``actual - ideal`` for the PCs accessing ``space``, else 0; the total of ``actual`` there)."""
    mask = np.array([s is space for s in m.space], dtype=bool)
    return np.where(mask, actual - ideal, 0), int(actual[mask].sum())


def _coalescing(ev: _Evidence):
    m = ev.mem
    excess, total = _excess(m, MemSpace.GLOBAL, m.sectors, m.ideal_sectors)
    why = None if total and excess.sum() >= 0.05 * total else "every global request touches the fewest sectors"

    def build(w):
        if excess.sum() <= 0:
            return None
        evidence, lines = [], []
        kind = _OP_KIND
        for pc in _top_pcs(excess):
            per = m.sectors[pc] / m.requests[pc]
            ideal = m.ideal_sectors[pc] / m.requests[pc]
            stride = _lane_stride(ev.trace, pc)
            apart = f"; consecutive threads are {stride:,} bytes apart" if stride not in (None, 0) else ""
            cyc = ev.state_cycles(pc, StallReason.LONG_SCOREBOARD, StallReason.LG_THROTTLE, StallReason.DRAIN)
            evidence.append(f"{kind[int(m.op[pc])]} at {ev.lines.label(pc)}: {per:.1f} sectors per request where "
                            f"{ideal:.1f} would do ({int(m.requests[pc]):,} requests{apart}); warps waited "
                            f"{cyc:,} warp-cycles there (long_scoreboard, lg_throttle, drain)")
            lines.append(ev.lines.key(pc)[0])
        ops = sorted({kind[int(m.op[pc])] for pc in _top_pcs(excess, 1)})
        title = f"uncoalesced global {' and '.join(ops)}"
        return _finding("coalescing", title, w, float(excess.sum()) / max(total, 1) * _mem_share(ev), evidence,
                        "make consecutive threads (threadIdx.x) access consecutive addresses, or read/write "
                        "through a shared-memory tile", lines)
    return why, build


def _mem_share(ev: _Evidence) -> float:
    """The share of warp-cycles spent waiting on memory (a crude scale for estimates without a what-if)."""
    return (ev.state_share(StallReason.LONG_SCOREBOARD) + ev.state_share(StallReason.LG_THROTTLE)
            + ev.state_share(StallReason.MIO_THROTTLE) + ev.state_share(StallReason.SHORT_SCOREBOARD))


def _banks(ev: _Evidence):
    m = ev.mem
    excess, total = _excess(m, MemSpace.SHARED, m.wavefronts, m.ideal_wavefronts)
    why = None if total and excess.sum() > 0.01 * total else "no shared-memory bank conflicts"

    def build(w):
        if excess.sum() <= 0:
            return None
        evidence, lines = [], []
        kind = _OP_KIND
        # a queued load's conflicts show where its data is read (short_scoreboard): charged back to the load
        on_load = _waits_on_loads(ev, StallReason.SHORT_SCOREBOARD, (MemSpace.SHARED,))
        for pc in _top_pcs(excess):
            ways = m.wavefronts[pc] / max(m.ideal_wavefronts[pc], 1)
            cyc = ev.state_cycles(pc, StallReason.MIO_THROTTLE, StallReason.SHORT_SCOREBOARD) + int(on_load[pc])
            evidence.append(f"shared {kind[int(m.op[pc])]} at {ev.lines.label(pc)}: {ways:.1f}-way bank conflicts "
                            f"({int(m.wavefronts[pc]):,} wavefronts where {int(m.ideal_wavefronts[pc]):,} would do, "
                            f"{int(m.requests[pc]):,} requests); warps waited {cyc:,} warp-cycles on it "
                            f"(mio_throttle, and short_scoreboard there or where its data is read)")
            lines.append(ev.lines.key(pc)[0])
        mio = ev.state_share(StallReason.MIO_THROTTLE) + float(on_load.sum()) / ev.warp_cycles
        evidence.append(f"warps waited for the shared-memory pipe {_pct(mio)} of all warp-cycles (mio_throttle, "
                        f"and short_scoreboard for the data of queued shared loads; every line)")
        return _finding("banks", "shared-memory bank conflicts", w,
                        float(excess.sum()) / max(total, 1) * _mem_share(ev), evidence,
                        "pad the shared array (e.g. [32][33] for a 32 x 32 tile) or swizzle the index so the "
                        "lanes of a warp hit different banks", lines)
    return why, build


def _global_reuse(ev: _Evidence):
    from gpusim.timing.lsu import reused_loads, slot_origins
    m = ev.mem
    loads = np.array([s is MemSpace.GLOBAL for s in m.space], dtype=bool) & (m.op == 0) & (m.requests > 0)
    slot_warp, slot_pc = slot_origins(ev.trace)
    reused = reused_loads(ev.trace, slot_pc, slot_warp)
    per_pc = np.bincount(slot_pc[reused], minlength=ev.n_pcs)[:ev.n_pcs]
    n_loads = int(m.requests[loads].sum())
    frac = float(per_pc.sum()) / n_loads if n_loads else 0.0
    ls = ev.state_share(StallReason.LONG_SCOREBOARD)
    if not loads.any():
        why = "no global loads"
    elif frac < 0.5:
        why = (f"only {_pct(frac)} of the global loads re-read data their block read before (tiling has little "
               f"to reuse)")
    elif ls < 0.10:
        why = f"warps waited on global loads only {_pct(ls)} of the time"
    else:
        why = None

    def build(w):
        if not loads.any() or (w is None and why is not None):
            return None
        c = ev.c
        waits = ev.stalls[:, int(StallReason.LONG_SCOREBOARD)]
        evidence, lines = [], []
        evidence.append(f"warps spent {_pct(ls)} of their cycles waiting on global memory instructions "
                        f"(long_scoreboard); "
                        f"issue slots were busy {c['smsp__issue_active.avg.pct_of_peak_sustained_active']:.0f}% "
                        f"of the time with {c['sm__warps_active.avg.per_cycle_active']:.1f} warps per SM "
                        f"(achieved occupancy {c['sm__warps_active.avg.pct_of_peak_sustained_active']:.0f}%)")
        evidence.append(f"{_pct(frac)} of the global loads read only data their block had read before "
                        f"(L1 hit rate {c.get('l1tex__t_sector_hit_rate.pct', 0.0):.0f}%, L2 hit rate "
                        f"{c.get('lts__t_sector_hit_rate.pct', 0.0):.0f}%): each of them pays the L1/L2 "
                        f"latency again")
        # a load's wait is charged to the instruction that uses it: sum both per CUDA (or PTX) line
        by_line: dict[str, list[int]] = {}
        for pc in range(ev.n_pcs):
            by_line.setdefault(ev.lines.key(pc)[0], []).append(pc)
        ranked = sorted(((int(waits[p].sum()), int(per_pc[p].sum()), int(m.requests[p][loads[p]].sum()), p[0], k)
                         for k, p in by_line.items() if per_pc[p].sum() > 0), reverse=True)
        for w_cyc, n_reused, n_loads, pc0, key in ranked[:2]:
            waited = f"; {w_cyc:,} warp-cycles waiting on that line" if w_cyc else ""
            evidence.append(f"{ev.lines.label(pc0)}: {n_reused:,} of {n_loads:,} loads re-read their block's "
                            f"data{waited}")
            lines.append(key)
        return _finding("reuse", "global memory: reused data re-read from L1/L2", w, ls * frac, evidence,
                        "stage the data each block reuses in shared memory (tiling), so it is read from "
                        "global memory once per block", lines)
    return why, build


#: The latency what-if is worth running from this share of warp-cycles waiting on global/local loads on.
LATENCY_WAIT_SHARE = 0.10


def _waits_on_loads(ev: _Evidence, state: StallReason, spaces) -> np.ndarray:
    """Warp-cycles in ``state`` per load PC (loads from ``spaces``): the wait is charged to the instruction
    that reads a load's result, so it is handed back to the load(s) it reads."""
    waits = ev.stalls[:, int(state)].astype(np.float64)
    on_load = np.zeros(ev.n_pcs)
    for pc, loads in _load_producers(ev, spaces).items():
        on_load[loads] += waits[pc] / len(loads)
    return on_load


def _load_producers(ev: _Evidence, spaces=(MemSpace.GLOBAL, MemSpace.LOCAL)) -> dict[int, list[int]]:
    """For each PC, the loads (from ``spaces``) whose results it reads: per source register, the nearest
    earlier writer in program order (wrapping round to the end for a loop's back edge), if it is such a
    load."""
    instrs, m = ev.trace.instructions, ev.mem
    is_load = [m.space[i.pc] in spaces and int(m.op[i.pc]) == 0 and m.requests[i.pc] > 0 for i in instrs]
    writers: dict[int, list[int]] = {}
    for i in instrs:
        for r in i.dst_regs:
            writers.setdefault(r, []).append(i.pc)
    out = {}
    for i in instrs:
        found = set()
        for r in i.src_regs:
            pcs = writers.get(r)
            if not pcs:
                continue
            earlier = [q for q in pcs if q < i.pc]
            q = earlier[-1] if earlier else pcs[-1]
            if is_load[q]:
                found.add(q)
        if found:
            out[i.pc] = sorted(found)
    return out


def _latency(ev: _Evidence):
    c, occ = ev.c, ev.timing.occupancy
    ls = ev.state_share(StallReason.LONG_SCOREBOARD)
    why = None if ls >= LATENCY_WAIT_SHARE else f"warps waited on global or local memory instructions only {_pct(ls)} of the time"

    def build(w):
        if ls <= 0 or (w is None and why is not None):
            return None
        issue = c["smsp__issue_active.avg.pct_of_peak_sustained_active"]
        achieved = c["sm__warps_active.avg.pct_of_peak_sustained_active"]
        per_sched = c["sm__warps_active.avg.per_cycle_active"] / ev.gpu.sm.subpartitions
        other = ev.state_share(StallReason.SHORT_SCOREBOARD) + ev.state_share(StallReason.WAIT)
        mem = ev.gpu.memory
        dram_cycles = mem.l2.hit_latency_near_cycles + mem.dram.latency_ns * ev.gpu.clock_mhz / 1000.0
        evidence = [f"warps spent {_pct(ls)} of their cycles waiting on global or local memory instructions "
                    f"(long_scoreboard: a load's data, or a queued memory instruction's turn in the L1 pipe), "
                    f"{_pct(other)} for other results (short_scoreboard, wait)",
                    f"issue slots were busy {issue:.0f}% of the time with {per_sched:.1f} resident warps per "
                    f"scheduler: achieved occupancy {achieved:.0f}% of a theoretical {occ.occupancy_pct:.0f}% "
                    f"({occ.blocks_per_sm} blocks of {occ.warps_per_block} warps per SM, limited by "
                    f"{', '.join(occ.limiting) or 'nothing'}); too few warps had an independent instruction "
                    f"to issue while the loads were out",
                    f"a load takes {mem.l1.hit_latency_cycles} cycles from L1, {mem.l2.hit_latency_near_cycles} "
                    f"from L2, {dram_cycles:.0f} from DRAM (unloaded); L1 hit rate "
                    f"{c.get('l1tex__t_sector_hit_rate.pct', 0.0):.0f}%, L2 hit rate "
                    f"{c.get('lts__t_sector_hit_rate.pct', 0.0):.0f}%"]
        on_load = _waits_on_loads(ev, StallReason.LONG_SCOREBOARD, (MemSpace.GLOBAL, MemSpace.LOCAL))
        by_line: dict[str, list[int]] = {}
        for pc in np.flatnonzero(on_load > 0).tolist():
            by_line.setdefault(ev.lines.key(pc)[0], []).append(pc)
        ranked = sorted(by_line.items(), key=lambda kv: -float(on_load[kv[1]].sum()))
        lines = []
        for where, pcs in ranked[:2]:
            evidence.append(f"loads at {ev.lines.label(pcs[0])}: warps waited {int(on_load[pcs].sum()):,} "
                            f"warp-cycles for their data ({_pct(float(on_load[pcs].sum()) / ev.warp_cycles)} of all "
                            f"warp-cycles; {int(ev.mem.requests[pcs].sum()):,} requests)")
            lines.append(where)
        return _finding("latency", "latency not hidden", w, ls * (1 - issue / 100), evidence,
                        "give each thread more independent work between a load and the use of its data (unroll, "
                        "issue several loads before the first use: ILP), keep more warps resident (more blocks "
                        "per SM, fewer registers or less shared memory per block), or prefetch the next tile "
                        "into shared memory (double buffering, cp.async) while computing on the current one",
                        lines)
    return why, build


def _dram(ev: _Evidence):
    c, g = ev.c, ev.gpu
    moved = float(c.get("dram__bytes_read.sum", 0)) + float(c.get("dram__bytes_write.sum", 0))
    secs = ev.cycles / (g.clock_mhz * 1e6)
    peak = float(g.memory.dram.peak_bytes_per_s)
    frac = moved / secs / peak if secs and peak else 0.0
    why = None if frac >= 0.05 else f"DRAM ran at {_pct(frac)} of its peak bandwidth"

    def build(w):
        if moved <= 0 or (w is None and frac < 0.05):
            return None
        evidence = [f"DRAM moved {moved / 1e6:,.2f} MB at {moved / secs / 1e9:,.0f} GB/s, {_pct(frac)} of the "
                    f"peak {peak / 1e9:,.0f} GB/s (row-buffer hit rate "
                    f"{c.get('gpusim__dram_row_hit_rate.pct', 0.0):.0f}%)"]
        return _finding("dram", "DRAM bandwidth", w, frac * _mem_share(ev), evidence,
                        "move fewer bytes: reuse data on chip, read each byte once, use narrower types")
    return why, build


def _divergence(ev: _Evidence):
    tr = ev.trace
    packed = compact_divergence(tr)
    after = np.bincount(np.asarray(packed.pc, dtype=np.int64), minlength=ev.n_pcs)[:ev.n_pcs]
    saved = ev.execs - after
    share_rows = float(saved.sum()) / max(1, tr.n_instructions)
    why = None if share_rows >= 0.02 else "every warp instruction ran with as many threads as its block had"

    def build(w):
        if saved.sum() <= 0 or (w is None and share_rows < 0.02):
            return None
        evidence, lines = [], []
        by_line: dict[str, list[int]] = {}
        for pc in np.flatnonzero(saved > 0).tolist():
            by_line.setdefault(ev.lines.key(pc)[0], []).append(pc)
        ranked = sorted(by_line.items(), key=lambda kv: -int(saved[kv[1]].sum()))
        for where, pcs in ranked[:3]:
            rows, thr, fewer = int(ev.execs[pcs].sum()), float(ev.threads[pcs].sum()), int(after[pcs].sum())
            evidence.append(f"{ev.lines.label(pcs[0])}: {thr / rows:.1f} of 32 threads active per warp instruction; "
                            f"{rows:,} warp instructions where {fewer:,} full ones would hold the same threads")
            lines.append(where)
        tpi = ev.c["smsp__thread_inst_executed_per_inst_executed.ratio"]
        evidence.append(f"over the kernel: {tpi:.1f} active threads per warp instruction; packing each block's "
                        f"threads into full warps would issue {share_rows:.0%} fewer warp instructions")
        issue = ev.c["smsp__issue_active.avg.pct_of_peak_sustained_active"] / 100
        return _finding("divergence", "divergence", w, share_rows * issue, evidence,
                        "let the threads that take the same path sit in the same warps (e.g. contiguous active "
                        "threads, t < s, instead of every other one, t % (2*s) == 0)", lines)
    return why, build


def _barriers(ev: _Evidence):
    bar = [i.pc for i in ev.trace.instructions if i.is_barrier]
    share = ev.state_share(StallReason.BARRIER)
    why = None if bar and share >= 0.05 else ("no barriers" if not bar else
                                              f"warps waited at barriers only {_pct(share)} of the time")

    def build(w):
        if not bar or (w is None and share < 0.05):
            return None
        waits = np.zeros(ev.n_pcs)
        waits[bar] = ev.stalls[bar, int(StallReason.BARRIER)]
        evidence, lines = [f"warps spent {_pct(share)} of their cycles waiting at barriers for the rest of their "
                           f"block"], []
        for pc in _top_pcs(waits, 2):
            evidence.append(f"{int(waits[pc]):,} warp-cycles at {ev.lines.label(pc)}")
            lines.append(ev.lines.key(pc)[0])
        return _finding("barriers", "barrier waits", w, share, evidence,
                        "balance the work of the warps between barriers, use fewer barriers, or let more blocks "
                        "share an SM so others run while one waits", lines)
    return why, build


def _atomics(ev: _Evidence):
    m = ev.mem
    c = ev.c
    serial = float(c.get("gpusim__l2_atomic_serialised.sum", 0.0)) + float(
        c.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", 0.0))
    has = bool((m.op == 2).any() and (m.requests[m.op == 2] > 0).any())
    why = None if has and serial > 0 else ("no atomics" if not has else "no atomic waited for another")

    def build(w):
        if not has or serial <= 0:
            return None
        evidence, lines = [], []
        atoms = np.where(m.op == 2, m.requests, 0)
        for pc in _top_pcs(atoms, 2):
            lanes = int(m.atomic_lanes[pc])
            if m.space[pc] is MemSpace.GLOBAL and m.atomic_addresses[pc]:
                evidence.append(f"global atomics at {ev.lines.label(pc)}: {lanes / m.atomic_addresses[pc]:.1f} "
                                f"lanes per address per request ({int(m.requests[pc]):,} requests)")
            else:
                evidence.append(f"shared atomics at {ev.lines.label(pc)}: {m.wavefronts[pc] / max(m.requests[pc], 1):.1f} "
                                f"wavefronts per request ({int(m.requests[pc]):,} requests)")
            lines.append(ev.lines.key(pc)[0])
        evidence.append(f"{int(serial):,} atomic operations waited for another one on the same address")
        lanes = max(1.0, float(m.atomic_lanes.sum()) + float(m.requests[m.op == 2].sum()))
        return _finding("atomics", "atomic contention", w, min(1.0, serial / lanes) * _mem_share(ev), evidence,
                        "privatise (a copy per block or per warp, merged at the end) or combine the lanes of a "
                        "warp before the atomic", lines)
    return why, build
