"""What the one-call device microbenchmarks (l1gather, cwalk) share: the ncu section and the command line.

A driver gives its cases, how to make its buffers and launch one case, and its clock section; ``main`` then
parses ``--cubin``/``--out``/sections, runs ``launch SPEC.json`` as ncu's child (each case once), or the clock
section, then every case once under ncu (default clock and cache control), and writes ``DIR/NAME.json`` with
the provenance of ``walk.py`` (GPU, driver, ncu, nvidia-smi clocks, date).  On the GPU machine the driver,
this file and ``walk/walk.py`` travel together (in one folder there).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "walk"))
from walk import provenance as device_provenance


def ncu_rows(stdout: str, kernel_prefix: str, metrics: list[str]) -> list[dict]:
    """The kernels of ``ncu --csv --page raw`` output whose name starts with ``kernel_prefix``, in launch order:
    per kernel ``kernel_seen`` (its name) and each of ``metrics`` as a float (None where ncu gave none)."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith('"')]
    out = []
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        if not r.get("Kernel Name", "").startswith(kernel_prefix):
            continue
        vals = {"kernel_seen": r.get("Kernel Name")}
        for m in metrics:
            try:
                vals[m] = float(r[m].replace(",", ""))
            except (KeyError, ValueError, AttributeError):
                vals[m] = None
        out.append(vals)
    return out


def run_ncu(script: str, cubin: str, spec: Path, metrics: list[str], kernel_prefix: str, clock_control: str,
            timeout_s: float) -> tuple[list[str], object, str, str, float]:
    """``script --cubin CUBIN launch SPEC`` under ``ncu --clock-control CLOCK_CONTROL``, its kernels named
    ``kernel_prefix...``: (the command, its return code or "timeout", stdout, stderr, seconds)."""
    cmd = ["ncu", "--csv", "--page", "raw", "--print-units", "base", "--clock-control", clock_control,
           "-k", f"regex:^{kernel_prefix}", "--metrics", ",".join(metrics),
           sys.executable, script, "--cubin", cubin, "launch", str(spec)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
        rc, stdout, stderr = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc = "timeout"
        stdout = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
    return cmd, rc, stdout, stderr, round(time.time() - t0, 1)


def ncu_section(script: str, cubin: str, out_dir: str, metrics: list[str], cases: list[dict],
                kernel_prefix: str) -> dict:
    """Every case launched once by ``script launch SPEC`` under ncu: its ``metrics`` per case, in order."""
    spec = Path(out_dir) / "ncu_spec.json"
    spec.write_text(json.dumps(cases))
    cmd = ["ncu", "--csv", "--page", "raw", "--print-units", "base", "-k", f"regex:^{kernel_prefix}",
           "--metrics", ",".join(metrics), sys.executable, script, "--cubin", cubin, "launch", str(spec)]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    out = [{**case, "kernel_seen": vals.pop("kernel_seen"), "ncu": vals}
           for case, vals in zip(cases, ncu_rows(p.stdout, kernel_prefix, metrics))]
    return {"command": " ".join(cmd[:9]) + " ...", "rc": p.returncode, "seconds": round(time.time() - t0, 1),
            "stderr_tail": p.stderr[-1500:] if p.returncode else "", "rows": out}


def module_or_launch(args, make_buffers, launch_case):
    """``(module, cupy)`` for a driver's parsed command line (``args.cubin``, ``args.what``); for ``launch
    SPEC.json`` (ncu's child) each case of the spec launched once with ``launch_case(mod, cp, case, buffers)``,
    and None."""
    import cupy as cp
    mod = cp.RawModule(path=args.cubin)
    if args.what[:1] == ["launch"]:
        bufs = make_buffers(cp)
        for case in json.loads(Path(args.what[1]).read_text()):
            launch_case(mod, cp, case, bufs)
        return None
    return mod, cp


def main(*, doc: str, name: str, script: str, cases, make_buffers, launch_case, section_clock,
         ncu_metrics: dict[str, list[str]], kernel_prefix: str, cubin_note: str) -> dict | None:
    """The command line of a driver (module docstring); the record written, or None for ``launch``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--cubin", default=str(Path(script).with_name(f"{name}.cubin")))
    ap.add_argument("--out", default=f"/tmp/{name}")
    ap.add_argument("what", nargs="*", default=["clock", "ncu"])
    args = ap.parse_args()
    opened = module_or_launch(args, make_buffers, launch_case)
    if opened is None:
        return None
    mod, cp = opened
    Path(args.out).mkdir(parents=True, exist_ok=True)
    rec = {"what": doc.split("\n\n")[0], "provenance": {**device_provenance(), "cubin": cubin_note}}
    if "clock" in args.what:
        rec["clock"] = section_clock(mod, cp)
    rec["provenance_after_clock"] = device_provenance()["nvidia_smi"]
    if "ncu" in args.what:
        for key, metrics in ncu_metrics.items():
            rec[key] = ncu_section(script, args.cubin, args.out, metrics, cases(), kernel_prefix)
    Path(args.out, f"{name}.json").write_text(json.dumps(rec, indent=1))
    return rec


def launch_us(cp, fn, grid: tuple, block: tuple, args: tuple) -> float:
    """Microseconds one launch of ``fn`` takes, from CUDA events recorded around it."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    fn(grid, block, args)
    stop.record()
    stop.synchronize()
    return float(cp.cuda.get_elapsed_time(start, stop)) * 1000.0


def clock_section(mod, cp, cases: list[dict], make_buffers, launch_case, requests_of) -> list[dict]:
    """Each case launched once to warm up, then 5 times: its loop cycles (``launch_case``'s answer), their
    median, and ``cycles_per_request`` = median / ``requests_of(case)``."""
    bufs = make_buffers(cp)
    rows = []
    for case in cases:
        launch_case(mod, cp, case, bufs)                   # warm-up (module load)
        runs = [launch_case(mod, cp, case, bufs) for _ in range(5)]
        med = statistics.median(runs)
        per = med / requests_of(case)
        rows.append({**case, "loop_cycles_median": med, "loop_cycles_runs": runs, "cycles_per_request": per})
        print(f"clock {case} {per:.2f} cyc/request", flush=True)
    return rows


def clock_with_ncu(rec: dict) -> list[tuple[dict, dict]]:
    """Each row of ``rec``'s clock section beside the ncu metrics of the same case (``{}`` where ncu gave none);
    the model-side compare scripts read their records through it too."""
    ncu = rec.get("ncu", {}).get("rows", [])
    out = []
    for i, c in enumerate(rec.get("clock", [])):
        if i < len(ncu):
            assert all(ncu[i][k] == c[k] for k in ("kernel", "warps") if k in c), (c, ncu[i])   # the same case
        out.append((c, ncu[i]["ncu"] if i < len(ncu) else {}))
    return out
