"""The README's generated blocks, made by running the commands they show.

    python tools/readme_tables.py            # rewrite the blocks in README.md
    python tools/readme_tables.py --check    # exit 1 and show the difference if README.md is out of date

A block sits between ``<!-- generated: NAME -->`` and ``<!-- end generated: NAME -->`` in ``README.md``;
its text is what the commands in it print, captured here (``tests/test_readme.py`` checks that the README
holds exactly that, so a model change that moves a number fails until the README is regenerated).
"""
from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
STUDY = "examples/sweeps/matmul_tile_regs.toml"


def _gpusim(*argv: str) -> str:
    """What ``gpusim ARGV`` prints on stdout (run in this process)."""
    sys.path.insert(0, str(ROOT))
    from gpusim.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    if code != 0:
        raise SystemExit(f"gpusim {' '.join(argv)} exited with {code}")
    return out.getvalue()


def sweep_matmul_tile_regs() -> str:
    """The register/occupancy study of the seeds: the tables `gpusim sweep-plot` prints for it."""
    with tempfile.TemporaryDirectory() as tmp:
        csv = str(Path(tmp) / "matmul_tile_regs.csv")
        _gpusim("sweep", str(ROOT / STUDY), "--workers", "1", "--quiet", "-o", csv)
        tables = {}
        for y in ("blocks_per_sm", "ipc"):
            text = _gpusim("sweep-plot", csv, "--x", "regs_per_thread", "--y", y, "--z", "size.tile",
                           "-o", str(Path(tmp) / f"{y}.png"))
            tables[y] = "\n".join(line for line in text.splitlines() if line.startswith("|"))
    ipc16 = [float(c) for c in tables["ipc"].splitlines()[2].strip("|").split("|")[1:]]
    fall = 100 * (1 - ipc16[-1] / ipc16[0])
    return "\n".join([
        "```",
        f"gpusim sweep {STUDY}",
        "gpusim sweep-plot matmul_tile_regs.csv --x regs_per_thread --y blocks_per_sm --z size.tile",
        "gpusim sweep-plot matmul_tile_regs.csv --x regs_per_thread --y ipc --z size.tile",
        "```", "",
        "Blocks per SM:", "", tables["blocks_per_sm"], "",
        "IPC:", "", tables["ipc"], "",
        f"With 16x16 tiles, IPC at 33 registers is {fall:.0f}% below its value at 8 registers.",
    ])


def programs_table() -> str:
    """One row per bundled program: its name and its topic (from its launch file)."""
    sys.path.insert(0, str(ROOT))
    import programs
    rows = ["| program | lesson |", "| --- | --- |"]
    rows += [f"| `{spec.name}` | {spec.topic} |" for spec in programs.all_specs()]
    return "\n".join(rows)


VALIDATION = ROOT / "gpusim" / "hw" / "validation_h100.json"
VALIDATION_BOOST = ROOT / "gpusim" / "hw" / "validation_h100_boost.json"


def _reasons(v) -> str:
    """``N by REASON; ...`` of the records ``v`` did not simulate (a size limit by its option)."""
    reasons: dict[str, int] = {}
    for o in v.not_simulated:
        why = o.why_not
        key = why.split(" > ")[-1] if " > " in why else why.split(":")[0]
        if o.untrusted_sample:
            key = "a sampled estimate whose stated bound is above 15%"
        reasons[key] = reasons.get(key, 0) + 1
    return "; ".join(f"{n} by {k}" for k, n in sorted(reasons.items()))


def validation_h100() -> str:
    """The agreement tables of the committed ``gpusim validate --out`` results (the run is long, so the README
    is rendered from its results files; tests/hw/test_validate.py re-simulates a few of its records to show the
    file is the current model's), base clock, then what the boost-clock run simulated."""
    import json
    sys.path.insert(0, str(ROOT))
    from gpusim.hw.validate import DEFINITIONS, format_tables, read_results
    doc = json.loads(VALIDATION.read_text())
    v = read_results(VALIDATION)
    o = v.overall()
    lines = [f"Simulated {doc['date']} (model at commit {doc['commit']}), {o.simulated} of {o.launches} "
             f"base-clock launches; results in `{VALIDATION.relative_to(ROOT)}`:", "", "```", doc["command"], "```", ""]
    lines += format_tables(v)
    lines += ["", DEFINITIONS]
    if v.not_simulated:
        lines += ["", f"Not simulated: {_reasons(v)} (every one is listed by `gpusim validate` with its reason)."]
    if VALIDATION_BOOST.is_file():
        bdoc = json.loads(VALIDATION_BOOST.read_text())
        b = read_results(VALIDATION_BOOST)
        bo = b.overall()
        lines += ["", f"Boost-clock records ({bdoc['date']}, `{bdoc['command']}`, results in "
                      f"`{VALIDATION_BOOST.relative_to(ROOT)}`): {bo.simulated} of {bo.launches} simulated"
                  + (f"; not simulated: {_reasons(b)}." if b.not_simulated else ".")]
        if bo.simulated:
            lines += [""] + format_tables(b)
    return "\n".join(lines)


def what_if_table() -> str:
    """The what-if idealisations, from gpusim/timing/idealize.py: what each changes and cannot."""
    sys.path.insert(0, str(ROOT))
    from gpusim.timing.idealize import IDEALIZATIONS
    rows = ["| `--what-if` | idealises | what it changes | what it cannot |", "| --- | --- | --- | --- |"]
    rows += [f"| `{s.name}` | {s.title} | {s.changes} | {s.cannot} |" for s in IDEALIZATIONS.values()]
    return "\n".join(rows)


#: (program, size, the lecture's fix and its size, or None, the GPU: None for the H100 cut to 4 SMs): the cases
#: of tests/analysis/test_diagnosis.py
LECTURE_CASES = (
    ("transpose_smem", "width=256,height=256", ("transpose_padded", "width=256,height=256"), None),
    ("transpose_naive", "width=256,height=256", None, None),
    ("reduce_interleaved", "n=65536", ("reduce_sequential", "n=65536"), None),
    ("matmul_naive", "width=64", ("matmul_tiled", "width=64,tile=16"), None),
    ("matmul_tiled", "width=64,tile=16", None, None),
    ("vector_add", "small", None, "h100"),
)


def diagnosis_lecture() -> str:
    """The lecture kernels' diagnoses (on an H100 cut to 4 SMs unless the case names a GPU): the top limiter,
    its what-if and the lecture's fix."""
    sys.path.insert(0, str(ROOT))
    import gpusim
    from gpusim.config import load_gpu
    h100_4sm = load_gpu("h100").replace(**{"sm.count": 4})
    rows = ["| kernel | size | cycles | top limiter (line) | its what-if | speed-up | the lecture's fix: speed-up |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for program, size, fix, gpu_name in LECTURE_CASES:
        gpu = load_gpu(gpu_name) if gpu_name else h100_4sm
        r = gpusim.run(program, size=size, mode="timing", gpu=gpu)
        top = r.diagnose().top
        fixed = "-"
        if fix is not None:
            f = gpusim.run(fix[0], size=fix[1], mode="timing", gpu=gpu)
            fixed = f"`{fix[0]}`: {r.cycles:,} -> {f.cycles:,} cycles, {r.cycles / f.cycles:.2f}x"
        where = f" ({', '.join(top.lines)})" if top.lines else ""
        on = f" (the whole {gpu_name.upper()})" if gpu_name else ""
        rows.append(f"| `{program}` | {size}{on} | {r.cycles:,} | {top.title}{where} | "
                    f"{top.what_if.title}: {top.what_if.cycles:,} cycles | {top.what_if.speedup:.2f}x | {fixed} |")
    return "\n".join(rows)


BLOCKS = {"programs": programs_table, "sweep-matmul-tile-regs": sweep_matmul_tile_regs,
          "validation-h100": validation_h100, "what-ifs": what_if_table, "diagnosis-lecture": diagnosis_lecture}


def render(text: str, names=None) -> str:
    """``text`` (the README) with every generated block (or those in ``names``) made again."""
    for name, make in BLOCKS.items():
        if names is not None and name not in names:
            continue
        begin, end = f"<!-- generated: {name} -->", f"<!-- end generated: {name} -->"
        pattern = re.compile(re.escape(begin) + r"\n(?:.*?\n)?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise SystemExit(f"README.md has no block {begin} ... {end}")
        body = make()
        text = pattern.sub(lambda m: f"{begin}\n{body}\n{end}", text)
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report a difference instead of writing README.md")
    a = ap.parse_args(argv)
    old = README.read_text()
    new = render(old)
    if a.check:
        if new != old:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "README.md",
                                                       "generated"))
            return 1
        print("README.md is up to date")
        return 0
    README.write_text(new)
    print("wrote README.md" if new != old else "README.md was up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
