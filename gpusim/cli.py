"""The ``gpusim`` command line. Each subcommand is a thin layer over the public Python API."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from gpusim.errors import USER_ERRORS, GpusimError

EPILOG = """examples:
  gpusim init my_kernel.cu && gpusim run my_kernel.cu --check # your kernel: write its launch file, edit, run
  gpusim run programs/matmul_tiled.cu                         # timing mode on the h100 preset (default)
  gpusim run programs/reduce_sequential.ptx --grid 64 --block 256 --mode emulate --check
  gpusim run programs/matmul_tiled.cu --gpu pmpp-device-d --scheduler lrr
  gpusim occupancy programs/matmul_tiled.cu --block 16x16 --gpu a100 --regs 33
  gpusim trace programs/reduce_sequential.cu -o red.trace && gpusim simulate red.trace --gpu h100 --gpu a100
  gpusim check programs/bugs/race_scan_war.cu                 # races, uninitialised reads, barrier misuse
  gpusim programs                                             # the bundled programs and the suites
"""


def _dims(text: str) -> tuple[int, ...]:
    try:
        parts = [int(p) for p in text.lower().replace(",", "x").split("x") if p]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N, NxM or NxMxK, not {text!r}") from None
    if not 1 <= len(parts) <= 3 or any(p < 1 for p in parts):
        raise argparse.ArgumentTypeError(f"expected 1 to 3 positive sizes like 16x16, not {text!r}")
    return tuple(parts)


def _positive(text: str) -> int:
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return v


def _non_negative(text: str) -> int:
    try:
        v = int(text.replace("_", ""))
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, not {text!r}")
    return v


def _bool_word(text: str) -> bool:
    if text.lower() in ("true", "1", "yes", "on"):
        return True
    if text.lower() in ("false", "0", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")


def add_launch_options(p: argparse.ArgumentParser) -> None:
    """The options that say which kernel to launch and how (source, launch file, kernel, grid, block, size,
    seed, dynamic shared memory, budget): shared by every command that runs a kernel, the plugins' included."""
    p.add_argument("source", help="a .ptx or .cu file (its launch file is the .toml beside it), or a bundled "
                                  "program name (see `gpusim programs`)")
    p.add_argument("--launch", metavar="FILE", help="the launch file (default: the source's .toml beside it; "
                                                    "write one with `gpusim init`)")
    p.add_argument("--kernel", help="entry to run when the module has several (default: the launch file's)")
    p.add_argument("--grid", type=_dims, help="grid size, e.g. 64 or 16x16 (default: the launch file's); without --size, the "
                   "launch file's size of that grid, or its n scaled to the threads (the report's first line says "
                   "which size ran)")
    p.add_argument("--block", type=_dims, help="block size, e.g. 256 or 16x16 (default: the launch file's)")
    p.add_argument("--size", help="a named size of the launch file (e.g. small, default, large), or "
                                  "KEY=VALUE[,KEY=VALUE] to change the default size's parameters (n=5000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")
    p.add_argument("--smem", type=_non_negative, default=None, metavar="BYTES",
                   help="dynamic shared memory per block")
    p.add_argument("--budget", type=_positive, default=None, metavar="N",
                   help="stop a runaway kernel after N warp instructions (default 500,000,000)")
    p.add_argument("--fmad", type=_bool_word, default=True, metavar="true|false",
                   help="contract mul + add into fma as ptxas does by default (--fmad=false: as nvcc "
                        "--fmad=false, every mul and add rounded on its own)")
    p.add_argument("--trace-memory", type=_gib, default=None, metavar="GIB",
                   help="stop a runaway kernel when one batch of blocks has recorded GIB GiB of trace "
                        "(default 2)")


def add_sample_options(p: argparse.ArgumentParser) -> None:
    """``--sample [SMS|time]`` / ``--full``: sampled or full-detail timing (default: sampled for large launches)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--sample", nargs="?", const=True, default=None, type=_sample_how, metavar="SMS|time",
                   help="sampled timing with an error bound.  SMS: the launch's blocks timed on SMS SMs with "
                        "their share of L2 and DRAM; 'time': the launch's first and last waves timed on the "
                        "whole GPU and the waves between extrapolated (a launch of fewer than 7 waves is timed "
                        "in full); no value: 4 SMs, then in time when their bound is wider than 15%%.  Default: "
                        "sampled when the launch is estimated at 4M+ warp instructions, in full when no "
                        "sample's bound is within 15%%; the report says which")
    g.add_argument("--full", dest="sample", action="store_const", const=False,
                   help="full-detail timing of every block, however large the launch")


def _sample_how(text: str):
    """``--sample``'s value: a positive number of SMs, or ``time`` (also ``waves``)."""
    if text.strip().lower() in ("time", "waves"):
        return "time"
    try:
        return _positive(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a positive number of SMs or 'time', not {text!r}") from None


def _sample(a):
    """``--sample``/``--full`` as ``simulate``'s ``sample`` (given neither: "auto")."""
    return "auto" if a.sample is None else a.sample


def _gib(text: str) -> int:
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of GiB, not {text!r}")
    return int(v * 2**30)


def _progress_printer(quiet: bool):
    """A rich progress bar on a terminal (cycles simulated, blocks done, rate); None when quiet or piped."""
    if quiet:
        return None
    from gpusim.report.progress import progress_bar
    return progress_bar()


def what_if_choice(text: str):
    """``--what-if``: auto, all, none, or names separated by commas."""
    from gpusim.timing.idealize import WHAT_IF_NAMES
    t = text.strip().lower()
    if t in ("auto", "all", "none"):
        return t
    names = [n.strip() for n in t.split(",") if n.strip()]
    bad = [n for n in names if n not in WHAT_IF_NAMES]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown what-if {bad[0] if bad else text!r}; expected auto, all, none "
                                         f"or some of {', '.join(WHAT_IF_NAMES)} separated by commas")
    return names


def add_diagnosis_options(p: argparse.ArgumentParser) -> None:
    """--what-if and --jobs: the diagnosis's re-simulations (run and report)."""
    from gpusim.timing.idealize import WHAT_IF_NAMES
    p.add_argument("--what-if", type=what_if_choice, default="auto", metavar="WHICH",
                   help="what-if re-simulations that measure each limiter: auto (the mechanisms the evidence "
                        "points to; default), all, none (rank by the evidence only, faster), or names separated "
                        f"by commas: {', '.join(WHAT_IF_NAMES)}")
    p.add_argument("--jobs", type=_positive, default=None, metavar="N",
                   help="processes for the what-ifs (default: one per CPU)")


def what_if_progress(quiet: bool):
    """A callback printing each finished what-if on a terminal's stderr (None when quiet or piped)."""
    if quiet or not sys.stderr.isatty():
        return None
    t0 = __import__("time").perf_counter()

    def done(k: int, total: int, name: str) -> None:
        from gpusim.timing.idealize import IDEALIZATIONS
        print(f"  what-if {k}/{total} done: {IDEALIZATIONS[name].title} "
              f"({__import__('time').perf_counter() - t0:.0f} s)", file=sys.stderr)
    return done


def _run_progress(quiet: bool) -> dict:
    """``gpusim.run``'s progress callbacks (the emulator's and the timing model's lines of one display), or
    none when quiet or piped."""
    if quiet:
        return {}
    from gpusim.report.progress import progress_bars
    bars = progress_bars()
    return {} if bars is None else {"progress": bars.timing, "emulation_progress": bars.emulation}


def run_limits(a) -> dict:
    """The runaway guards given on the command line (``--budget``, ``--trace-memory``) and ``--fmad``."""
    kw = {"fmad": a.fmad} if hasattr(a, "fmad") else {}
    if a.budget is not None:
        kw["budget"] = a.budget
    if getattr(a, "trace_memory", None) is not None:
        kw["trace_memory_limit"] = a.trace_memory
    return kw


def _gpu(name: str, schedule: str | None):
    """A preset name/path, or the loaded config with --schedule applied."""
    if not schedule:
        return name
    from gpusim.config import load_gpu
    return load_gpu(name, overrides={"instruction_schedule": schedule})


#: a launch streamed through the timing model (its trace never held whole) or timed by sampling is diagnosed
#: only on request above this many warp instructions: the diagnosis records its whole trace again and every
#: what-if re-simulates it in full detail, which would undo what streaming and sampling saved
DIAGNOSIS_AUTO_MAX_WARP_INST = 20_000_000


def _too_large_to_diagnose(res, what_if) -> str | None:
    """Why ``gpusim run`` skips its default diagnosis of ``res`` (None: it does not)."""
    n = int(res.stats.warp_instructions)
    sampled = getattr(res.timing, "sampling", None) is not None
    if what_if != "auto" or not res.trace_streamed or not (sampled or n > DIAGNOSIS_AUTO_MAX_WARP_INST):
        return None
    how = "timed by sampling" if sampled else "streamed through the timing model"
    return (f"why is it slow: not diagnosed by default: the launch ({n / 1e6:.1f} M warp instructions) was {how}, "
            f"and the diagnosis would record its whole trace again and re-simulate it in full detail once per "
            f"what-if; --what-if none ranks the limiters by the evidence alone, --what-if all (or names) "
            f"measures them")


def cmd_run(a) -> int:
    import gpusim
    res = gpusim.run(a.source, launch=a.launch, kernel=a.kernel, grid=a.grid, block=a.block, mode=a.mode,
                     size=a.size,
                     seed=a.seed, check=a.check, gpu=_gpu(a.gpu, a.schedule), regs_per_thread=a.regs,
                     scheduler=a.scheduler, shared_mem=a.smem,
                     timeline=a.mode == "timing" and bool(getattr(a, "plot", None) or getattr(a, "trace_json", None)),
                     sample=_sample(a), **_run_progress(a.quiet), **run_limits(a))
    print(res.summary())
    diag = None
    if res.timing is not None and not a.no_diagnosis:
        too_large = _too_large_to_diagnose(res, a.what_if)
        if too_large:
            print(too_large)
        else:
            diag = res.diagnose(a.what_if, jobs=a.jobs, progress=what_if_progress(a.quiet))
            print(diag.text())
    if a.json:
        doc = {"kernel": res.kernel, "grid": res.grid, "block": res.block, "mode": res.mode,
               "gpu": a.gpu if a.mode == "timing" else None,
               "emulation": {"warp_instructions": res.stats.warp_instructions,
                             "thread_instructions": res.stats.thread_instructions,
                             "divergent_branches": res.stats.divergent_branches}}
        if res.timing is not None:
            doc["counters"] = {k: _jsonable(v) for k, v in res.timing.counters.items()}
            doc["stalls"] = {k: _jsonable(v) for k, v in res.timing.stalls.items()}
        if res.check is not None:
            doc["check"] = {"ok": bool(res.check.ok), "message": res.check.message}
        if diag is not None:
            doc["diagnosis"] = _jsonable(diag.as_dict())
        Path(a.json).write_text(json.dumps(doc, indent=2))
        print(f"wrote {a.json}")
    for plugin in _plugins():
        if hasattr(plugin, "after_run"):
            plugin.after_run(a, res)
    if res.check is not None and not res.check.ok:
        return 1
    return 0


def _jsonable(v):
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def cmd_programs(a) -> int:
    import programs
    rows = [_program_row(spec, "bundled") for spec in programs.all_specs()]
    rows += [_program_row(spec, suite) for suite, spec in programs.suite_specs()]
    head = ("program", "suite", "kernel", "grid", "block", "topic", "source")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head) - 1)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  " + head[-1])
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    return 0


def _program_row(spec, suite: str) -> tuple[str, ...]:
    """One line of `gpusim programs`: the default size's launch, the topic (or description), the source."""
    launch = spec.launch(spec.default_size)
    kernel = launch.kernel or (spec.kernels[0] if len(spec.kernels) == 1 else "?")
    src = spec.cu_path or spec.ptx_path
    from gpusim.launch.spec import display_path
    return (spec.name, suite, kernel, "x".join(map(str, launch.grid)), "x".join(map(str, launch.block)),
            spec.topic or spec.description, display_path(src))


def cmd_init(a) -> int:
    from gpusim.launch.init import write_starting_file
    out = write_starting_file(Path(a.source), a.kernel, Path(a.output) if a.output else None)
    print(f"wrote {out}: edit the lines marked CHECK (shapes, sizes, grid), add a [reference] to check the "
          f"results, then: gpusim run {a.source} --size small --check")
    return 0


def cmd_compile(a) -> int:
    from gpusim.cuda import compile_cuda
    source = Path(a.source)
    target = Path(a.output) if a.output else Path(source.with_suffix(".ptx").name)
    if target.exists() and not a.force:
        raise GpusimError(f"{target} exists: pass -o FILE to write elsewhere, or --force to replace it")
    out = compile_cuda(source, line_info=not a.no_line_info)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(with_file_directive(out.ptx, source, target))
    regs = ", ".join(f"{k}: {v if v is not None else '?'} registers" for k, v in out.kernels.items())
    print(f"wrote {target} ({'cached' if out.cached else 'compiled'}); {regs}")
    return 0


def with_file_directive(ptx: str, source: Path, target: Path) -> str:
    """``ptx`` with its ``.file`` directives naming ``source`` as seen from the PTX's folder (so that the
    CUDA source view finds the file beside it, and the PTX holds no absolute path when they sit together)."""
    import os
    import re
    try:
        rel = Path(os.path.relpath(source.resolve(), target.resolve().parent)).as_posix()
    except ValueError:          # another drive (Windows)
        rel = source.resolve().as_posix()
    return re.sub(r'^(\s*\.file\s+1\s+)"[^"]*"', lambda m: f'{m.group(1)}"{rel}"', ptx, count=1, flags=re.M)


def cmd_occupancy(a) -> int:
    from gpusim.api import load_module
    from gpusim.config import load_gpu
    from gpusim.timing.occupancy import occupancy
    gpu = load_gpu(a.gpu)
    module, spec = load_module(a.source)
    k = module.kernel(a.kernel or (spec.launch(spec.default_size).kernel if spec else None))
    block = a.block
    if block is None:
        if spec is None:
            raise GpusimError("--block is required for a source without a launch file")
        block = spec.launch(spec.default_size).block
    tpb = 1
    for v in block:
        tpb *= v
    regs = a.regs
    source = "--regs"
    if regs is None and spec is not None:
        regs = spec.registers(k.name)
        source = f"ptxas, from {spec.label}"
    if regs is None:
        raise GpusimError(f"register count of '{k.name}' unknown: pass --regs N (compile with `gpusim compile` "
                          f"to record it)")
    smem = a.smem if a.smem is not None else k.shared_bytes
    occ = occupancy(gpu, tpb, regs, shared_static_bytes=smem, shared_dynamic_bytes=a.dynamic_smem)
    print(f"kernel {k.name} on {gpu.name}: block {'x'.join(map(str, block))} = {tpb} threads, {regs} registers "
          f"per thread ({source}), {smem} B static shared memory")
    print(f"  blocks per SM      {occ.blocks_per_sm}")
    print(f"  active warps/SM    {occ.active_warps_per_sm} of {gpu.sm.max_warps}")
    print(f"  occupancy          {occ.occupancy_pct:.1f}%  (theoretical)")
    print(f"  limited by         {', '.join(occ.limiting)}")
    for key, v in occ.as_counters().items():
        print(f"  {key:45s} {v}")
    return 0


def cmd_trace(a) -> int:
    import gpusim
    res = gpusim.run(a.source, launch=a.launch, kernel=a.kernel, grid=a.grid, block=a.block, mode="emulate",
                     size=a.size, seed=a.seed, record_trace=True, shared_mem=a.smem, **_run_progress(a.quiet),
                     **run_limits(a))
    res.trace.meta.update({"program": a.source, "size": res.size, "seed": a.seed})
    out = res.trace.save(a.output)
    print(f"wrote {out}: kernel {res.kernel}, {res.trace.n_warps:,} warps, {res.trace.n_instructions:,} warp "
          f"instructions, {out.stat().st_size / 1e6:.1f} MB")
    return 0


def cmd_simulate(a) -> int:
    from gpusim.functional.trace import KernelTrace
    from gpusim.timing import simulate
    trace = KernelTrace.load(a.trace)
    for g in a.gpu or ["h100"]:
        r = simulate(trace, _gpu(g, a.schedule), scheduler=a.scheduler, regs_per_thread=a.regs,
                     progress=_progress_printer(a.quiet), sample=_sample(a))
        print(f"== {g} ==")
        print(r.summary())
    return 0


def cmd_gpus(a) -> int:
    from gpusim.config import load_gpu, preset_names
    for n in preset_names():
        g = load_gpu(n)
        print(f"{n:16s} {g.sm.count:4d} SMs  {g.clock_mhz:.0f} MHz  {g.description}")
    return 0


# Packages that add commands: each may define register(subparsers), extend_run(run_parser) and
# after_run(args, result) (called after `gpusim run` printed its summary).
PLUGINS = ("gpusim.report.cli", "gpusim.hw.cli", "gpusim.sweep.cli", "gpusim.check.cli")


def _plugins():
    import importlib
    import importlib.util
    for name in PLUGINS:
        parent = name.rsplit(".", 1)[0]
        if importlib.util.find_spec(parent) is None or importlib.util.find_spec(name) is None:
            continue
        yield importlib.import_module(name)


class _VersionAction(argparse.Action):
    """``--version``: the version and which timing core this install runs (compiled or plain Python)."""

    def __init__(self, option_strings, dest, **kw) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and the timing core's build")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from gpusim import __version__
        from gpusim.compiled import describe
        print(f"gpusim {__version__}; timing core: {describe()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gpusim", description="gpusim: a cycle-approximate GPU simulator "
                                "(PTX subset, SIMT emulator, discrete-event timing and memory models)",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")

    r = sub.add_parser("run", help="run a kernel (timing mode by default) and print its report")
    add_launch_options(r)
    r.add_argument("--mode", choices=("timing", "emulate"), default="timing",
                   help="timing: cycle-approximate model (default); emulate: functional only")
    r.add_argument("--gpu", default="h100", help="GPU preset name or a .toml file (default h100)")
    r.add_argument("--scheduler", help="warp scheduler policy: gto (default), lrr, two_level")
    r.add_argument("--regs", type=int, help="registers per thread (default: from the compiler, else estimated)")
    r.add_argument("--schedule", choices=("hoist", "ptx"), help="instruction order the timing model issues: "
                   "hoist (loads moved up as ptxas does; the presets' default) or ptx (program order)")
    r.add_argument("--check", action="store_true", help="compare the outputs with the program's numpy reference")
    r.add_argument("--json", metavar="FILE", help="write all counters (and the diagnosis) as JSON")
    add_diagnosis_options(r)
    r.add_argument("--no-diagnosis", action="store_true",
                   help="leave out the 'why is it slow' section (timing mode) and its what-ifs")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    add_sample_options(r)
    r.set_defaults(fn=cmd_run)

    c = sub.add_parser("compile", help="CUDA C -> PTX through NVRTC (needs: pip install -e .[cuda])")
    c.add_argument("source", help="a .cu file")
    c.add_argument("-o", "--output", help="output .ptx (default: <name>.ptx in the current directory)")
    c.add_argument("--force", action="store_true", help="replace the output file if it exists")
    c.add_argument("--no-line-info", action="store_true", help="omit .loc line information")
    c.set_defaults(fn=cmd_compile)

    pr = sub.add_parser("programs", help="list the bundled programs and the suites' (programs/suites/*/) with "
                                         "their default launches")
    pr.set_defaults(fn=cmd_programs)

    i = sub.add_parser("init", help="write a commented starting launch file (kernel.toml) for a kernel")
    i.add_argument("source", help="a .cu or .ptx file")
    i.add_argument("--kernel", help="the kernel, when the file has several")
    i.add_argument("-o", "--output", help="the launch file (default: <source stem>.toml beside the source)")
    i.set_defaults(fn=cmd_init)

    o = sub.add_parser("occupancy", help="theoretical occupancy and its limiting resource "
                                         "(= cudaOccupancyMaxActiveBlocksPerMultiprocessor)")
    o.add_argument("source")
    o.add_argument("--kernel")
    o.add_argument("--block", type=_dims)
    o.add_argument("--gpu", default="h100")
    o.add_argument("--regs", type=int, help="registers per thread (default: the compiler's)")
    o.add_argument("--smem", type=int, help="static shared memory per block in bytes (default: the kernel's)")
    o.add_argument("--dynamic-smem", type=int, default=0, help="dynamic shared memory per block in bytes")
    o.set_defaults(fn=cmd_occupancy)

    t = sub.add_parser("trace", help="run functionally once and save the kernel trace to a file")
    add_launch_options(t)
    t.add_argument("-o", "--output", required=True, help="trace file to write (.trace, compressed npz)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(fn=cmd_trace)

    s = sub.add_parser("simulate", help="time a saved trace on one or more GPU configs")
    s.add_argument("trace")
    s.add_argument("--gpu", action="append", help="preset name or .toml (repeatable; default h100)")
    s.add_argument("--scheduler")
    s.add_argument("--regs", type=int)
    s.add_argument("--schedule", choices=("hoist", "ptx"), help="instruction order (default: the preset's)")
    s.add_argument("--quiet", action="store_true")
    add_sample_options(s)
    s.set_defaults(fn=cmd_simulate)

    g = sub.add_parser("gpus", help="list the GPU presets")
    g.set_defaults(fn=cmd_gpus)
    for plugin in _plugins():
        if hasattr(plugin, "register"):
            plugin.register(sub)
        if hasattr(plugin, "extend_run"):
            plugin.extend_run(r)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    if not getattr(a, "fn", None):
        parser.print_help()
        return 2
    try:
        return a.fn(a)
    except USER_ERRORS as e:
        print(f"gpusim: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0
    except OSError as e:
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"gpusim: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("gpusim: interrupted", file=sys.stderr)
        return 130


def _quiet_broken_pipe() -> None:
    """The reader went away (``gpusim sweep --dry-run | head``): stop quietly, and keep Python from
    reporting the failed flush of stdout at exit."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
