"""numpy references for the PolyBench/GPU kernels of the validation corpus.

Each function takes the launch's input values (``inputs[name]``: the arrays and scalars passed to the
kernel, copied before the launch) and the size's parameters, and returns the expected value of every output
argument.  They are written from PolyBench's mathematical definitions, not from the CUDA: sums and products
in float64, cast to float32 at the end (the launch file gives the tolerance and why); where the definition
is a fixed short sequence of correctly rounded float32 operations, that sequence in float32 (exact).
"""
from __future__ import annotations

import numpy as np

F32 = np.float32


def _f64(x):
    return np.asarray(x, dtype=np.float64)


# -- linear algebra ----------------------------------------------------------------------------------------

def gemm(inputs, params):
    """C = alpha A B + beta C."""
    a, b, c = _f64(inputs["a"]), _f64(inputs["b"]), _f64(inputs["c"])
    return {"c": (float(inputs["alpha"]) * (a @ b) + float(inputs["beta"]) * c).astype(F32)}


def mm2_1(inputs, params):
    """2mm, first product: tmp = alpha A B."""
    return {"tmp": (float(inputs["alpha"]) * (_f64(inputs["a"]) @ _f64(inputs["b"]))).astype(F32)}


def mm2_2(inputs, params):
    """2mm, second product: D = beta D + tmp C."""
    d = float(inputs["beta"]) * _f64(inputs["d"]) + _f64(inputs["tmp"]) @ _f64(inputs["c"])
    return {"d": d.astype(F32)}


def atax_1(inputs, params):
    """atax, first half: tmp = A x."""
    return {"tmp": (_f64(inputs["a"]) @ _f64(inputs["x"])).astype(F32)}


def atax_2(inputs, params):
    """atax, second half: y = A^T tmp."""
    return {"y": (_f64(inputs["a"]).T @ _f64(inputs["tmp"])).astype(F32)}


def bicg_1(inputs, params):
    """bicg: s = A^T r."""
    return {"s": (_f64(inputs["a"]).T @ _f64(inputs["r"])).astype(F32)}


def bicg_2(inputs, params):
    """bicg: q = A p."""
    return {"q": (_f64(inputs["a"]) @ _f64(inputs["p"])).astype(F32)}


def mvt_1(inputs, params):
    """mvt: x1 = x1 + A y1."""
    return {"x1": (_f64(inputs["x1"]) + _f64(inputs["a"]) @ _f64(inputs["y1"])).astype(F32)}


def mvt_2(inputs, params):
    """mvt: x2 = x2 + A^T y2."""
    return {"x2": (_f64(inputs["x2"]) + _f64(inputs["a"]).T @ _f64(inputs["y2"])).astype(F32)}


def gesummv(inputs, params):
    """tmp = A x; y = alpha A x + beta B x."""
    a, b, x = _f64(inputs["a"]), _f64(inputs["b"]), _f64(inputs["x"])
    tmp = a @ x
    y = float(inputs["alpha"]) * tmp + float(inputs["beta"]) * (b @ x)
    return {"tmp": tmp.astype(F32), "y": y.astype(F32)}


def syrk(inputs, params):
    """C = alpha A A^T + beta C (the full matrix)."""
    a, c = _f64(inputs["a"]), _f64(inputs["c"])
    return {"c": (float(inputs["alpha"]) * (a @ a.T) + float(inputs["beta"]) * c).astype(F32)}


def syr2k(inputs, params):
    """C = alpha A B^T + alpha B A^T + beta C (the full matrix)."""
    a, b, c = _f64(inputs["a"]), _f64(inputs["b"]), _f64(inputs["c"])
    alpha = float(inputs["alpha"])
    return {"c": (alpha * (a @ b.T) + alpha * (b @ a.T) + float(inputs["beta"]) * c).astype(F32)}


def gs_norm(inputs, params):
    """Gram-Schmidt step k, the column norm: R[k][k] = ||A[:, k]||; the rest of R unchanged."""
    k = params["k"]
    r = np.array(inputs["r"], copy=True)
    r[k, k] = F32(np.sqrt(np.sum(_f64(inputs["a"])[:, k] ** 2)))
    return {"r": r}


def gs_update(inputs, params):
    """Gram-Schmidt step k, projection and update for the columns j > k:
    R[k][j] = Q[:, k] . A[:, j];  A[:, j] -= Q[:, k] R[k][j]."""
    k = params["k"]
    a, q = _f64(inputs["a"]), _f64(inputs["q"])
    r = np.array(inputs["r"], copy=True)
    rk = q[:, k] @ a[:, k + 1:]
    r[k, k + 1:] = rk.astype(F32)
    a_out = np.array(inputs["a"], copy=True)
    a_out[:, k + 1:] = (a[:, k + 1:] - np.outer(q[:, k], rk)).astype(F32)
    return {"r": r, "a": a_out}


def lu_update(inputs, params):
    """LU step k, trailing update: A[i][j] -= A[i][k] A[k][j] for i, j > k."""
    k = params["k"]
    a = _f64(inputs["a"])
    out = np.array(inputs["a"], copy=True)
    out[k + 1:, k + 1:] = (a[k + 1:, k + 1:] - np.outer(a[k + 1:, k], a[k, k + 1:])).astype(F32)
    return {"a": out}


# -- data mining -------------------------------------------------------------------------------------------

def column_mean(inputs, params):
    """mean[j] = sum_i data[i][j] / float_n."""
    return {"mean": (_f64(inputs["data"]).sum(axis=0) / float(inputs["float_n"])).astype(F32)}


def center(inputs, params):
    """data[i][j] - mean[j], one float32 subtraction."""
    return {"data": (inputs["data"] - inputs["mean"][None, :]).astype(F32)}


def covar(inputs, params):
    """symmat = data^T data (the covariance of centred data, without normalisation, as PolyBench)."""
    d = _f64(inputs["data"])
    return {"symmat": (d.T @ d).astype(F32)}


def column_std(inputs, params):
    """stddev[j] = sqrt(sum_i (data[i][j] - mean[j])^2 / float_n), or 1 where that is <= eps."""
    d, mean = _f64(inputs["data"]), _f64(inputs["mean"])
    std = np.sqrt(((d - mean[None, :]) ** 2).sum(axis=0) / float(inputs["float_n"]))
    std = np.where(std <= float(inputs["eps"]), 1.0, std)
    return {"stddev": std.astype(F32)}


def standardise(inputs, params):
    """(data[i][j] - mean[j]) / (sqrt(float_n) stddev[j]), each operation a correctly rounded float32 one."""
    d, mean, std = inputs["data"], inputs["mean"], inputs["stddev"]
    scale = np.sqrt(F32(inputs["float_n"])) * std
    return {"data": ((d - mean[None, :]) / scale[None, :]).astype(F32)}


def corr(inputs, params):
    """The correlation matrix of standardised data: data^T data with ones on the diagonal."""
    d = _f64(inputs["data"])
    s = d.T @ d
    np.fill_diagonal(s, 1.0)
    return {"symmat": s.astype(F32)}


# -- stencils ----------------------------------------------------------------------------------------------

def fdtd2d_ey(inputs, params):
    """ey[0][:] = fict[t]; ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j]) for i > 0 (float32 operations)."""
    ey, hz = np.array(inputs["ey"], copy=True), inputs["hz"]
    ey[1:, :] = ey[1:, :] - F32(0.5) * (hz[1:, :] - hz[:-1, :])
    ey[0, :] = inputs["fict"][params["t"]]
    return {"ey": ey}


def fdtd2d_ex(inputs, params):
    """ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1]) for j > 0 (float32 operations)."""
    ex, hz = np.array(inputs["ex"], copy=True), inputs["hz"]
    ex[:, 1:] = ex[:, 1:] - F32(0.5) * (hz[:, 1:] - hz[:, :-1])
    return {"ex": ex}


def fdtd2d_hz(inputs, params):
    """hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j]) for i < nx-1, j < ny-1."""
    ex, ey = _f64(inputs["ex"]), _f64(inputs["ey"])
    hz = np.array(inputs["hz"], copy=True)
    curl = ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]
    hz[:-1, :-1] = (_f64(hz[:-1, :-1]) - 0.7 * curl).astype(F32)
    return {"hz": hz}


def jacobi2d(inputs, params):
    """B[i][j] = 0.2 (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j]) on the interior, summed in
    that order in float32."""
    a = inputs["a"]
    b = np.array(inputs["b"], copy=True)
    s = a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1]
    b[1:-1, 1:-1] = F32(0.2) * s
    return {"b": b}


CONV2D = np.array([[0.25, -0.50, 0.125],
                   [0.75, 0.40, -0.60],
                   [-0.35, 0.90, 0.05]], dtype=np.float32)   # the kernel's literals, rows i-1, i, i+1


def conv2d(inputs, params):
    """b[i][j] = sum_{di, dj} c[di][dj] a[i+di][j+dj] on the interior; the border of b is left as it was."""
    a = _f64(inputs["a"])
    c = CONV2D.astype(np.float64)
    b = np.array(inputs["b"], copy=True)
    ni, nj = a.shape
    acc = np.zeros((ni - 2, nj - 2))
    for di in range(3):
        for dj in range(3):
            acc += c[di, dj] * a[di:di + ni - 2, dj:dj + nj - 2]
    b[1:-1, 1:-1] = acc.astype(F32)
    return {"b": b}


CONV3D_TAPS = np.array([0.25, 0.5, -0.75], dtype=np.float32)   # the kernel's per-axis taps (offsets -1, 0, 1)


def conv3d(inputs, params):
    """b[i][j][k] = sum w(di) w(dj) w(dk) a[i+di][j+dj][k+dk] on the interior; the border is left as it was."""
    a = _f64(inputs["a"])
    w = CONV3D_TAPS.astype(np.float64)
    b = np.array(inputs["b"], copy=True)
    ni, nj, nk = a.shape
    acc = np.zeros((ni - 2, nj - 2, nk - 2))
    for di in range(3):
        for dj in range(3):
            for dk in range(3):
                acc += w[di] * w[dj] * w[dk] * a[di:di + ni - 2, dj:dj + nj - 2, dk:dk + nk - 2]
    b[1:-1, 1:-1, 1:-1] = acc.astype(F32)
    return {"b": b}
