"""The compiled timing model is the plain-Python model: the same ``.py`` files, compiled by Cython where a
compiler was there at install time (``gpusim/compiled.py``), give the same cycles, counters, per-warp and
per-PC stalls and the same observer event stream as when they run as plain Python (``GPUSIM_PURE_PYTHON=1``).
The memory system (caches, crossbar, DRAM) is compiled too; besides the programs, a random request stream
drives it alone, through every path the programs may miss (evictions of dirty lines, the L2's dirty limit and
DRAM's write-buffer push-back, flushes, the what-ifs, warming, addresses above 2^47), and every answer and
counter is compared.

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

import dataclasses
import random

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


# (preset, MemorySystem what-ifs) for the random request stream
MEMORY_CASES = [
    ("h100", {}),
    ("a100", {}),
    ("h100", {"unlimited_dram": True}),
    ("h100", {"latency_free_reads": True, "atomics_serialise": False}),
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


def _random_requests(rng: random.Random, n: int) -> list:
    """``n`` requests of every kind the memory system takes, with sectors from a few small regions (so that
    lines are reused, merged in flight and evicted): global loads and stores (some bypassing L1), local
    accesses above 2^47, global atomics, constants, parameters and shared accesses."""
    from gpusim.memory.address_map import CONST_BASE, LOCAL_BASE, PARAM_BASE
    from gpusim.memory.request import ATOMIC, LOAD, STORE, MemoryRequest
    from isa.units import MemSpace
    heap = 0x7F00_0000_0000 // 32
    out = []
    for _ in range(n):
        kind = rng.choice("llllssaclpx")
        if kind in "lsa":
            base = heap + rng.randrange(64 if rng.random() < 0.5 else 1 << 14) * 4
            sectors = sorted({base + rng.randrange(16) for _ in range(rng.randint(1, 8))})
            lines = len({x >> 2 for x in sectors})
            if kind == "a":
                atoms = tuple((x, x * 32 + 4 * w, rng.randint(1, 32))
                              for x in sectors for w in range(rng.randint(1, 3)))
                out.append(MemoryRequest(MemSpace.GLOBAL, ATOMIC, 0, 32, tuple(sectors), lines, 0, 0, True, atoms,
                                         rng.randrange(4)))
            else:
                out.append(MemoryRequest(MemSpace.GLOBAL, LOAD if kind == "l" else STORE, 0, 32, tuple(sectors),
                                         lines, 0, 0, rng.random() < 0.2))
        elif kind == "p":
            base = LOCAL_BASE // 32 + rng.randrange(1 << 10) * 4
            out.append(MemoryRequest(MemSpace.LOCAL, rng.choice((LOAD, STORE)), 0, 32,
                                     (base, base + 1, base + 2, base + 3), 1))
        elif kind == "c":
            space, base = rng.choice(((MemSpace.CONST, CONST_BASE), (MemSpace.PARAM, PARAM_BASE)))
            sectors = tuple(sorted({base // 32 + rng.randrange(64) for _ in range(rng.randint(1, 3))}))
            out.append(MemoryRequest(space, LOAD, 0, 32, sectors, 0, rng.randint(1, 4)))
        elif kind == "x":
            out.append(MemoryRequest(MemSpace.SHARED, rng.choice((LOAD, STORE, ATOMIC)), 0, 32, (), 0,
                                     rng.randint(1, 8), 1))
        else:
            out.append(MemoryRequest(MemSpace.GLOBAL, LOAD, 0, 0))
    return out


def memory_fingerprint(gpu_name: str, what_if: dict) -> dict:
    """Every answer of a MemorySystem with small caches (4 sets per L1 and L2 slice, h100's L2 keeping 16
    sectors a slice dirty) to a random request stream from 8 SMs, with warming (some sectors dirty) and a flush
    half-way, and every counter and DRAM command after it."""
    from gpusim.config import load_gpu
    from gpusim.memory.request import LaunchResources
    from gpusim.memory.system import MemorySystem

    gpu = load_gpu(gpu_name)
    mem = gpu.memory
    size = mem.l2.slices * 4 * mem.l2.line_bytes * mem.l2.associativity
    # h100's dirty limit, 16 sectors a slice, so that the stream's stores go past it
    mem = dataclasses.replace(mem, l2=dataclasses.replace(
        mem.l2, size_bytes=size, dirty_limit_bytes=size // 16 if mem.l2.dirty_limit_bytes else 0))
    gpu = dataclasses.replace(gpu, memory=mem, sm=dataclasses.replace(gpu.sm, count=8))
    obs = _Digest()
    ms = MemorySystem(gpu, observer=obs, **what_if)
    rng = random.Random(20261122)
    reqs = _random_requests(rng, 6000)
    ms.begin(reqs, LaunchResources(4 * mem.l1.line_bytes * mem.l1.associativity))
    h = hashlib.sha256()
    now = 0
    for i, r in enumerate(reqs):
        if i == len(reqs) // 2:
            ms.flush()
        if i % 500 == 250:
            ms.warm(now, [0x7F00_0000_0000 // 32 + rng.randrange(1 << 16) for _ in range(64)],
                    dirty=[rng.randrange(1 << 16) for _ in range(64)], write_back=i % 1000 == 250)
        ready, busy = ms.access(now, rng.randrange(8), r)
        h.update(f"{int(ready)},{int(busy)};".encode())
        now += rng.choice((0, 0, 1, 2, 5))
    counters = {k: (np.asarray(v).tolist() if isinstance(v, (list, tuple, np.ndarray)) else float(v))
                for k, v in sorted(ms.counters().items())}
    return {"answers": h.hexdigest(), "counters": counters, "events": [obs.n, obs.h.hexdigest()]}


def _other_path(pure: bool) -> list[dict]:
    env = dict(os.environ)
    env.pop(compiled.PURE_ENV, None)
    if pure:
        env[compiled.PURE_ENV] = "1"
    code = ("import json, sys; from test_compiled import CASES, fingerprint; import gpusim.compiled as c; "
            "from test_compiled import MEMORY_CASES, memory_fingerprint; "
            "print(json.dumps({'path': c.describe(), 'runs': [fingerprint(*k) for k in CASES], "
            "'memory': [memory_fingerprint(*k) for k in MEMORY_CASES]}))")
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
    for case, theirs in zip(MEMORY_CASES, other["memory"]):
        mine = memory_fingerprint(*case)
        counters = mine["counters"]
        assert (mine["events"][0] > 0) != bool(case[1].get("unlimited_dram"))      # it issues no commands
        for exercised in ("dram__bytes_write.sum", "gpusim__l1_mshr_merges.sum", "gpusim__l2_mshr_merges.sum",
                          "lts__t_sectors_op_atom.sum", "gpusim__lrc_merged_sectors.sum",
                          "gpusim__l1_inflight_waits.sum", "gpusim__const_requests.sum"):
            assert counters[exercised] > 0, (case, exercised)
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
    line = capsys.readouterr().out.strip()
    assert line.endswith(f"timing core: {compiled.describe()}")
    if all(compiled.status().values()):
        assert "(timing: sm, schedulers; memory: request, cycle_heap, cycle_table, cache, const_cache, interconnect, " \
               "dram.mapping, dram.controller, system)" in line


def test_the_version_line_names_a_stale_memory_module(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "status", lambda: {n: False for n in compiled.COMPILED_MODULES})
    monkeypatch.setattr(compiled, "_stale", lambda name: name == "gpusim.memory.dram.controller")
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    assert compiled.describe() == ("plain Python (the compiled build of memory: dram.controller is older than its "
                                   "source: pip install -e . rebuilds it)")


@pytest.mark.parametrize("module", ["gpusim.timing.sm", "gpusim.memory.dram.controller"])
def test_a_build_older_than_its_py_or_pxd_is_stale(tmp_path, monkeypatch, module):
    import importlib.machinery
    *package, stem = module.split(".")
    pkg = tmp_path.joinpath(*package)
    pkg.mkdir(parents=True)
    src, pxd = pkg / f"{stem}.py", pkg / f"{stem}.pxd"
    ext = pkg / (stem + importlib.machinery.EXTENSION_SUFFIXES[0])
    for f in (src, pxd, ext):
        f.write_text("")
    monkeypatch.setattr(compiled, "_ROOT", tmp_path)
    os.utime(src, (1000, 1000))
    os.utime(pxd, (1000, 1000))
    os.utime(ext, (2000, 2000))
    assert not compiled._stale(module)
    os.utime(pxd, (3000, 3000))          # the C types edited since the build
    assert compiled._stale(module)
    os.utime(pxd, (1000, 1000))
    os.utime(src, (3000, 3000))          # the model edited since the build
    assert compiled._stale(module)
    ext.unlink()                         # never built: plain Python, not stale
    assert not compiled._stale(module)
