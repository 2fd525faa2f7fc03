"""Helpers for the tests that compare the simulator with the H100 records in ``tests/golden/h100/``."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

import programs

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "h100"
SMALL_THREADS = 20_000       # records the tests simulate: the tiny launches (CI time)


def records(max_threads: int = SMALL_THREADS, with_arrays: bool = False, sizes=None) -> list[str]:
    out = []
    for p in sorted(GOLDEN.glob("*__*.json")):
        r = json.loads(p.read_text())
        if r.get("threads", 0) > max_threads or (with_arrays and not r.get("npz")):
            continue
        if sizes is not None and r["size"] not in sizes.get(r["program"], ("small",)):
            continue
        out.append(p.stem)
    return out


def load(name: str) -> dict:
    from gpusim.hw.compare import load_record
    rec = load_record(GOLDEN / f"{name}.json")
    spec = programs.get(rec["program"])
    launch = spec.launch(rec["size"])
    if [*launch.grid] != rec["grid"] or [*launch.block] != rec["block"]:
        pytest.fail(f"{name}: the manifest's launch changed since the record was made (grid {launch.grid} vs "
                    f"{rec['grid']}); re-record with `gpusim hw record` on a GPU")
    from gpusim.hw.record import file_sha256
    if file_sha256(spec.ptx_path) != rec["ptx_sha256"]:
        pytest.skip(f"{name}: {spec.ptx_path.name} changed since the record was made; re-record on a GPU")
    return rec


@lru_cache(maxsize=None)
def simulated(name: str, mode: str):
    rec = json.loads((GOLDEN / f"{name}.json").read_text())
    import gpusim
    return gpusim.run(rec["program"], size=rec["size"], seed=rec["seed"], mode=mode)
