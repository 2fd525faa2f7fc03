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



def aidw_points(p, rng):
    """``dnum`` data points of uneven density in the unit square (half uniform, half in eight Gaussian
    clusters) carrying z = a smooth surface plus noise, and ``inum`` uniform points to interpolate."""
    dnum, inum = int(p["dnum"]), int(p["inum"])
    half = dnum // 2
    centres = rng.uniform(0.15, 0.85, size=(8, 2))
    clustered = centres[rng.integers(0, 8, dnum - half)] + rng.normal(0.0, 0.03, size=(dnum - half, 2))
    pts = np.clip(np.concatenate([rng.uniform(0.0, 1.0, size=(half, 2)), clustered]), 0.0, 1.0)
    z = np.sin(6.0 * pts[:, 0]) * np.cos(4.0 * pts[:, 1]) + 0.1 * rng.normal(size=dnum) + 2.0
    q = rng.uniform(0.0, 1.0, size=(inum, 2))
    f32 = np.float32
    return {"dx": pts[:, 0].astype(f32), "dy": pts[:, 1].astype(f32), "dz": z.astype(f32),
            "ix": q[:, 0].astype(f32), "iy": q[:, 1].astype(f32)}


def option_records(p, rng):
    """``n`` option records of 7 words {s, strike, r, divq, v, t: float32; type: int32}, as FinanceBench
    draws them: spot 5..30, strike 1..100, rate 0.01..0.1, yield 0..0.05, volatility 0.05..0.65,
    0.25..10 years, calls and puts."""
    n = int(p["n"])
    rec = np.zeros((n, 7), dtype=np.float32)
    for col, (lo, hi) in enumerate([(5.0, 30.0), (1.0, 100.0), (0.01, 0.1), (0.0, 0.05), (0.05, 0.65),
                                    (0.25, 10.0)]):
        rec[:, col] = rng.uniform(lo, hi, n)
    rec[:, 6] = rng.integers(0, 2, n).astype(np.int32).view(np.float32)
    return {"options": rec}


def transpose_tables(p, rng):
    """The constant tables of tensor_transpose: output extents and the input stride of each output
    dimension, fastest-varying first, for input extents (d0, d1, d2, d3) (d0 fastest) and the permutation
    (p0, p1, p2, p3): output dimension i is input dimension p_i."""
    dims = [int(p[f"d{i}"]) for i in range(4)]
    perm = [int(p[f"p{i}"]) for i in range(4)]
    strides = np.cumprod([1] + dims[:-1])
    out_dims = np.zeros(6, dtype=np.int32)
    in_strides = np.zeros(6, dtype=np.int32)
    out_dims[:4] = [dims[q] for q in perm]
    in_strides[:4] = [strides[q] for q in perm]
    return {"out_dims": out_dims, "in_strides": in_strides}
