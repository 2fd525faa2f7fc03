"""On a machine with an NVIDIA GPU and CuPy: each app run under real CuPy gives the same outputs as under
gpusim.cupy (``pytest -m gpu``; skipped elsewhere)."""
import json
import os
import subprocess
import sys

import pytest

from tests.examples.apps import APPS, APPS_DIR

pytestmark = pytest.mark.gpu


def _gpu_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@pytest.mark.skipif(not _gpu_available(), reason="needs CuPy and an NVIDIA GPU")
@pytest.mark.parametrize("name", APPS)
def test_app_gives_the_same_outputs_under_cupy_and_gpusim(name, tmp_path):
    results = {}
    for backend, extra, env_sim in (("cupy", [], "0"), ("gpusim", ["--sim"], "1")):
        out = tmp_path / f"{backend}.json"
        env = dict(os.environ, GPUSIM_CUPY=env_sim, GPUSIM_CUPY_MODE="emulate")
        proc = subprocess.run([sys.executable, "-W", "ignore", str(APPS_DIR / f"{name}.py"), *extra,
                               "--json", str(out)], capture_output=True, text=True, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        results[backend] = json.loads(out.read_text())
    assert results["cupy"]["backend"] == "cupy" and results["gpusim"]["backend"] == "gpusim"
    for k, v in results["cupy"]["outputs"].items():
        assert results["gpusim"]["outputs"][k]["sha256"] == v["sha256"], f"{name}: output {k} differs"
