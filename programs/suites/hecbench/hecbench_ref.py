"""numpy references for the HeCBench kernels, written from each algorithm's mathematical definition.

Each function takes the launch file's inputs (``{arg name: array or scalar}``, copies taken before the launch)
and the size's parameters, and returns ``{output arg name: expected array}``.  Float sums are formed in
float64 and rounded to float32 once; the launch files state the tolerance and why.
"""
from __future__ import annotations

import numpy as np


def softmax(inp, p):
    """output[i, j] = exp(x[i, j] - max_j x[i]) / sum_j exp(x[i, j] - max_j x[i])."""
    x = inp["input"].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"output": (e / e.sum(axis=1, keepdims=True)).astype(np.float32)}


def layernorm(inp, p):
    """Per row: mean, rstd = 1 / sqrt(population variance + eps), Y = (X - mean) * rstd * gamma + beta."""
    x = inp["X"].astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1.0 / np.sqrt(x.var(axis=1) + float(inp["eps"]))
    y = (x - mean[:, None]) * rstd[:, None] * inp["gamma"].astype(np.float64) + inp["beta"].astype(np.float64)
    return {"mean": mean.astype(np.float32), "rstd": rstd.astype(np.float32), "Y": y.astype(np.float32)}


def atomic_reduction(inp, p):
    """out += sum of in."""
    return {"out": (inp["out"].astype(np.int64) + inp["in"].astype(np.int64).sum()).astype(np.int32)}


def atomic_cost(inp, p):
    """result[a] += sum over threads t = a (mod naddr) of the number of odd indices in [t*size, (t+1)*size)."""
    t = np.arange(int(p["threads"]), dtype=np.int64)
    size, naddr = int(inp["size"]), int(inp["naddr"])
    odd = (t + 1) * size // 2 - t * size // 2                    # odd integers in [t*size, (t+1)*size)
    out = inp["result"].astype(np.float64) + np.bincount(t % naddr, weights=odd, minlength=naddr)
    return {"result": out.astype(np.float32)}


HPCC_POLY = np.uint64(7)


def random_access(inp, p):
    """Apply every thread's updates: ran <- (ran << 1) xor (POLY if the top bit of ran is set), then
    Table[ran mod size] ^= ran, ``updates`` times per thread."""
    table = inp["Table"].copy()
    mask = np.uint64(int(inp["TableSize"]) - 1)
    ran = inp["starts"].copy()
    for _ in range(int(inp["updates"])):
        top = (ran >> np.uint64(63)) != 0
        ran = (ran << np.uint64(1)) ^ np.where(top, HPCC_POLY, np.uint64(0))
        np.bitwise_xor.at(table, ran & mask, ran)
    return {"Table": table}


def filter(inp, p):  # noqa: A001 - the suite's name
    """nres += number of positive elements (their order in dst follows the atomics)."""
    return {"nres": (inp["nres"] + np.count_nonzero(inp["src"] > 0)).astype(np.int32)}


def bsearch(inp, p):
    """r[i] = the last position j with a[j] <= z[i] (0 when every a[j] > z[i])."""
    pos = np.searchsorted(inp["a"], inp["z"], side="right") - 1
    return {"r": np.maximum(pos, 0).astype(np.int32)}


def jacobi(inp, p):
    """Interior rows iy_start..iy_end-1 and columns 1..nx-2: a_new = mean of the four neighbours in a;
    l2_norm += sum of (a_new - a)^2 over them; everything else in a_new unchanged."""
    nx, ny = int(p["nx"]), int(p["ny"])
    a = inp["a"].astype(np.float64).reshape(ny, nx)
    y0, y1 = int(inp["iy_start"]), int(inp["iy_end"])
    new = 0.25 * (a[y0:y1, 2:] + a[y0:y1, :-2] + a[y0 + 1:y1 + 1, 1:-1] + a[y0 - 1:y1 - 1, 1:-1])
    a_new = inp["a_new"].astype(np.float64).reshape(ny, nx).copy()
    a_new[y0:y1, 1:-1] = new
    norm = inp["l2_norm"].astype(np.float64) + ((new - a[y0:y1, 1:-1]) ** 2).sum()
    return {"a_new": a_new.reshape(inp["a_new"].shape).astype(np.float32), "l2_norm": norm.astype(np.float32)}


def _aidw_alpha(mu):
    """Triangular membership of the normalised density mu over the powers 1..5 (Lu and Wong)."""
    levels = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    return np.interp(mu, levels, [1.0, 2.0, 3.0, 4.0, 5.0])


def aidw(inp, p):
    """z(q) = sum_i z_i d_i^-alpha / sum_i d_i^-alpha, alpha from mu = clamp(r_obs / r_exp / 2, 0, 1), r_obs
    the mean distance to the K = 10 nearest data points, r_exp = 1 / (2 sqrt(n / area))."""
    d = np.stack([inp["dx"], inp["dy"]], axis=1).astype(np.float64)
    z = inp["dz"].astype(np.float64)
    q = np.stack([inp["ix"], inp["iy"]], axis=1).astype(np.float64)
    r_exp = 1.0 / (2.0 * np.sqrt(len(d) / float(inp["area"])))
    out = np.empty(len(q))
    for s in range(0, len(q), 1024):
        dist = np.sqrt(((q[s:s + 1024, None, :] - d[None, :, :]) ** 2).sum(axis=2))
        r_obs = np.partition(dist, 9, axis=1)[:, :10].mean(axis=1)
        alpha = _aidw_alpha(np.clip(r_obs / r_exp / 2.0, 0.0, 1.0))
        w = dist ** -alpha[:, None]
        out[s:s + 1024] = (w @ z) / w.sum(axis=1)
    return {"iz": out.astype(np.float32)}


def nbody_accel(inp, p):
    """acc_i = sum_j G m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) (j = i contributes zero); the other
    fields of every particle unchanged.  Particles are rows of 10 floats: pos[3], vel[3], acc[3], mass."""
    part = inp["particles"].astype(np.float64)
    pos, mass = part[:, 0:3], part[:, 9]
    acc = np.empty_like(pos)
    for s in range(0, len(pos), 1024):
        d = pos[None, :, :] - pos[s:s + 1024, None, :]                       # [i, j, 3]
        inv3 = ((d * d).sum(axis=2) + float(inp["softening2"])) ** -1.5
        acc[s:s + 1024] = float(inp["G"]) * np.einsum("ijk,ij,j->ik", d, inv3, mass)
    out = inp["particles"].copy()
    out[:, 6:9] = acc.astype(np.float32)
    return {"particles": out}


_erfc = np.frompyfunc(__import__("math").erfc, 1, 1)


def _norm_cdf(x):
    return 0.5 * _erfc(-x / np.sqrt(2.0)).astype(np.float64)


def black_scholes(inp, p):
    """Black-Scholes price with continuous dividend yield and the exact normal CDF, call or put by type."""
    rec = inp["options"]
    s, k, r, q, v, t = (rec[:, c].astype(np.float64) for c in range(6))
    put = rec[:, 6].view(np.int32) != 0
    d1 = (np.log(s / k) + (r - q + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    ds, dk = s * np.exp(-q * t), k * np.exp(-r * t)
    price = np.where(put, dk * _norm_cdf(-d2) - ds * _norm_cdf(-d1), ds * _norm_cdf(d1) - dk * _norm_cdf(d2))
    return {"prices": price.astype(np.float32)}


def bitonic_step(inp, p):
    """For every l with bit j clear: (a[l], a[l + j]) becomes (min, max) where bit k of l is clear, else
    (max, min)."""
    a = inp["a"].copy()
    j, k = int(inp["j"]), int(inp["k"])
    l = np.arange(a.size)
    l = l[(l & j) == 0]
    lo, hi = np.minimum(a[l], a[l + j]), np.maximum(a[l], a[l + j])
    up = (l & k) == 0
    a[l], a[l + j] = np.where(up, lo, hi), np.where(up, hi, lo)
    return {"a": a}


def tensor_transpose(inp, p):
    """out[c0, c1, c2, c3] (c0 fastest) = in at the coordinates that put c_i on input dimension p_i."""
    dims = [int(p[f"d{i}"]) for i in range(4)]
    perm = [int(p[f"p{i}"]) for i in range(4)]
    x = inp["in"].reshape(dims[::-1])                   # numpy axes slowest first: axis a is dimension 3 - a
    axes = [3 - perm[3 - a] for a in range(4)]          # output axis a (dimension 3 - a) from input dimension
    return {"out": np.ascontiguousarray(x.transpose(axes)).ravel()}
