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
