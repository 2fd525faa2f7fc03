"""numpy references for the Parboil kernels, written from each algorithm's mathematical definition.

Each function takes the launch file's inputs (``{arg name: array or scalar}``, copies taken before the launch)
and the size's parameters, and returns ``{output arg name: expected array}``.  Float sums are formed in
float64 and rounded to float32 once; the launch files state the tolerance and why.
"""
from __future__ import annotations

import numpy as np


def sgemm(inp, p):
    """C = alpha * A @ B^T + beta * C with column-major A (m x k), B (n x k), C (m x n)."""
    a = inp["A"].astype(np.float64).T          # stored [k][m]: the m x k matrix is its transpose
    b = inp["B"].astype(np.float64).T          # n x k
    c = inp["C"].astype(np.float64).T          # m x n
    out = float(inp["alpha"]) * (a @ b.T) + float(inp["beta"]) * c
    return {"C": out.T.astype(np.float32)}


def spmv_jds(inp, p):
    """y = A x, with A decoded from the JDS arrays: entry (perm[r], index[jds_ptr[d] + r]) = data[...] for
    every sorted row r and diagonal d below its group's count (padding entries are zero)."""
    n = int(p["rows"])
    ptr, zcnt = inp["jds_ptr_int"], inp["sh_zcnt_int"]
    rows, pos = [], []
    for r0 in range(0, n, 32):
        r = np.arange(r0, min(r0 + 32, n))
        for d in range(int(zcnt[r0 // 32])):
            rows.append(r)
            pos.append(ptr[d] + r)
    rows, pos = np.concatenate(rows), np.concatenate(pos)
    y = np.zeros(n)
    np.add.at(y, inp["d_perm"][rows], inp["d_data"][pos].astype(np.float64)
              * inp["x_vec"][inp["d_index"][pos]].astype(np.float64))
    return {"dst_vector": y.astype(np.float32)}


def stencil(inp, p):
    """Interior: c1 * (sum of the 6 face neighbours) - c0 * centre; the boundary keeps Anext's input (zero)."""
    a = inp["A0"].astype(np.float64)
    c0, c1 = float(inp["c0"]), float(inp["c1"])
    out = inp["Anext"].astype(np.float64).copy()
    nb = (a[2:, 1:-1, 1:-1] + a[:-2, 1:-1, 1:-1] + a[1:-1, 2:, 1:-1] + a[1:-1, :-2, 1:-1]
          + a[1:-1, 1:-1, 2:] + a[1:-1, 1:-1, :-2])
    out[1:-1, 1:-1, 1:-1] = c1 * nb - c0 * a[1:-1, 1:-1, 1:-1]
    return {"Anext": out.astype(np.float32)}


def histo(inp, p):
    """Count of pixels per bin, added to the histogram's input (zero)."""
    nbins = int(p["histo_width"]) * int(p["histo_height"])
    counts = np.bincount(inp["img"].astype(np.int64), minlength=nbins)
    return {"histo": (inp["histo"].astype(np.int64) + counts).astype(np.uint32)}


WHITE = 0


def bfs(inp, p):
    """One BFS level: every WHITE neighbour of a frontier vertex gets the new grey shade and cost
    (frontier cost + 1, the frontier's costs are all equal); the tail grows by the number of such vertices.
    The order of the next queue q2 depends on the order of the atomics and is not compared."""
    nodes, edges = inp["g_graph_nodes"], inp["g_graph_edges"]
    frontier = inp["q1"][: int(inp["no_of_nodes"])].astype(np.int64)
    color, cost = inp["g_color"].copy(), inp["g_cost"].copy()
    nbrs = set()
    for v in frontier:
        first, count = int(nodes[v, 0]), int(nodes[v, 1])
        nbrs.update(int(u) for u in edges[first:first + count, 0])
    new = np.array(sorted(u for u in nbrs if color[u] == WHITE), dtype=np.int64)
    level = int(cost[frontier[0]])
    color[new] = inp["gray_shade"]
    cost[new] = level + 1
    tail = inp["tail"].copy()
    tail[0] += len(new)
    return {"g_color": color, "g_cost": cost, "tail": tail}


def cutcp(inp, p):
    """V(p) += sum over atoms within the cutoff of q / r * (1 - r^2 / c^2)^2 at every lattice point
    (spacing h, origin 0); atoms are the slots with a non-zero charge.  Computed atom by atom over the
    lattice box around it (independent of the kernel's binning)."""
    h, c2 = float(inp["h"]), float(inp["cutoff2"])
    nx, ny, nz = (8 * int(p["bins_x"]), 8 * int(p["bins_y"]), 8 * int(p["bins_z"]))
    atoms = inp["binZeroAddr"].astype(np.float64)
    atoms = atoms[atoms[:, 3] != 0.0]
    v = np.zeros((nz, ny, nx))
    c = np.sqrt(c2)
    for x, y, z, q in atoms:
        lo = [max(0, int(np.floor((t - c) / h))) for t in (x, y, z)]
        hi = [min(n, int(np.ceil((t + c) / h)) + 1) for t, n in zip((x, y, z), (nx, ny, nz))]
        gz, gy, gx = np.meshgrid(np.arange(lo[2], hi[2]) * h - z, np.arange(lo[1], hi[1]) * h - y,
                                 np.arange(lo[0], hi[0]) * h - x, indexing="ij")
        r2 = gx * gx + gy * gy + gz * gz
        s = np.where(r2 < c2, 1.0 - r2 / c2, 0.0)
        v[lo[2]:hi[2], lo[1]:hi[1], lo[0]:hi[0]] += q / np.sqrt(r2) * s * s
    return {"regionZeroAddr": (inp["regionZeroAddr"].astype(np.float64) + v).astype(np.float32)}


def mri_q(inp, p):
    """Qr += sum_k PhiMag_k cos(2 pi k . x), Qi += sum_k PhiMag_k sin(2 pi k . x) over the first numK
    samples of the chunk, for every voxel."""
    ck = inp["ck"].astype(np.float64)[: int(inp["numK"]) - int(inp["kGlobalIndex"])][:1024]
    pos = np.stack([inp["x"], inp["y"], inp["z"]], axis=1).astype(np.float64)
    arg = 2.0 * np.pi * (pos @ ck[:, :3].T)                 # [voxels, k]
    qr = inp["Qr"].astype(np.float64) + np.cos(arg) @ ck[:, 3]
    qi = inp["Qi"].astype(np.float64) + np.sin(arg) @ ck[:, 3]
    return {"Qr": qr.astype(np.float32), "Qi": qi.astype(np.float32)}


def gridding_scatter(inp, p):
    """grid[c] += sum over samples within halfWidth of c (per axis) of w * (real, imag) * sdc, with the
    separable weight w = LUT[q(dz)] * LUT[q(dy)] * LUT[q(dx)], q(d) = floor(d^2 * lutScale).  The window
    bounds and LUT indices are single float32 roundings of the sample position, done here in float32 as the
    definition states them; the sums are float64."""
    n = int(p["grid"])
    f32 = np.float32
    s = inp["samples"]
    hw, scale, lut = f32(inp["halfWidth"]), f32(inp["lutScale"]), inp["kernelLUT"].astype(np.float64)
    half = f32(0.5) * f32(n)
    pos = [s[:, 2 + a] + half for a in range(3)]           # float32 grid coordinates x, y, z
    val = [(s[:, 0] * s[:, 5]).astype(np.float64), (s[:, 1] * s[:, 5]).astype(np.float64)]   # float32 products
    lo = [np.maximum(np.ceil(c - hw).astype(np.int64), 0) for c in pos]
    hi = [np.minimum(np.floor(c + hw).astype(np.int64), n - 1) for c in pos]
    grid = np.zeros((n * n * n, 2))
    span = int(np.ceil(2 * float(hw))) + 1
    weights = []
    for a in range(3):
        w_axis, cells = [], []
        for o in range(span):
            c = lo[a] + o
            d = c.astype(np.float32) - pos[a]
            idx = np.minimum((d * d * scale).astype(np.int64), len(lut) - 1)
            w_axis.append(np.where(c <= hi[a], lut[idx], 0.0))
            cells.append(np.minimum(c, n - 1))
        weights.append((w_axis, cells))
    (wx, cx), (wy, cy), (wz, cz) = weights
    for oz in range(span):
        for oy in range(span):
            for ox in range(span):
                w = wz[oz] * wy[oy] * wx[ox]
                m = w != 0.0
                flat = (cz[oz][m] * n + cy[oy][m]) * n + cx[ox][m]
                np.add.at(grid[:, 0], flat, w[m] * val[0][m])
                np.add.at(grid[:, 1], flat, w[m] * val[1][m])
    out = inp["gridData"].astype(np.float64) + grid.reshape(inp["gridData"].shape)
    return {"gridData": out.astype(np.float32)}



# D3Q19: direction vectors in the kernel's entry order (C N S E W T B NE NW SE SW NT NB ST SB ET EB WT WB)
D3Q19 = np.array([(0, 0, 0), (0, 1, 0), (0, -1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1),
                  (1, 1, 0), (-1, 1, 0), (1, -1, 0), (-1, -1, 0), (0, 1, 1), (0, 1, -1), (0, -1, 1),
                  (0, -1, -1), (1, 0, 1), (1, 0, -1), (-1, 0, 1), (-1, 0, -1)])
D3Q19_W = np.array([1 / 3] + [1 / 18] * 6 + [1 / 36] * 12)


def lbm(inp, p):
    """One D3Q19 BGK step in the flat structure-of-arrays index space: cell c writes entry i at c + offset_i
    (offset = dx + dy*nx + dz*nx*ny) with, for an obstacle, its distribution of the opposite direction
    (bounce-back) and otherwise f_i + omega (feq_i - f_i), feq_i = w_i rho (1 + 3 c_i.u + 4.5 (c_i.u)^2 -
    1.5 u.u), u = momentum / rho or the fixed inflow (0.005, 0.002, 0) on accelerating cells."""
    nx, ny, nz = int(p["nx"]), int(p["ny"]), int(p["nz"])
    src = inp["srcGrid"]
    dst = inp["dstGrid"].astype(np.float64)
    cells = np.arange(2 * nx * ny, 2 * nx * ny + nx * ny * nz)
    f = src[:19, cells].astype(np.float64)                       # [19, cells]
    flags = src[19, cells].view(np.int32)
    rho = f.sum(axis=0)
    u = (D3Q19.T.astype(np.float64) @ f) / rho                   # [3, cells]
    accel = (flags & 2) != 0
    u[:, accel] = np.array([0.005, 0.002, 0.0])[:, None]
    cu = D3Q19.astype(np.float64) @ u                            # [19, cells]
    feq = D3Q19_W[:, None] * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * (u * u).sum(axis=0))
    post = f + 1.95 * (feq - f)
    opposite = [int(np.flatnonzero((D3Q19 == -d).all(axis=1))[0]) for d in D3Q19]
    obstacle = (flags & 1) != 0
    post[:, obstacle] = f[opposite][:, obstacle]
    offset = D3Q19[:, 0] + D3Q19[:, 1] * nx + D3Q19[:, 2] * nx * ny
    for i in range(19):
        dst[i, cells + offset[i]] = post[i]
    return {"dstGrid": dst.astype(np.float32)}


def tpacf(inp, p):
    """histo[k] += number of pairs i < j whose dot product d has exactly k bin boundaries with binb >= d."""
    pts = np.stack([inp["x"], inp["y"], inp["z"]], axis=1).astype(np.float64)
    binb = inp["binb"].astype(np.float64)
    n = len(pts)
    counts = np.zeros(len(binb) + 1, dtype=np.int64)
    for i0 in range(0, n, 1024):
        d = pts[i0:i0 + 1024] @ pts.T                                       # rows i, columns j
        upper = np.arange(n)[None, :] > np.arange(i0, min(n, i0 + 1024))[:, None]
        k = np.searchsorted(-binb, -d[upper], side="right")                 # boundaries with binb >= d
        counts += np.bincount(k, minlength=len(binb) + 1)
    return {"histo": (inp["histo"].astype(np.int64) + counts).astype(np.uint32)}
