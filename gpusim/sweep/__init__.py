"""Design-space sweeps: many independent timing simulations of a few traces, on Dask.

    from gpusim.sweep import load_spec, run_sweep, read_results
    spec = load_spec("examples/sweeps/matmul_tile_regs.toml")
    summary = run_sweep(spec)                 # a LocalCluster sized to the machine
    summary = run_sweep(spec, workers=1)      # in this process
    rows = read_results(spec.output)          # typed dicts, one per point

The command line: ``gpusim sweep sweep.toml [--workers N | --scheduler tcp://host:8786] [--resume]`` and
``gpusim sweep-plot results.csv --x PARAM --y METRIC [--z PARAM2]``.  Modules: :mod:`~gpusim.sweep.spec`
(the TOML format), :mod:`~gpusim.sweep.tasks` (the worker functions), :mod:`~gpusim.sweep.store` (the CSV
table and its schema), :mod:`~gpusim.sweep.runner` (the client loop), :mod:`~gpusim.sweep.plot`.
Dask (``distributed``) is optional: ``pip install -e .[sweep]``; without it studies run in-process.
"""
from gpusim.sweep.runner import SweepSummary, run_sweep
from gpusim.sweep.spec import Point, SweepSpec, SweepSpecError, Workload, load_spec, spec_from_dict
from gpusim.sweep.store import RUN_COLUMNS, comparable, read_results, to_parquet

__all__ = ["load_spec", "spec_from_dict", "run_sweep", "read_results", "comparable", "to_parquet", "SweepSpec",
           "SweepSpecError", "SweepSummary", "Point", "Workload", "RUN_COLUMNS"]
