"""The example apps against the record of the same apps run under CuPy on the H100
(``tests/golden/h100/apps/apps_device.json``, written by ``examples/apps/run_device.py``): outputs identical,
and each kernel's simulated time next to its CUDA-event time (the ratio is reported, not bounded: event times
of microsecond kernels include the host's launch gaps, which the simulator does not model).  The kernels'
own durations come from Nsight Compute (``tests/golden/h100/apps/apps_ncu.json``, written by
``examples/apps/ncu_device.sh``): every launch's simulated cycles against its ``gpc__cycles_elapsed.max``,
bounded.  Skips when a record is absent."""
import json

import numpy as np
import pytest

import gpusim.cupy as cp
from tests.examples.apps import APPS, DEVICE_RECORD, NCU_RECORD, load_app

# Simulated/measured cycles of the apps' launches at the small size (measured 2026-11-22: medians 1.04-1.13
# per kernel, worst launch 1.23; `python benchmarks/apps_vs_ncu.py` prints them).  The model was not fitted
# to these kernels; the bounds say how far it may drift before it no longer predicts them.
MEDIAN_RATIO_BOUNDS = (0.8, 1.25)
LAUNCH_RATIO_BOUNDS = (0.67, 1.5)


def _record():
    if not DEVICE_RECORD.is_file():
        pytest.skip(f"no device record at {DEVICE_RECORD} (run examples/apps/run_device.py on the GPU)")
    return json.loads(DEVICE_RECORD.read_text())


def _device_runs(rec, app, size):
    runs = [r for r in rec["runs"] if r.get("app") == app and r.get("size") == size and "error" not in r]
    if not runs:
        pytest.skip(f"the device record has no successful {app} {size} run")
    return runs


@pytest.mark.parametrize("name", APPS)
def test_app_matches_the_gpu(name, capsys):
    rec = _record()
    runs = _device_runs(rec, name, "small")
    app = load_app(name)
    cp.reset(mode="timing", gpu="h100", flush_caches=False)
    try:
        got, timer = app.run(**app.SIZES["small"])
        from _common import digest
        for r in runs:                      # every device run gave the same outputs as the simulator
            for k, v in got.items():
                assert r["outputs"][k]["sha256"] == digest(v), f"{name} {k}: outputs differ from the GPU's"
        sim = timer.times_ms()
        lines = [f"{name} small: simulated vs GPU (CUDA events, {rec['provenance'].get('gpu', '?')}), per launch"]
        for kernel, s in sim.items():
            gpu_ms = [r["kernels"][kernel]["total_ms"] / r["kernels"][kernel]["launches"] for r in runs]
            assert all(r["kernels"][kernel]["launches"] == s["launches"] for r in runs)
            sim_us, gpu_us = s["total_ms"] / s["launches"] * 1e3, min(gpu_ms) * 1e3
            assert sim_us > 0 and gpu_us > 0 and np.isfinite(sim_us / gpu_us)
            lines.append(f"  {kernel:<16} sim {sim_us:8.2f} us  gpu {gpu_us:8.2f} us  ratio {sim_us / gpu_us:5.2f}")
        with capsys.disabled():
            print("\n" + "\n".join(lines))
        if NCU_RECORD.is_file():
            _check_against_ncu(name, cp.launches(), json.loads(NCU_RECORD.read_text()))
    finally:
        cp.reset()


def _check_against_ncu(name, launches, record):
    hw = [(l["kernel"], l["metrics"]["gpc__cycles_elapsed.max"])
          for l in record["runs"][f"{name}/small"] if l["app_kernel"]]
    assert [r.kernel for r in launches] == [k for k, _ in hw], f"{name}: launch sequence differs from ncu's"
    ratios: dict[str, list[float]] = {}
    for r, (kernel, cycles) in zip(launches, hw):
        ratios.setdefault(kernel, []).append(r.cycles / cycles)
    for kernel, rs in ratios.items():
        lo, hi = MEDIAN_RATIO_BOUNDS
        assert lo <= float(np.median(rs)) <= hi, f"{name} {kernel}: median simulated/ncu cycles {np.median(rs):.2f}"
        lo, hi = LAUNCH_RATIO_BOUNDS
        assert all(lo <= x <= hi for x in rs), f"{name} {kernel}: launch ratios {[round(x, 2) for x in rs]}"
