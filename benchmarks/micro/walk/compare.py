"""The model beside the H100 on the one-thread walks (``tests/golden/h100/micro/walk.json``, walk.cu).

    python benchmarks/micro/walk/compare.py                       # every case, preset h100 (ncu's base clock)
    python benchmarks/micro/walk/compare.py --kernel walk_sum walk_csr --gpu my.toml
    python benchmarks/micro/walk/compare.py --record tests/golden/h100/micro/walk_rows.json   # the rows sweep

Per case: the H100's ``gpc__cycles_elapsed.max`` under ncu (default clock control: base clock), the model's
cycles for the same launch of ``walk.ptx`` (the same PTX the device's cubin was assembled from), the error,
and the loop's cycles per element on the H100 outside ncu (clock64, boost clock).  Ends with the mean absolute
error per kernel.  Each case is one thread (or one block) for a few thousand loads: seconds of CPU each.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
RECORD = ROOT / "tests" / "golden" / "h100" / "micro" / "walk.json"


def size_of(case: dict) -> tuple[str, str]:
    """(launch file, size string) of a recorded case."""
    if case["kernel"].startswith("walk_csr"):
        return (str(HERE / "walk_csr.toml"),
                f"m={case['m']},nx={case['nx']},threads={case.get('threads', 32)}")
    return str(HERE / "walk.toml"), f"m={case['m']},stride={case['stride_bytes'] // 4}"


def simulate(case: dict, gpu: str = "h100") -> int:
    import gpusim
    launch, size = size_of(case)
    res = gpusim.run(str(HERE / "walk.ptx"), kernel=case["kernel"], launch=launch, size=size, mode="timing",
                     gpu=gpu)
    return int(res.timing.cycles)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", nargs="*", help="only these kernels (default: all)")
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("--record", default=str(RECORD), help="walk.json (default) or walk_rows.json")
    a = ap.parse_args(argv)
    rec = json.loads(Path(a.record).read_text())
    clock = {(c["kernel"], c["m"], c.get("stride_bytes"), c.get("nx"), c.get("threads")): c
             for c in rec["clock"] if not c.get("warm_l2")}
    errs: dict[str, list[float]] = defaultdict(list)
    print(f"{'kernel':14s} {'m':>5s} {'stride/nx':>9s} {'thr':>3s} {'H100 gpc':>9s} {'model':>9s} {'err':>7s} "
          f"{'H100 cyc/elem (boost)':>21s}")
    for case in rec["ncu"]["rows"]:
        if a.kernel and case["kernel"] not in a.kernel:
            continue
        hw = case["ncu"]["gpc__cycles_elapsed.max"]
        sim = simulate(case, a.gpu)
        err = sim / hw - 1
        errs[case["kernel"]].append(abs(err))
        c = clock.get((case["kernel"], case["m"], case.get("stride_bytes"), case.get("nx"), case.get("threads")))
        print(f"{case['kernel']:14s} {case['m']:5d} {case.get('stride_bytes', case.get('nx')):>9} "
              f"{case.get('threads', 32):3d} {hw:9.0f} {sim:9d} {100 * err:+6.1f}% "
              f"{c['cycles_per_element'] if c else float('nan'):21.1f}", flush=True)
    print("\nmean absolute error per kernel:")
    for k, v in errs.items():
        print(f"  {k:14s} {100 * sum(v) / len(v):5.1f}%  ({len(v)} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
