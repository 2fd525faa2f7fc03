"""The report's content: sections like Nsight Compute's ``--set full`` pages, each a list of metrics under
their Nsight names (``gpusim__...`` for what Nsight has no metric for), with a label and a unit.

:func:`build_report` takes a timing-mode :class:`gpusim.api.RunResult` and returns a :class:`Report`;
:mod:`gpusim.report.render` prints it (rich), or writes it as JSON or CSV.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gpusim.timing.warp_states import STALL_REASONS, stall_metric_name


@dataclass
class Metric:
    name: str            # Nsight metric name
    label: str           # Nsight's display name
    unit: str
    value: object

    def as_dict(self) -> dict:
        return {"metric": self.name, "label": self.label, "unit": self.unit, "value": self.value}


@dataclass
class Table:
    """A free-form table (memory workload, source counters): column names and rows."""

    title: str
    columns: list[str]
    rows: list[list]


@dataclass
class Section:
    name: str
    metrics: list[Metric] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, label: str, unit: str, value) -> None:
        self.metrics.append(Metric(name, label, unit, _plain(value)))


@dataclass
class Report:
    kernel: str
    gpu: str
    program: str | None
    size: str | None
    sections: list[Section]
    diagnosis: object = None          # gpusim.analysis.diagnosis.Diagnosis, when one was made

    def section(self, name: str) -> Section:
        for s in self.sections:
            if s.name == name:
                return s
        raise KeyError(name)

    def metrics(self) -> dict[str, object]:
        """Every metric of every section: name -> value."""
        return {m.name: m.value for s in self.sections for m in s.metrics}

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "gpu": self.gpu, "program": self.program, "size": self.size,
                "diagnosis": self.diagnosis.as_dict() if self.diagnosis is not None else None,
                "sections": [{"name": s.name, "metrics": [m.as_dict() for m in s.metrics],
                              "tables": [{"title": t.title, "columns": t.columns, "rows": t.rows}
                                         for t in s.tables],
                              "notes": s.notes} for s in self.sections]}


def _plain(v):
    try:
        import numpy as np
        if isinstance(v, np.generic):
            return v.item()
    except ImportError:
        pass
    if isinstance(v, float) and v.is_integer() and abs(v) < 1 << 53:
        return int(v)
    return v


def _gpu_config(res):
    g = res.gpu
    if isinstance(g, str) or g is None:
        from gpusim.config import load_gpu
        g = load_gpu(g or "h100")
    return g


def diagnosis_section(d) -> Section:
    """The "why is it slow" section of a :class:`gpusim.analysis.diagnosis.Diagnosis`: the limiters ranked by
    cost, the what-ifs that measured them, and the evidence as notes."""
    sec = Section("Diagnosis: why is it slow")
    sec.add("gpc__cycles_elapsed.max", "Elapsed Cycles", "cycle", d.cycles)
    sec.add("gpusim__launch_cycles", "Launch (before the first warp issues)", "cycle", d.launch_cycles)
    sec.add("gpusim__launch_share.pct", "Launch Share Of The Time", "%", 100.0 * d.launch_cycles / max(d.cycles, 1))
    sec.add("gpusim__roofline_bound_text", "Bound", "", d.bound)
    sec.tables.append(Table("Limiters, by what each costs", ["rank", "limiter", "cost % of the time", "measured by",
                                                             "lines"],
                            [[i, f.title, round(100.0 * f.share, 1),
                              f"what-if: {f.what_if.title}" if f.what_if else "estimate (not re-simulated)",
                              ", ".join(f.lines)] for i, f in enumerate(d.findings, 1)]))
    if d.what_ifs:
        sec.tables.append(Table("What-ifs (the same trace re-simulated with one mechanism idealised)",
                                ["what-if", "cycles", "speed-up", "wall s"],
                                [[w.title, w.cycles, round(w.speedup, 3), round(w.wall_seconds, 1)]
                                 for w in sorted(d.what_ifs, key=lambda w: w.cycles)]))
    for i, f in enumerate(d.findings, 1):
        sec.notes.extend(f"{i}. {f.title}: {e}" for e in f.evidence)
        sec.notes.append(f"{i}. {f.title}: fix: {f.advice}")
    for w in d.what_ifs:
        sec.notes.append(f"what-if {w.title} changes: {w.changes}; cannot: {w.cannot}")
    if d.skipped:
        sec.notes.append("not re-simulated: " + "; ".join(f"{k} ({v})" for k, v in d.skipped.items()))
    sec.notes.extend(d.notes)
    return sec


def build_report(res, *, source_top: int = 10, what_if="auto", jobs: int | None = None, progress=None) -> Report:
    """All sections for one timing-mode run; ``what_if`` (see :func:`gpusim.analysis.diagnosis.diagnose`)
    for the diagnosis section, ``False`` to leave it out."""
    from gpusim.analysis.roofline import roofline_point
    from gpusim.analysis.source import has_line_info, source_table

    t = res.timing
    if t is None:
        from gpusim.errors import GpusimError
        raise GpusimError("a report needs timing mode: run with mode='timing'")
    c = t.counters
    gpu = _gpu_config(res)
    n_sm, n_sub = gpu.sm.count, gpu.sm.subpartitions
    secs = t.cycles / (gpu.clock_mhz * 1e6)
    inst = float(c["smsp__inst_executed.sum"])
    dram_bytes = float(c.get("dram__bytes_read.sum", 0)) + float(c.get("dram__bytes_write.sum", 0))
    peak_bw = float(gpu.memory.dram.peak_bytes_per_s) if getattr(gpu, "memory", None) is not None else 0.0
    dram_pct = 100.0 * dram_bytes / (peak_bw * secs) if peak_bw and secs else 0.0
    l2_sectors = sum(float(c.get(k, 0)) for k in ("lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
                                                    "lts__t_sectors_op_atom.sum", "lts__t_sectors_op_red.sum"))
    l2_peak = gpu.memory.l2.peak_bytes_per_sm_cycle(gpu.clock_mhz) if getattr(gpu, "memory", None) else 0
    l2_pct = 100.0 * l2_sectors * 32 / (l2_peak * t.cycles) if l2_peak and t.cycles else 0.0
    active_sms = int((t.per_sm["cycles_active"] > 0).sum())

    sol = Section("GPU Speed Of Light Throughput")
    sol.add("gpu__time_duration.sum", "Duration", "us", secs * 1e6)
    sol.add("gpc__cycles_elapsed.max", "Elapsed Cycles", "cycle", c["gpc__cycles_elapsed.max"])
    sol.add("sm__cycles_active.avg", "SM Active Cycles", "cycle", c["sm__cycles_active.avg"])
    sol.add("gpc__cycles_elapsed.avg.per_second", "SM Frequency", "MHz", gpu.clock_mhz)
    sol.add("sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput", "%",
            100.0 * inst / (n_sm * n_sub * t.cycles) if t.cycles else 0.0)
    sol.add("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory Throughput", "%",
            max(dram_pct, l2_pct))
    sol.add("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput", "%", dram_pct)
    sol.add("lts__t_sectors.avg.pct_of_peak_sustained_elapsed", "L2 Cache Throughput", "%", l2_pct)
    sol.add("l1tex__t_sector_hit_rate.pct", "L1/TEX Hit Rate", "%", c.get("l1tex__t_sector_hit_rate.pct", 0.0))
    sol.add("lts__t_sector_hit_rate.pct", "L2 Hit Rate", "%", c.get("lts__t_sector_hit_rate.pct", 0.0))
    rp = roofline_point(res.trace, t, gpu)
    sol.add("gpusim__flop_count.sum", "FP Operations (FMA = 2)", "FLOP", rp.flops)
    sol.add("gpusim__arithmetic_intensity.ratio", "Arithmetic Intensity (DRAM)", "FLOP/byte",
            rp.arithmetic_intensity if rp.dram_bytes else float("inf"))
    sol.add("gpusim__achieved_flops.per_second", "Achieved FP Performance", "GFLOP/s", rp.flops_per_s / 1e9)
    sol.add("gpusim__roofline_bound", "Roofline Bound", "", rp.bound)
    sol.notes.append(f"roofline: {rp.bound_text()}")

    launch = Section("Launch Statistics")
    gx, gy, gz = res.grid
    bx, by, bz = res.block
    launch.add("launch__grid_size", "Grid Size", "", gx * gy * gz)
    launch.add("launch__block_size", "Block Size", "", bx * by * bz)
    launch.add("launch__thread_count", "Threads", "thread", gx * gy * gz * bx * by * bz)
    launch.add("launch__registers_per_thread", "Registers Per Thread", "register/thread", t.regs_per_thread)
    launch.add("launch__shared_mem_per_block", "Shared Memory Per Block", "byte", res.trace.shared_bytes)
    launch.add("launch__sm_count", "# SMs", "SM", n_sm)
    launch.add("launch__waves_per_multiprocessor", "Waves Per SM", "", c.get("launch__waves_per_multiprocessor", 0))
    launch.notes.append(f"registers from {t.regs_source}; scheduler {t.scheduler}; memory model {t.memory_model}")

    occ = Section("Occupancy")
    o = t.occupancy
    occ.add("sm__maximum_warps_per_active_cycle_pct", "Theoretical Occupancy", "%",
            c["sm__maximum_warps_per_active_cycle_pct"])
    occ.add("sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy", "%",
            c["sm__warps_active.avg.pct_of_peak_sustained_active"])
    occ.add("sm__warps_active.avg.per_cycle_active", "Achieved Active Warps Per SM", "warp",
            c["sm__warps_active.avg.per_cycle_active"])
    occ.add("launch__occupancy_per_block_size", "Theoretical Active Warps per SM", "warp",
            getattr(o, "active_warps_per_sm", 0))
    occ.add("launch__blocks_per_sm", "Block Limit (all resources)", "block", getattr(o, "blocks_per_sm", 0))
    for k in ("registers", "shared_mem", "warps", "blocks", "barriers"):
        key = f"launch__occupancy_limit_{k}"
        if key in c:
            occ.add(key, f"Block Limit {k.replace('_', ' ').title()}", "block", c[key])
    if "launch__shared_mem_config_size" in c:
        occ.add("launch__shared_mem_config_size", "Shared Memory Configuration Size", "byte",
                c["launch__shared_mem_config_size"])
    occ.notes.append("limited by " + (", ".join(getattr(o, "limiting", ()) or ()) or "-"))

    sched = Section("Scheduler Statistics")
    warp_cycles = sum(t.stalls.values())
    active_smsp_cycles = float(t.per_sm["cycles_active"].sum()) * n_sub
    eligible = t.stalls.get("selected", 0) + t.stalls.get("not_selected", 0)
    issue_pct = c["smsp__issue_active.avg.pct_of_peak_sustained_active"]
    sched.add("smsp__warps_active.avg.per_cycle_active", "Active Warps Per Scheduler", "warp",
              warp_cycles / active_smsp_cycles if active_smsp_cycles else 0.0)
    sched.add("smsp__warps_eligible.avg.per_cycle_active", "Eligible Warps Per Scheduler", "warp",
              eligible / active_smsp_cycles if active_smsp_cycles else 0.0)
    sched.add("smsp__issue_active.avg.pct_of_peak_sustained_active", "Issued Warp Per Scheduler", "%", issue_pct)
    sched.add("smsp__issue_inst0.avg.pct_of_peak_sustained_active", "No Eligible", "%", 100.0 - issue_pct)
    sched.add("smsp__inst_executed.avg.per_cycle_active", "Executed Ipc Active (per SMSP)", "inst/cycle",
              c["smsp__inst_executed.avg.per_cycle_active"])
    sched.add("sm__inst_executed.avg.per_cycle_active", "Executed Ipc Active (per SM)", "inst/cycle",
              c["sm__inst_executed.avg.per_cycle_active"])
    sched.notes.append(f"{active_sms} of {n_sm} SMs ran blocks")

    ws = Section("Warp State Statistics")
    ws.add("smsp__average_warp_latency_per_inst_issued.ratio", "Warp Cycles Per Issued Instruction", "cycle",
           c["smsp__average_warp_latency_per_inst_issued.ratio"])
    ws.add("smsp__inst_executed.sum", "Executed Instructions", "inst", inst)
    ws.add("smsp__thread_inst_executed_per_inst_executed.ratio", "Avg. Active Threads Per Warp", "thread",
           c["smsp__thread_inst_executed_per_inst_executed.ratio"])
    for r in sorted(STALL_REASONS, key=lambda r: -t.stalls[r]):
        ws.add(stall_metric_name(r), f"Stall {r.replace('_', ' ').title()}", "cycle/inst", c[stall_metric_name(r)])

    mem = Section("Memory Workload Analysis")
    for k, label, unit in (
            ("dram__bytes_read.sum", "DRAM Bytes Read", "byte"), ("dram__bytes_write.sum", "DRAM Bytes Written", "byte"),
            ("gpusim__dram_row_hit_rate.pct", "DRAM Row-Buffer Hit Rate", "%"),
            ("l1tex__t_sector_hit_rate.pct", "L1/TEX Hit Rate", "%"), ("lts__t_sector_hit_rate.pct", "L2 Hit Rate", "%"),
            ("memory_l1_wavefronts_shared", "Shared Wavefronts", "wavefront"),
            ("memory_l1_wavefronts_shared_ideal", "Shared Wavefronts (Ideal)", "wavefront"),
            ("derived__memory_l1_wavefronts_shared_excessive", "Shared Excessive Wavefronts", "wavefront")):
        if k in c:
            mem.add(k, label, unit, c[k])
    rows = []
    for op in ("ld", "st", "atom", "red"):
        req = c.get(f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum")
        if req is None:
            continue
        sec = c.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum", 0)
        eff = c.get(f"smsp__sass_average_data_bytes_per_sector_mem_global_op_{op}.pct", "")
        rows.append([f"global {op}", _plain(req), _plain(sec), round(sec / req, 2) if req else 0.0,
                     round(eff, 1) if isinstance(eff, float) else eff])
    if rows:
        mem.tables.append(Table("L1/TEX global (l1tex__t_requests / l1tex__t_sectors / sectors per request / "
                                "smsp__sass_average_data_bytes_per_sector .pct)",
                                ["operation", "requests", "sectors", "sectors/request", "bytes used per sector %"],
                                rows))
    rows = []
    for op in ("ld", "st", "atom"):
        wf = c.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
        if wf is None:
            continue
        rows.append([f"shared {op}", _plain(wf), _plain(c.get(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum", 0))])
    if rows:
        mem.tables.append(Table("Shared memory (l1tex__data_pipe_lsu_wavefronts / l1tex__data_bank_conflicts)",
                                ["operation", "wavefronts", "bank conflicts"], rows))
    rows = []
    for k, label in (("lts__t_sectors_op_read.sum", "L2 read sectors"), ("lts__t_sectors_op_write.sum", "L2 write sectors"),
                     ("lts__t_sectors_op_atom.sum", "L2 atomic sectors"),
                     ("lts__t_sectors_op_red.sum", "L2 reduction sectors (RED)"), ("dram__sectors_read.sum", "DRAM read sectors"),
                     ("dram__sectors_write.sum", "DRAM write sectors"), ("gpusim__dram_row_hits.sum", "DRAM row hits"),
                     ("gpusim__dram_row_misses.sum", "DRAM row misses"),
                     ("gpusim__dram_row_conflicts.sum", "DRAM row conflicts")):
        if k in c:
            rows.append([label, k, _plain(c[k])])
    if rows:
        mem.tables.append(Table("L2 and DRAM", ["", "metric", "value"], rows))

    src = Section("Source Counters")
    src.add("smsp__sass_average_branch_targets_threads_uniform.pct", "Branch Efficiency", "%",
            100.0 * (1 - res.stats.divergent_branches / res.stats.branches) if res.stats.branches else 100.0)
    src.add("smsp__thread_inst_executed_per_inst_executed.ratio", "Avg. Thread Executed", "thread",
            c["smsp__thread_inst_executed_per_inst_executed.ratio"])
    for by in (("ptx", "cuda") if has_line_info(res.trace) else ("ptx",)):
        lines = source_table(res.trace, t, by=by)
        top = sorted(lines, key=lambda r: -r.stall_cycles)[:source_top]
        total = max(1, sum(r.stall_cycles for r in lines))
        rows = []
        for r in top:
            worst = [(STALL_REASONS[i], int(v)) for i, v in enumerate(r.stalls) if STALL_REASONS[i] != "selected" and v]
            worst.sort(key=lambda x: -x[1])
            rows.append([r.key, r.text[:60], r.inst_executed, r.stall_cycles, round(100.0 * r.stall_cycles / total, 1),
                         ", ".join(f"{n} {v}" for n, v in worst[:2])])
        src.tables.append(Table(f"Top {len(top)} {'PTX' if by == 'ptx' else 'CUDA'} lines by warp stall cycles",
                                ["line", "source", "smsp__inst_executed", "warp cycles", "% of all", "top stalls"],
                                rows))
    sections = [sol, launch, occ, sched, ws, mem, src]
    diag = None
    if what_if is not False:
        diag = res.diagnose(what_if, jobs=jobs, progress=progress)
        sections.insert(0, diagnosis_section(diag))
    return Report(kernel=res.kernel, gpu=t.gpu, program=getattr(res.program, "name", None), size=res.size,
                  sections=sections, diagnosis=diag)


# Metrics compared side by side by `gpusim compare-configs`.
COMPARE_METRICS = (
    "gpu__time_duration.sum", "gpc__cycles_elapsed.max", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__maximum_warps_per_active_cycle_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "launch__blocks_per_sm", "launch__waves_per_multiprocessor",
    "smsp__issue_active.avg.pct_of_peak_sustained_active", "sm__inst_executed.avg.per_cycle_active",
    "smsp__average_warp_latency_per_inst_issued.ratio",
    *(stall_metric_name(r) for r in ("long_scoreboard", "short_scoreboard", "barrier", "mio_throttle",
                                     "lg_throttle", "math_pipe_throttle", "wait", "not_selected")),
    "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum",
    "gpusim__dram_row_hit_rate.pct", "derived__memory_l1_wavefronts_shared_excessive",
    "gpusim__achieved_flops.per_second", "gpusim__roofline_bound",
)
