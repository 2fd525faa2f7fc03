"""Reference results of the bug corpus's kernels, written from what each kernel is meant to compute.

Each function is named after a bug (``race_scan_war``) and serves both twins' launch files
(``race_scan_war.toml`` and ``race_scan_war_fixed.toml``), in the launch-file contract's form
``func(inputs, params) -> {output arg name: expected array}``: ``inputs`` maps argument (and symbol) names to
the values before the launch, ``params`` is the size's parameters.  Expected arrays have the output's dtype
(float sums are computed in float64 and rounded to float32 at the end).  The fixed twin matches its reference; the
buggy one need not (that is the bug), and on a real GPU it sometimes happens to.

Block sizes are the kernels' compile-time ones (BLOCK, SECTION, ...) and the launch files' block shapes.
"""
from __future__ import annotations

import numpy as np


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _block_sums(x: np.ndarray, block: int) -> np.ndarray:
    pad = np.zeros(_cdiv(len(x), block) * block, dtype=np.int64)
    pad[:len(x)] = x
    return pad.reshape(-1, block).sum(axis=1)


# --- racecheck: shared memory --------------------------------------------------------------------------
def race_reduce_missing_sync(inputs, params):
    return {"out": _block_sums(inputs["in"], 128).astype(np.int32)}


def race_matmul_second_sync(inputs, params):
    n = params["n"]
    a = inputs["A"].reshape(n, n).astype(np.float64)
    b = inputs["B"].reshape(n, n).astype(np.float64)
    return {"C": (a @ b).ravel().astype(np.float32)}


def race_histogram_no_atomic(inputs, params):
    return {"histo": np.bincount(inputs["data"] % 16, minlength=16).astype(np.uint32)}


def race_scan_war(inputs, params):
    x = inputs["in"].astype(np.int64)
    out = np.concatenate([np.cumsum(x[s:s + 64]) for s in range(0, len(x), 64)])
    return {"out": out.astype(np.int32)}


def race_waw_last_writer(inputs, params):
    data, block = inputs["data"], 128
    out = []
    for b in range(_cdiv(len(data), block)):
        neg = np.nonzero(data[b * block:(b + 1) * block] < 0)[0]
        out.append(b * block + neg[-1] if len(neg) else -1)
    return {"last_neg": np.array(out, dtype=np.int32)}


def race_raw_broadcast(inputs, params):
    x, block = inputs["in"], 64
    first = np.repeat(x[::block], block)[:len(x)]
    return {"out": x * (np.float32(1) / first)}


def race_war_inplace_update(inputs, params):
    x, block = inputs["in"].astype(np.int64), 64
    nxt = np.append(x[1:], 0)
    nxt[block - 1::block] = 0                       # the last thread of a block has no right neighbour
    return {"out": (nxt - x).astype(np.int32)}


def race_transpose_missing_sync(inputs, params):
    w, h = params["width"], params["height"]
    return {"out": inputs["in"].reshape(h, w).T.ravel()}


def race_warp_reduce_no_syncwarp(inputs, params):
    return {"out": _block_sums(inputs["in"], 64).astype(np.int32)}


def race_warp_exchange_no_syncwarp(inputs, params):
    x = inputs["in"]
    return {"out": x[np.arange(len(x)) ^ 1] - x}


# --- global-memory races -------------------------------------------------------------------------------
def race_global_sum_no_atomic(inputs, params):
    return {"total": np.array([inputs["in"].sum()], dtype=np.int32)}


def race_global_inplace_stencil(inputs, params):
    a = inputs["a"].astype(np.int64)
    out = a.copy()
    out[1:-1] = a[:-2] + a[1:-1] + a[2:]
    return {"a": out.astype(np.int32)}


def race_global_crossblock_waw(inputs, params):
    return {"out": 2 * inputs["in"]}


def race_global_crossblock_raw(inputs, params):
    partial = _block_sums(inputs["in"], 64)
    return {"partial": partial.astype(np.int32), "total": np.array([partial.sum()], dtype=np.int32)}


# --- initcheck -----------------------------------------------------------------------------------------
def uninit_stencil_halo(inputs, params):
    x = np.pad(inputs["in"].astype(np.float64), 1)
    return {"out": (x[:-2] + x[1:-1] + x[2:]).astype(np.float32)}


def uninit_shared_accumulator(inputs, params):
    return {"out": _block_sums(inputs["in"], 64).astype(np.int32)}


def uninit_shared_tail(inputs, params):
    return {"out": _block_sums(inputs["in"], 64).astype(np.int32)}


def uninit_local_array(inputs, params):
    x, k = inputs["in"].astype(np.int64), params["k"]
    return {"out": sum(np.roll(x, -j) for j in range(k)).astype(np.int32)}


def uninit_global_accumulate(inputs, params):
    return {"out": inputs["a"].copy()}


def uninit_global_tail_read(inputs, params):
    sq = inputs["in"].astype(np.int64) ** 2
    return {"out": (np.append(sq[1:], 0) - sq).astype(np.int32)}


# --- synccheck -----------------------------------------------------------------------------------------
def sync_barrier_in_if(inputs, params):
    x = inputs["in"].reshape(-1, 4, 16).astype(np.int64)           # per block: 4 groups of 16
    return {"out": x.sum(axis=1).ravel().astype(np.int32)}


def sync_loop_tripcount(inputs, params):
    n, block = params["n"], 64
    x = np.zeros(_cdiv(n, block) * block, dtype=np.int64)
    x[:n] = inputs["in"]
    return {"out": x.reshape(-1, block)[:, ::-1].sum(axis=0).astype(np.int32)}


def sync_early_return(inputs, params):
    x = inputs["in"].astype(np.int64)
    return {"out": (np.append(x[1:], 0) - x).astype(np.int32)}


def sync_divergent_if_else(inputs, params):
    x = inputs["in"].astype(np.int64)
    out = np.empty_like(x)
    out[0::2] = x[1::2] + 1
    out[1::2] = 2 * x[0::2]
    return {"out": out.astype(np.int32)}


def syncwarp_absent_lanes(inputs, params):
    x = inputs["in"]
    return {"out": x[np.arange(len(x)) ^ 1]}


def syncwarp_inactive_lanes(inputs, params):
    x = inputs["in"]
    idx = np.arange(len(x))
    return {"out": np.where(idx % 32 < 16, x[idx ^ 1], -x).astype(np.int32)}


def syncwarp_caller_not_in_mask(inputs, params):
    x, active = inputs["in"].reshape(-1, 32).astype(np.int64), params["active"]
    sums = x[:, :active].sum(axis=1, keepdims=True)
    out = np.zeros_like(x)
    out[:, :active] = sums
    return {"out": out.ravel().astype(np.int32)}


def shfl_inactive_lanes(inputs, params):
    x = inputs["in"].reshape(-1, 32)
    out = np.zeros_like(x)
    out[:, 0] = x[:, :16].astype(np.int64).sum(axis=1)
    out[:, 16:] = x[:, 16:]
    return {"out": out.ravel().astype(np.int32)}


def shfl_absent_lanes(inputs, params):
    x = inputs["in"].reshape(-1, 48).astype(np.int64)
    return {"out": np.stack([x[:, :32].sum(axis=1), x[:, 32:].sum(axis=1)], axis=1).ravel().astype(np.int32)}


def ballot_inactive_lanes(inputs, params):
    x = inputs["in"].reshape(-1, 32)
    counts = ((x > 0) & (x % 2 == 0)).sum(axis=1, keepdims=True)
    return {"out": np.where(x > 0, counts, 0).ravel().astype(np.int32)}


# --- memcheck ------------------------------------------------------------------------------------------
def oob_missing_guard(inputs, params):
    return {"c": inputs["a"] + inputs["b"]}


def oob_off_by_one(inputs, params):
    x, y = inputs["x"].astype(np.float64), inputs["y"].astype(np.float64)
    return {"y": (float(inputs["alpha"]) * x + y).astype(np.float32)}


def oob_negative_index(inputs, params):
    x = inputs["in"].astype(np.int64)
    return {"out": (x - np.append(0, x[:-1])).astype(np.int32)}


def oob_shared_tail(inputs, params):
    x = inputs["in"].astype(np.int64)
    return {"out": (x + np.append(x[1:], 0)).astype(np.int32)}


def oob_shared_into_neighbor(inputs, params):
    x = inputs["in"].astype(np.int64)
    nxt = np.append(x[1:], 0)
    nxt[63::64] = 0
    return {"out": (nxt + 2 * x).astype(np.int32)}


def oob_2d_wrong_pitch(inputs, params):
    w, h = params["width"], params["height"]
    return {"out": inputs["in"].reshape(h, w).T.ravel()}


def oob_local_array(inputs, params):
    k = params["k"]
    return {"out": (k * inputs["in"].astype(np.int64) + k * (k - 1) // 2).astype(np.int32)}


def misaligned_vector_load(inputs, params):
    x = inputs["in"]
    m = (len(x) - 1) // 2
    return {"out": x[1:2 * m + 1:2] + x[2:2 * m + 2:2]}


def misaligned_shared_vector(inputs, params):
    x = inputs["in"].reshape(-1, 128).astype(np.float64)
    s = np.pad(x, ((0, 0), (0, 4)))
    out = sum(s[:, 1 + j:129 + j:4] for j in range(4))
    return {"out": out.ravel().astype(np.float32)}


def use_after_free(inputs, params):
    return {"out": 2 * inputs["in"]}


def const_oob(inputs, params):
    x, w, n = inputs["in"].astype(np.float64), inputs["weights"].astype(np.float64), params["n"]
    idx = np.minimum(np.arange(n)[:, None] + np.arange(len(w))[None, :], n - 1)
    return {"out": (x[idx] * w[None, :]).sum(axis=1).astype(np.float32)}
