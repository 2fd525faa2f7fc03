"""Points per minute of a 16-point sweep of the tiled matmul: in this process vs a Dask LocalCluster(2).

    python benchmarks/sweep.py [--workers 2] [--repeat 1]

The study: matmul_tiled sizes small (TILE_WIDTH 16) and small_tile32 (TILE_WIDTH 32) x registers per thread
8/10/12/16 x sm.count 1/2 on pmpp-device-d (16 points, every one runs; ~0.3-0.9 s each). Both runs build
their two traces (a fresh results file and trace folder each). The cluster is started and its workers have
imported gpusim before the clock starts; its start-up time is printed separately. The two tables are
checked equal (minus host/worker/time columns).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STUDY = """
[sweep]
name = "bench"
gpu = "pmpp-device-d"

[[programs]]
name = "matmul_tiled"
sizes = ["small", "small_tile32"]

[vary]
regs_per_thread = [8, 10, 12, 16]
"sm.count" = [1, 2]

[metrics]
collect = ["smsp__inst_executed.sum"]
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    from gpusim.sweep import comparable, load_spec, read_results, run_sweep

    tmp = Path(tempfile.mkdtemp(prefix="gpusim-sweep-bench-"))
    (tmp / "bench.toml").write_text(STUDY)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; 16-point sweep of "
          f"matmul_tiled on pmpp-device-d")

    spec = load_spec(tmp / "bench.toml", output=tmp / "inproc.csv")
    s1 = run_sweep(spec, workers=1, progress=False)
    assert s1.done == 16 and s1.failed == 0, s1.text()
    ppm1 = s1.done / s1.wall_s * 60
    print(f"in-process           {s1.wall_s:6.2f} s  {ppm1:6.1f} points/min")

    t = time.perf_counter()
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.run(lambda: __import__("gpusim.timing") and __import__("gpusim.sweep.tasks") and None)
    startup = time.perf_counter() - t
    try:
        spec = load_spec(tmp / "bench.toml", output=tmp / "cluster.csv")
        s2 = run_sweep(spec, client=client, progress=False)
    finally:
        client.close()
        cluster.close()
    assert s2.done == 16 and s2.failed == 0, s2.text()
    ppm2 = s2.done / s2.wall_s * 60
    print(f"LocalCluster({args.workers})      {s2.wall_s:6.2f} s  {ppm2:6.1f} points/min   "
          f"(+ {startup:.1f} s cluster start-up, not counted; {s2.done / (s2.wall_s + startup) * 60:.1f} "
          f"points/min counting it)")
    same = comparable(read_results(tmp / "inproc.csv")) == comparable(read_results(tmp / "cluster.csv"))
    print(f"ratio cluster / in-process: {ppm2 / ppm1:.2f}x   tables identical: {same}")
    cpu1 = sum(r["cpu_s"] for r in read_results(tmp / "inproc.csv"))
    cpu2 = sum(r["cpu_s"] for r in read_results(tmp / "cluster.csv"))
    print(f"CPU seconds of the 16 points: in-process {cpu1:.1f}, cluster {cpu2:.1f} (equal work: a ratio "
          f"below {args.workers}x means the cores were not free; load average now "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
