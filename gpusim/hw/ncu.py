"""Nsight Compute counters of the bundled programs: each launch once under ``ncu``, CSV parsed per launch.

``ncu`` runs a small driver (``python -m gpusim.hw._ncu_driver``) that launches the requested
``(program, size)`` cases through CuPy, one launch each, in order; the metrics are the ones the simulator
mirrors (:data:`METRICS`, HARDWARE.md §4).  Cache control and clock control are left at ncu's defaults:
caches are flushed before each replay pass and clocks are locked to base, so the counters are those of a
cold-cache launch at a fixed clock, which is what the simulator models.

    >>> from gpusim.hw.ncu import profile
    >>> rows = profile([("vector_add", "small"), ("vector_add", "default")])
    >>> rows[0]["gpc__cycles_elapsed.max"]

Metrics the installed ncu does not know are dropped (and listed in the result's ``"_dropped"``) rather than
failing the run.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from gpusim.errors import GpusimError, ToolMissingError

#: Nsight Compute metrics the simulator mirrors (gpusim/timing/metrics.py and the memory system), plus the
#: clock and the duration for provenance.
METRICS: tuple[str, ...] = (
    # cycles and clocks
    "gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg",
    "sm__cycles_active.avg", "sm__cycles_active.max", "gpu__time_duration.sum",
    # instructions
    "smsp__inst_executed.sum", "smsp__inst_issued.sum", "sm__inst_executed.sum",
    "smsp__thread_inst_executed.sum", "smsp__thread_inst_executed_per_inst_executed.ratio",
    "smsp__inst_executed.avg.per_cycle_active", "sm__inst_executed.avg.per_cycle_active",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    # occupancy
    "sm__warps_active.avg.per_cycle_active", "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct", "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
    "launch__occupancy_limit_barriers", "launch__waves_per_multiprocessor", "launch__registers_per_thread",
    # stall reasons (cycles per issued instruction)
    "smsp__average_warp_latency_per_inst_issued.ratio",
    *(f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in (
        "selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait", "barrier", "mio_throttle",
        "lg_throttle", "math_pipe_throttle", "branch_resolving", "no_instruction", "drain", "membar",
        "dispatch_stall", "sleeping")),
    # global memory through L1TEX
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", "l1tex__t_sector_hit_rate.pct",
    # shared memory
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
    # L2 and DRAM
    "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum", "lts__t_sectors_op_atom.sum",
    "lts__t_sectors_op_red.sum",
    "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_lookup_miss.sum", "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__sectors_read.sum", "dram__sectors_write.sum",
    # the L2 fabric between the two partitions, the memory-side clocks, the shared-memory carve-out the
    # driver chose (benchmarks/micro: what the H100 does under load)
    "lts__t_sectors_srcunit_tex.sum", "lts__t_sectors_srcunit_ltcfabric.sum", "lts__cycles_elapsed.avg.per_second",
    "lts__t_requests_srcunit_tex_op_write.sum",      # write requests after the L1's store merging (micro/stmerge)
    "dram__cycles_elapsed.avg.per_second", "launch__shared_mem_config_size",
    "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
)

#: The few metrics of a boost-clock record (``--clock-control none``): cycles and clocks, time, the work done.
BOOST_METRICS: tuple[str, ...] = (
    "gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second", "sm__cycles_active.avg",
    "gpu__time_duration.sum", "smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
    "lts__cycles_elapsed.avg.per_second", "dram__cycles_elapsed.avg.per_second",
)

#: ``--clock-control`` values: ncu's default locks the SM clock to base; ``none`` leaves it free (boost).
CLOCK_CONTROLS = ("base", "none")


def ncu_path() -> str | None:
    """The ``ncu`` executable on the PATH (or in the usual CUDA locations), or None."""
    found = shutil.which("ncu")
    if found:
        return found
    for cand in ("/usr/local/cuda/bin/ncu", *sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))):
        if Path(cand).exists():
            return str(cand)
    return None


def _require_ncu() -> str:
    path = ncu_path()
    if path is None:
        raise ToolMissingError("Nsight Compute (`ncu`) is not on the PATH: install the CUDA toolkit's "
                               "nsight-compute package, or record without counters (--no-ncu)")
    return path


@functools.lru_cache(maxsize=4)
def available_metrics(ncu: str | None = None) -> frozenset[str] | None:
    """Base metric names this ncu knows for the current GPU (``ncu --query-metrics``), or None if the query
    fails (then no metric is filtered out ahead of time)."""
    ncu = ncu or _require_ncu()
    try:
        q = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if q.returncode != 0:
        return None
    names = set()
    for row in csv.reader(io.StringIO(q.stdout)):
        if row:
            names.add(row[0].strip().strip('"'))
    return frozenset(names) or None


def _base(metric: str) -> str:
    """``smsp__inst_executed.sum`` -> ``smsp__inst_executed``."""
    return metric.split(".", 1)[0]


def filter_metrics(metrics, known: set[str] | None) -> tuple[list[str], list[str]]:
    if not known:
        return list(metrics), []
    keep, drop = [], []
    for m in metrics:
        # launch__* are attributes of the launch, not counters: ncu reports them without listing them in
        # --query-metrics, so they are kept and left to ncu (profile() drops what it rejects by name)
        (keep if _base(m) in known or m in known or m.startswith("launch__") else drop).append(m)
    return keep, drop


def _number(text: str):
    t = text.strip().strip('"').replace(",", "")
    if t in ("", "n/a", "N/A"):
        return None
    try:
        v = float(t)
    except ValueError:
        return t
    return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v


def parse_raw_csv(text: str, metrics=None) -> list[dict]:
    """Rows of ``ncu --csv --page raw --print-units base`` output: one dict per profiled launch with the
    kernel name, grid, block and every metric column (``metrics`` given: only those)."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    data = rows[1:]
    if data and data[0] and data[0][0].strip() == "" or (data and not data[0][0].strip().isdigit()):
        data = data[1:]      # the units row
    out = []
    want = set(metrics) if metrics else None
    for r in data:
        rec = dict(zip(header, r))
        d = {"id": _number(rec.get("ID", "")), "kernel": rec.get("Kernel Name", ""),
             "grid": rec.get("Grid Size", ""), "block": rec.get("Block Size", "")}
        for k, v in rec.items():
            if want is None or k in want:
                if "__" in k:
                    d[k] = _number(v)
        out.append(d)
    return out


def _expected_kernel(case) -> str | None:
    if case[0] == "__empty__":
        return "empty_kernel"
    try:
        import programs
        return programs.get(case[0]).launch(case[1]).kernel
    except Exception:  # noqa: BLE001
        return None


def profile(cases, *, metrics=METRICS, seed: int = 0, extra_env=None, timeout: int = 600,
            log=None, clock_control: str = "base") -> list[dict]:
    """Run each ``(program, size)`` once under ncu; one dict per case, in order, with ``program``,
    ``size``, ``kernel`` and ``{metric: value}``.  Cases may also be ``("__empty__", n_blocks)`` for the
    launch-overhead calibration (an empty kernel of one warp per block).  ``clock_control`` is ncu's
    ``--clock-control``: ``base`` (its default: SM clock locked to base) or ``none`` (boost)."""
    if clock_control not in CLOCK_CONTROLS:
        raise GpusimError(f"clock_control must be one of {', '.join(CLOCK_CONTROLS)}, not {clock_control!r}")
    ncu = _require_ncu()
    cases = [tuple(c) for c in cases]
    known = available_metrics(ncu)
    keep, dropped = filter_metrics(metrics, known)
    with tempfile.TemporaryDirectory() as tmp:
        spec_file = Path(tmp) / "cases.json"
        spec_file.write_text(json.dumps({"cases": cases, "seed": seed}))
        env = dict(os.environ, **(extra_env or {}))
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        for _attempt in range(6):
            cmd = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--clock-control", clock_control,
                   "--metrics", ",".join(keep),
                   sys.executable, "-m", "gpusim.hw._ncu_driver", str(spec_file)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
            bad = [m for m in keep if f"'{m}'" in p.stderr + p.stdout and "ailed to find metric" in
                   p.stderr + p.stdout]
            if bad:
                keep = [m for m in keep if m not in bad]
                dropped += bad
                continue
            break
        if log is not None:
            log.write(p.stderr[-4000:])
        if p.returncode != 0:
            raise GpusimError(f"ncu failed (exit {p.returncode}) on {cases[:3]}...: "
                              f"{(p.stderr or p.stdout)[-2000:]}")
        rows = parse_raw_csv(p.stdout, keep)
    out = []
    it = iter(rows)
    for case in cases:
        want = _expected_kernel(case)
        for row in it:          # skip launches that are not the case's kernel (none expected)
            if not want or row["kernel"].split("(")[0].strip() == want:
                break
        else:
            raise GpusimError(f"ncu profiled {len(rows)} launches ({[r['kernel'] for r in rows]}); no launch of "
                              f"{want!r} for case {case}")
        row = dict(row)
        row["program"], row["size"] = case[0], case[1]
        row["_dropped"] = dropped
        out.append(row)
    return out
