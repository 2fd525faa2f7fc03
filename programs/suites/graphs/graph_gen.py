"""Seeded synthetic graphs for the graph kernels (and Parboil's BFS), in CSR form, and the host-side
algorithm steps that produce a representative launch's state (a BFS frontier, SSSP distances, ...).

Generators follow the suites' inputs: R-MAT (Chakrabarti et al.; the Graph500 / GTgraph parameters
a = 0.57, b = c = 0.19) for the power-law graphs Lonestar and Pannotia run, and uniform random graphs
(Erdos-Renyi-like, GTgraph "random") for the road-network-like and random inputs.  Graphs are made
undirected (each edge in both directions), without self-loops or duplicate edges; CSR ``row_ptr`` has n + 1
entries and ``col`` is sorted within each row.
"""
from __future__ import annotations

import numpy as np


def csr_from_edges(n: int, src: np.ndarray, dst: np.ndarray, undirected: bool = True):
    """CSR (row_ptr int32[n + 1], col int32[m]) of the edge list, symmetrised if ``undirected``, with
    self-loops and duplicates removed and every row sorted."""
    src = src.astype(np.int64)
    dst = dst.astype(np.int64)
    if undirected:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    keep = src != dst
    key = sorted_unique(src[keep] * n + dst[keep])
    s, d = key // n, key % n
    row_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(s, minlength=n), out=row_ptr[1:])
    return row_ptr.astype(np.int32), d.astype(np.int32)


def uniform_graph(n: int, avg_degree: float, rng: np.random.Generator):
    """Uniform random undirected graph: n * avg_degree / 2 edges with uniformly random endpoints."""
    m = int(n * avg_degree / 2)
    return csr_from_edges(n, rng.integers(0, n, m), rng.integers(0, n, m))


def rmat_graph(scale: int, edge_factor: int, rng: np.random.Generator, a=0.57, b=0.19, c=0.19):
    """R-MAT graph of 2**scale vertices and edge_factor * 2**scale generated edges (before symmetrising and
    removing duplicates); vertex ids are randomly permuted so that degree does not follow the id."""
    n = 1 << scale
    m = edge_factor * n
    src = np.zeros(m, dtype=np.int64)
    dst = np.zeros(m, dtype=np.int64)
    for bit in range(scale):
        r = rng.random(m)
        down = r >= a + b                     # quadrants c and d: source bit set
        right = ((r >= a) & (r < a + b)) | (r >= a + b + c)   # quadrants b and d: destination bit set
        src |= down.astype(np.int64) << bit
        dst |= right.astype(np.int64) << bit
    perm = rng.permutation(n)
    return csr_from_edges(n, perm[src], perm[dst])


def expand_ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Concatenation of arange(s, e) for every (s, e) pair, vectorised."""
    lens = ends - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offs = np.repeat(starts - np.r_[0, np.cumsum(lens)[:-1]], lens)
    return np.arange(total, dtype=np.int64) + offs


def source_vertex(row_ptr: np.ndarray) -> int:
    """A deterministic source in the big component: the vertex of highest degree."""
    return int(np.argmax(np.diff(row_ptr)))


def sorted_unique(x: np.ndarray) -> np.ndarray:
    """np.unique for 1-D integer arrays through one sort (np.unique is far slower on large int64 arrays)."""
    x = np.sort(x)
    if x.size == 0:
        return x
    return x[np.r_[True, x[1:] != x[:-1]]]


def first_occurrences(x: np.ndarray) -> np.ndarray:
    """The distinct values of x in the order of their first occurrence."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    first = np.r_[True, xs[1:] != xs[:-1]] if xs.size else np.zeros(0, dtype=bool)
    return x[np.sort(order[first])]


def bfs_queues(row_ptr: np.ndarray, col: np.ndarray, source: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """BFS levels and, per level, the frontier queue in the order a queue-based BFS discovers it when the
    previous queue is scanned in order (each vertex at its first discovery)."""
    n = len(row_ptr) - 1
    level = np.full(n, -1, dtype=np.int64)
    level[source] = 0
    queues = [np.array([source], dtype=np.int64)]
    while True:
        q = queues[-1]
        nbrs = col[expand_ranges(row_ptr[q].astype(np.int64), row_ptr[q + 1].astype(np.int64))].astype(np.int64)
        nbrs = first_occurrences(nbrs[level[nbrs] < 0])
        if nbrs.size == 0:
            return level, queues
        level[nbrs] = len(queues)
        queues.append(nbrs)
