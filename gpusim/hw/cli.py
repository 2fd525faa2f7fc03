"""``gpusim hw run|compare|record`` and ``gpusim validate`` (a plugin of :mod:`gpusim.cli`).

    gpusim hw run programs/matmul_tiled.cu                  # the same kernel, same inputs, on the real GPU
    gpusim hw compare programs/matmul_tiled.cu --gpu h100   # outputs, counters and cycles, side by side
    gpusim hw compare tests/golden/h100/matmul_tiled__small.json   # against a record: no GPU needed
    gpusim hw record --out tests/golden/h100/               # records of every program (+ ncu if present)
    gpusim validate --golden tests/golden/h100/ --jobs 2    # simulate every record; per suite and size class
"""
from __future__ import annotations

import shlex
import sys
from pathlib import Path


def register(subparsers) -> None:
    hw = subparsers.add_parser("hw", help="the real GPU: run a program through CuPy, compare with the simulator, "
                                          "record references (needs: pip install -e .[gpu])")
    sub = hw.add_subparsers(dest="hw_cmd", metavar="HWCOMMAND")

    r = sub.add_parser("run", help="run a program on the real GPU (CuPy): check, time")
    _launch_args(r)
    r.add_argument("--repeats", type=int, default=20, help="timed launches (median reported; default 20)")
    r.set_defaults(fn=cmd_hw_run)

    c = sub.add_parser("compare", help="simulated vs measured: outputs, Nsight counters with ratios, cycles")
    c.add_argument("source", help="a program (.cu/.ptx/name: measured live, needs a GPU) or a record .json")
    c.add_argument("--size")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--gpu", default="h100", help="simulated GPU preset (default h100)")
    c.add_argument("--backend", choices=("ptx", "nvrtc"), default="ptx")
    c.add_argument("--no-ncu", action="store_true", help="live: skip Nsight Compute even if installed")
    c.add_argument("--plot", metavar="FILE", help="draw the counters, simulated vs measured (matplotlib)")
    c.set_defaults(fn=cmd_hw_compare)

    rec = sub.add_parser("record", help="record GPU references (outputs, time, ncu counters, provenance)")
    rec.add_argument("--out", required=True, help="folder, e.g. tests/golden/h100/")
    rec.add_argument("--program", action="append", help="only this program (repeatable; default all)")
    rec.add_argument("--max-threads", type=int, default=1 << 20,
                     help="sizes up to this many threads (at least two sizes per program; default 2^20)")
    rec.add_argument("--no-ncu", action="store_true", help="no Nsight Compute counters")
    rec.add_argument("--repeats", type=int, default=20)
    rec.add_argument("--seed", type=int, default=0)
    rec.set_defaults(fn=cmd_hw_record)
    hw.set_defaults(fn=lambda a: (hw.print_help(), 2)[1])

    v = subparsers.add_parser(
        "validate", help="simulate every recorded GPU launch and report the cycle error per suite and size class "
                         "(MAPE, median, Pearson r of log cycles, within 10%%/25%%, worst five, stall agreement); "
                         "no GPU needed",
        description="Simulate every record under the --golden folders (searched recursively) and compare "
                    "gpc__cycles_elapsed.max with the GPU's. Records that are not simulated (time limit, error, "
                    "other clock) are listed with their reason.")
    v.add_argument("--golden", required=True, nargs="+", action="extend", metavar="DIR",
                   help="folders of records, e.g. tests/golden/h100/ (several may be given; subfolders included)")
    v.add_argument("--gpu", default="h100", help="simulated GPU preset or .toml (default h100)")
    v.add_argument("--clock", choices=("base", "boost"), default=None,
                   help="validate the records taken at this clock: base (ncu's default clock lock) or boost "
                        "(--clock-control none), with the preset at that clock: boost uses the preset "
                        "<gpu>-boost, e.g. h100-boost (default: boost when every record found is a boost-clock "
                        "one, as in tests/golden/h100-boost/, else base)")
    v.add_argument("--program", action="append", help="only this program (repeatable)")
    v.add_argument("--suite", action="append", help="only this suite, e.g. PolyBench or lecture (repeatable)")
    v.add_argument("--only", metavar="REGEX", help="only records whose file name (e.g. polybench__gemm__small) "
                                                  "matches this regular expression")
    v.add_argument("--max-threads", type=int, default=None, help="only records of at most this many threads")
    v.add_argument("--max-warp-inst", type=float, default=None, metavar="N",
                   help="only records of at most N measured warp instructions (smsp__inst_executed.sum; the "
                        "simulation's time grows with it: 5-17 s of CPU per million)")
    v.add_argument("--sample-above", type=float, default=None, metavar="N",
                   help="time records of more than N measured warp instructions by sampling (gpusim run "
                        "--sample: on a few SMs, and in time on the whole GPU when their bound is over 15%% and "
                        "the launch has 12+ waves; the narrower bound kept; extrapolated, with an error bound) "
                        "and the others in full detail (default: gpusim run's automatic choice for each)")
    v.add_argument("--jobs", type=int, default=1, help="simulate in this many processes (default 1)")
    v.add_argument("--time-limit", type=float, default=600.0, metavar="SECONDS",
                   help="stop a record after this long and report it as not simulated (default 600; 0: none)")
    v.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a keyword argument of gpusim.run for every record, e.g. --set scheduler=lrr")
    v.add_argument("--out", metavar="FILE.json", help="write every record's result and the tables' figures (the "
                   "file is rewritten as each record finishes: a run stopped before its end leaves the records "
                   "done, marked partial, which --reuse FILE.json takes up)")
    v.add_argument("--against", metavar="FILE.json",
                   help="an earlier --out file: print each suite's and size class's MAPE and median now and then "
                        "(on the launches simulated both times) and the launches that moved most")
    v.add_argument("--reuse", metavar="FILE.json",
                   help="an earlier --out file of the same preset, clock and --set options: keep each record's "
                        "simulated result from it instead of simulating it again (records it did not simulate, "
                        "and those matching --redo, are simulated); for a model change that can move only some "
                        "records")
    v.add_argument("--redo", metavar="REGEX", help="with --reuse: simulate again the records whose file name "
                                                  "matches this regular expression")
    v.add_argument("--plot", metavar="FILE", help="scatter of simulated vs measured cycles, per suite")
    v.add_argument("--quiet", action="store_true", help="no progress line per record")
    v.set_defaults(fn=cmd_validate)


def _launch_args(p) -> None:
    p.add_argument("source", help="a .ptx or .cu file, or a bundled program name")
    p.add_argument("--size")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", choices=("ptx", "nvrtc"), default="ptx",
                   help="ptx: the checked-in PTX (what the simulator runs); nvrtc: compile the .cu")


def cmd_hw_run(a) -> int:
    from gpusim.hw.runner import provenance, run_on_gpu
    r = run_on_gpu(a.source, a.size, seed=a.seed, backend=a.backend, repeats=a.repeats)
    p = provenance()
    print(f"{r.program or a.source} [{r.size}] kernel {r.kernel}  grid {r.grid}  block {r.block}  "
          f"on {p['gpu_name']} ({p['sm_count']} SMs, driver {p['driver']}, CuPy {p['cupy']})")
    if r.time_ms is not None:
        print(f"  kernel time {r.time_ms * 1000:.1f} us (median of {len(r.times_ms)}; "
              f"min {min(r.times_ms) * 1000:.1f}, max {max(r.times_ms) * 1000:.1f})")
    if r.check is not None:
        print("  " + r.check.message.replace("\n", "\n  "))
        return 0 if r.check.ok else 1
    return 0


def cmd_hw_compare(a) -> int:
    from gpusim.hw import compare as cmp
    src = Path(a.source)
    if src.suffix == ".json":
        c = cmp.compare_record(src, gpu=a.gpu)
    else:
        rec = cmp.measure_live(a.source, a.size, seed=a.seed, use_ncu=not a.no_ncu, backend=a.backend)
        c = cmp.compare_record(rec, gpu=a.gpu)
    print(c.text)
    if a.plot:
        cmp.plot_comparison(c, a.plot)
        print(f"wrote {a.plot}")
    return 0


def cmd_hw_record(a) -> int:
    from gpusim.hw.record import default_cases, record_all
    cases = default_cases(a.max_threads, a.program)
    paths = record_all(a.out, cases, seed=a.seed, use_ncu=not a.no_ncu, repeats=a.repeats)
    print(f"wrote {len(paths)} records to {a.out}")
    return 0 if paths else 1


def _run_option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise SystemExit(f"gpusim validate: --set {text!r}: expected KEY=VALUE")
    for conv in (int, float):
        try:
            return key.strip(), conv(value)
        except ValueError:
            pass
    return key.strip(), value


def _validate_command(a) -> str:
    """The command line that gives these results, from the parsed options (for the results file)."""
    parts = ["gpusim validate --golden", *a.golden]
    if a.gpu != "h100":
        parts += ["--gpu", a.gpu]
    parts += ["--clock", a.clock]
    for flag, values in (("--program", a.program), ("--suite", a.suite), ("--set", a.set)):
        for x in values or ():
            parts += [flag, x]
    if a.only:
        parts += ["--only", shlex.quote(a.only)]
    if a.max_threads is not None:
        parts += ["--max-threads", str(a.max_threads)]
    if a.max_warp_inst is not None:
        parts += ["--max-warp-inst", f"{a.max_warp_inst:g}"]
    if a.sample_above is not None:
        parts += ["--sample-above", f"{a.sample_above:g}"]
    parts += ["--jobs", str(a.jobs), "--time-limit", f"{a.time_limit:g}"]
    return " ".join(parts)


def cmd_validate(a) -> int:
    from gpusim.hw import validate as val
    if a.clock is None:
        a.clock = val.records_clock(a.golden)
    refs, skipped = val.find_records(a.golden, a.clock, programs_only=a.program, suites_only=a.suite,
                                     max_threads=a.max_threads, max_warp_inst=a.max_warp_inst,
                                     name_pattern=a.only, sample_above=a.sample_above)
    before = val.read_results(a.against) if a.against else None
    options = val.SimOptions(gpu=a.gpu, clock=a.clock, run_options=tuple(_run_option(t) for t in a.set))
    if a.sample_above is not None and "sample" in dict(options.run_options):
        raise SystemExit("gpusim validate: give --sample-above or --set sample=..., not both")
    if a.redo and not a.reuse:
        raise SystemExit("gpusim validate: --redo needs --reuse FILE.json (the results it keeps the others from)")
    kept, reused = {}, None
    if a.reuse:
        import json
        import re
        from gpusim.errors import GpusimError
        try:
            redo = re.compile(a.redo) if a.redo else None
        except re.error as e:
            raise SystemExit(f"gpusim validate: --redo {a.redo!r}: not a regular expression ({e})") from None
        try:
            kept = val.reusable_outcomes(val.read_results(a.reuse), options, refs, redo)
        except GpusimError as e:
            raise SystemExit(f"gpusim validate: --reuse {a.reuse}: {e}") from None
        reused = {"file": a.reuse, "commit": json.loads(Path(a.reuse).read_text()).get("commit"),
                  "kept": len(kept), "redo": a.redo}
        if not a.quiet:
            print(f"keeping {len(kept)} results from {a.reuse}", file=sys.stderr)
    all_refs, refs = refs, [r for r in refs if r.name not in kept]
    if not a.quiet:
        print(f"simulating {len(refs)} records in {max(1, a.jobs)} process(es)"
              + (f", {a.time_limit:g} s each at most" if a.time_limit else ""), file=sys.stderr, flush=True)

    finished = list(kept.values())

    def show(outcome, done, total):
        if not a.quiet:
            print(val.progress_line(outcome, done, total), file=sys.stderr, flush=True)
        if a.out:
            # the results so far, so that a run stopped before its end can be taken up with --reuse
            finished.append(outcome)
            partial = val.Validation(outcomes=list(finished), skipped=skipped, options=options)
            val.write_results(partial, a.out, command=_validate_command(a), reused=reused,
                              partial={"records_done": done, "of": total})
    v = val.run_validation(refs, options, jobs=a.jobs, time_limit_s=a.time_limit or None, skipped=skipped,
                           progress=show)
    if kept:
        v = val.merge_kept(v, all_refs, kept)
    print(v.text)
    if before is not None:
        print()
        print(val.format_against(v, before))
    if a.out:
        val.write_results(v, a.out, command=_validate_command(a), reused=reused)
        print(f"wrote {a.out}")
    if a.plot and v.simulated:
        val.plot_validation(v, a.plot)
        print(f"wrote {a.plot}")
    return 0 if v.simulated else 1
