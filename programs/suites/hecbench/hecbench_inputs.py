"""Seeded input builders for the HeCBench kernels whose inputs are data structures rather than plain arrays
(``fill = "python"`` in their launch files).  Each is ``func(params, rng) -> {arg or symbol name: array}``.
"""
from __future__ import annotations

import numpy as np


def bsearch_sorted(p, rng):
    """A sorted array of n distinct-ish random integers (the searched array) and m random keys over its range."""
    n, m = int(p["n"]), int(p["m"])
    a = np.sort(rng.integers(0, 1 << 30, n, dtype=np.int64)).astype(np.int32)
    return {"a": a, "z": rng.integers(0, 1 << 30, m, dtype=np.int64).astype(np.int32)}

