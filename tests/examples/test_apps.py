"""The example apps under gpusim.cupy: outputs equal to their numpy references, per-kernel times printed,
and the device script's record format (with the simulator standing in for CuPy)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import gpusim.cupy as cp
from tests.examples.apps import APPS, APPS_DIR, load_app


@pytest.fixture
def emulate():
    cp.reset(mode="emulate", gpu="h100", flush_caches=False)
    yield
    cp.reset(mode="timing")


@pytest.mark.parametrize("name", APPS)
def test_app_outputs_equal_the_numpy_reference(name, emulate):
    app = load_app(name)
    assert app.cupy is cp
    params = app.SIZES["small"]
    with pytest.warns(UserWarning, match="emulate mode"):
        got, timer = app.run(**params)
    want = app.reference(**params)
    assert set(got) == set(want)
    for k in want:
        # bit for bit: the references follow the kernels' order of operations and fused multiply-adds
        np.testing.assert_array_equal(got[k], want[k], err_msg=f"{name}: {k}")
    kernels = {r.kernel for r in cp.launches()}
    assert kernels == set(timer.times_ms())


def test_bfs_launches_until_a_level_adds_nothing(emulate):
    app = load_app("bfs")
    with pytest.warns(UserWarning):
        got, _ = app.run(**app.SIZES["small"])
    depth = int(got["depth"][0])
    levels = [r.kernel for r in cp.launches()]
    assert levels.count("bfs_level") == depth + 1 and levels[-1] == "level_histogram"
    assert depth >= 5 and got["counts"].sum() == app.SIZES["small"]["vertices"]


def test_an_app_prints_per_kernel_times_in_timing_mode(tmp_path):
    out = tmp_path / "jacobi.json"
    env = dict(os.environ, GPUSIM_CUPY_MODE="timing")
    proc = subprocess.run([sys.executable, str(APPS_DIR / "jacobi2d.py"), "--sim", "--json", str(out)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "jacobi_sweep" in proc.stdout and " us" in proc.stdout and "on gpusim" in proc.stdout
    rec = json.loads(out.read_text())
    sweep = rec["kernels"]["jacobi_sweep"]
    assert sweep["launches"] == 20 and sweep["total_ms"] > 0
    assert rec["backend"] == "gpusim" and len(rec["outputs"]["grid"]["sha256"]) == 64


def test_the_device_script_records_runs(tmp_path):
    """run_device.py end to end with a stand-in ``cupy`` (gpusim.cupy in emulate mode) on the path."""
    stand_in = tmp_path / "standin"
    stand_in.mkdir()
    (stand_in / "cupy.py").write_text("import sys, gpusim.cupy as m\nsys.modules['cupy'] = m\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(stand_in), os.environ.get("PYTHONPATH", "")]),
               GPUSIM_CUPY_MODE="emulate")
    out = tmp_path / "apps_device.json"
    proc = subprocess.run([sys.executable, "-W", "ignore", str(APPS_DIR / "run_device.py"), "--out", str(out),
                           "--app", "bfs", "--size", "small", "--repeat", "1", "--timeout", "240"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rec = json.loads(out.read_text())
    assert rec["format"] == "gpusim-apps-device/1" and "date" in rec["provenance"]
    run, = rec["runs"]
    assert run["app"] == "bfs" and run["size"] == "small" and "error" not in run
    app = load_app("bfs")
    want = app.reference(**app.SIZES["small"])
    from _common import digest
    assert run["outputs"]["level"]["sha256"] == digest(want["level"])
