"""Input generators of the bundled programs that the launch file's fills cannot express, named by their
launch files (``fill = "python"``, ``function = "inputs.py:NAME"``): each is ``NAME(params, rng) -> {name:
array}``, called once per (size, seed) with the launch file's random stream."""
from __future__ import annotations

import numpy as np

MAX_MASK_WIDTH = 10   # conv1d_const.cu: the size of the __constant__ array M


def histogram_input(p, rng):
    """Half uniform bytes, half lower-case letters, shuffled: some bins are hot, as in text, so atomics contend."""
    n = p["n"]
    data = np.concatenate([rng.integers(0, 256, n - n // 2), rng.integers(ord("a"), ord("z") + 1, n // 2)])
    return {"data": rng.permutation(data).astype(np.uint8)}


def vote_input(p, rng):
    """Values > 0 with a per-warp probability of 0, 0.5, 0.9 or 1, so warps vote none / some / all."""
    n = p["n"]
    warps = max(1, -(-n // 32))
    p_true = np.repeat(rng.choice([0.0, 0.5, 0.9, 1.0], warps), 32)[:n]
    positive = rng.uniform(size=n) < p_true
    return {"in": np.where(positive, rng.integers(1, 100, n), rng.integers(-100, 1, n)).astype(np.int32)}


def conv1d_const_mask(p, rng):
    """The first mask_width entries of M uniform in [0, 1), the rest 0."""
    if p["mask_width"] > MAX_MASK_WIDTH:
        raise ValueError(f"mask_width {p['mask_width']} > MAX_MASK_WIDTH {MAX_MASK_WIDTH}")
    mask = np.zeros(MAX_MASK_WIDTH, dtype=np.float32)
    mask[:p["mask_width"]] = rng.uniform(0.0, 1.0, size=p["mask_width"]).astype(np.float32)
    return {"M": mask}
