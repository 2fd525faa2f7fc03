"""Import a device run (``driver.py``'s archive) into ``tests/golden/h100/sanitizer/``, and from there the
observations into ``bugs.toml`` and the comparison table into ``programs/bugs/README.md``.

    python -m programs.bugs.sanitizer.collect ARCHIVE [--staged DIR]   # write the records
    python -m programs.bugs.sanitizer.collect --manifest --readme        # observations -> bugs.toml, README

Records (``tests/golden/h100/sanitizer/``):

- ``provenance.json``: GPU, driver, CUDA, compute-sanitizer and nvcc versions, date, the exact options of
  each tool, the build command, timeouts, the run's elapsed time;
- ``raw/<kernel>.<tool>.log`` (``.log.gz`` above 64 KiB): compute-sanitizer's report as it wrote it (a
  report over 8 MiB keeps its first 4 MiB and last 1 MiB: ``truncated`` in reports.json, with the whole
  report's size and error count; its findings' counts are then those of the kept part);
- ``reports.json``: per kernel, the native run (exit status, time-out, whether its outputs match the launch
  file's reference) and per tool the run's exit status and the parsed report (``parse.parse_report``:
  findings with kind, class, lines, count, sample threads / blocks / addresses).  It is derived from the raw
  reports by the parser, so that ``tests/programs/test_bug_corpus.py`` can check the one against the other.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from gpusim.launch import load
from programs import bugs
from programs.bugs.sanitizer.hostgen import inputs
from programs.bugs.sanitizer.parse import parse_report

ROOT = bugs.HERE.parent.parent
GOLDEN = ROOT / "tests" / "golden" / "h100" / "sanitizer"
README = bugs.HERE / "README.md"
SMALL_LOG = 64 << 10
NOT_ERRORS = ("api_error",)     # the API's consequence of an earlier device error, not a finding of its own


# -- reading the records ----------------------------------------------------------------------------------
def raw_path(kernel: str, tool: str, golden: Path = GOLDEN) -> Path:
    plain = golden / "raw" / f"{kernel}.{tool}.log"
    return plain if plain.exists() else plain.with_suffix(".log.gz")


def read_raw(kernel: str, tool: str, golden: Path = GOLDEN) -> str:
    p = raw_path(kernel, tool, golden)
    return gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text()


def load_reports(golden: Path = GOLDEN) -> dict:
    return json.loads((golden / "reports.json").read_text())


def dumps(obj) -> str:
    """JSON with one key per line and every list of scalars (or of short lists) on one line."""
    def inline(v):
        return isinstance(v, list) and all(not isinstance(x, (dict, list)) or
                                           (isinstance(x, list) and all(not isinstance(y, (dict, list)) for y in x))
                                           for x in v)

    def enc(v, ind):
        if isinstance(v, dict) and v:
            pad = " " * (ind + 1)
            return "{\n" + ",\n".join(f"{pad}{json.dumps(k)}: {enc(x, ind + 1)}" for k, x in v.items()) + \
                   "\n" + " " * ind + "}"
        if isinstance(v, list) and v and not inline(v):
            pad = " " * (ind + 1)
            return "[\n" + ",\n".join(pad + enc(x, ind + 1) for x in v) + "\n" + " " * ind + "]"
        return json.dumps(v, separators=(", ", ": "))
    return enc(obj, 0) + "\n"


def parsed_report(text: str, tool: str) -> dict:
    """The parsed form stored in reports.json (``parse_report`` without the tool name)."""
    r = parse_report(text, tool)
    r.pop("tool")
    return r


# -- the native run's outputs -----------------------------------------------------------------------------
def inputs_digest(kernel: str, seed: int = 0) -> dict:
    """sha256 of each array the kernel's launch file draws (arguments and symbols), by name."""
    args, symbols = inputs(load(bugs.path(kernel, ".toml")), seed)
    return {n: hashlib.sha256(v.tobytes()).hexdigest() for n, v in [*args, *symbols.items()]
            if isinstance(v, np.ndarray)}


def output_verdict(kernel: str, outdir: Path, native: dict) -> str:
    """``right`` / ``wrong`` (the saved outputs against the launch file's reference), ``hang`` (killed at its
    time-out), ``error`` (the launch or the synchronisation failed)."""
    if native.get("timed_out"):
        return "hang"
    if native.get("rc") != 0:
        return "error"
    spec = load(bugs.path(kernel, ".toml"))
    args, symbols = spec.make_args(seed=0), spec.make_symbols(seed=0)
    ref = spec.reference(args, symbols)
    after = [np.fromfile(outdir / f"{e.name}.bin", dtype=v.dtype).reshape(v.shape) if i in ref else v
             for i, (e, v) in enumerate(zip(spec.args, args))]
    return "right" if spec.check(after, ref).ok else "wrong"


# -- import -----------------------------------------------------------------------------------------------
def unpack(archive: Path, into: Path) -> Path:
    """Extract ``sanitizer.tgz`` (or its ``.partNN`` pieces) into ``into``; return its ``result`` folder."""
    parts = sorted(archive.parent.glob(archive.name + ".part*")) if not archive.exists() else [archive]
    blob = into / "sanitizer.tgz"
    blob.write_bytes(b"".join(p.read_bytes() for p in parts))
    with tarfile.open(blob) as tar:
        tar.extractall(into, filter="data")
    return into / "result"


def import_run(result: Path, golden: Path = GOLDEN, staged: Path | None = None) -> dict:
    results = json.loads((result / "results.json").read_text())
    prov = json.loads((result / "provenance.json").read_text())
    staged_inputs = {}
    if staged is not None:
        staged_inputs = {j["kernel"]: {n: d["sha256"] for n, d in j["inputs"].items()}
                         for j in json.loads((staged / "kernels.json").read_text())}
    if (golden / "raw").exists():
        shutil.rmtree(golden / "raw")
    (golden / "raw").mkdir(parents=True)
    reports = {}
    for kernel in bugs.kernels():
        r = results[kernel]
        digest = inputs_digest(kernel)
        if staged_inputs and staged_inputs.get(kernel) != digest:
            raise SystemExit(f"{kernel}: the inputs drawn here differ from those the device used")
        nat = r["runs"].get("native", {})
        entry = {"bug": r["bug"], "role": r["role"], "inputs_sha256": digest,
                 "native": {"rc": nat.get("rc"), "timed_out": nat.get("timed_out"), "wall_s": nat.get("wall_s"),
                            "status": [ln for ln in nat.get("stdout", "").splitlines() if ":" in ln][-2:],
                            "output": output_verdict(kernel, result / "outputs" / kernel, nat)},
                 "tools": {}}
        for tool in bugs.TOOLS:
            run = r["runs"][tool]
            src = result / "raw" / f"{kernel}.{tool}.log"
            text = src.read_text() if src.exists() else ""
            dst = golden / "raw" / f"{kernel}.{tool}.log"
            if len(text.encode()) > SMALL_LOG:
                dst.with_suffix(".log.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
            else:
                dst.write_text(text)
            meta = {"rc": run.get("rc"), "timed_out": run.get("timed_out"), "wall_s": run.get("wall_s"),
                    "truncated": bool(run.get("truncated"))}
            if meta["truncated"]:           # the archive kept the head and the tail of a report over 8 MiB
                meta["full_log_bytes"] = run["log_bytes"]
                meta["full_errors"] = run["parsed"]["errors"]   # counted on the device, on the whole report
            entry["tools"][tool] = {**meta, **parsed_report(text, tool)}
        reports[kernel] = entry
    (golden / "reports.json").write_text(dumps(reports))
    keep = ("gpu", "nvidia_smi_header", "compute_sanitizer", "nvcc", "date_utc", "kernel", "cpus", "options",
            "option_probe", "command", "build", "timeouts", "elapsed_s", "skipped")
    prov = {k: prov[k] for k in keep if k in prov}
    prov["host_programs"] = ("programs/bugs/sanitizer/hostgen.py: one CUDA runtime program per kernel that "
                             "#includes its .cu; inputs from its launch file (seed 0)")
    prov["driver"] = "programs/bugs/sanitizer/driver.py"
    (golden / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")
    return reports


# -- observations ----------------------------------------------------------------------------------------
def finding_class(f: dict) -> str:
    k = f["kind"]
    if k == "hazard":
        return f"{f['cls']} hazard" + (" (warp level)" if f.get("scope") else "")
    if k in ("invalid_access", "uninitialized"):
        return f"{f.get('cls', 'uninitialized')} {f.get('space')} {f.get('op')}"
    if k == "barrier":
        return f"barrier: {f['cls'].rstrip('.')}"
    if k == "deadlock":
        return f"deadlock in {f['cls']}"
    return f.get("cls") or f.get("text") or k


def _own(findings: list[dict], kernel: str) -> list[dict]:
    return [f for f in findings if f["kind"] not in NOT_ERRORS and f.get("file") == f"{kernel}.cu"]


def observed(bug: dict, reports: dict) -> dict:
    """What compute-sanitizer made of a planted bug, in the manifest's ``[bug.sanitizer]`` form."""
    rb = reports[bug["name"]]
    own = _own(rb["tools"][bug["tool"]]["findings"], bug["name"])
    obs: dict = {"found": bool(own), "lines": sorted({ln for f in own for ln in f["lines"]})}
    classes = sorted({finding_class(f) for f in own if f["kind"] != "race"})
    if classes:
        obs["classes"] = classes
    sev = sorted({f["severity"] for f in own if f.get("severity")})
    if sev:
        obs["severity"] = sev
    other = {}
    for tool in bugs.TOOLS:
        if tool != bug["tool"]:
            fs = _own(rb["tools"][tool]["findings"], bug["name"])
            if fs:
                other[tool] = {"lines": sorted({ln for f in fs for ln in f["lines"]}),
                               "classes": sorted({finding_class(f) for f in fs if f["kind"] != "race"})}
    if other:
        obs["other_tools"] = other
    obs["output"] = rb["native"]["output"]
    return obs


# -- bugs.toml --------------------------------------------------------------------------------------------
def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def sanitizer_block(obs: dict, note: str | None) -> str:
    lines = ["[bug.sanitizer]"] + [f"{k} = {_toml(v)}" for k, v in obs.items()]
    if note:
        lines.append(f"note = {_toml(note)}")
    return "\n".join(lines)


def update_manifest(reports: dict) -> None:
    """Rewrite every ``[bug.sanitizer]`` table of bugs.toml from the records (a ``note`` is kept)."""
    text = bugs.MANIFEST.read_text()
    head, *entries = re.split(r"(?m)^(?=\[\[bug\]\]$)", text)
    out = [head]
    for entry, bug in zip(entries, bugs.manifest()):
        body = re.split(r"(?m)^\[bug\.sanitizer\]$", entry)[0].rstrip("\n")
        note = bug.get("sanitizer", {}).get("note")
        out.append(body + "\n\n" + sanitizer_block(observed(bug, reports), note) + "\n\n")
    bugs.MANIFEST.write_text("".join(out).rstrip("\n") + "\n")
    bugs._manifest.cache_clear()


# -- README table -----------------------------------------------------------------------------------------
TABLE_BEGIN = "<!-- sanitizer-table:begin (generated by python -m programs.bugs.sanitizer.collect --readme) -->"
TABLE_END = "<!-- sanitizer-table:end -->"


def _lines(ls: list[int]) -> str:
    return ", ".join(str(x) for x in ls) if ls else "-"


def table(reports: dict) -> str:
    rows = ["| bug | planted: tool, kind, lines | compute-sanitizer on the H100 | other tools | "
            "H100 output | fixed twin |",
            "| --- | --- | --- | --- | --- | --- |"]
    for bug in bugs.manifest():
        obs = observed(bug, reports)
        kind = bug["kind"] + (f" ({bug['space']}" + (f", {'/'.join(bug['hazard'])}" if bug.get("hazard") else "")
                              + (f", {bug['scope']}" if bug.get("scope") else "") + ")")
        if obs["found"]:
            what = "; ".join(obs.get("classes", [])) or "race"
            if obs.get("severity"):
                what += f" [{'/'.join(obs['severity'])}]"
            seen = f"**reported**: {what} at {_lines(obs['lines'])}"
        else:
            seen = "not reported"
        other = "; ".join(f"{t}: {', '.join(o['classes']) or 'race'} at {_lines(o['lines'])}"
                          for t, o in obs.get("other_tools", {}).items()) or "-"
        fixed = reports[bug["fixed"]]
        clean = all(not t["errors"] for t in fixed["tools"].values())
        ftxt = ("clean" if clean else "REPORTED") + (", right" if fixed["native"]["output"] == "right"
                                                      else f", {fixed['native']['output']}")
        rows.append(f"| `{bug['name']}` | {bug['tool']}, {kind}, {_lines(bug['lines'])} | {seen} | {other} | "
                    f"{obs['output']} | {ftxt} |")
    return "\n".join(rows)


def update_readme(reports: dict) -> None:
    text = README.read_text()
    a, b = text.index(TABLE_BEGIN), text.index(TABLE_END)
    README.write_text(text[:a] + TABLE_BEGIN + "\n" + table(reports) + "\n" + text[b:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archive", nargs="?", type=Path, help="driver.py's sanitizer.tgz")
    ap.add_argument("--staged", type=Path, help="the folder hostgen.py staged (checks the inputs match)")
    ap.add_argument("--manifest", action="store_true", help="write the observations into bugs.toml")
    ap.add_argument("--readme", action="store_true", help="regenerate the comparison table of README.md")
    args = ap.parse_args(argv)
    if args.archive:
        with tempfile.TemporaryDirectory() as tmp:
            reports = import_run(unpack(args.archive, Path(tmp)), staged=args.staged)
        print(f"wrote {GOLDEN.relative_to(ROOT)} ({len(reports)} kernels)")
    reports = load_reports()
    if args.manifest:
        update_manifest(reports)
        print(f"updated {bugs.MANIFEST.relative_to(ROOT)}")
    if args.readme:
        update_readme(reports)
        print(f"updated {README.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
