"""The program ncu runs: launch each case of a JSON case list once, in order, through CuPy.

``python -m gpusim.hw._ncu_driver cases.json`` with ``{"cases": [[program, size], ...], "seed": 0}``;
``["__empty__", n_blocks]`` launches an empty kernel of ``n_blocks`` blocks of 32 threads (launch-overhead
calibration).  Kept apart from :mod:`gpusim.hw.ncu` so that ncu profiles nothing but these launches.
"""
from __future__ import annotations

import json
import sys

EMPTY_PTX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry empty_kernel()
{
    ret;
}
"""


def main(path: str) -> int:
    import cupy as cp
    from gpusim.hw.runner import run_on_gpu
    doc = json.loads(open(path).read())
    empty = None
    for program, size in doc["cases"]:
        if program == "__empty__":
            if empty is None:
                import os
                import tempfile
                fd, ptx = tempfile.mkstemp(suffix=".ptx")
                with os.fdopen(fd, "w") as fh:
                    fh.write(EMPTY_PTX)
                empty = cp.RawModule(path=ptx).get_function("empty_kernel")
            empty((int(size), 1, 1), (32, 1, 1), ())
            cp.cuda.Device().synchronize()
            continue
        run_on_gpu(program, size, seed=int(doc.get("seed", 0)), warmup=0, repeats=0, check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
