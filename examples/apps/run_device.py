"""Run the example apps under CuPy on a real GPU and record their outputs and per-kernel GPU times.

    python examples/apps/run_device.py [--out $OUT/apps_device.json] [--app NAME ...] [--size NAME ...]
                                       [--repeat 2] [--timeout 180]

Needs CuPy and numpy only (nothing of gpusim is imported: each app runs as its own process with ``import
cupy``).  Every app runs at every size ``--repeat`` times, each run under a time limit; a run that fails or
times out is recorded with its error and the others go on.  The JSON keeps, per run, the outputs' SHA-256
digests (dtype, shape and bytes) and sums, and per kernel the launches and the total of its CUDA-event times
(milliseconds; an event pair around each launch, read once at the end), plus the GPU, driver, clocks, CuPy
and CUDA versions and the date.  ``tests/examples/test_apps_vs_device.py`` compares it with the simulator.
Prints a summary.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
APPS = ("jacobi2d", "fdtd2d", "bfs")
SIZES = ("small", "medium", "large")
FORMAT = "gpusim-apps-device/1"


def provenance() -> dict:
    info = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": sys.version.split()[0]}
    try:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        info.update({"cupy": cupy.__version__, "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
                     "cuda_driver": cupy.cuda.runtime.driverGetVersion(),
                     "gpu": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
                     "sm_count": props["multiProcessorCount"], "clock_rate_khz": props["clockRate"]})
    except Exception as e:              # recorded, so a run without a GPU says why
        info["cupy_error"] = f"{type(e).__name__}: {e}"
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        info["nvidia_smi"] = q.stdout.strip()
    except Exception as e:              # read-only query; the record stands without it
        info["nvidia_smi"] = f"unavailable: {e}"
    return info


def run_one(app: str, size: str, timeout: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GPUSIM_CUPY"}     # real CuPy
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        t0 = time.time()
        try:
            proc = subprocess.run([sys.executable, str(HERE / f"{app}.py"), "--size", size, "--json", str(out)],
                                  capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"app": app, "size": size, "error": f"timed out after {timeout} s"}
        wall = time.time() - t0
        if proc.returncode != 0 or not out.is_file():
            return {"app": app, "size": size, "error": (proc.stderr or proc.stdout)[-2000:],
                    "returncode": proc.returncode}
        rec = json.loads(out.read_text())
        rec["wall_s"] = round(wall, 3)
        return rec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "apps_device.json"))
    ap.add_argument("--app", action="append", choices=APPS)
    ap.add_argument("--size", action="append", choices=SIZES)
    ap.add_argument("--repeat", type=int, default=2, help="runs of each app and size (default 2)")
    ap.add_argument("--timeout", type=int, default=180, help="seconds per run (default 180)")
    a = ap.parse_args(argv)
    record = {"format": FORMAT, "provenance": provenance(), "runs": []}
    t_all = time.time()
    for app in a.app or APPS:
        for size in a.size or SIZES:
            for rep in range(a.repeat):
                rec = run_one(app, size, a.timeout)
                rec["repeat"] = rep
                record["runs"].append(rec)
                if "error" in rec:
                    print(f"{app:9s} {size:7s} #{rep}: FAILED {rec['error'].strip().splitlines()[-1][:200]}")
                    continue
                times = ", ".join(f"{k} {v['launches']}x {v['total_ms'] * 1e3 / v['launches']:.2f} us"
                                  for k, v in rec["kernels"].items())
                digests = " ".join(f"{k}:{v['sha256'][:8]}" for k, v in rec["outputs"].items())
                print(f"{app:9s} {size:7s} #{rep}: {rec['wall_s']:6.1f} s  {times}  [{digests}]")
    record["wall_s"] = round(time.time() - t_all, 1)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(record, indent=1))
    bad = sum("error" in r for r in record["runs"])
    print(f"wrote {a.out}: {len(record['runs']) - bad} runs recorded, {bad} failed, {record['wall_s']} s")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
