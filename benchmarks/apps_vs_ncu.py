"""The example apps (examples/apps) simulated launch by launch against Nsight Compute on the H100.

    python benchmarks/apps_vs_ncu.py                      # small and medium sizes
    python benchmarks/apps_vs_ncu.py --sizes small medium large --apps bfs

Each app runs under ``gpusim.cupy`` in timing mode on the h100 preset (base SM clock, L2 kept across
launches, as ``ncu --cache-control none --clock-control base`` ran it); every kernel launch's simulated cycles
are set against the same launch's ``gpc__cycles_elapsed.max`` in ``tests/golden/h100/apps/apps_ncu.json``
(written by ``examples/apps/ncu_device.sh`` + ``ncu_to_json.py``).  The apps' own kernels only: CuPy's
helper kernels (array copies and fills) run on the host in gpusim.cupy.  Prints per kernel the launches,
the median cycles on both sides, the median and worst ratio, and the error over all launches.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "tests" / "golden" / "h100" / "apps" / "apps_ncu.json"
APPS = ("jacobi2d", "fdtd2d", "bfs")


def simulate(app: str, size: str, gpu: str = "h100") -> list[tuple[str, int]]:
    """(kernel, simulated cycles) for every launch of one app run, in launch order."""
    sys.path.insert(0, str(ROOT))
    from tests.examples.apps import load_app
    import gpusim.cupy as cp

    module = load_app(app)
    cp.reset(mode="timing", gpu=gpu, flush_caches=False)
    try:
        module.run(**module.SIZES[size])
        return [(r.kernel, r.cycles) for r in cp.launches()]
    finally:
        cp.reset()


def measured(record: dict, app: str, size: str) -> list[tuple[str, float]]:
    return [(l["kernel"], l["metrics"]["gpc__cycles_elapsed.max"])
            for l in record["runs"][f"{app}/{size}"] if l["app_kernel"]]


def compare(app: str, size: str, record: dict) -> dict:
    """Per-kernel ratios of simulated to measured cycles, launch by launch."""
    t0 = time.perf_counter()
    sim = simulate(app, size)
    wall = time.perf_counter() - t0
    hw = measured(record, app, size)
    if [k for k, _ in sim] != [k for k, _ in hw]:
        raise SystemExit(f"{app}/{size}: the simulated launches {[k for k, _ in sim][:6]}... differ from the "
                         f"recorded ones {[k for k, _ in hw][:6]}...")
    per_kernel: dict[str, list[tuple[int, float]]] = {}
    for (kernel, s), (_, h) in zip(sim, hw):
        per_kernel.setdefault(kernel, []).append((s, h))
    return {"wall_s": wall, "kernels": per_kernel}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("--apps", nargs="+", default=list(APPS), choices=APPS)
    p.add_argument("--sizes", nargs="+", default=["small", "medium"], choices=["small", "medium", "large"])
    args = p.parse_args(argv)
    record = json.loads(RECORD.read_text())
    print(f"record: {record['provenance']['nvidia_smi']}, {record['provenance']['date']}")
    print(f"{'app/size':<16} {'kernel':<16} {'launches':>8} {'sim cyc':>9} {'ncu cyc':>9} "
          f"{'median':>7} {'worst':>7}  (ratio sim/ncu)")
    errors = []
    for app in args.apps:
        for size in args.sizes:
            c = compare(app, size, record)
            for kernel, pairs in c["kernels"].items():
                ratios = [s / h for s, h in pairs]
                errors += [abs(r - 1) for r in ratios]
                worst = max(ratios, key=lambda r: abs(r - 1))
                print(f"{app + '/' + size:<16} {kernel:<16} {len(pairs):>8} "
                      f"{statistics.median(s for s, _ in pairs):>9.0f} {statistics.median(h for _, h in pairs):>9.0f} "
                      f"{statistics.median(ratios):>7.2f} {worst:>7.2f}")
            print(f"{'':<16} (simulated in {c['wall_s']:.1f} s)")
    print(f"all launches: {len(errors)}, mean |error| {100 * statistics.fmean(errors):.1f}%, "
          f"median {100 * statistics.median(errors):.1f}%, worst {100 * max(errors):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
