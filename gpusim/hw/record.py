"""Records of real-GPU runs: ``<out>/<program>__<size>.json`` (+ ``.npz`` of the outputs for small ones).

A record holds, for one bundled program at one named size and seed: the launch, the digest of the PTX that
ran, the outputs (SHA-256 digest, dtype, shape and summary of every output argument; the arrays themselves
in the ``.npz`` when they total at most :data:`NPZ_MAX_BYTES`), the kernel time (CUDA events: warm-up, then
the median of repeats), the Nsight Compute counters of one launch (``counters``; ``cycles`` is
``gpc__cycles_elapsed.max``) and provenance (GPU name, SM count, clocks, driver, CUDA, CuPy, ncu, date).

    python -m gpusim.hw.record --out tests/golden/h100/            # every program, sizes up to 2^20 threads
    gpusim hw record --out tests/golden/h100/ --program vector_add
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

NPZ_MAX_BYTES = 160 * 1024
DEFAULT_MAX_THREADS = 1 << 20


def record_name(program: str, size: str) -> str:
    """``matmul_tiled__small``; a suite program ``polybench/gemm`` gives ``polybench__gemm__small``."""
    return f"{program.replace('/', '__')}__{size}"


def sha256(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def file_sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def default_cases(max_threads: int | None = DEFAULT_MAX_THREADS, programs_only=None,
                  suites: bool = False) -> list[tuple[str, str]]:
    """Every bundled program (``suites``: every validation-suite program, ``<suite>/<name>``) at every named
    size with at most ``max_threads`` threads (None: every size; at least two sizes per program: the two
    smallest are taken when fewer fit)."""
    import programs
    cases = []
    ids = programs.suite_names() if suites else programs.names()
    for name in ids:
        if programs_only and not any(name == p or (p.endswith("/") and name.startswith(p)) for p in programs_only):
            continue
        spec = programs.get(name)
        sizes = sorted(spec.sizes, key=lambda s: spec.launch(s).threads)
        keep = [s for s in sizes if max_threads is None or spec.launch(s).threads <= max_threads]
        if len(keep) < 2:
            keep = sizes[:2]
        cases += [(name, s) for s in keep]
    return cases


def output_summary(spec, outputs, ref_keys) -> tuple[dict, dict]:
    """(JSON description of each output argument, arrays for the npz when small enough)."""
    desc, arrays, total = {}, {}, 0
    for idx in sorted(ref_keys):
        a = np.asarray(outputs[idx])
        a64 = a.astype(np.float64)
        desc[str(idx)] = {"dtype": str(a.dtype), "shape": list(a.shape), "sha256": sha256(a),
                          "min": float(np.nanmin(a64)) if a.size else None,
                          "max": float(np.nanmax(a64)) if a.size else None,
                          "mean": float(np.nanmean(a64)) if a.size else None}
        arrays[f"arg{idx}"] = a
        total += a.nbytes
    return desc, (arrays if total <= NPZ_MAX_BYTES else {})


def record_program(program: str, sizes, out: Path, *, seed: int = 0, use_ncu: bool = True, repeats: int = 20,
                   prov: dict | None = None, ncu_info: dict | None = None, log=sys.stderr,
                   clock_control: str = "base") -> list[Path]:
    """Record one program at several sizes (one ncu process for all of them). ``clock_control="none"``
    profiles at the free-running (boost) clock with :data:`~gpusim.hw.ncu.BOOST_METRICS` only."""
    import programs
    from gpusim.hw import ncu as ncu_mod
    from gpusim.hw.runner import provenance, run_on_gpu
    spec = programs.get(program)
    prov = prov or provenance()
    counters = {}
    if use_ncu:
        try:
            metrics = ncu_mod.METRICS if clock_control == "base" else ncu_mod.BOOST_METRICS
            rows = ncu_mod.profile([(program, s) for s in sizes], seed=seed, metrics=metrics,
                                   clock_control=clock_control)
            counters = {r["size"]: r for r in rows}
        except Exception as e:  # noqa: BLE001 - keep the timing records even when ncu fails
            print(f"  ncu failed for {program}: {e}", file=log)
    written = []
    for size in sizes:
        t0 = time.perf_counter()
        r = run_on_gpu(program, size, seed=seed, repeats=repeats)
        desc, arrays = output_summary(spec, r.outputs, r.reference.keys())
        row = counters.get(size, {})
        metrics = {k: v for k, v in row.items() if "__" in k}
        doc = {
            "program": program, "suite": getattr(spec, "suite", None), "clock_control": clock_control,
            "size": size, "seed": seed, "kernel": r.kernel, "grid": list(r.grid),
            "block": list(r.block), "shared_mem": r.shared_mem, "backend": r.backend,
            "threads": int(np.prod(r.grid) * np.prod(r.block)),
            "ptx_sha256": file_sha256(spec.ptx_path),
            "check": {"ok": bool(r.check.ok), "message": r.check.message},
            "outputs": desc, "npz": bool(arrays),
            "time_ms": r.time_ms,
            "times_ms": {"min": min(r.times_ms), "median": r.time_ms, "max": max(r.times_ms),
                         "repeats": len(r.times_ms)} if r.times_ms else None,
            "cycles": metrics.get("gpc__cycles_elapsed.max"),
            "counters": metrics,
            "ncu": dict(ncu_info or {}, dropped=row.get("_dropped", [])) if row else None,
            "provenance": prov,
        }
        name = record_name(program, size)
        path = out / f"{name}.json"
        path.write_text(json.dumps(doc, indent=1, sort_keys=False))
        written.append(path)
        if arrays:
            np.savez_compressed(out / f"{name}.npz", **arrays)
        print(f"  {name}: {'ok' if r.check.ok else 'CHECK FAILED'}  {r.time_ms * 1000:.1f} us  "
              f"cycles {doc['cycles']}  ({time.perf_counter() - t0:.1f} s)", file=log)
    return written


def ncu_version() -> dict:
    import subprocess
    from gpusim.hw.ncu import ncu_path
    path = ncu_path()
    if path is None:
        return {}
    try:
        v = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception:  # noqa: BLE001
        v = "?"
    return {"path": path, "version": v.splitlines()[-1] if v else "?",
            "options": "--csv --page raw --print-units base (cache control all, clock control base: defaults)"}


class ContextLost(RuntimeError):
    """The GPU context died (illegal address): the recording process must be restarted."""


def _context_lost(e: Exception) -> bool:
    text = str(e)
    return "ILLEGAL_ADDRESS" in text.upper() or "IllegalAddress" in text or "LAUNCH_FAILED" in text.upper()


def record_all(out, cases=None, *, seed: int = 0, use_ncu: bool = True, repeats: int = 20,
               log=sys.stderr, time_budget_s: float | None = None, clock_control: str = "base",
               skip_existing: bool = False) -> list[Path]:
    """Record every case (grouped by program); with ``time_budget_s``, start no new program after it;
    ``skip_existing`` leaves out the cases whose record is already in ``out`` (to resume)."""
    from gpusim.hw.ncu import ncu_path
    from gpusim.hw.runner import provenance
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if cases is None:
        cases = default_cases()
    if not cases:
        raise SystemExit("no case to record (check --program / --suites)")
    by_prog: dict[str, list[str]] = {}
    for p, s in cases:
        if skip_existing and any((out / f"{record_name(p, s2)}{ext}").exists()
                                 for s2, ext in ((s, ".json"), (s, ".failed.txt"))):
            continue
        by_prog.setdefault(p, []).append(s)
    prov = provenance()
    use_ncu = use_ncu and ncu_path() is not None
    info = ncu_version() if use_ncu else {}
    written = []
    t_start = time.perf_counter()
    for program, sizes in by_prog.items():
        if time_budget_s is not None and time.perf_counter() - t_start > time_budget_s:
            print(f"time budget spent: {program} and the programs after it not recorded", file=log)
            break
        print(f"{program}: {', '.join(sizes)}", file=log)
        try:
            written += record_program(program, sizes, out, seed=seed, use_ncu=use_ncu, repeats=repeats,
                                      prov=prov, ncu_info=dict(info, clock_control=clock_control), log=log,
                                      clock_control=clock_control)
        except Exception as e:  # noqa: BLE001 - one failing program must not lose the others
            print(f"  FAILED {program}: {type(e).__name__}: {e}", file=log)
            if _context_lost(e):
                # an illegal address poisons the CUDA context: every later launch of this process fails.
                # Leave a marker (--skip-existing passes it over) and stop; a new process carries on.
                (out / f"{record_name(program, sizes[0])}.failed.txt").write_text(f"{type(e).__name__}: {e}\n")
                raise ContextLost(program) from e
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.hw.record", description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--program", action="append",
                    help="only these programs (repeatable); with --suites, 'polybench/' names a whole suite")
    ap.add_argument("--suites", action="store_true",
                    help="record the validation-suite programs (programs/suites/<suite>/<name>) instead")
    ap.add_argument("--max-threads", type=int, default=DEFAULT_MAX_THREADS, help="0: every size")
    ap.add_argument("--clock-control", choices=("base", "none"), default="base",
                    help="ncu's --clock-control: base (default, SM clock locked) or none (boost; few metrics)")
    ap.add_argument("--skip-existing", action="store_true", help="leave out cases already recorded in --out")
    ap.add_argument("--no-ncu", action="store_true")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-budget", type=float, default=None, help="seconds; start no new program after")
    a = ap.parse_args(argv)
    cases = default_cases(a.max_threads or None, a.program, suites=a.suites)
    try:
        paths = record_all(a.out, cases, seed=a.seed, use_ncu=not a.no_ncu, repeats=a.repeats,
                           time_budget_s=a.time_budget, clock_control=a.clock_control,
                           skip_existing=a.skip_existing)
    except ContextLost as e:
        print(f"the GPU context was lost while recording {e}; run again with --skip-existing to go on",
              file=sys.stderr)
        return 3
    print(f"wrote {len(paths)} records to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
