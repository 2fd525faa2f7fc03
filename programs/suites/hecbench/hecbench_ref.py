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
