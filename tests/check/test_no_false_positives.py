"""No false positives: every bundled program (``programs/*.toml``) and every validation-suite kernel
(``programs/suites/<suite>/*.toml``) runs under every tool at its small sizes, completes, still matches its
reference in check mode (poisoned shared and local memory, independent-thread barriers), and the checker
reports nothing, except the real races listed in ``KNOWN``.

``KNOWN`` holds, per suite kernel, the findings the checker makes over its small sizes and why each is a
real race (a data race by the CUDA memory model, whether or not the algorithm tolerates its outcome); the
test expects exactly those, so that a fix of the kernel or a change of the checker shows.  A kernel the
emulator cannot run yet (the suites' "Needs ISA support" table) is skipped: there is nothing to check."""
from __future__ import annotations

import pytest

import gpusim
import programs
from gpusim.errors import UnsupportedError
from isa.errors import PtxError

KNOWN = {
    # The SHOC reduction's warp-synchronous tail, `smem[tid] += smem[tid + 16]; __syncwarp();`: lane 16
    # overwrites smem[16] between the same two __syncwarp()s in which lane 0 reads it (compute-sanitizer
    # gives this pattern as a warp-level WAR warning: programs/bugs/race_warp_reduce_no_syncwarp).
    # Volta-safe: load, __syncwarp(), store, __syncwarp().
    ("shoc", "reduction"): {("racecheck", "WAR hazard", "warp")},
    # BFS levels by threads of one block with no barrier: one thread sets levels[u] = curr + 1 while another
    # tests levels[u] (== UNVISITED, or == curr for its own vertex).  The algorithm tolerates either order
    # (the kernel's comment: every writer stores the same value), but the accesses race; global memory,
    # which compute-sanitizer does not check.
    ("shoc", "bfs"): {("racecheck", "RAW hazard", "block"), ("racecheck", "RAW hazard", "warp"),
                      ("racecheck", "WAR hazard", "block")},
    ("graphs", "bfs_topo"): {("racecheck", "RAW hazard", "block"), ("racecheck", "WAR hazard", "block")},
    # Parboil BFS tests g_color[id] == WHITE with a plain load before claiming the vertex with atomicExch
    # ("cheap test before the atomic"): the plain load races with other threads' atomicExch of that word.
    ("parboil", "bfs"): {("racecheck", "RAW hazard", "block"), ("racecheck", "RAW hazard", "warp"),
                         ("racecheck", "WAR hazard", "block"), ("racecheck", "WAR hazard", "warp")},
}


def _cases():
    out = []
    for spec in programs.all_specs():
        out.append(pytest.param("bundled", spec, id=f"bundled/{spec.name}"))
    for suite, spec in programs.suite_specs():
        out.append(pytest.param(suite, spec, id=f"{suite}/{spec.name}"))
    return out


@pytest.mark.parametrize("suite, spec", _cases())
def test_runs_clean_under_every_tool_at_its_small_sizes(suite, spec):
    # the small sizes (not one that is also the program's default, realistic size: mri_q's small_dataset)
    sizes = [s for s in spec.sizes if s.startswith("small") and s != spec.default_size] or [spec.default_size]
    got = set()
    for size in sizes:
        try:
            res = gpusim.run(spec.ptx_path, launch=spec.path, size=size, sanitize="all",
                             check=spec.reference_function is not None)
        except (PtxError, UnsupportedError) as e:
            pytest.skip(f"the emulator cannot run it yet: {str(e).splitlines()[0]}")
        rep = res.sanitizer
        assert rep.completed, rep.stopped
        found = {(f.tool, f.kind, f.scope) for f in rep.problems}
        assert found <= KNOWN.get((suite, spec.name), set()), rep.format()
        got |= found
        if res.check is not None:
            assert res.check.ok, res.check.message
    assert got == KNOWN.get((suite, spec.name), set())


def test_shared_memory_alone_leaves_the_bfs_kernels_clean():
    # what compute-sanitizer's racecheck covers: the BFS races above are all in global memory
    for suite, name in [k for k in KNOWN if k[1] in ("bfs", "bfs_topo")]:
        spec = programs.get(f"{suite}/{name}")
        for size in [s for s in spec.sizes if s.startswith("small") and s != spec.default_size]:
            rep = gpusim.run(spec.ptx_path, launch=spec.path, size=size, sanitize="all", global_races="off").sanitizer
            assert rep.ok, rep.format()
