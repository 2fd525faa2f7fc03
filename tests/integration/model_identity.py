"""The model-identity baseline: outputs, cycles, counters and stall totals of every bundled program at every
small size, captured from the model before a refactor, so a test can show that the refactor changed nothing.

Capture (only when a change is *meant* to change the numbers, and say so in the commit)::

    python tests/integration/model_identity.py --capture

Each case is (program, size, preset, scheduler); the record per case holds a digest of every output array,
the cycle count, every counter and every stall-reason total.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

BASELINE = Path(__file__).with_name("model_identity.json")


def cases() -> list[tuple[str, str, str, str]]:
    import programs
    out = []
    for name in programs.names():
        smalls = [s for s in programs.get(name).sizes if s.startswith(("small", "stride_", "offset_"))]
        for size in smalls:
            out.append((name, size, "h100", "gto"))
        out.append((name, "small", "a100", "lrr"))
        out.append((name, "small", "pmpp-device-d", "two_level"))
    return out


def _digest(a) -> str:
    if isinstance(a, np.ndarray):
        return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]
    return repr(a)


def _value(v):
    """Scalars as numbers; per-channel/per-bank lists as a digest (they are long)."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return "sha256:" + hashlib.sha256(json.dumps(np.asarray(v).tolist()).encode()).hexdigest()[:16]
    return float(v) if isinstance(v, (float, np.floating)) else int(v)


def measure(name: str, size: str, gpu: str, scheduler: str) -> dict:
    import gpusim
    res = gpusim.run(name, size=size, mode="timing", gpu=gpu, scheduler=scheduler)
    return {
        "outputs": [_digest(a) for a in res.args],
        "cycles": int(res.cycles),
        "counters": {k: _value(v) for k, v in sorted(res.counters.items())},
        "stalls": {k: int(v) for k, v in sorted(res.stalls.items())},
    }


def key(case) -> str:
    return "/".join(case)


def capture(path: Path = BASELINE) -> None:
    data = {}
    for c in cases():
        data[key(c)] = measure(*c)
        print(key(c), data[key(c)]["cycles"], flush=True)
    lines = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}" for k, v in sorted(data.items())]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")   # one case per line: diffs name the cases


if __name__ == "__main__":
    if "--capture" in sys.argv:
        capture()
    else:
        print(__doc__)
