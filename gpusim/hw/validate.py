"""``gpusim validate``: simulate every recorded launch and report the agreement, per suite and per size class.

    >>> from gpusim.hw.validate import SimOptions, find_records, run_validation
    >>> recs, skipped = find_records(["tests/golden/h100/"], clock="base")
    >>> v = run_validation(recs, SimOptions(gpu="h100"), jobs=2, time_limit_s=600, skipped=skipped)
    >>> print(v.text)

A record is one launch measured on a GPU (:mod:`gpusim.hw.record`): the program, size and seed, ncu's
``gpc__cycles_elapsed.max`` and counters.  The runner simulates each record with a *simulate function* that
takes the record and a :class:`SimOptions` (the default :func:`simulate_record` runs ``gpusim.run`` in timing
mode; another, e.g. a sampled simulation, can be passed in), in ``jobs`` processes, each record with its own
time limit.  A record that is not simulated is never dropped silently: it is listed with its reason (time
limit, error, no measured cycles, other clock).

Definitions (printed with the tables):

* **size class**: by the GPU's measured cycles, ``< 20k``, ``20k-200k``, ``200k-2M``, ``>= 2M``;
* **suite**: the record's ``suite`` (the public suite a validation kernel follows), ``lecture`` for the
  programs of the lecture notes (records without one);
* **error**: (simulated - measured) / measured cycles; **MAPE** the mean of its absolute value, **median**
  the median of it, **r(log)** Pearson's r of log simulated against log measured cycles (3 launches or
  more), **within 10% / 25%** the share of launches whose absolute error is at most that;
* **dominant stall**: the largest ``smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio``
  other than ``selected`` (which is 1 per issued instruction by definition); **stall = ncu** the share of
  launches whose dominant reason is ncu's (records without stall counters are not counted);
* **inst sim/hw**: the geometric mean of simulated / measured ``smsp__inst_executed.sum``.
"""
from __future__ import annotations

import json
import math
import multiprocessing
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait as wait_for
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.errors import GpusimError

CYCLES = "gpc__cycles_elapsed.max"
INST = "smsp__inst_executed.sum"
STALL_PREFIX, STALL_SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"

#: Size classes by the GPU's measured cycles: (name, lower bound inclusive, upper bound exclusive).
SIZE_CLASSES: tuple[tuple[str, float, float], ...] = (
    ("< 20k", 0, 20_000), ("20k-200k", 20_000, 200_000), ("200k-2M", 200_000, 2_000_000),
    (">= 2M", 2_000_000, math.inf))

#: ``--clock`` names and the ``clock_control`` of the records they validate (ncu's ``--clock-control``).
CLOCKS = {"base": "base", "boost": "none"}

LECTURE = "lecture"


def size_class(cycles: float) -> str:
    """The size class (:data:`SIZE_CLASSES`) of a launch of ``cycles`` measured cycles."""
    return next(name for name, lo, hi in SIZE_CLASSES if lo <= cycles < hi)


def dominant_stall(counters: Mapping[str, Any]) -> str | None:
    """The stall reason with the most warp-cycles per issued instruction, ``selected`` excluded; None when the
    counters hold no stall ratios (or all are zero)."""
    best, best_v = None, 0.0
    for k, v in counters.items():
        if k.startswith(STALL_PREFIX) and k.endswith(STALL_SUFFIX) and isinstance(v, (int, float)):
            reason = k[len(STALL_PREFIX):-len(STALL_SUFFIX)]
            if reason != "selected" and v > best_v:
                best, best_v = reason, float(v)
    return best


# -- records --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordRef:
    """What the runner needs of one record: where it is, what to simulate, and the measured figures."""

    path: str
    name: str                      # file stem, e.g. "polybench__gemm__standard"
    program: str
    size: str
    seed: int
    suite: str
    clock_control: str
    cycles_hw: float
    inst_hw: float | None
    stall_hw: str | None
    threads: int | None
    left_out: str | None = None    # why this record is not simulated (a size limit), or None
    sample: bool | None = None     # timed sampled (True), in full detail (False), gpusim.run's "auto" (None)

    @property
    def size_class(self) -> str:
        return size_class(self.cycles_hw)


def records_clock(golden_dirs: Iterable[str | Path]) -> str:
    """The ``--clock`` the records under ``golden_dirs`` were taken at: ``boost`` when every record is of ncu's
    ``--clock-control none`` (``tests/golden/h100-boost/``), else ``base``."""
    controls = set()
    for d in golden_dirs:
        for p in sorted(Path(d).rglob("*__*.json")) if Path(d).is_dir() else ():
            try:
                rec = json.loads(p.read_text())
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                continue          # find_records reports it
            controls.add(_clock_control(rec))
    return "boost" if controls == {CLOCKS["boost"]} else "base"


def _clock_control(rec: Mapping[str, Any]) -> str:
    return rec.get("clock_control") or (rec.get("ncu") or {}).get("clock_control") or "base"


def find_records(golden_dirs: Iterable[str | Path], clock: str = "base", *, programs_only=None,
                 suites_only=None, max_threads: int | None = None, max_warp_inst: float | None = None,
                 name_pattern: str | None = None, sample_above: float | None = None
                 ) -> tuple[list[RecordRef], list[tuple[str, str]]]:
    """The records under ``golden_dirs`` (each searched recursively for ``*__*.json``; a record reached twice
    counts once) that ``clock`` validates, and ``(name, reason)`` for those that are not part of it (taken at
    another clock, no measured cycles).  Filters: program names, suite names (``lecture`` for the lecture
    programs), ``name_pattern`` (a regular expression searched in the file stem); ``max_threads`` and ``max_warp_inst`` (the measured ``smsp__inst_executed.sum``: what the
    simulation's time grows with) mark larger records ``left_out`` with that reason: they count in their
    suite and size class as not simulated.  ``sample_above``: records of more measured warp instructions are
    timed sampled (:mod:`gpusim.timing.sampling`; ``gpusim.run(sample=True)``: on a few SMs, then in time
    on the whole GPU when their bound is too wide, the narrower bound kept), the others in full detail;
    None: ``gpusim.run``'s automatic choice for each."""
    if clock not in CLOCKS:
        raise GpusimError(f"--clock: expected one of {', '.join(CLOCKS)}, got {clock!r}")
    try:
        name_re = re.compile(name_pattern) if name_pattern else None
    except re.error as e:
        raise GpusimError(f"--only {name_pattern!r}: not a regular expression ({e})") from None
    seen, refs, skipped = set(), [], []
    for d in golden_dirs:
        d = Path(d)
        if not d.is_dir():
            raise GpusimError(f"{d}: no such folder of records")
        paths = sorted(d.rglob("*__*.json"))
        if not paths:
            raise GpusimError(f"{d}: no records (files NAME__SIZE.json) in it or below it")
        for p in paths:
            key = p.resolve()
            if key in seen or (name_re and not name_re.search(p.stem)):
                continue
            seen.add(key)
            try:
                rec = json.loads(p.read_text())
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
                raise GpusimError(f"{p}: not a readable record ({e})") from None
            if "program" not in rec or "size" not in rec:
                raise GpusimError(f"{p}: not a record (expected the keys 'program' and 'size')")
            suite = rec.get("suite") or LECTURE
            if programs_only and rec["program"] not in programs_only:
                continue
            if suites_only and suite not in suites_only:
                continue
            control = _clock_control(rec)
            if control != CLOCKS[clock]:
                skipped.append((p.stem, f"recorded with --clock-control {control}, not validated with --clock {clock}"))
                continue
            if not rec.get("cycles"):
                skipped.append((p.stem, "no measured cycles (recorded without ncu)"))
                continue
            counters = rec.get("counters") or {}
            left_out = None
            if max_threads is not None and (rec.get("threads") or 0) > max_threads:
                left_out = f"{rec.get('threads')} threads > --max-threads {max_threads}"
            elif max_warp_inst is not None and (counters.get(INST) or 0) > max_warp_inst:
                left_out = (f"{counters[INST] / 1e6:,.1f} M warp instructions > --max-warp-inst "
                            f"{max_warp_inst / 1e6:g} M")
            refs.append(RecordRef(
                path=str(p), name=p.stem, program=rec["program"], size=rec["size"], seed=int(rec.get("seed", 0)),
                suite=suite, clock_control=control, cycles_hw=float(rec["cycles"]),
                inst_hw=float(counters[INST]) if counters.get(INST) else None,
                stall_hw=dominant_stall(counters), threads=rec.get("threads"), left_out=left_out,
                sample=None if sample_above is None else (counters.get(INST) or 0) > sample_above))
    return refs, skipped


# -- simulating one record ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SimOptions:
    """How each record is simulated: the GPU preset (a name or a ``.toml`` path), the clock the records were
    taken at, and keyword arguments passed on to ``gpusim.run`` (e.g. ``scheduler``)."""

    gpu: str = "h100"
    clock: str = "base"
    run_options: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self):
        if self.clock not in CLOCKS:
            raise GpusimError(f"clock: expected one of {', '.join(CLOCKS)}, got {self.clock!r}")


def boost_preset_name(gpu) -> str | None:
    """The preset that models ``gpu`` at its boost clock: ``<name>-boost`` (e.g. ``h100-boost``) for a preset
    name, the preset itself when its name already ends in ``-boost``; None for a ``.toml`` path of another
    name (give the boost preset with ``--gpu``)."""
    name = gpu if isinstance(gpu, str) else getattr(gpu, "name", str(gpu))
    if name.endswith("-boost") or (isinstance(gpu, str) and Path(gpu).stem.endswith("-boost")):
        return name
    if isinstance(gpu, str) and not gpu.endswith(".toml"):
        return f"{gpu}-boost"
    return None


def gpu_at_clock(gpu, clock: str):
    """The GPU config that predicts records taken at ``clock``.

    ``base`` is the preset as it is (its figures are calibrated under ncu's default clock lock).  ``boost`` is
    the preset's boost variant (:func:`boost_preset_name`: ``h100`` -> ``h100-boost``, whose SM clock is the
    boost clock and whose memory clocks are the same).  Where that preset does not exist it is an error
    naming it, and every boost record is reported as not simulated with that reason."""
    from gpusim.config import load_gpu
    from gpusim.config.loader import preset_names
    if clock == "base":
        return load_gpu(gpu)
    name = boost_preset_name(gpu)
    if name is None:
        raise GpusimError(f"{gpu}: give the GPU at its boost clock with --gpu (a preset or .toml named *-boost)")
    if isinstance(gpu, str) and gpu.endswith(".toml"):
        return load_gpu(gpu)
    if name not in preset_names():
        raise GpusimError(f"no {name} preset in this gpusim: the presets model the base clock only (the SM "
                          f"and memory clock domains and {name} are not landed yet)")
    return load_gpu(name)


def simulate_record(ref: RecordRef, options: SimOptions) -> dict:
    """Simulate one record in timing mode: simulated cycles, instructions and dominant stall reason."""
    from gpusim.hw.compare import simulate
    gpu = gpu_at_clock(options.gpu, options.clock)
    run_options = dict(options.run_options)
    if ref.sample is not None:
        # sampled: the automatic choice of layout (a few SMs, or in time on the whole GPU when their bound is
        # too wide and the launch has the waves), never in full: the estimate with the narrower bound
        run_options["sample"] = True if ref.sample else False
    res = simulate(ref.program, ref.size, ref.seed, gpu, **run_options)
    counters = res.timing.counters
    info = getattr(res.timing, "sampling", None)
    return {"cycles": float(res.timing.cycles), "inst": float(counters.get(INST, 0)) or None,
            "stall": dominant_stall(counters), "sampled_bound_pct": None if info is None else info.error_bound_pct}


# -- the runner -----------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """One record's result: simulated figures, or the reason it was not simulated."""

    ref: RecordRef
    cycles_sim: float | None = None
    inst_sim: float | None = None
    stall_sim: str | None = None
    seconds: float = 0.0
    reason: str | None = None            # set when not simulated
    sampled_bound_pct: float | None = None   # timed sampled: the estimate's stated error bound (percent)

    @property
    def ok(self) -> bool:
        """Simulated and counted: a sampled estimate counts only when its stated bound is at most the one
        ``gpusim run``'s automatic sampling accepts (``AUTO_MAX_BOUND_PCT``)."""
        return self.reason is None and not self.untrusted_sample

    @property
    def untrusted_sample(self) -> bool:
        from gpusim.timing.sampling import AUTO_MAX_BOUND_PCT
        return self.sampled_bound_pct is not None and self.sampled_bound_pct > AUTO_MAX_BOUND_PCT

    @property
    def why_not(self) -> str | None:
        """Why it is not counted (None when it is)."""
        if self.reason is not None or not self.untrusted_sample:
            return self.reason
        from gpusim.timing.sampling import AUTO_MAX_BOUND_PCT
        return (f"timed sampled: {self.cycles_sim:,.0f} cycles +/- {self.sampled_bound_pct:.0f}%, a wider bound "
                f"than the {AUTO_MAX_BOUND_PCT:g}% a sample is trusted with ({100 * self.error:+.0f}% against the "
                f"GPU; not counted)")

    @property
    def error(self) -> float | None:
        return None if self.cycles_sim is None else (self.cycles_sim - self.ref.cycles_hw) / self.ref.cycles_hw

    def as_dict(self) -> dict:
        r = self.ref
        return {"name": r.name, "program": r.program, "size": r.size, "seed": r.seed, "suite": r.suite,
                "size_class": r.size_class, "clock_control": r.clock_control, "cycles_hw": r.cycles_hw,
                "cycles_sim": self.cycles_sim, "error": self.error, "inst_hw": r.inst_hw, "inst_sim": self.inst_sim,
                "stall_hw": r.stall_hw, "stall_sim": self.stall_sim, "seconds": round(self.seconds, 2),
                "not_simulated": self.reason, "sampled_bound_pct": self.sampled_bound_pct}


def _outcome(ref: RecordRef, result: dict, seconds: float) -> Outcome:
    return Outcome(ref, cycles_sim=result["cycles"], inst_sim=result.get("inst"), stall_sim=result.get("stall"),
                   seconds=seconds, sampled_bound_pct=result.get("sampled_bound_pct"))


def _cpu_limit(seconds: float) -> bool:
    """Make the kernel stop this process (SIGXCPU) after ``seconds`` of CPU time; False where it cannot."""
    try:
        import resource
    except ImportError:
        return False
    soft = max(1, math.ceil(seconds))
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY and hard < soft:
        return False
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    return True


def _child(conn, simulate, ref, options, time_limit_s) -> None:
    if time_limit_s is not None and not _cpu_limit(time_limit_s):
        conn.send(("no-cpu-limit", None))
    try:
        conn.send(("ok", simulate(ref, options)))
    except BaseException as e:       # noqa: BLE001 - the parent reports any failure as "not simulated"
        conn.send(("error", f"{type(e).__name__}: {e}".strip()))
    finally:
        conn.close()


def _context():
    # fork: the child starts with gpusim already imported (a second per record matters over 250 records)
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def run_records(refs: list[RecordRef], options: SimOptions, simulate: Callable[[RecordRef, SimOptions], dict]
                = simulate_record, *, jobs: int = 1, time_limit_s: float | None = None,
                progress: Callable[[Outcome, int, int], None] | None = None) -> list[Outcome]:
    """Simulate every record with ``simulate(ref, options)``, in ``jobs`` processes.  ``time_limit_s`` is each
    record's limit in CPU seconds of its process (the kernel stops it; on a shared machine wall time would
    depend on the load), in wall seconds where the OS has no CPU limit; None: no limit.  With several jobs the
    records start largest first (by ``inst_hw``).  Returns one :class:`Outcome` per record, in ``refs``
    order; ``progress(outcome, done, total)`` is called as each finishes."""
    total = len(refs)
    outcomes: dict[int, Outcome] = {}

    def finish(i: int, o: Outcome) -> None:
        outcomes[i] = o
        if progress:
            progress(o, len(outcomes), total)

    for i, ref in enumerate(refs):
        if ref.left_out:
            finish(i, Outcome(ref, reason=ref.left_out))
    if jobs <= 1 and time_limit_s is None:
        for i, ref in enumerate(refs):
            if ref.left_out:
                continue
            t0 = time.perf_counter()
            try:
                finish(i, _outcome(ref, simulate(ref, options), time.perf_counter() - t0))
            except Exception as e:   # noqa: BLE001 - reported as "not simulated", the run goes on
                finish(i, Outcome(ref, seconds=time.perf_counter() - t0, reason=f"{type(e).__name__}: {e}"))
        return [outcomes[i] for i in range(total)]

    ctx = _context()
    # the largest launches first (the measured instructions; ~0.9 rank correlation with a record's time): the
    # run ends when its longest record does, so that one must not start last (on 16 processes, the stored
    # base run's per-record times: 468 s for the whole this way, 654 s in file order)
    pending = sorted(((i, ref) for i, ref in enumerate(refs) if not ref.left_out),
                     key=lambda item: -(item[1].inst_hw or 0.0))
    # connection -> [index, process, start time, wall-clock deadline or None]
    running: dict[Any, list] = {}
    limit_text = "" if time_limit_s is None else f"time limit of {time_limit_s:g} s reached"
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                i, ref = pending.pop(0)
                parent, child = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(child, simulate, ref, options, time_limit_s), daemon=True)
                proc.start()
                child.close()
                running[parent] = [i, proc, time.perf_counter(), None]
            for conn in wait_for(list(running), timeout=0.5):
                i, proc, t0, _ = running[conn]
                try:
                    status, payload = conn.recv()
                except EOFError:
                    proc.join()
                    cpu_stop = time_limit_s is not None and proc.exitcode in (-24, -9)   # SIGXCPU, SIGKILL
                    status, payload = "error", (f"{limit_text} (CPU)" if cpu_stop else
                                                f"the simulating process died (exit code {proc.exitcode})")
                if status == "no-cpu-limit":
                    running[conn][3] = t0 + time_limit_s
                    continue
                del running[conn]
                conn.close()
                proc.join()
                dt = time.perf_counter() - t0
                finish(i, _outcome(refs[i], payload, dt) if status == "ok" else Outcome(refs[i], seconds=dt,
                                                                                       reason=payload))
            now = time.perf_counter()
            for conn, (i, proc, t0, deadline) in list(running.items()):
                if deadline is not None and now > deadline:
                    proc.kill()
                    proc.join()
                    conn.close()
                    del running[conn]
                    finish(i, Outcome(refs[i], seconds=now - t0, reason=f"{limit_text} (wall clock)"))
    finally:
        for conn, (_i, proc, _t0, _d) in running.items():
            proc.kill()
            proc.join()
            conn.close()
    return [outcomes[i] for i in range(total)]


# -- figures --------------------------------------------------------------------------------------------------
@dataclass
class Summary:
    """Agreement figures of a group of simulated launches (see the module docstring for definitions)."""

    launches: int                  # records in the group (simulated or not)
    simulated: int
    sampled: int = 0               # of which timed sampled
    mape_pct: float | None = None
    median_pct: float | None = None
    r_log: float | None = None
    within10_pct: float | None = None
    within25_pct: float | None = None
    stall_agree: int = 0
    stall_compared: int = 0
    inst_ratio: float | None = None

    @classmethod
    def of(cls, outcomes: list[Outcome]) -> Summary:
        done = [o for o in outcomes if o.ok]
        s = cls(launches=len(outcomes), simulated=len(done),
                sampled=sum(o.sampled_bound_pct is not None for o in done))
        if not done:
            return s
        err = np.array([abs(o.error) for o in done])
        s.mape_pct = float(100 * err.mean())
        s.median_pct = float(100 * np.median(err))
        s.within10_pct = float(100 * np.mean(err <= 0.10))
        s.within25_pct = float(100 * np.mean(err <= 0.25))
        if len(done) >= 3:
            x = np.log([o.cycles_sim for o in done])
            y = np.log([o.ref.cycles_hw for o in done])
            if x.std() > 0 and y.std() > 0:
                s.r_log = float(np.corrcoef(x, y)[0, 1])
        stalls = [o for o in done if o.ref.stall_hw and o.stall_sim]
        s.stall_compared = len(stalls)
        s.stall_agree = sum(o.stall_sim == o.ref.stall_hw for o in stalls)
        inst = [o.inst_sim / o.ref.inst_hw for o in done if o.inst_sim and o.ref.inst_hw]
        if inst:
            s.inst_ratio = float(math.exp(np.mean(np.log(inst))))
        return s

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Validation:
    """The outcome of every record, with figures per suite, per size class and overall."""

    outcomes: list[Outcome]
    skipped: list[tuple[str, str]] = field(default_factory=list)   # records not part of this validation
    options: SimOptions = field(default_factory=SimOptions)

    @property
    def simulated(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.ok]

    @property
    def not_simulated(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]

    def by_suite(self) -> dict[str, Summary]:
        groups: dict[str, list[Outcome]] = {}
        for o in self.outcomes:
            groups.setdefault(o.ref.suite, []).append(o)
        order = sorted(groups, key=lambda s: (s != LECTURE, s.lower()))
        return {s: Summary.of(groups[s]) for s in order}

    def by_size_class(self) -> dict[str, Summary]:
        return {name: Summary.of([o for o in self.outcomes if o.ref.size_class == name])
                for name, _lo, _hi in SIZE_CLASSES}

    def overall(self) -> Summary:
        return Summary.of(self.outcomes)

    def by_timing(self) -> dict[str, Summary]:
        """The simulated launches timed in full detail and those timed by sampling (whose error includes the
        sampling's own), apart."""
        done = self.simulated
        return {"full detail": Summary.of([o for o in done if o.sampled_bound_pct is None]),
                "sampled": Summary.of([o for o in done if o.sampled_bound_pct is not None])}

    def worst(self, n: int = 5) -> list[Outcome]:
        return sorted(self.simulated, key=lambda o: -abs(o.error))[:n]

    @property
    def text(self) -> str:
        return format_validation(self)

    def as_dict(self) -> dict:
        return {"options": {"gpu": self.options.gpu, "clock": self.options.clock,
                            "run_options": dict(self.options.run_options)},
                "overall": self.overall().as_dict(),
                "by_suite": {k: v.as_dict() for k, v in self.by_suite().items()},
                "by_size_class": {k: v.as_dict() for k, v in self.by_size_class().items()},
                "by_timing": {k: v.as_dict() for k, v in self.by_timing().items()},
                "records": [o.as_dict() for o in self.outcomes],
                "skipped": [{"name": n, "reason": r} for n, r in self.skipped]}


def run_validation(refs: list[RecordRef], options: SimOptions, *, simulate=simulate_record, jobs: int = 1,
                   time_limit_s: float | None = None, skipped=(), progress=None) -> Validation:
    """:func:`run_records` over ``refs``, gathered into a :class:`Validation`.  Where ``options`` names no GPU
    at its clock (a boost preset not in this gpusim), every record is reported as not simulated with that
    reason, without starting a process for it."""
    try:
        gpu_at_clock(options.gpu, options.clock)
    except GpusimError as e:
        refs = [r if r.left_out else replace(r, left_out=str(e)) for r in refs]
    outcomes = run_records(refs, options, simulate, jobs=jobs, time_limit_s=time_limit_s, progress=progress)
    return Validation(outcomes=outcomes, skipped=list(skipped), options=options)


def reusable_outcomes(before: Validation, options: SimOptions, refs: list[RecordRef],
                      redo: re.Pattern | None = None) -> dict[str, Outcome]:
    """Of ``refs`` (the records a new run found), those whose outcome an earlier run (``gpusim validate --reuse
    FILE``) may give instead of simulating them again, by name: a record ``before`` holds a simulated result
    for (counted or an untrusted sample), timed as the new run would time it (sampled, or in full detail,
    where ``ref.sample`` says), that the new run does not leave out, and whose name does not match ``redo`` (a
    compiled regular expression).  Records it did not simulate (an error, the time limit) are not kept.  The earlier
    run must have used the same preset, clock and run options: its figures would be another model's."""
    mine = (options.gpu, options.clock, tuple(sorted(options.run_options)))
    theirs = (before.options.gpu, before.options.clock, tuple(sorted(before.options.run_options)))
    if mine != theirs:
        raise GpusimError(f"the earlier results were simulated with gpu={theirs[0]}, clock={theirs[1]}, options "
                          f"{dict(theirs[2])}, not gpu={mine[0]}, clock={mine[1]}, options {dict(mine[2])}: "
                          "their figures cannot be kept")
    earlier = {o.ref.name: o for o in before.outcomes if o.cycles_sim is not None}
    kept = {}
    for r in refs:
        o = earlier.get(r.name)
        if o is None or r.left_out or (redo and redo.search(r.name)):
            continue
        if r.sample is not None and r.sample != (o.sampled_bound_pct is not None):
            continue                      # sampled then and in full detail now, or the other way round
        kept[r.name] = o
    return kept


def merge_kept(v: Validation, refs: list[RecordRef], kept: Mapping[str, Outcome]) -> Validation:
    """``v`` (the run of the records not kept) with the kept outcomes put back, every record in ``refs``'s
    order; a kept outcome takes the record as found now (its measured figures) with its simulated ones."""
    fresh = {o.ref.name: o for o in v.outcomes}
    outcomes = [replace(kept[r.name], ref=r) if r.name in kept else fresh[r.name] for r in refs]
    return Validation(outcomes=outcomes, skipped=v.skipped, options=v.options)


# -- text -----------------------------------------------------------------------------------------------------
def _pct(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}%"


def _table(title: str, groups: Mapping[str, Summary]) -> list[str]:
    lines = [(f"| {title} | launches | simulated | of which sampled | MAPE | median | r(log) | within 10% | "
              "within 25% | stall = ncu | inst sim/hw |"),
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, s in groups.items():
        stall = f"{s.stall_agree}/{s.stall_compared}" if s.stall_compared else "-"
        lines.append(f"| {name} | {s.launches} | {s.simulated} | {s.sampled} | {_pct(s.mape_pct)} | "
                     f"{_pct(s.median_pct)} | "
                     f"{'-' if s.r_log is None else f'{s.r_log:.3f}'} | {_pct(s.within10_pct, 0)} | "
                     f"{_pct(s.within25_pct, 0)} | {stall} | "
                     f"{'-' if s.inst_ratio is None else f'{s.inst_ratio:.3f}'} |")
    return lines


def format_tables(v: Validation) -> list[str]:
    """The per-suite and per-size-class tables (Markdown), with the overall row, and the worst five."""
    lines = _table("suite", {**v.by_suite(), "all": v.overall()}) + [""]
    lines += _table("size class (H100 cycles)", {**v.by_size_class(), "all": v.overall()}) + [""]
    timing = v.by_timing()
    if timing["sampled"].simulated:
        lines += _table("timed", timing) + [""]
    lines.append("Worst five (simulated vs measured `gpc__cycles_elapsed.max`):")
    lines.append("")
    for o in v.worst():
        how = "" if o.sampled_bound_pct is None else f", sampled: estimate +/- {o.sampled_bound_pct:.0f}%"
        lines.append(f"- `{o.ref.program}` {o.ref.size}: {o.cycles_sim:,.0f} vs {o.ref.cycles_hw:,.0f} "
                     f"({100 * o.error:+.0f}%{how})")
    return lines


DEFINITIONS = ("Size classes by the H100's measured cycles; error = (simulated - measured) / measured; MAPE and "
               "median of its absolute value; r(log): Pearson r of log cycles; stall = ncu: launches whose dominant "
               "stall reason (the largest smsp__average_warps_issue_stalled_*_per_issue_active.ratio other than "
               "'selected') is ncu's; inst sim/hw: geometric mean of simulated / measured "
               "smsp__inst_executed.sum; of which sampled: launches timed by sampling (gpusim.timing.sampling, "
               "--sample-above), whose error includes the sampling's own; a sampled launch counts only when the "
               "sample's stated error bound is at most 15% (the bound gpusim run's automatic sampling accepts), "
               "the others are listed as not counted with their estimate.")


def format_validation(v: Validation) -> str:
    o = v.overall()
    gpu = (boost_preset_name(v.options.gpu) or v.options.gpu) if v.options.clock == "boost" else v.options.gpu
    head = (f"validation of {gpu} (clock {v.options.clock}): {o.simulated} of {o.launches} records "
            f"simulated" + (f" ({len(v.skipped)} others not part of it)" if v.skipped else ""))
    lines = [head, ""]
    if o.simulated:
        lines += format_tables(v)
        lines += ["", DEFINITIONS]
    for out in v.not_simulated:
        lines.append(f"not simulated: {out.ref.name}: {out.why_not}")
    for name, reason in v.skipped:
        lines.append(f"not simulated: {name}: {reason}")
    return "\n".join(lines)


def write_results(v: Validation, path, command: str | None = None, reused: dict | None = None,
                  partial: dict | None = None) -> None:
    """Every record's outcome and the tables' figures as JSON, with the date (UTC), the command and the git
    commit of the simulator that gave them (``tools/readme_tables.py`` renders the README's table from it).
    ``reused``: where a run kept earlier results (``--reuse``), which file, its commit and how many records
    were kept; ``command`` is then the command that gives the same results from scratch.  ``partial``: the
    run is not over (``gpusim validate --out`` rewrites its file as each record finishes; the file then
    holds the records done so far and says how many of how many, and ``--reuse`` of it takes the run up)."""
    import datetime
    import subprocess
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        commit += "+changes" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = None
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"), "command": command,
           "commit": commit, **({"reused": reused} if reused else {}), **({"partial": partial} if partial else {}),
           **v.as_dict()}
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")


def read_results(path) -> Validation:
    """A :class:`Validation` from a results file of :func:`write_results` (for tables without simulating)."""
    try:
        doc = json.loads(Path(path).read_text())
        return _validation_of(doc)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise GpusimError(f"{path}: not a results file of `gpusim validate --out` ({type(e).__name__}: {e})"
                          ) from None


def _validation_of(doc: dict) -> Validation:
    outcomes = []
    for r in doc["records"]:
        ref = RecordRef(path="", name=r["name"], program=r["program"], size=r["size"], seed=r["seed"],
                        suite=r["suite"], clock_control=r["clock_control"], cycles_hw=r["cycles_hw"],
                        inst_hw=r["inst_hw"], stall_hw=r["stall_hw"], threads=None)
        outcomes.append(Outcome(ref, cycles_sim=r["cycles_sim"], inst_sim=r["inst_sim"], stall_sim=r["stall_sim"],
                                seconds=r["seconds"], reason=r["not_simulated"],
                                sampled_bound_pct=r.get("sampled_bound_pct")))
    o = doc["options"]
    return Validation(outcomes=outcomes, skipped=[(x["name"], x["reason"]) for x in doc["skipped"]],
                      options=SimOptions(gpu=o["gpu"], clock=o["clock"],
                                         run_options=tuple(sorted(o["run_options"].items()))))


def format_against(v: Validation, before: Validation, moved: int = 10) -> str:
    """What changed since an earlier run (``gpusim validate --against FILE``): MAPE and median of each suite,
    size class and all, now and before, on the launches simulated both times; and the launches whose simulated
    cycles moved most."""
    prev = {o.ref.name: o for o in before.simulated}
    both = [o for o in v.simulated if o.ref.name in prev]
    groups: dict[str, list[Outcome]] = {}
    for o in both:
        groups.setdefault(o.ref.suite, []).append(o)
    order = sorted(groups, key=lambda s: (s != LECTURE, s.lower()))
    named = [(s, groups[s]) for s in order]
    named += [(c, [o for o in both if o.ref.size_class == c]) for c, _lo, _hi in SIZE_CLASSES]
    named.append(("all", both))
    lines = [f"against {len(both)} launches simulated in both runs:", "",
             "| group | launches | MAPE now | MAPE before | median now | median before |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for name, outs in named:
        if not outs:
            continue
        now, was = Summary.of(outs), Summary.of([prev[o.ref.name] for o in outs])
        lines.append(f"| {name} | {len(outs)} | {_pct(now.mape_pct)} | {_pct(was.mape_pct)} | "
                     f"{_pct(now.median_pct)} | {_pct(was.median_pct)} |")
    lines += ["", "moved most (simulated cycles before -> now; error before -> now):"]
    for o in sorted(both, key=lambda o: -abs(math.log(o.cycles_sim / prev[o.ref.name].cycles_sim)))[:moved]:
        p = prev[o.ref.name]
        if p.cycles_sim == o.cycles_sim:
            break
        lines.append(f"  {o.ref.name:44s} {p.cycles_sim:>12,.0f} -> {o.cycles_sim:>12,.0f}   "
                     f"{100 * p.error:+7.1f}% -> {100 * o.error:+7.1f}%")
    return "\n".join(lines)


def progress_line(o: Outcome, done: int, total: int) -> str:
    """One line per finished record, for a long run's progress."""
    tag = f"[{done}/{total}] {o.ref.name:44s}"
    if not o.ok:
        return f"{tag} not simulated: {o.why_not}"
    how = "" if o.sampled_bound_pct is None else f", sampled +/- {o.sampled_bound_pct:.0f}%"
    return (f"{tag} simulated {o.cycles_sim:>12,.0f}  measured {o.ref.cycles_hw:>12,.0f}  {100 * o.error:+7.1f}%"
            f"  ({o.seconds:.0f} s{how})")


def plot_validation(v: Validation, path) -> None:
    """Simulated against measured cycles, one colour per suite, log-log."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 6))
    done = v.simulated
    for suite in v.by_suite():
        pts = [o for o in done if o.ref.suite == suite]
        if pts:
            ax.loglog([o.ref.cycles_hw for o in pts], [o.cycles_sim for o in pts], "o", ms=4, label=suite)
    if done:
        vals = [o.ref.cycles_hw for o in done] + [o.cycles_sim for o in done]
        lo, hi = min(vals) * 0.8, max(vals) * 1.25
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8, label="simulated = measured")
    o = v.overall()
    ax.set_xlabel("measured gpc__cycles_elapsed.max (ncu)")
    ax.set_ylabel("simulated cycles")
    ax.set_title(f"{o.simulated} launches: MAPE {_pct(o.mape_pct)}, r(log) "
                 f"{'-' if o.r_log is None else f'{o.r_log:.3f}'}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
