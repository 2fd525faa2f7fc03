"""CPU seconds of `gpusim validate` per record, this tree against a baseline tree, and the full run projected.

    nice python benchmarks/validate_speed.py --baseline /work/main            # the default slow records
    nice python benchmarks/validate_speed.py --baseline /work/main --only 'matmul_naive__large|stencil7__large'
    nice python benchmarks/validate_speed.py                                  # this tree alone

Each record is simulated as ``gpusim validate`` simulates it (:func:`gpusim.hw.validate.simulate_record`:
timing mode on the h100 preset at base clock, sampled above ``--sample-above`` measured warp instructions,
as the stored full run `gpusim/hw/validation_h100.json` was made) in a fresh Python process of its own, once
with this tree's code and once with the baseline tree's (``--baseline DIR``: a checkout whose compiled
modules are built, e.g. /work/main), one after the other, so that both see the same machine load.  The CPU
time is the child's user+sys (``os.wait4``), which a shared machine disturbs less than the wall time.

The table gives each record's CPU seconds both ways, their ratio, and whether the simulated cycles,
instructions, dominant stall and sampled bound are identical (a speed-up must not change them).  The last
lines: the median ratio, the sum over the records, and the full validation projected: the stored run's
per-record seconds (wall time in that run, on a shared machine) with the records measured here scaled by
their ``this / baseline`` and the others by the median ratio (an estimate: the records not measured may gain
less), over 2 jobs; and the same in CPU seconds, scaled by the median of baseline CPU seconds here over
stored wall seconds (how loaded the stored run's machine was).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
STORED = HERE / "gpusim" / "hw" / "validation_h100.json"
# the slowest records of the stored full run (seconds there), of every kind: sampled on a few SMs, sampled in
# time after a wide bound, over the time limit
DEFAULT_RECORDS = ["matmul_naive__large", "graphs__triangle_count__rmat14", "stencil7__large",
                   "parboil__sgemm__medium", "reduce_interleaved__large", "polybench__2mm_1__standard",
                   "hecbench__tensor_transpose__default", "graphs__bfs_topo__rmat20"]

CHILD = r"""
import json, sys
from gpusim.hw.validate import SimOptions, find_records, simulate_record
name, sample_above = sys.argv[1], float(sys.argv[2])
refs = find_records([sys.argv[3]], "base", name_pattern="^" + name + "$", sample_above=sample_above)[0]
assert len(refs) == 1, (name, len(refs))
out = simulate_record(refs[0], SimOptions(gpu="h100", clock="base"))
import gpusim, gpusim.timing.sm as sm
print("FROM " + json.dumps([gpusim.__file__, sm.__file__]))
print("RESULT " + json.dumps(out))
"""


def run_child(tree: Path, name: str, sample_above: float, golden: Path) -> tuple[float, dict]:
    """(wall seconds, simulate_record's dict) of one record simulated by ``tree``'s code."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-c", CHILD, name, str(sample_above), str(golden)], cwd=tree, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{name} in {tree} failed:\n{err[-3000:]}")
    files = json.loads(next(ln for ln in out.splitlines() if ln.startswith("FROM "))[len("FROM "):])
    if not all(Path(f).resolve().is_relative_to(tree) for f in files):
        raise SystemExit(f"{tree}: the child imported {files}, not that tree's code")
    line = next(ln for ln in out.splitlines() if ln.startswith("RESULT "))
    return wall, json.loads(line[len("RESULT "):])


def cpu_of(fn, *args):
    """(children's user+sys CPU seconds spent by ``fn(*args)``, its result)."""
    before = os.times()
    result = fn(*args)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system), result


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, help="a checkout to compare with (its compiled modules built)")
    ap.add_argument("--only", help="regular expression over record names (default: the slow records listed)")
    ap.add_argument("--sample-above", type=float, default=5e6)
    ap.add_argument("--golden", type=Path, default=HERE / "tests" / "golden" / "h100")
    args = ap.parse_args(argv)
    stored = {r["name"]: r for r in json.loads(STORED.read_text())["records"]}
    if args.only:
        import re
        names = sorted(n for n in stored if re.search(args.only, n))
    else:
        names = DEFAULT_RECORDS
    trees = [("this", HERE)] + ([("baseline", args.baseline.resolve())] if args.baseline else [])
    print(f"{'record':42s} {'stored s':>9s} " + " ".join(f"{t + ' CPU s':>15s}" for t, _ in trees)
          + ("   ratio  same result" if args.baseline else "  result"))
    rows = []
    for name in names:
        got = {}
        for label, tree in trees:
            cpu, (wall, res) = cpu_of(run_child, tree, name, args.sample_above, args.golden)
            got[label] = (cpu, res)
        line = f"{name:42s} {stored.get(name, {}).get('seconds', float('nan')):9.1f} " + \
            " ".join(f"{got[t][0]:15.1f}" for t, _ in trees)
        if args.baseline:
            ratio = got["this"][0] / max(1e-9, got["baseline"][0])
            same = got["this"][1] == got["baseline"][1]
            rows.append((name, got["baseline"][0], got["this"][0], ratio, same))
            line += f"  {ratio:6.2f}  {'yes' if same else 'NO: ' + json.dumps(got['this'][1]) + ' vs ' + json.dumps(got['baseline'][1])}"
        else:
            line += "  " + json.dumps(got["this"][1])
        print(line, flush=True)
    if not rows:
        return
    med = statistics.median(r[3] for r in rows)
    base_sum, this_sum = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"\n{len(rows)} records: median ratio this/baseline {med:.2f}; sum {this_sum:,.0f} s vs {base_sum:,.0f} s "
          f"({this_sum / base_sum:.2f}); identical results: {sum(r[4] for r in rows)}/{len(rows)}")
    total = sum(r["seconds"] or 0 for r in stored.values())
    measured = {r[0]: r[3] for r in rows}
    projected = sum((r["seconds"] or 0) * measured.get(n, med) for n, r in stored.items())
    print(f"full validation ({len(stored)} records): stored {total:,.0f} s (wall per record, under that run's "
          f"load); projected {projected:,.0f} s at the same load (measured records at their ratio, the others "
          f"at the median), about {projected / 2 / 60:.0f} min on 2 jobs")
    # the stored seconds are wall time on a shared machine: the baseline's CPU seconds here over them say how
    # much of that was the simulation's own work
    cpu_share = statistics.median(r[1] / max(1e-9, stored[r[0]]["seconds"] or 1e-9) for r in rows if r[0] in stored)
    print(f"baseline CPU s here / stored wall s: median {cpu_share:.2f}; so the full run's CPU work projected "
          f"{projected * cpu_share:,.0f} CPU s, about {projected * cpu_share / 2 / 60:.0f} min on 2 idle cores")


if __name__ == "__main__":
    main()
