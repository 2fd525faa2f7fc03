"""``gpusim sweep`` and ``gpusim sweep-plot`` (loaded by :mod:`gpusim.cli` as a plugin)."""
from __future__ import annotations

import sys

EPILOG = """examples:
  gpusim sweep examples/sweeps/matmul_tile_regs.toml              # a Dask LocalCluster sized to the machine
  gpusim sweep study.toml --scheduler tcp://host:8786            # an existing Dask cluster
  gpusim sweep study.toml --workers 1                            # in this process, no Dask
  gpusim sweep study.toml --resume                               # skip the points already in the results
  gpusim sweep study.toml --dry-run                              # list the points, run nothing
  gpusim sweep-plot matmul_tile_regs.csv --x regs_per_thread --y ipc --z size.tile
"""


def register(subparsers) -> None:
    import argparse
    s = subparsers.add_parser("sweep", help="run a design-space study (sweep.toml) on Dask; results in one table",
                              epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("spec", help="the study: a sweep.toml (see gpusim/sweep/spec.py for the format)")
    s.add_argument("-o", "--output", help="results CSV (default: the toml's [sweep] output, else <name>.csv, "
                                          "in the current directory); its schema goes to <stem>.schema.json")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of the LocalCluster (default: the CPU count); 1 = in this process")
    where.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler, e.g. tcp://host:8786 "
                       "(trace files then travel through Dask; gpusim must be installed on the workers)")
    s.add_argument("--resume", action="store_true", help="continue a study: skip the points already stored")
    s.add_argument("--retry-failed", action="store_true", help="with --resume: run the failed points again")
    s.add_argument("--trace-transport", choices=("file", "data"),
                   help="file: workers read the trace files (shared file system; the local default); "
                        "data: the traces travel through Dask (the default with --scheduler)")
    s.add_argument("--dry-run", action="store_true", help="print the points and exit")
    s.add_argument("--quiet", action="store_true", help="no progress bar, no opening line")
    s.set_defaults(fn=cmd_sweep)

    p = subparsers.add_parser("sweep-plot", help="plot a sweep's results: a metric vs a parameter, or a heat map")
    p.add_argument("results", help="the results CSV of `gpusim sweep`")
    p.add_argument("--x", required=True, help="column on the x axis (a parameter, e.g. regs_per_thread)")
    p.add_argument("--y", required=True, help="metric (e.g. ipc, cycles, dram__bytes_read.sum)")
    p.add_argument("--z", help="second parameter: draws a heat map of --y over --x and --z")
    p.add_argument("--by", action="append", help="column that separates lines (repeatable; default: every "
                                                 "other column that varies)")
    p.add_argument("--where", action="append", metavar="COL=VALUE", help="keep only these rows (repeatable)")
    p.add_argument("--logx", action="store_true", help="log2 x axis")
    p.add_argument("-o", "--output", help="image file (default: <results>-<y>-vs-<x>.png)")
    p.set_defaults(fn=cmd_sweep_plot)


def cmd_sweep(a) -> int:
    from gpusim.sweep.runner import run_sweep
    from gpusim.sweep.spec import load_spec
    spec = load_spec(a.spec, output=a.output)
    if a.retry_failed and not a.resume:
        print("gpusim: error: --retry-failed goes with --resume", file=sys.stderr)
        return 2
    if a.workers is not None and a.workers < 1:
        print("gpusim: error: --workers must be >= 1", file=sys.stderr)
        return 2
    points = spec.points()
    if a.dry_run:
        print(f"study {spec.name}: {len(points)} points ({len(spec.workloads())} traces x "
              f"{len(spec.param_sets())} parameter sets, {spec.combine}) on {spec.gpu}; results -> {spec.output}")
        for p in points[:50]:
            params = ", ".join(f"{k}={v}" for k, v in p.params)
            print(f"  {p.point_id}  {p.workload.key}  {params}")
        if len(points) > 50:
            print(f"  ... {len(points) - 50} more")
        return 0
    if not a.quiet:
        print(f"study {spec.name}: {len(points)} points on {spec.gpu} -> {spec.output}", file=sys.stderr)
    summary = run_sweep(spec, workers=a.workers, scheduler=a.scheduler, resume=a.resume,
                        retry_failed=a.retry_failed, progress=not a.quiet, trace_transport=a.trace_transport,
                        log=lambda m: print(f"gpusim: {m}", file=sys.stderr))
    print(summary.text())
    if summary.interrupted:
        return 130
    return 0


def cmd_sweep_plot(a) -> int:
    from gpusim.sweep.plot import plot_file
    path, table = plot_file(a.results, a.x, a.y, z=a.z, by=a.by, out=a.output, where=a.where, logx=a.logx)
    print(table)
    print(f"wrote {path}")
    return 0
