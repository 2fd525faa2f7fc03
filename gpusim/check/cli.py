"""``gpusim check``: run a kernel under the checker and print what it found (a plugin of :mod:`gpusim.cli`).

Exit status: 0 when the launch is clean (no finding, it completed, and under a non-default schedule its
outputs did not change), 1 when the checker reports something (or the command fails).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from gpusim.check.report import TOOLS
from gpusim.functional.schedule import SCHEDULES

EPILOG = """tools (default: all):
  racecheck   shared-memory hazards between threads (RAW, WAR, WAW) with no barrier between them; global
              memory within a block and across blocks; lanes of one warp without __syncwarp() (warnings)
  initcheck   reads of shared, local or global memory nothing wrote (shared memory starts as a poison pattern)
  synccheck   __syncthreads() in divergent code or after exited threads, barrier deadlocks, __syncwarp /
              __shfl_*_sync / __ballot_sync masks naming the caller out, inactive lanes or absent lanes
  memcheck    out-of-bounds (allocation, space, and the variable the address came from), misaligned accesses
              (vectors: their whole size), use of a buffer the host freed (launch file: host = "freed")

examples:
  gpusim check programs/bugs/race_scan_war.cu
  gpusim check my_kernel.cu --tool racecheck --tool initcheck --size small
  gpusim check my_kernel.cu --schedule random --seed 3        # another warp order: did the outputs change?

exit status: 0 clean, 1 when something is reported (or on an error)
"""


def register(sub) -> None:
    from gpusim.cli import add_launch_options
    c = sub.add_parser("check", help="run a kernel under the checker: races, uninitialised reads, barrier and "
                                     "warp-mask misuse, bad addresses (like compute-sanitizer)",
                       description="Run one launch of a kernel in the emulator with the checker attached and "
                                   "report what it finds, grouped by tool and counted.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_launch_options(c)
    c.add_argument("--tool", action="append", choices=TOOLS + ("all",), metavar="TOOL",
                   help="racecheck, initcheck, synccheck, memcheck or all (repeatable; default all)")
    c.add_argument("--schedule", choices=SCHEDULES, default="lockstep",
                   help="warp order: lockstep (default; the emulator's), reversed (last warp and block first) "
                        "or random (seeded by --schedule-seed, else --seed); the report says whether the "
                        "outputs changed against lockstep")
    c.add_argument("--schedule-seed", type=int, default=None, metavar="N",
                   help="seed of the random schedule (default: --seed)")
    c.add_argument("--global-races", choices=("block", "grid", "off"), default="block",
                   help="racecheck on global memory: within a block (default), also between the blocks of the "
                        "launch (grid: a kernel that reads what another block writes; not by default, as graph "
                        "kernels race across blocks by design), or off (shared memory only, as compute-sanitizer)")
    c.add_argument("--show-info", action="store_true",
                   help="also print info findings (racecheck: writes of the value a word already holds)")
    c.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    c.set_defaults(fn=cmd_check)


def cmd_check(a) -> int:
    import gpusim
    from gpusim.check import tools_of
    kw = {} if a.budget is None else {"budget": a.budget}
    tools = tools_of(a.tool or ["all"])
    res = gpusim.run(a.source, launch=a.launch, kernel=a.kernel, grid=a.grid, block=a.block, mode="emulate",
                     size=a.size, seed=a.seed, shared_mem=a.smem, sanitize=tools, schedule=a.schedule,
                     schedule_seed=a.schedule_seed, global_races=a.global_races, **kw)
    report = res.sanitizer
    print(report.format(info=a.show_info))
    if a.json:
        Path(a.json).write_text(json.dumps(report.to_json(), indent=2, default=_jsonable))
        print(f"wrote {a.json}")
    return 0 if report.ok else 1


def _jsonable(v):
    if hasattr(v, "tolist"):
        return v.tolist()
    return str(v)
