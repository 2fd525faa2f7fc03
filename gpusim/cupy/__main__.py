"""Run an unchanged CuPy script on the simulator: ``import cupy`` in it (and its imports) means
:mod:`gpusim.cupy`.

    python -m gpusim.cupy [--mode timing|emulate] [--gpu h100] [--flush-caches] [--trace out.json]
                          [--sanitize all|TOOL,...] [--no-report] script.py [script args ...]

At the end the report (:func:`gpusim.cupy.report`) goes to stderr, so the script's own output stays as it
is, and ``--trace`` writes the launches as a Perfetto trace.  ``--sanitize`` runs every launch under the
checker (:mod:`gpusim.check`; as ``compute-sanitizer python script.py``): a launch's findings go to stderr as
it ends, and the report counts them.
"""
from __future__ import annotations

import argparse
import runpy
import sys

from gpusim.errors import GpusimError


def alias_cupy() -> None:
    """Make ``import cupy``, ``cupy.cuda`` ... resolve to gpusim.cupy's modules."""
    import gpusim.cupy as gc
    for name, mod in list(sys.modules.items()):
        if name == "gpusim.cupy" or name.startswith("gpusim.cupy."):
            sys.modules["cupy" + name[len("gpusim.cupy"):]] = mod
    sys.modules["cupy"] = gc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.cupy", description=__doc__.strip().splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=("timing", "emulate"), help="default: timing (or $GPUSIM_CUPY_MODE)")
    ap.add_argument("--gpu", help="GPU preset or config file (default h100, or $GPUSIM_CUPY_GPU)")
    ap.add_argument("--flush-caches", action="store_true", help="cold caches before every launch, as ncu")
    ap.add_argument("--trace", metavar="PATH", help="write the launches as a Perfetto/Chrome trace")
    ap.add_argument("--sanitize", metavar="TOOLS",
                    help="check every launch: all, or racecheck,initcheck,synccheck,memcheck (or $GPUSIM_CUPY_SANITIZE)")
    ap.add_argument("--no-report", action="store_true", help="do not print the report at the end")
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    import gpusim.cupy as gc
    try:
        gc.set_mode(a.mode, gpu=a.gpu, flush_caches=True if a.flush_caches else None, sanitize=a.sanitize)
    except GpusimError as e:
        ap.error(str(e))
    alias_cupy()
    sys.argv = [a.script, *a.args]
    status = 0
    try:
        runpy.run_path(a.script, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdout.flush()
        if not a.no_report:
            gc.report(file=sys.stderr)
        if a.trace:
            print(f"trace: {gc.write_trace(a.trace)}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
