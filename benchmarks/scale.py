"""Large launches in timing mode: the tiled matmul (16x16 tiles) at width 512 and 1024 on the h100 preset,
wall time and peak memory, with the default automatic choice of full or sampled timing.

    nice python benchmarks/scale.py                    # both widths, each in its own /usr/bin/time -v process
    nice python benchmarks/scale.py --width 512 --one  # one width in this process (what the above runs)
    nice python benchmarks/scale.py --sample full      # force full detail (slow: 512 is ~16M warp instr)

Targets (issue 11): width 512 in under 60 s, width 1024 in under 5 minutes, peak memory under 2 GB.  Each
line: width, warp instructions, simulated cycles, how it was timed (the report's sampling line), wall seconds
and the peak resident set (``Maximum resident set size`` of /usr/bin/time -v, else ru_maxrss); with
/usr/bin/time, the process's user CPU seconds too (on a loaded machine the wall time says little).
"""
from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def one(width: int, sample) -> None:
    import gpusim
    tile = 16
    n = -(-width // tile)
    rng = np.random.default_rng(0)
    m = rng.random(width * width, dtype=np.float32)
    nn = rng.random(width * width, dtype=np.float32)
    p = np.zeros(width * width, dtype=np.float32)
    t0 = time.perf_counter()
    res = gpusim.run("matmul_tiled", kernel=f"matmul_tiled_{tile}", grid=(n, n), block=(tile, tile),
                     args=[m, nn, p, np.int32(width)], mode="timing", gpu="h100", regs_per_thread=32,
                     sample=sample)
    wall = time.perf_counter() - t0
    ok = np.allclose(res.args[2][:width], (m.reshape(width, width)[0] @ nn.reshape(width, width)), rtol=1e-4)
    how = res.timing.sampling.describe() if res.timing.sampling is not None else "full detail"
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"width {width}: {res.stats.warp_instructions:,} warp instr, {res.timing.cycles:,} cycles, "
          f"{how}; first row {'correct' if ok else 'WRONG'}; wall {wall:.1f} s; ru_maxrss {rss_mb:,.0f} MB",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--width", type=int, action="append", help="matrix width (repeatable; default 512 and 1024)")
    ap.add_argument("--sample", default="auto", help="auto (default), full, or a number of SMs")
    ap.add_argument("--one", action="store_true", help="run in this process (no /usr/bin/time)")
    a = ap.parse_args()
    sample = {"auto": "auto", "full": False}.get(a.sample, None)
    if sample is None:
        sample = int(a.sample)
    widths = a.width or [512, 1024]
    if a.one:
        for w in widths:
            one(w, sample)
        return
    timer = Path("/usr/bin/time")
    for w in widths:
        cmd = [sys.executable, __file__, "--one", "--width", str(w), "--sample", a.sample]
        if timer.exists():
            cmd = [str(timer), "-v"] + cmd
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        sys.stdout.write(p.stdout)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        if p.returncode:
            sys.stdout.write(p.stderr[-3000:])
        peak = f"{int(rss.group(1)) / 1024:,.0f} MB" if rss else "n/a"
        cpu = re.search(r"User time \(seconds\): ([\d.]+)", p.stderr)
        cpu = f", CPU (user) {float(cpu.group(1)):.1f} s" if cpu else ""
        print(f"  -> width {w}: process wall {wall:.1f} s{cpu}, peak memory (time -v) {peak}", flush=True)


if __name__ == "__main__":
    main()
