"""Seeded inputs for the graph kernels: a synthetic graph from graph_gen (R-MAT or uniform random, CSR)
and the algorithm state at the start of the representative launch, computed on the host.
Each is ``func(params, rng) -> {arg name: array or scalar}``; sizes give ``graph`` ("rmat" or "uniform"),
``scale`` (2^scale vertices) and ``degree`` (R-MAT edge factor, or mean degree).
"""
from __future__ import annotations

import numpy as np

from graph_gen import bfs_queues, rmat_graph, source_vertex, uniform_graph

INF = 0x7FFFFFFF


def graph(p, rng):
    """The size's graph as CSR (row_start int32[n + 1], edge_dst int32[m])."""
    if p["graph"] == "rmat":
        return rmat_graph(int(p["scale"]), int(p["degree"]), rng)
    return uniform_graph(1 << int(p["scale"]), float(p["degree"]), rng)


def bfs_level_state(p, rng):
    """Graph, BFS distances at the start of the widest level (vertices beyond it at INF), that level, and
    its frontier in discovery order (for the data-driven BFS's worklist)."""
    row_start, edge_dst = graph(p, rng)
    n = len(row_start) - 1
    level, queues = bfs_queues(row_start, edge_dst, source_vertex(row_start))
    L = int(np.argmax([len(q) for q in queues]))
    dist = np.where((level >= 0) & (level <= L), level, INF).astype(np.int32)
    wl = np.zeros(n, dtype=np.int32)
    wl[:len(queues[L])] = queues[L]
    return {"row_start": row_start, "edge_dst": edge_dst, "dist": dist, "level": np.int32(L),
            "in_wl": wl, "in_len": np.int32(len(queues[L]))}


SSSP_INF = (1 << 30) - 1


def sssp_state(p, rng):
    """Graph with edge weights 1..100 and the distances after ``rounds`` Bellman-Ford rounds from the
    highest-degree vertex (the state of a round in the middle of the computation)."""
    row, col = graph(p, rng)
    weight = rng.integers(1, 101, col.size).astype(np.int32)
    dist = np.full(len(row) - 1, SSSP_INF, dtype=np.int64)
    dist[source_vertex(row)] = 0
    dst = np.repeat(np.arange(len(row) - 1), np.diff(row))
    for _ in range(int(p["rounds"])):
        new = dist.copy()
        np.minimum.at(new, dst, dist[col] + weight)
        dist = np.minimum(new, SSSP_INF)
    return {"row": row, "col": col, "weight": weight, "dist_in": dist.astype(np.int32)}


def pagerank_state(p, rng):
    """Graph and the ranks after ``iters`` PageRank iterations (damping 0.85) from the uniform 1/n (vertices
    without edges keep (1 - d) / n)."""
    row, col = graph(p, rng)
    n = len(row) - 1
    deg = np.diff(row).astype(np.float64)
    src = np.repeat(np.arange(n), np.diff(row))
    rank = np.full(n, 1.0 / n)
    for _ in range(int(p["iters"])):
        nxt = np.bincount(col, weights=rank[src] / deg[src], minlength=n)
        rank = 0.15 / n + 0.85 * nxt
    return {"row": row, "col": col, "page_rank1": rank.astype(np.float32)}


def color_state(p, rng):
    """Graph, distinct random vertex values, and the colours after ``rounds`` rounds of max colouring
    (round r colours every uncoloured vertex whose value exceeds all its uncoloured neighbours' with r)."""
    row, col = graph(p, rng)
    n = len(row) - 1
    value = rng.permutation(n).astype(np.int64)
    color = np.full(n, -1, dtype=np.int64)
    src = np.repeat(np.arange(n), np.diff(row))
    for r in range(int(p["rounds"])):
        live = (color[src] == -1) & (color[col] == -1)
        nbr_max = np.full(n, -1, dtype=np.int64)
        np.maximum.at(nbr_max, src[live], value[col[live]])
        color[(color == -1) & (value > nbr_max)] = r
    return {"row": row, "col": col, "node_value": value.astype(np.int32), "color_array": color.astype(np.int32)}


FW_INF = (1 << 29) - 1      # INF + INF does not overflow


def fw_matrix(p, rng):
    """Dense distance matrix of a uniform random directed graph (``degree`` out-edges per vertex, weights
    1..100, 0 on the diagonal, INF elsewhere) after the first ``k`` pivots of Floyd-Warshall."""
    n, k = int(p["n"]), int(p["k"])
    d = np.full((n, n), FW_INF, dtype=np.int32)
    src = np.repeat(np.arange(n), int(p["degree"]))
    dst = rng.integers(0, n, src.size)
    d[src, dst] = rng.integers(1, 101, src.size)
    np.fill_diagonal(d, 0)
    for pivot in range(k):
        np.minimum(d, d[:, pivot:pivot + 1] + d[pivot:pivot + 1, :], out=d)
    return {"dist": d}


def oriented_graph(p, rng):
    """The size's graph oriented from lower to higher vertex id: CSR (row_start, sorted edge_dst) of the
    edges u -> v with u < v, and edge_src, the source of every oriented edge."""
    row, col = graph(p, rng)
    src = np.repeat(np.arange(len(row) - 1), np.diff(row))
    keep = col > src                                   # CSR rows are sorted, so the kept lists stay sorted
    src, dst = src[keep], col[keep]
    row_start = np.zeros(len(row), dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=len(row) - 1), out=row_start[1:])
    return {"row_start": row_start.astype(np.int32), "edge_dst": dst.astype(np.int32),
            "edge_src": src.astype(np.int32), "m": np.int32(dst.size)}
