"""CLI plugin (loaded by :mod:`gpusim.cli`): ``gpusim report``, ``gpusim compare-configs``, and the
``--plot DIR`` / ``--trace FILE.json`` / ``--bin CYCLES`` / ``--window START:END`` options of ``gpusim run``."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpusim.errors import GpusimError


def _window(text: str) -> tuple[int, int]:
    try:
        a, b = text.split(":")
        lo, hi = int(a.replace("_", "") or 0), int(b.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected START:END in cycles (e.g. 10000:20000), not {text!r}") from None
    if hi <= lo or lo < 0:
        raise argparse.ArgumentTypeError(f"window {text!r}: need 0 <= START < END")
    return lo, hi


def _positive_int(text: str) -> int:
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return v


def _sm_list(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        out = []
    if not out or any(x < 0 for x in out):
        raise argparse.ArgumentTypeError(f"expected SM numbers separated by commas (e.g. 0,5), not {text!r}")
    return out


def _launch_kwargs(a) -> dict:
    kw = {"kernel": a.kernel, "grid": a.grid, "block": a.block, "size": a.size, "seed": a.seed,
          "shared_mem": a.smem, "launch": getattr(a, "launch", None)}
    from gpusim.cli import run_limits
    kw.update(run_limits(a))
    return kw


def _write(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text)
        print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def cmd_report(a) -> int:
    import gpusim
    from gpusim.report import build_report, print_report, to_csv, to_json
    res = gpusim.run(a.source, mode="timing", gpu=a.gpu, scheduler=a.scheduler, regs_per_thread=a.regs,
                     progress=_progress(a), **_launch_kwargs(a))
    from gpusim.cli import what_if_progress
    rep = build_report(res, source_top=a.top, what_if=False if a.no_diagnosis else a.what_if, jobs=a.jobs,
                       progress=what_if_progress(getattr(a, "quiet", False)))
    if a.format == "json":
        _write(to_json(rep), a.output)
    elif a.format == "csv":
        _write(to_csv(rep), a.output)
    else:
        print_report(rep)
    return 0


def cmd_compare(a) -> int:
    from gpusim.report import COMPARE_METRICS, compare_configs, compare_csv, compare_json, print_compare
    gpus = a.gpu or ["h100", "a100"]
    reps = compare_configs(a.source, gpus, **_launch_kwargs(a))
    if a.format == "json":
        _write(compare_json(reps, COMPARE_METRICS), a.output)
    elif a.format == "csv":
        _write(compare_csv(reps, COMPARE_METRICS), a.output)
    else:
        print_compare(reps, COMPARE_METRICS)
    return 0


def _progress(a):
    if getattr(a, "quiet", False):
        return None
    from gpusim.report.progress import progress_bar
    return progress_bar()


def register(subparsers) -> None:
    from gpusim.cli import add_diagnosis_options, add_launch_options
    r = subparsers.add_parser("report", help="Nsight-Compute-like report of a kernel (speed of light, occupancy, "
                                             "warp states, memory tables, source counters)")
    add_launch_options(r)
    r.add_argument("--gpu", default="h100", help="GPU preset name or .toml (default h100)")
    r.add_argument("--scheduler")
    r.add_argument("--regs", type=int)
    r.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="table: rich terminal tables (default); json or csv for scripts")
    r.add_argument("-o", "--output", help="write json/csv here instead of stdout")
    r.add_argument("--top", type=int, default=10, help="source lines in the source-counter tables (default 10)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    add_diagnosis_options(r)
    r.add_argument("--no-diagnosis", action="store_true", help="leave out the diagnosis section and its what-ifs")
    r.set_defaults(fn=cmd_report)

    c = subparsers.add_parser("compare-configs", help="time one kernel on several GPU configs, metrics side by side")
    add_launch_options(c)
    c.add_argument("--gpu", action="append", help="preset name or .toml (repeat; default: h100 and a100)")
    c.add_argument("--format", choices=("table", "json", "csv"), default="table")
    c.add_argument("-o", "--output")
    c.set_defaults(fn=cmd_compare)


def extend_run(run_parser) -> None:
    g = run_parser.add_argument_group("figures and traces (timing mode)")
    g.add_argument("--plot", metavar="DIR", help="write the figures (stalls, bank conflicts, DRAM, occupancy, "
                                                 "source view, roofline) to DIR")
    g.add_argument("--plot-format", choices=("png", "svg", "pdf"), default="png")
    g.add_argument("--trace", metavar="FILE.json", dest="trace_json",
                   help="write a Chrome/Perfetto trace (open in ui.perfetto.dev or chrome://tracing)")
    g.add_argument("--bin", type=_positive_int, metavar="CYCLES", dest="bin_cycles",
                   help="time-bin width of the figures and counter tracks (default: automatic, ~200 bins)")
    g.add_argument("--window", type=_window, metavar="START:END",
                   help="only cycles START..END in the trace file")
    g.add_argument("--max-events", type=_positive_int, default=None, metavar="N",
                   help="event budget of the trace file (default 150,000: 15.5 MB for transpose_smem's default "
                        "size): every SM is shown by block and in binned counters (at most a third of the budget); "
                        "per-issue and per-warp detail for as many SMs as fit")
    g.add_argument("--trace-sms", type=_sm_list, default=None, metavar="LIST",
                   help="the SMs to show in detail in the trace (e.g. 0,5; default: as many as the budget allows)")


def after_run(args, result) -> None:
    plot, trace = getattr(args, "plot", None), getattr(args, "trace_json", None)
    if not plot and not trace:
        return
    if result.timing is None:
        raise GpusimError("--plot and --trace need timing mode (--mode timing)")
    tl = result.timeline
    if getattr(args, "bin_cycles", None):
        tl = tl.rebin(args.bin_cycles)
        result._timeline = tl
    if plot:
        import matplotlib
        matplotlib.use("Agg")
        paths = result.plot.save_all(plot, fmt=getattr(args, "plot_format", "png"))
        print(f"wrote {len(paths)} figures to {plot}: " + ", ".join(p.name for p in paths))
    if trace:
        from gpusim.analysis.chrome_trace import DEFAULT_MAX_EVENTS, chrome_trace_events, save_trace_document
        try:
            doc = chrome_trace_events(tl, window=getattr(args, "window", None),
                                      max_events=getattr(args, "max_events", None) or DEFAULT_MAX_EVENTS,
                                      detail_sms=getattr(args, "trace_sms", None))
        except ValueError as e:
            raise GpusimError(f"--trace: {e}") from None
        p = save_trace_document(doc, trace)
        agg = doc["otherData"]["gpusim"]["aggregation"]
        print(f"wrote {p} ({p.stat().st_size / 1e6:.1f} MB, {agg['events']:,} events): open it in "
              f"https://ui.perfetto.dev or chrome://tracing (1 us on the time axis = 1 SM cycle)")
        print(f"  {agg['description']}")
