"""A user's kernel from a fresh folder: ``gpusim init``, edit the launch file, ``gpusim run --check`` (in a
subprocess, as a user runs it, and through the Python API).  The PTX route always runs; the CUDA C route
needs NVRTC (``pip install -e .[cuda]``) and is skipped without it."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gpusim

ROOT = Path(__file__).resolve().parents[2]

SAXPY_CU = """// y = a*x + y, one thread per element
__global__ void saxpy(int n, float a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def gpusim_cli(*argv, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "gpusim", *map(str, argv)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def edit(path: Path, *replacements: tuple[str, str]) -> None:
    text = path.read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)


def test_a_ptx_kernel_from_a_fresh_folder(tmp_path):
    shutil.copy(ROOT / "programs" / "saxpy_hand.ptx", tmp_path / "saxpy.ptx")
    r = gpusim_cli("run", "saxpy.ptx", cwd=tmp_path)
    assert r.returncode == 1 and "gpusim init saxpy.ptx" in r.stderr

    r = gpusim_cli("init", "saxpy.ptx", cwd=tmp_path)
    assert r.returncode == 0 and "wrote saxpy.toml" in r.stdout, r.stderr
    toml = tmp_path / "saxpy.toml"
    text = toml.read_text()
    assert 'name = "saxpy_n"' in text and 'value = "n"' in text and 'small   = { n = 1024 }' in text
    # the user's edits: a = 2.5, y is read as well as written (uniform), and a reference
    edit(toml, ("value = 1.0", "value = 2.5"),
         ("# [reference]", "[reference]"), ('# function = "saxpy_ref.py:reference"', 'function = "saxpy_ref.py:reference"'),
         ('# tolerance = "exact"', 'tolerance = "exact"'))
    (tmp_path / "saxpy_ref.py").write_text(
        "def reference(inputs, params):\n"
        "    return {'saxpy_y': inputs['saxpy_a'] * inputs['saxpy_x'] + inputs['saxpy_y']}\n")

    r = gpusim_cli("run", "saxpy.ptx", "--check", "--quiet", cwd=tmp_path)          # timing mode, small size
    assert r.returncode == 0, r.stderr
    assert "check: OK" in r.stdout and "saxpy_y (arg 3): ok (1024 elements" in r.stdout and "cycles" in r.stdout

    r = gpusim_cli("run", "saxpy.ptx", "--check", "--mode", "emulate", "--size", "default", "--seed", "3",
                   cwd=tmp_path)
    assert r.returncode == 0 and "ok (16384 elements" in r.stdout, r.stderr
    r = gpusim_cli("run", "saxpy.ptx", "--check", "--mode", "emulate", "--size", "n=5000", cwd=tmp_path)
    assert r.returncode == 0 and "grid (20, 1, 1)" in r.stdout and "ok (5000 elements" in r.stdout, r.stderr

    # a wrong reference fails the check with exit code 1
    (tmp_path / "saxpy_ref.py").write_text(
        "def reference(inputs, params):\n    return {'saxpy_y': inputs['saxpy_x'] + inputs['saxpy_y']}\n")
    r = gpusim_cli("run", "saxpy.ptx", "--check", "--mode", "emulate", cwd=tmp_path)
    assert r.returncode == 1 and "check: FAILED" in r.stdout and "1024 of 1024 elements differ" in r.stdout

    # the same launch file from Python, and through --launch from another folder
    res = gpusim.run(tmp_path / "saxpy.ptx", mode="emulate", size="small")
    assert res.program.name == "saxpy" and res.args[3].shape == (1024,)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(tmp_path / "saxpy.ptx", elsewhere / "kernel.ptx")
    r = gpusim_cli("run", "kernel.ptx", "--launch", tmp_path / "saxpy.toml", "--mode", "emulate", cwd=elsewhere)
    assert r.returncode == 0 and "grid (4, 1, 1)" in r.stdout, r.stderr


def _nvrtc_works() -> bool:
    try:
        from gpusim.cuda.nvrtc import _nvrtc   # noqa: F401 - the loader checks the library too
        _nvrtc()
        return True
    except Exception:  # noqa: BLE001
        return False


@pytest.mark.skipif(not _nvrtc_works(), reason="NVRTC not installed (pip install -e .[cuda])")
def test_a_cuda_kernel_from_a_fresh_folder(tmp_path):
    (tmp_path / "saxpy.cu").write_text(SAXPY_CU)
    assert gpusim_cli("init", "saxpy.cu", cwd=tmp_path).returncode == 0
    toml = tmp_path / "saxpy.toml"
    text = toml.read_text()
    assert 'name = "n"\ndtype = "int32"\nvalue = "n"' in text and 'name = "y"' in text
    edit(toml, ("value = 1.0", "value = 2.0"), ('fill = "zeros"', 'fill = "uniform"'),
         ("# [reference]", "[reference]"), ('# function = "saxpy_ref.py:reference"', 'function = "saxpy_ref.py:reference"'),
         ('# tolerance = "exact"', 'tolerance = { rtol = 1e-6, atol = 1e-6 }'))
    (tmp_path / "saxpy_ref.py").write_text(
        "import numpy as np\n"
        "def reference(inputs, params):\n"
        "    a, x, y = np.float64(inputs['a']), inputs['x'].astype(np.float64), inputs['y'].astype(np.float64)\n"
        "    return {'y': (a * x + y).astype(np.float32)}   # the kernel may fuse a*x + y into one fma\n")
    r = gpusim_cli("run", "saxpy.cu", "--check", "--quiet", cwd=tmp_path)
    assert r.returncode == 0 and "check: OK" in r.stdout and "y (arg 3): ok (1024 elements" in r.stdout, r.stderr
