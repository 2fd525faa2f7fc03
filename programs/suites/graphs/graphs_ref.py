"""numpy references for the graph kernels, written from each algorithm's definition on the CSR graph.

Each function takes the launch file's inputs (``{arg name: array or scalar}``, copies taken before the launch)
and the size's parameters, and returns ``{output arg name: expected array}``.
"""
from __future__ import annotations

import numpy as np

INF = 0x7FFFFFFF


def _edges(row_start):
    """Source vertex of every CSR edge."""
    return np.repeat(np.arange(len(row_start) - 1), np.diff(row_start))


def bfs_topo(inp, p):
    """Every unvisited (INF) neighbour of a vertex at distance `level` gets level + 1; changed is set if any
    did."""
    dist = inp["dist"].copy()
    src = _edges(inp["row_start"])
    dst = inp["edge_dst"]
    level = int(inp["level"])
    hit = dst[(dist[src] == level) & (dist[dst] == INF)]
    dist[hit] = level + 1
    changed = inp["changed"].copy()
    if hit.size:
        changed[0] = 1
    return {"dist": dist, "changed": changed}


def bfs_wl(inp, p):
    """The INF neighbours of the worklist's vertices get level + 1; out_len grows by their number (their
    order in out_wl follows the atomics and is not compared)."""
    dist = inp["dist"].copy()
    wl = inp["in_wl"][: int(inp["in_len"])]
    rs, ed = inp["row_start"], inp["edge_dst"]
    nbrs = ed[np.concatenate([np.arange(rs[v], rs[v + 1]) for v in wl])] if wl.size else np.zeros(0, np.int64)
    new = np.unique(nbrs[dist[nbrs] == INF])
    dist[new] = int(inp["level"]) + 1
    return {"dist": dist, "out_len": (inp["out_len"] + len(new)).astype(np.int32)}


def sssp(inp, p):
    """dist_out[v] = min(dist_in[v], min over row v's entries (u, w) of dist_in[u] + w)."""
    d = inp["dist_in"].astype(np.int64)
    out = d.copy()
    np.minimum.at(out, _edges(inp["row"]), d[inp["col"]] + inp["weight"])
    return {"dist_out": out.astype(np.int32)}


def pagerank(inp, p):
    """page_rank2[v] += sum over edges (u, v) of page_rank1[u] / outdeg(u)."""
    row = inp["row"]
    deg = np.diff(row).astype(np.float64)
    src = _edges(row)
    pr1 = inp["page_rank1"].astype(np.float64)
    push = np.bincount(inp["col"], weights=pr1[src] / deg[src], minlength=len(pr1))
    return {"page_rank2": (inp["page_rank2"].astype(np.float64) + push).astype(np.float32)}


def color_max(inp, p):
    """For every uncoloured vertex: max_d = the largest value among its uncoloured neighbours (-1 if none);
    stop = 1 if any vertex is uncoloured."""
    row, col, color, value = inp["row"], inp["col"], inp["color_array"], inp["node_value"]
    src = _edges(row)
    live = color[col] == -1
    m = np.full(len(color), -1, dtype=np.int64)
    np.maximum.at(m, src[live], value[col[live]].astype(np.int64))
    max_d = np.where(color == -1, m, inp["max_d"]).astype(np.int32)
    stop = inp["stop"].copy()
    if (color == -1).any():
        stop[0] = 1
    return {"max_d": max_d, "stop": stop}


def floyd_warshall(inp, p):
    """dist[i][j] = min(dist[i][j], dist[i][k] + dist[k][j])."""
    d = inp["dist"].astype(np.int64)
    k = int(inp["k"])
    return {"dist": np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :]).astype(np.int32)}


def triangle_count(inp, p):
    """total += number of triangles: for every oriented edge (u, v), |N+(u) & N+(v)|, counted with a
    sparse adjacency-matrix product (A^2 restricted to the edges of A)."""
    row, dst = inp["row_start"].astype(np.int64), inp["edge_dst"].astype(np.int64)
    n = len(row) - 1
    src = np.repeat(np.arange(n), np.diff(row))
    # paths u -> v -> w, looked up among the edges u -> w
    lens = row[dst + 1] - row[dst]
    mid_start = np.repeat(row[dst], lens)
    offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
    u = np.repeat(src, lens)
    w = dst[mid_start + offs]
    edge_keys = np.sort(src * n + dst)
    keys = u * n + w
    pos = np.minimum(np.searchsorted(edge_keys, keys), len(edge_keys) - 1)
    triangles = int(np.count_nonzero(edge_keys[pos] == keys))
    return {"total": (inp["total"] + np.uint64(triangles)).astype(np.uint64)}
