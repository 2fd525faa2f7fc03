"""DRAM controller speed: DramController.access() calls per CPU second on random bursts, this tree against a
baseline tree, and whether both give the same cycles.

    nice python benchmarks/dram_speed.py --baseline /work/main
    nice python benchmarks/dram_speed.py --accesses 1000000

The stream is what a random-access kernel (hecbench random_access dram, GUPS-like) sends the DRAM: 32-byte
bursts at uniformly random addresses over 2 GiB, 30% writes (taken into the write queue and drained in
batches), arriving 0-2 CK apart, so the banks conflict and the data bus and the ACT spacing rules (nRRD,
nFAW, nCCD_L) are busy.  Each tree runs in a fresh process of its own (its compiled modules, when built);
the figure is the best of three runs' CPU time (``time.process_time``); the result check is a digest of
every access's returned CK.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from gpusim.config import load_gpu
import gpusim.memory.dram.controller as controller
n = int(sys.argv[1])
spec = load_gpu("h100").memory.dram
rng = np.random.default_rng(1)
address = (rng.integers(0, 1 << 31, n) & ~31).tolist()
write = (rng.random(n) < 0.3).tolist()
arrival = np.cumsum(rng.integers(0, 3, n)).tolist()
best, out = None, None
for _ in range(3):
    dram = controller.DramController(spec)
    t = time.process_time()
    out = [dram.access(a, x, w) for a, x, w in zip(arrival, address, write)]
    dt = time.process_time() - t
    best = dt if best is None else min(best, dt)
digest = hashlib.sha1(np.array(out, dtype=np.int64).tobytes()).hexdigest()[:16]
print("RESULT " + json.dumps({"cpu_s": best, "digest": digest, "module": controller.__file__}))
"""


def run_child(tree: Path, n: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    p = subprocess.run([sys.executable, "-c", CHILD, str(n)], cwd=tree, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{tree}: failed:\n{p.stderr[-3000:]}")
    out = json.loads(next(ln for ln in p.stdout.splitlines() if ln.startswith("RESULT "))[len("RESULT "):])
    if not Path(out["module"]).resolve().is_relative_to(tree):
        raise SystemExit(f"{tree}: the child imported {out['module']}, not that tree's code")
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, help="a checkout to compare with (its compiled modules built)")
    ap.add_argument("--accesses", type=int, default=400_000)
    args = ap.parse_args(argv)
    trees = [("this", HERE)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    got = {}
    for label, tree in trees:
        r = got[label] = run_child(tree, args.accesses)
        kind = "compiled" if r["module"].endswith(".so") else "pure Python"
        print(f"{label:9s} {args.accesses:,} accesses: {r['cpu_s']:.2f} CPU s (best of 3), "
              f"{args.accesses / r['cpu_s'] / 1e3:,.0f} k accesses/s, {kind}; cycles digest {r['digest']}")
    if args.baseline:
        same = got["this"]["digest"] == got["baseline"]["digest"]
        print(f"speed-up this/baseline: {got['baseline']['cpu_s'] / got['this']['cpu_s']:.2f}x; "
              f"same cycles: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
