"""The numpy references of the bundled programs, named by their launch files (``[reference] function =
"references.py:NAME"``): each is ``NAME(inputs, params) -> {output name: expected array}``, with ``inputs``
the kernel's input arguments (and ``[symbols]``) by name and ``params`` the size's parameters.

They are independent numpy code written from the kernels' mathematical definition (not translated from their
CUDA).  Float references that sum in a different order from the kernel are computed in float64 and compared
with a relative tolerance; results that IEEE round-to-nearest float32 arithmetic or integer arithmetic fully
determine are compared bit for bit.  Inputs are mostly non-negative (uniform [0, 1)), so sums do not cancel
and a relative tolerance is meaningful for every element.
"""
from __future__ import annotations

import numpy as np


def _blocks(n: int, per_block: int) -> int:
    return max(1, -(-n // per_block))


def vector_add(x, p):
    return {"C": x["A"] + x["B"]}


def blur(x, p):
    """3x3 box blur: each pixel is the integer mean of the pixels of its 3x3 neighbourhood inside the image."""
    w, h, r = p["width"], p["height"], 1
    img = x["in"].reshape(h, w).astype(np.int64)
    padded = np.pad(img, r)
    inside = np.pad(np.ones_like(img), r)
    total = np.zeros_like(img)
    count = np.zeros_like(img)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            total += padded[dy:dy + h, dx:dx + w]
            count += inside[dy:dy + h, dx:dx + w]
    return {"out": (total // count).astype(np.uint8).ravel()}


def _matmul(m, n, w):
    return (m.reshape(w, w).astype(np.float64) @ n.reshape(w, w).astype(np.float64)).astype(np.float32).ravel()


def matmul_naive(x, p):
    return {"P": _matmul(x["M"], x["N"], p["width"])}


def matmul_tiled(x, p):
    return {"P_d": _matmul(x["M_d"], x["N_d"], p["width"])}


def _correlate1d(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """P[i] = sum_j N[i - r + j] * M[j] with zero ghost elements, in float64."""
    r = len(mask) // 2
    padded = np.pad(x.astype(np.float64), r)
    out = np.zeros(len(x))
    for j, m in enumerate(mask.astype(np.float64)):
        out += m * padded[j:j + len(x)]
    return out.astype(np.float32)


def conv1d_basic(x, p):
    return {"P": _correlate1d(x["N"], x["M"])}


def conv1d_const(x, p):
    return {"P": _correlate1d(x["N"], x["M"][:p["mask_width"]])}


def conv2d_tiled(x, p):
    """2D correlation with the 5x5 mask Mc, zero ghost cells."""
    w, h = p["width"], p["height"]
    mask = x["Mc"].astype(np.float64)
    r = mask.shape[0] // 2
    padded = np.pad(x["N"].reshape(h, w).astype(np.float64), r)
    out = np.zeros((h, w))
    for fy in range(mask.shape[0]):
        for fx in range(mask.shape[1]):
            out += mask[fy, fx] * padded[fy:fy + h, fx:fx + w]
    return {"P": out.astype(np.float32).ravel()}


def _block_sums(x: np.ndarray, per_block: int) -> np.ndarray:
    """out[b] = the sum of elements b*per_block .. (b+1)*per_block - 1 (missing ones count 0)."""
    blocks = _blocks(len(x), per_block)
    padded = np.zeros(blocks * per_block)
    padded[:len(x)] = x
    return padded.reshape(blocks, per_block).sum(axis=1).astype(np.float32)


def block_sums_256(x, p):
    return {"out": _block_sums(x["in"], 256)}


def block_sums_512(x, p):
    return {"out": _block_sums(x["in"], 512)}


def cascade_sums(x, p):
    """Block b of the fixed grid sums the elements whose index i has (i // 256) % blocks == b."""
    blocks = min(64, _blocks(p["n"], 256))
    idx = np.arange(len(x["in"]))
    owner = (idx // 256) % blocks
    return {"out": np.bincount(owner, weights=x["in"].astype(np.float64), minlength=blocks).astype(np.float32)}


def _section_scan(x: np.ndarray, section: int) -> np.ndarray:
    """Inclusive prefix sums that restart at every ``section`` elements."""
    blocks = _blocks(len(x), section)
    padded = np.zeros(blocks * section)
    padded[:len(x)] = x
    return np.cumsum(padded.reshape(blocks, section), axis=1).ravel()[:len(x)].astype(np.float32)


def scan_sections_256(x, p):
    return {"Y": _section_scan(x["X"], 256)}


def scan_sections_512(x, p):
    return {"Y": _section_scan(x["X"], 512)}


def histogram(x, p):
    return {"histo": np.bincount(x["data"][:p["n"]], minlength=256).astype(np.uint32)}


def transpose(x, p):
    return {"out": np.ascontiguousarray(x["in"].reshape(p["height"], p["width"]).T).ravel()}


def stencil7(x, p):
    """out = c0*centre + c1..c6 * the six face neighbours on interior points; the boundary stays 0."""
    n = p["n"]
    v = x["in"].reshape(n, n, n).astype(np.float64)       # [z][y][x]
    c = [float(x[f"c{i}"]) for i in range(7)]
    out = np.zeros((n, n, n))
    i = slice(1, n - 1)
    out[i, i, i] = (c[0] * v[i, i, i] + c[1] * v[i, i, :-2] + c[2] * v[i, i, 2:] + c[3] * v[i, :-2, i]
                    + c[4] * v[i, 2:, i] + c[5] * v[:-2, i, i] + c[6] * v[2:, i, i])
    return {"out": out.astype(np.float32).ravel()}


def smem_stride_probe(x, p):
    """Thread t XORs words[(t * stride + r) mod 4096] for r < reps; every block does the same."""
    words, block = x["in"], p["block"]
    tid = np.arange(block, dtype=np.int64)
    acc = np.zeros(block, dtype=np.uint32)
    for r in range(p["reps"]):
        acc ^= words[(tid * p["stride"] + r) & (len(words) - 1)]
    return {"out": np.tile(acc, p["blocks"])}


def gmem_stride_probe(x, p):
    return {"out": x["in"][np.arange(p["n"]) * p["stride"] + p["offset"]]}


def _path_a(v: np.ndarray, iters: int) -> np.ndarray:
    v = v.copy()
    for k in range(iters):
        v = v * (v | np.uint32(1)) + np.uint32(k)
    return v


def _path_b(v: np.ndarray, iters: int) -> np.ndarray:
    v = v.copy()
    for _ in range(iters):
        v = (v ^ (v >> np.uint32(3))) + np.uint32(7)
    return v


def divergence(x, p):
    """Threads whose lane (divergence_lane) or warp (divergence_warp) is even take path a, the others b."""
    v, n, iters = x["in"], p["n"], p["iters"]
    tid = np.arange(n) % 256
    first = (tid % 2 == 0) if p["kernel"] == "divergence_lane" else ((tid // 32) % 2 == 0)
    return {"out": np.where(first, _path_a(v, iters), _path_b(v, iters)).astype(np.uint32)}


def saxpy(x, p):
    return {"y": x["a"] * x["x"] + x["y"]}


def loop_tripcount(x, p):
    c = x["count"]
    return {"out": (c * (c - 1) // 2).astype(np.uint32), "iters": c.copy()}


def warp_vote(x, p):
    """Per warp of 32 consecutive elements: the ballot of (in > threshold), and any + 2 * all."""
    n, threshold = p["n"], int(x["threshold"])
    warps = _blocks(n, 32)
    pred = np.zeros(warps * 32, dtype=bool)
    pred[:n] = x["in"] > threshold
    lanes = pred.reshape(warps, 32)
    ballot = (lanes.astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    flags = lanes.any(axis=1).astype(np.uint32) + 2 * lanes.all(axis=1).astype(np.uint32)
    return {"ballot": np.repeat(ballot, 32)[:n], "flags": np.repeat(flags, 32)[:n]}
