#!/usr/bin/env python3
"""Device side: build the corpus's host programs with nvcc, run each natively and under compute-sanitizer's
four tools, parse the reports, and pack everything into one archive.

    python3 driver.py --out "$OUT" [--jobs 12] [--budget 300] [--timeout 60]

Runs in the folder ``hostgen.py`` staged (``src/``, ``host/``, ``data/``, ``kernels.json``); standard
library only.  Order of work: provenance and the sanitizer's option check, the builds (in parallel), the
native runs, then the sanitizer runs by priority (each buggy kernel under its own tool, each fixed twin
under that tool, then every other kernel/tool pair), ``--jobs`` at a time.  A run past ``--timeout`` is
killed (its process group); runs not started within ``--budget`` seconds of the start are skipped and
listed.  Writes ``$OUT/sanitizer.tgz`` (split into ``sanitizer.tgz.partNN`` if larger than 15 MiB) and
prints a short summary last.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
import parse  # noqa: E402

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
COMMON_OPTIONS = [["--print-limit", "100000"]]
TOOL_OPTIONS = {
    "memcheck": [],
    "racecheck": [["--racecheck-report", "all"], ["--racecheck-detect-level", "info"],
                  ["--racecheck-deadlock-timeout", "5000"]],
    "initcheck": [],
    "synccheck": [],
}
MAX_LOG = 8 << 20           # bytes of one raw report kept in the archive (head + tail beyond that)
PART = 15 << 20
T0 = time.monotonic()


def log(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def run(cmd: list[str], timeout: float, cwd: Path = ROOT) -> dict:
    """Run ``cmd`` in its own process group; kill the group past ``timeout``."""
    start = time.monotonic()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             errors="replace", start_new_session=True)
    except OSError as e:
        return {"rc": None, "timed_out": False, "wall_s": 0.0, "stdout": "", "stderr": str(e)}
    try:
        out, err = p.communicate(timeout=max(1.0, timeout))
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        timed_out = True
    return {"rc": p.returncode, "timed_out": timed_out, "wall_s": round(time.monotonic() - start, 2),
            "stdout": out[-4000:], "stderr": err[-4000:]}


def find_tool(name: str) -> str | None:
    """``name`` on the PATH, else the newest ``/usr/local/cuda*/bin/<name>``."""
    found = shutil.which(name)
    if found:
        return found
    cands = sorted(Path("/usr/local").glob(f"cuda*/bin/{name}")) + sorted(Path("/opt/nvidia").glob(f"*/{name}"))
    return str(cands[-1]) if cands else None


def sh(cmd: str) -> str:
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as e:  # noqa: BLE001 - provenance is best effort
        return f"({e})"


def provenance(sanitizer: str) -> dict:
    return {
        "gpu": sh("nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,compute_cap "
                  "--format=csv,noheader"),
        "nvidia_smi_header": sh("nvidia-smi | head -4 | tail -2"),
        "compute_sanitizer": sh(f"{sanitizer} --version"),
        "nvcc": sh("nvcc --version | tail -2"),
        "date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kernel": sh("uname -r"),
        "cpus": os.cpu_count(),
    }


def check_options(sanitizer: str, probe: list[str]) -> dict[str, list[str]]:
    """The options each tool takes here, probed on ``probe`` (a clean CUDA program: a fixed kernel's host
    program): an option this compute-sanitizer refuses is dropped, named in the log."""
    chosen = {}
    for tool in TOOLS:
        opts = COMMON_OPTIONS + TOOL_OPTIONS[tool]
        while True:
            flat = [x for o in opts for x in o]
            r = run([sanitizer, "--tool", tool, *flat, *probe], 60)
            if r["rc"] == 0 or not opts:
                break
            text = r["stdout"] + r["stderr"]
            bad = next((o for o in opts if o[0] in text), opts[-1])
            log(f"{tool}: dropping option {' '.join(bad)} (rc {r['rc']}: {text.strip()[:300]})")
            opts = [o for o in opts if o is not bad]
        chosen[tool] = [x for o in opts for x in o]
        log(f"{tool}: {' '.join(chosen[tool])}")
    return chosen


def build(job: dict, out: Path) -> dict:
    k = job["kernel"]
    r = run(["nvcc", "-arch=sm_90", "-lineinfo", "-Isrc", "-o", f"bin/{k}", f"host/{k}_host.cu"], 300)
    (out / "build").mkdir(exist_ok=True)
    (out / "build" / f"{k}.log").write_text(r["stdout"] + r["stderr"])
    return {"rc": r["rc"], "wall_s": r["wall_s"], "timed_out": r["timed_out"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--budget", type=float, default=300.0, help="seconds after which no new run starts")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per sanitizer run")
    ap.add_argument("--sanitizer", default=None, help="compute-sanitizer to use (default: found on the PATH or "
                    "in /usr/local/cuda*/bin)")
    ap.add_argument("--only", nargs="*", help="kernels to run (default: all)")
    ap.add_argument("--timeout-for", nargs="*", default=[], metavar="KERNEL=SECONDS",
                    help="a shorter (or longer) per-run timeout for these kernels (known to hang)")
    args = ap.parse_args(argv)
    args.sanitizer = args.sanitizer or find_tool("compute-sanitizer")
    nvcc = find_tool("nvcc")
    if not args.sanitizer or not nvcc:
        print(f"compute-sanitizer: {args.sanitizer}, nvcc: {nvcc}: both are needed", flush=True)
        return 2
    os.environ["PATH"] = f"{Path(nvcc).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    os.chdir(ROOT)
    work = ROOT / "result"
    if work.exists():
        shutil.rmtree(work)
    for sub in ("raw", "outputs", "bin"):
        (work / sub).mkdir(parents=True)
    (ROOT / "bin").mkdir(exist_ok=True)
    jobs = json.loads((ROOT / "kernels.json").read_text())
    if args.only:
        jobs = [j for j in jobs if j["kernel"] in args.only]

    timeouts = {k: float(v) for k, v in (x.split("=") for x in args.timeout_for)}
    prov = provenance(args.sanitizer)
    log(f"GPU: {prov['gpu']}; {prov['compute_sanitizer'].splitlines()[-1] if prov['compute_sanitizer'] else '?'}")
    (work / "help.txt").write_text(subprocess.run([args.sanitizer, "--help"], capture_output=True, text=True,
                                                  timeout=60).stdout)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 8) as pool:
        builds = dict(zip([j["kernel"] for j in jobs], pool.map(lambda j: build(j, work), jobs)))
    failed = [k for k, b in builds.items() if b["rc"] != 0]
    log(f"built {len(builds) - len(failed)}/{len(builds)}" + (f"; FAILED: {' '.join(failed)}" if failed else ""))
    probe = next(j["kernel"] for j in jobs if j["role"] == "fixed" and builds[j["kernel"]]["rc"] == 0)
    options = check_options(args.sanitizer, [f"bin/{probe}", f"data/{probe}"])
    prov["options"] = options
    prov["option_probe"] = probe
    prov["command"] = "compute-sanitizer --tool TOOL <options[TOOL]> --log-file raw/KERNEL.TOOL.log bin/KERNEL data/KERNEL"
    prov["build"] = "nvcc -arch=sm_90 -lineinfo -Isrc -o bin/KERNEL host/KERNEL_host.cu"
    prov["timeouts"] = {"default": args.timeout, **timeouts}

    # the queue: native runs, then sanitizer runs by priority
    queue = []
    for j in jobs:
        if builds[j["kernel"]]["rc"] == 0:
            queue.append((0, j, "native"))
    for prio, pick in ((1, lambda j, t: j["role"] == "bug" and t == j["tool"]),
                       (2, lambda j, t: j["role"] == "fixed" and t == j["tool"]),
                       (3, lambda j, t: t != j["tool"])):
        for j in jobs:
            for t in TOOLS:
                if builds[j["kernel"]]["rc"] == 0 and pick(j, t):
                    queue.append((prio, j, t))
    results: dict[str, dict] = {j["kernel"]: {"bug": j["bug"], "role": j["role"], "tool": j["tool"],
                                              "build": builds[j["kernel"]], "runs": {}} for j in jobs}
    lock = threading.Lock()

    def work_one(item):
        prio, j, what = item
        k = j["kernel"]
        if time.monotonic() - T0 > args.budget:
            rec = {"skipped": "budget"}
        elif what == "native":
            od = work / "outputs" / k
            od.mkdir(exist_ok=True)
            rec = run([f"bin/{k}", f"data/{k}", str(od)], min(30.0, timeouts.get(k, 30.0)))
        else:
            logf = work / "raw" / f"{k}.{what}.log"
            rec = run([args.sanitizer, "--tool", what, *options[what], "--log-file", str(logf),
                       f"bin/{k}", f"data/{k}"], timeouts.get(k, args.timeout))
            text = logf.read_text(errors="replace") if logf.exists() else ""
            rec["log_bytes"] = len(text.encode())
            rec["parsed"] = parse.parse_report(text, what)
            if rec["log_bytes"] > MAX_LOG:
                logf.write_text(text[:MAX_LOG // 2] + "\n[... truncated by driver.py ...]\n" + text[-(1 << 20):])
                rec["truncated"] = True
        with lock:
            results[k]["runs"][what] = rec
        return item

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = 0
        for _ in pool.map(work_one, queue):
            done += 1
            if done % 50 == 0:
                log(f"{done}/{len(queue)} runs done")
    skipped = [f"{j['kernel']}:{w}" for _, j, w in queue if results[j["kernel"]]["runs"].get(w, {}).get("skipped")]
    prov["elapsed_s"] = round(time.monotonic() - T0, 1)
    prov["skipped"] = skipped
    (work / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")
    (work / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    shutil.rmtree(work / "bin", ignore_errors=True)

    args.out.mkdir(parents=True, exist_ok=True)
    tgz = args.out / "sanitizer.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(work, arcname="result")
    if tgz.stat().st_size > PART:
        data = tgz.read_bytes()
        tgz.unlink()
        for n, off in enumerate(range(0, len(data), PART)):
            (args.out / f"sanitizer.tgz.part{n:02d}").write_bytes(data[off:off + PART])

    # summary: one line per bug
    print(f"\n{'bug':34} {'tool':9} {'bug: errs lines':24} {'fixed: errs':11} other-tool errs (bug/fixed)")
    for j in jobs:
        if j["role"] != "bug":
            continue
        rb, rf = results[j["kernel"]]["runs"], results.get(j["kernel"] + "_fixed", {}).get("runs", {})
        def errs(r, t):
            p = r.get(t, {}).get("parsed")
            return "-" if p is None else str(p["errors"])
        lines = rb.get(j["tool"], {}).get("parsed", {}).get("lines", [])
        other = " ".join(f"{t[:4]}:{errs(rb, t)}/{errs(rf, t)}" for t in TOOLS if t != j["tool"])
        print(f"{j['kernel'][:34]:34} {j['tool']:9} {errs(rb, j['tool']) + ' ' + str(lines)[:20]:24} "
              f"{errs(rf, j['tool']):11} {other}")
    nat_fail = [k for k, r in results.items() if r["runs"].get("native", {}).get("rc") not in (0, None)]
    print(f"\nnative runs that failed: {' '.join(nat_fail) or 'none'}")
    print(f"skipped: {len(skipped)}; elapsed {prov['elapsed_s']} s; archive: "
          f"{sorted(p.name for p in args.out.iterdir())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
