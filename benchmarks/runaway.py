"""A kernel that never ends, in both modes: how long until gpusim stops it, what stops it, peak memory.

    nice python benchmarks/runaway.py                 # 132 blocks of 256 threads polling a flag, default guards
    nice python benchmarks/runaway.py --blocks 32

Each mode runs in its own /usr/bin/time -v process (when there is one) so that the peak resident set is its
own.  Three guards stop it, whichever comes first: the livelock watch (gpusim.functional.livelock: the
batch's state repeats with no global write in between), the instruction budget (default 500,000,000 warp
instructions), and in timing mode the memory a batch's trace takes (--trace-memory, default 2 GiB).
``--no-watch`` turns the livelock watch off, to time the other two.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# the kernel of tests/fixtures/faults.cu that waits for a flag nothing sets: the usual way a GPU kernel hangs
SPIN = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "faults.ptx"


def one(mode: str, blocks: int, watch: bool = True) -> None:
    import gpusim
    if not watch:
        from gpusim.functional import livelock
        livelock.WATCH_FROM_STEPS = 1 << 62
    from gpusim.errors import BudgetExceededError
    t0 = time.perf_counter()
    try:
        gpusim.run(SPIN, kernel="spin", grid=blocks, block=256, args=[np.zeros(1, np.int32)], mode=mode)
        print(f"{mode}: finished?!")
    except BudgetExceededError as e:
        print(f"{mode}: stopped after {time.perf_counter() - t0:.1f} s by {type(e).__name__}: "
              f"{str(e).splitlines()[0][:200]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=132)
    ap.add_argument("--one", choices=("emulate", "timing"))
    ap.add_argument("--no-watch", action="store_true", help="turn the livelock watch off")
    a = ap.parse_args()
    if a.one:
        one(a.one, a.blocks, watch=not a.no_watch)
        return
    timer = Path("/usr/bin/time")
    for mode in ("emulate", "timing"):
        cmd = [sys.executable, __file__, "--one", mode, "--blocks", str(a.blocks)] + (["--no-watch"] * a.no_watch)
        if timer.exists():
            cmd = [str(timer), "-v"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(p.stdout)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        print(f"  peak memory {int(rss.group(1)) / 1024:,.0f} MB" if rss else p.stderr[-2000:], flush=True)


if __name__ == "__main__":
    main()
