"""A kernel that never ends, in both modes: how long until gpusim stops it, what stops it, peak memory.

    nice python benchmarks/runaway.py                 # 132 blocks of 256 threads polling a flag, default guards
    nice python benchmarks/runaway.py --blocks 32

Each mode runs in its own /usr/bin/time -v process (when there is one) so that the peak resident set is its
own.  Emulate mode records nothing, so the instruction budget (default 500,000,000 warp instructions) stops
it; timing mode streams the trace, and the memory a batch's trace takes (--trace-memory, default 2 GiB)
or the budget stops it, whichever comes first.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SPIN = """
.version 8.0
.target sm_90
.address_size 64
// waits for a flag that nothing sets: the usual way a GPU kernel hangs
.visible .entry wait_for_flag(.param .u64 flag)
{
    .reg .pred %p;
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd0, [flag];
    cvta.to.global.u64 %rd1, %rd0;
POLL:
    ld.volatile.global.u32 %r0, [%rd1];
    setp.eq.u32 %p, %r0, 0;
    @%p bra.uni POLL;
    ret;
}
"""


def one(mode: str, blocks: int) -> None:
    import gpusim
    from gpusim.errors import BudgetExceededError
    t0 = time.perf_counter()
    try:
        gpusim.run(SPIN, grid=blocks, block=256, args=[np.zeros(1, np.uint32)], mode=mode)
        print(f"{mode}: finished?!")
    except BudgetExceededError as e:
        print(f"{mode}: stopped after {time.perf_counter() - t0:.1f} s: {str(e).splitlines()[-1][:160]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=132)
    ap.add_argument("--one", choices=("emulate", "timing"))
    a = ap.parse_args()
    if a.one:
        one(a.one, a.blocks)
        return
    timer = Path("/usr/bin/time")
    for mode in ("emulate", "timing"):
        cmd = [sys.executable, __file__, "--one", mode, "--blocks", str(a.blocks)]
        if timer.exists():
            cmd = [str(timer), "-v"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(p.stdout)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        print(f"  peak memory {int(rss.group(1)) / 1024:,.0f} MB" if rss else p.stderr[-2000:], flush=True)


if __name__ == "__main__":
    main()
