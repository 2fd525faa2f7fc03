"""Timing-model speed: simulated warp instructions per CPU second, with the real memory system, for this
tree's compiled model and its plain-Python path (and optionally another commit's model), measured in the
same run.

    python benchmarks/timing.py                          # three workloads, compiled vs pure, 3 alternations
    python benchmarks/timing.py --only matmul --repeat 1
    python benchmarks/timing.py --variants compiled      # this tree only
    python benchmarks/timing.py --variants compiled,pure,baseline --baseline 697b723   # also another commit
    python benchmarks/timing.py --variants compiled,baseline --baseline main --baseline-compiled   # compiled A/B
    python benchmarks/timing.py --memory fixed           # unloaded-latency memory instead of the memory system
    GPUSIM_PURE_PYTHON=1 python -m cProfile -s tottime benchmarks/timing.py --variants compiled --only matmul --repeat 1

Workloads (each variant records its own trace with its own emulator, once; only
``gpusim.timing.simulate`` is timed, which includes building the memory requests):

* ``matmul``: programs/matmul_tiled size "default" (width 256, 16x16 tiles), 2.5 M warp instructions;
* ``vector_add``: programs/vector_add size "stream" (2^20 elements), streaming, 0.72 M;
* ``bfs``: the Lonestar-style topology-driven BFS level (programs/suites/graphs/bfs_topo) on an R-MAT graph of
  2^16 vertices: mostly idle threads, degree-long divergent loops on hub vertices, scattered loads, 1.09 M.

Variants, each a worker process that the runs alternate between (so a busy moment of this shared machine
hits all of them alike); figures are medians of the alternations, in CPU time (``time.process_time``):

* ``compiled``: this tree as installed (the Cython-compiled modules of ``gpusim/compiled.py`` if built);
* ``pure``: this tree with ``GPUSIM_PURE_PYTHON=1`` (the plain-Python reference model);
* ``baseline``: the tree of ``--baseline`` (default 697b723, the model before the compiled core),
  extracted with ``git archive`` into a temporary folder; only when named in ``--variants``.

Targets (issue 11): matmul >= 500,000 warp-instr/s, vector_add and bfs >= 250,000, each printed with its
ratio to the plain-Python path (and to the baseline, when it runs) measured in the same run.

Why Cython's pure-Python mode (2026-11-22, this 2-core machine under a load average of 7-12, CPU time, single
runs unless stated): compiling ``sm.py`` unchanged gave 10% (vector_add 49k -> 55k/s); with an augmenting
``sm.pxd`` typing the classes' attributes and the hot locals as C integers, 90k/s on vector_add and 120k/s
on bfs_topo (from 95k); with the per-PC and per-warp int lists as ``array('q')`` read through typed
memoryviews, the matmul with the fixed-latency memory ran at 560k/s and with the memory system 383k/s
(93k before).  The code stays one source: the ``.py`` files are the model, the ``.pxd`` files only say
which names are C integers, and the tests run both paths and compare every number.  A Numba core would have
needed the SM state rewritten as arrays of structs (a second, less readable model) and a 100+ MB dependency
with its own LLVM; Cython is a build-time dependency only, and the pure path needs nothing.

Then (py-spy on the compiled build, after the rebase on the memory seam): the cyclic garbage collector was
15% of the matmul (walking the trace and the requests for garbage the model never makes): it is paused
while ``simulate`` runs; the schedulers are compiled too, the GPU's loop steps all SMs due at a cycle in
one compiled call, issuing reads its per-PC facts from C arrays, and the DRAM spacing rules bisect to the
few recent commands that can matter.

Then (py-spy, compiled build, share of ``simulate``): the memory system, plain Python, was 70% of
vector_add (every sector misses L2: 262,144 DRAM accesses through cache probe, MSHR, crossbar, L2 and
the DRAM channel's calendar) and 66% of bfs (scattered loads: L1/L2 probes), 36% of the matmul; the
LSU front end's request building 7-8% (cProfile on bfs: the coalescer's sort of every [M, 32] row, 0.5 s).

So the memory system is compiled the same way (2026-11-22, issue 11): ``gpusim/memory``'s request,
cycle_heap, cache, const_cache, interconnect, dram/mapping, dram/controller and system, each with its
``.pxd``.  Compiling them as they were gave little (their state was Python dicts, lists and heaps), so
they were reshaped, the numbers unchanged: the caches' tags are integer arrays per way (LRU by a stamp,
a dict from line to way) instead of a dict of [valid, dirty] lists per set; the MSHR and in-flight-line
heaps are a ``CycleHeap`` of doubles; the DRAM channel keeps its timings and per-bank state as C integers
and searches its recent-command windows with a written-out bisect; ``MemoryRequest`` is an extension
type.  Requests whose lanes are mostly idle (BFS: 9% active) are coalesced from the active lanes only.
``python benchmarks/timing.py --repeat 3 --variants compiled,pure,baseline --baseline 6bb58ab
--baseline-compiled`` (load average 5.2-7.1, CPU-time medians of 3, the baseline is main with its SM core
compiled):

| workload          | this tree, compiled | plain Python      | main (6bb58ab), compiled |
| ----------------- | ------------------- | ----------------- | ------------------------ |
| matmul 256        | 520,809 /s          | 138,780 /s        | 443,689 /s (1.17x)       |
| vector_add 2^20   | 270,533 /s          |  43,025 /s        |  93,198 /s (2.90x)       |
| bfs_topo 2^16     | 413,601 /s          |  92,518 /s        | 158,972 /s (2.60x)       |

The plain-Python path pays a little for the compiled one's shapes (a heap and a bisect written out in
Python): ``--variants pure,baseline --baseline 6bb58ab --repeat 1`` (load average 3.2-4.4) gave matmul
0.94x, vector_add 0.95x of main's plain Python, and bfs 1.23x (the lane-by-lane coalescing).

perf (compiled, vector_add) after: the memory system is about half of ``simulate`` (the DRAM channel
~20%: its bus calendar and recent-command lists are Python dicts and lists; dict lookups of the caches'
line-to-way maps and the slices' in-flight reads ~8%), the SM core about 30%.

The launches slowest per warp instruction in ``gpusim validate`` (scattered atomics, uncoalesced loads:
hecbench/random_access dram at 13 k warp-instr/s) spent most of their memory time in those dicts, which grew
to 10^5 Python ints per DRAM channel and per L2 slice and missed the CPU's caches on every lookup (py-spy,
compiled: the bus calendar's walk 12.8% of random_access, the caches' line-to-way lookups 15-21% of gesummv
and spmv_csr_scalar; perf: ``_Py_dict_lookup`` 13.7%).  So (2026-11-29) the caches compare their set's tags,
the DRAM bus keeps its taken slots as sorted runs (``SlotCalendar``), the in-flight reads and per-word
atomics are a ``CycleTable`` of C integers and doubles, and the LSU front end groups an atomic's lanes for
all rows at once; the numbers unchanged.  User CPU s, whole ``gpusim run --full``, medians of 3 alternated
runs against b4625b0: random_access (log_table=25, 262,144 threads) 30.1 -> 16.5, spmv_csr_scalar size4
24.5 -> 18.6, gesummv n=2048 48.0 -> 34.1, pagerank rmat 2^16 62.5 -> 45.9 (before the ``CycleTable``);
random_access dram itself (3.7 M warp instructions, one run each) 318 -> 181.  The four validation records at
full size, the tree before the merge (908b64b) and after it side by side in one call on the device machine's
16 cores (``gpusim validate --only ... --jobs 4`` each), seconds per record, simulated cycles identical:
pagerank rmat18 154.8 -> 121.6, random_access dram 145.9 -> 106.9, gesummv standard 95.9 -> 83.4,
spmv_csr_scalar large 48.5 -> 39.1.

Earlier measurements of the plain-Python model (issues 3, 4 and the memory seam; the workloads then included
``gmem_stride_probe`` size "default", 0.69 M warp instructions):

Measurements (this 2-core machine, shared with other sessions' jobs: the same code varied between 21 s and
27 s on the matmul from run to run, so small differences are noise; ``simulate`` only, with prepare()):

| code                                                 | matmul 256 (2.5 M)  | gmem_stride_probe (0.69 M) | vector_add 2^20 (0.72 M) |
| ---------------------------------------------------- | ------------------- | -------------------------- | ------------------------ |
| before: 169cdee preset, SimPy process per SM (1 run) |  90,568 /s  1,390 c/s |  43,434 /s  599 c/s      |  36,747 /s  806 c/s      |
| after: bf1822f (matmul median of 3, others 1 run)    |  97,042 /s  1,489 c/s |  40,306 /s  556 c/s      |  37,763 /s  828 c/s      |
| after, quieter moment (/tmp script, CPU time, 1 run) | 116,843 /s            |                          |                          |

Interleaved A/B on a 128-wide matmul trace (328 k warp-instr, CPU time, median of 5, same machine state):
92 k/s before -> 117 k/s (ccec80d: one SimPy process stepping SMs from a heap, 1.66 M -> 40 k SimPy events on
the 256 matmul) -> 145 k/s (47e551f: hot-loop lookups bound once).  prepare() on the 256 matmul: 3.0 s ->
0.9 s (f28e56d vectorised, bf1822f distinct shared rows once).  The streaming kernels are bound by the core's
per-cycle warp scan (64 resident warps/SM, 16 per scheduler, mostly waiting on DRAM) and by warps bouncing
between not_selected and lg_throttle on the LSU pipe, not by the memory system (~25% of their time).

The memory seam (2026-11-22: MemoryRequest objects built once by the LSU front end and shared between equal
slots, typed observer events, the next-event loop without SimPy), ``python benchmarks/timing.py --repeat 1``
alternating with the previous main (cc3d2d3) five times each, median (and best) of the five:

| code          | matmul 256 (2.5 M)            | gmem_stride_probe (0.69 M)   | vector_add 2^20 (0.72 M)     |
| ------------- | ----------------------------- | ---------------------------- | ---------------------------- |
| main, wall    | 185,030 /s (best 205,399)     | 80,849 /s (best 86,610)      | 63,062 /s (best 73,706)      |
| seam, wall    | 203,562 /s (best 219,196)     | 85,433 /s (best 95,040)      | 68,394 /s (best 73,822)      |
| main, CPU s   | 12.71 (best 11.04)            | 8.40 (best 7.88)             | 10.41 (best 9.70)            |
| seam, CPU s   | 12.29 (best 10.62)            | 7.84 (best 7.13)             | 10.53 (best 9.47)            |

Requests for the 256 matmul (1.19 M memory slots, 1.11 M of them shared) take 0.41 s to build, where
``MemorySystem.prepare`` took 0.52 s.

Tried and not kept (2026-11-21, interleaved A/B of ``simulate`` on saved traces, CPU time, 3 pairs each; patch
kept out of the tree): per-cycle warp buckets for sub-partitions with >= 8 warps plus skipping the look at
now+1 for a loser whose pipe is surely still busy (counters, stalls and hook streams verified identical on
every program's small size x {gto, lrr, two_level} x {h100, a100}, matmul 256, probe, vector_add 2^20).
Medians base -> patched: matmul 110.2k -> 109.0k/s, gmem_stride_probe 50.5k -> 49.2k/s, vector_add 43.1k ->
43.0k/s: noise.  py-spy showed the scan itself at ~10% of the core's time, but the bucket bookkeeping (heap,
dict, slot sort) costs about as much.  The SM step schedule cannot shrink without changing results: SMs that
step in the same cycle reach the shared memory system in the order they were last pushed, so every
sub-partition look at now+1 (944 k looks for 688 k instructions on the probe) must stay.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASELINE = "697b723"

# name -> (source relative to the tree's root, size)
WORKLOADS = {
    "matmul": ("programs/matmul_tiled.cu", "default"),
    "vector_add": ("programs/vector_add.cu", "stream"),
    "bfs": ("programs/suites/graphs/bfs_topo.ptx", "scale=16"),
}
TARGETS = {"matmul": 500_000, "vector_add": 250_000, "bfs": 250_000}

# The worker: reads "record NAME SOURCE SIZE" / "time NAME" lines, answers one JSON line each.  It runs
# with the variant's tree first on sys.path, so it times that tree's code.
WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import gpusim
from gpusim.timing import simulate
memory = None if sys.argv[2] == "default" else sys.argv[2]
traces = {}
try:
    import gpusim.compiled as c
    path = c.describe()
except ImportError:
    path = "plain Python (no gpusim.compiled)"
print(json.dumps({"ready": path, "file": gpusim.__file__}), flush=True)
for line in sys.stdin:
    cmd, name, *rest = line.split()
    if cmd == "record":
        src, size = rest
        traces[name] = gpusim.run(sys.argv[1] + "/" + src, size=size, mode="emulate", record_trace=True).trace
        print(json.dumps({"n": int(traces[name].n_instructions)}), flush=True)
    else:
        c0, w0 = time.process_time(), time.perf_counter()
        res = simulate(traces[name], "h100", memory=memory)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        print(json.dumps({"cpu": cpu, "wall": wall, "cycles": int(res.cycles),
                          "inst": float(res.counters["smsp__inst_executed.sum"])}), flush=True)
"""


class Worker:
    def __init__(self, name: str, tree: Path, memory: str, env: dict) -> None:
        self.name = name
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(tree), memory], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=tree)
        hello = self.read()
        self.path = hello["ready"]

    def read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"benchmarks/timing.py: the {self.name} worker stopped")
        return json.loads(line)

    def ask(self, *words) -> dict:
        self.proc.stdin.write(" ".join(words) + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def extract(ref: str, into: Path, build: bool = False) -> Path:
    """The tree of commit ``ref`` (gpusim, isa, programs) under ``into``, by ``git archive``; with ``build``, its
    Cython modules compiled in place by its own ``setup.py`` (needs Cython and a C compiler here)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "gpusim", "isa", "programs"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    if build:
        setup = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:setup.py"], capture_output=True, text=True)
        if setup.returncode != 0:
            raise SystemExit(f"benchmarks/timing.py: {ref} has no setup.py: nothing to compile")
        (into / "setup.py").write_text(setup.stdout)
        print(f"compiling the baseline {ref} in {into} ...", flush=True)
        built = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=into, capture_output=True,
                               text=True)
        if built.returncode != 0:
            raise SystemExit(f"benchmarks/timing.py: building {ref} failed:\n{built.stderr[-2000:]}")
    return into


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(WORKLOADS), action="append", help="run only these workloads")
    ap.add_argument("--variants", default="compiled,pure",
                    help="comma-separated: compiled, pure, baseline (default: compiled,pure)")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="the commit the ratios are against")
    ap.add_argument("--baseline-compiled", action="store_true",
                    help="compile the baseline's Cython modules (its setup.py) instead of running it as plain Python")
    ap.add_argument("--memory", choices=["default", "fixed"], default="default")
    ap.add_argument("--repeat", type=int, default=3, help="alternations per workload; medians are reported")
    a = ap.parse_args(argv)
    names = a.only or list(WORKLOADS)
    variants = [v.strip() for v in a.variants.split(",") if v.strip()]
    env = {k: v for k, v in os.environ.items() if k != "GPUSIM_PURE_PYTHON"}
    tmp = Path(tempfile.mkdtemp(prefix="gpusim-bench-"))
    workers: dict[str, Worker] = {}
    try:
        for v in variants:
            if v == "compiled":
                workers[v] = Worker(v, ROOT, a.memory, env)
            elif v == "pure":
                workers[v] = Worker(v, ROOT, a.memory, dict(env, GPUSIM_PURE_PYTHON="1"))
            elif v == "baseline":
                workers[v] = Worker(f"baseline {a.baseline}", extract(a.baseline, tmp, a.baseline_compiled), a.memory,
                                    env)
            else:
                ap.error(f"unknown variant {v!r}")
        for v, w in workers.items():
            print(f"{v:<9s} {w.path}" + (f" (commit {a.baseline})" if v == "baseline" else ""), flush=True)
        results: dict[str, dict[str, list]] = {}
        for key in names:
            src, size = WORKLOADS[key]
            n = {v: w.ask("record", key, src, size)["n"] for v, w in workers.items()}
            if len(set(n.values())) != 1:
                print(f"  note: the variants' traces differ in length: {n}")
            runs = results[key] = {v: [] for v in workers}
            for _ in range(a.repeat):
                for v, w in workers.items():
                    runs[v].append(w.ask("time", key))
            cyc = {v: {r["cycles"] for r in rs} for v, rs in runs.items()}
            same = len({c for s in cyc.values() for c in s}) == 1
            print(f"\n{key}: {n[variants[0]]:,} warp instructions, {runs[variants[0]][0]['cycles']:,} cycles "
                  f"({'identical in every variant' if same else 'DIFFER: ' + str(cyc)})")
            refs = {ref: statistics.median(r["cpu"] for r in runs[ref]) for ref in ("pure", "baseline") if ref in runs}
            for v, rs in runs.items():
                cpu = statistics.median(r["cpu"] for r in rs)
                wall = statistics.median(r["wall"] for r in rs)
                ratio = "".join(f"  {ref_cpu / cpu:5.2f}x {ref}" for ref, ref_cpu in refs.items() if ref != v)
                print(f"  {v:<9s} cpu {cpu:7.2f} s  {n[v] / cpu:>9,.0f} warp-instr/s (wall {wall:6.2f} s, "
                      f"{len(rs)} runs: {', '.join(format(r['cpu'], '.2f') for r in rs)}){ratio}", flush=True)
            if "compiled" in runs:
                ips = n["compiled"] / statistics.median(r["cpu"] for r in runs["compiled"])
                print(f"  target {TARGETS[key]:,} warp-instr/s: {'met' if ips >= TARGETS[key] else 'NOT met'} "
                      f"({ips:,.0f})")
    finally:
        for w in workers.values():
            w.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
