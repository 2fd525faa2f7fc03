"""The compiled timing model is the plain-Python model: the same ``.py`` files, compiled by Cython where a
compiler was there at install time (``gpusim/compiled.py``), give the same cycles, counters, per-warp and
per-PC stalls and the same observer event stream as when they run as plain Python (``GPUSIM_PURE_PYTHON=1``).

The model-identity test (``tests/integration/test_model_identity.py``) holds whichever path this process
runs to the captured baseline; here the other path runs in a subprocess and every number is compared.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gpusim.compiled as compiled
from gpusim.timing import TimingObserver

ROOT = Path(__file__).resolve().parents[2]

# (program, size, gpu, scheduler): shared-memory tiling, streaming, atomics and irregular loops, a barrier-
# heavy scan, divergence; every scheduler and preset.
CASES = [
    ("matmul_tiled", "small", "h100", "gto"),
    ("vector_add", "small", "h100", "lrr"),
    ("histogram_smem", "small", "a100", "gto"),
    ("scan_brent_kung", "small", "pmpp-device-d", "two_level"),
    ("divergence", "small", "h100", "two_level"),
    ("transpose_naive", "small", "a100", "lrr"),
    (str(ROOT / "programs/suites/graphs/bfs_wl.ptx"), "small", "h100", "gto"),
    (str(ROOT / "programs/suites/graphs/bfs_topo.ptx"), "small", "h100", "lrr"),
]


class _Digest(TimingObserver):
    """Hashes every observer event in order (the whole stream, not just counts)."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.n = 0

    def _add(self, e) -> None:
        self.h.update(repr(tuple(e)).encode())
        self.n += 1

    on_issue = on_warp_state = on_shared_access = on_global_access = on_dram_command = _add


def _arr(a) -> str:
    return hashlib.sha256(np.ascontiguousarray(np.asarray(a, dtype=np.int64)).tobytes()).hexdigest()[:16]


def fingerprint(name: str, size: str, gpu: str, scheduler: str) -> dict:
    """Everything the timing model computes for one launch, as JSON-able values."""
    import gpusim
    from gpusim.timing import simulate

    trace = gpusim.run(name, size=size, mode="emulate", record_trace=True).trace
    obs = _Digest()
    res = simulate(trace, gpu, scheduler=scheduler, observer=obs)
    return {
        "cycles": int(res.cycles),
        "counters": {k: (np.asarray(v).tolist() if isinstance(v, (list, tuple, np.ndarray)) else float(v))
                     for k, v in sorted(res.counters.items())},
        "stalls": {k: int(v) for k, v in res.stalls.items()},
        "stalls_by_pc": {str(pc): d for pc, d in sorted(res.stalls_by_pc.items())},
        "stalls_by_warp": _arr(res.stalls_by_warp),
        "warp_cycles": [_arr(res.warp_start_cycle), _arr(res.warp_end_cycle), _arr(res.warp_sm)],
        "per_sm": {k: _arr(v) for k, v in sorted(res.per_sm.items())},
        "events": [obs.n, obs.h.hexdigest()],
    }


def _other_path(pure: bool) -> list[dict]:
    env = dict(os.environ)
    env.pop(compiled.PURE_ENV, None)
    if pure:
        env[compiled.PURE_ENV] = "1"
    code = ("import json, sys; from test_compiled import CASES, fingerprint; import gpusim.compiled as c; "
            "print(json.dumps({'path': c.describe(), 'runs': [fingerprint(*k) for k in CASES]}))")
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), str(ROOT), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


def test_setup_py_compiles_exactly_the_modules_gpusim_lists_and_each_has_its_pxd():
    tree = ast.parse((ROOT / "setup.py").read_text())
    listed = next(ast.literal_eval(n.value) for n in ast.walk(tree) if isinstance(n, ast.Assign)
                  and any(getattr(t, "id", None) == "COMPILED_MODULES" for t in n.targets))
    assert tuple(listed) == compiled.COMPILED_MODULES
    for name in listed:
        assert (ROOT / (name.replace(".", "/") + ".pxd")).is_file()


def test_the_switch_makes_a_process_run_every_listed_module_as_plain_python():
    env = dict(os.environ, **{compiled.PURE_ENV: "1"})
    out = subprocess.run([sys.executable, "-c", "import gpusim, gpusim.compiled as c; print(c.status())"],
                         env=env, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert ast.literal_eval(out.stdout.strip()) == {n: False for n in compiled.COMPILED_MODULES}


def test_pure_python_and_compiled_paths_give_identical_numbers_and_event_streams():
    here = compiled.status()
    if not all(here.values()):
        if compiled.pure_requested():
            pytest.skip("this process runs plain Python (GPUSIM_PURE_PYTHON); the compiled run is the other test run")
        pytest.skip(f"the timing model is not compiled here ({compiled.describe()}): no C compiler or Cython at "
                    f"install time; the plain-Python path is the one tested")
    other = _other_path(pure=True)
    assert other["path"].startswith("plain Python")
    for case, theirs in zip(CASES, other["runs"]):
        mine = fingerprint(*case)
        assert mine["events"][0] > 0
        for key in mine:
            assert mine[key] == theirs[key], (case, key)


def test_gpusim_version_names_the_timing_core_this_process_runs(capsys):
    env = dict(os.environ, **{compiled.PURE_ENV: "1"})
    out = subprocess.run([sys.executable, "-m", "gpusim.cli", "--version"], env=env, capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("timing core: plain Python (GPUSIM_PURE_PYTHON set)")
    from gpusim.cli import main
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip().endswith(f"timing core: {compiled.describe()}")


def test_a_build_older_than_its_py_or_pxd_is_stale(tmp_path, monkeypatch):
    import importlib.machinery
    pkg = tmp_path / "gpusim" / "timing"
    pkg.mkdir(parents=True)
    src, pxd = pkg / "sm.py", pkg / "sm.pxd"
    ext = pkg / ("sm" + importlib.machinery.EXTENSION_SUFFIXES[0])
    for f in (src, pxd, ext):
        f.write_text("")
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    os.utime(src, (1000, 1000))
    os.utime(pxd, (1000, 1000))
    os.utime(ext, (2000, 2000))
    assert not compiled._stale("gpusim.timing.sm")
    os.utime(pxd, (3000, 3000))          # the C types edited since the build
    assert compiled._stale("gpusim.timing.sm")
    os.utime(pxd, (1000, 1000))
    os.utime(src, (3000, 3000))          # the model edited since the build
    assert compiled._stale("gpusim.timing.sm")
    ext.unlink()                         # never built: plain Python, not stale
    assert not compiled._stale("gpusim.timing.sm")
