"""bfs: breadth-first search on a random graph, one kernel launch per level until a level adds nothing.

The host reads a one-word flag after every level (the data-dependent loop of a real BFS), then a histogram
kernel counts the vertices per level.
Run:  python examples/apps/bfs.py [--size small|medium|large] [--sim]
"""
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import HERE, KernelTimer, backend_name, finish, parser, want_sim  # noqa: E402

if want_sim():
    import gpusim.cupy as cupy
else:
    import cupy

import numpy as np  # noqa: E402

SIZES = {"small": {"vertices": 2000, "degree": 3, "seed": 1},
         "medium": {"vertices": 50000, "degree": 4, "seed": 1},
         "large": {"vertices": 2000000, "degree": 6, "seed": 1}}
THREADS = 128
BINS = 64


def graph(vertices: int, degree: int, seed: int):
    """A random directed graph in CSR form (int32 row starts and adjacency), made with numpy so that both
    backends search the same graph.  Edges go to random vertices, and each vertex also links to a vertex a
    few places on, so most of the graph is reachable from vertex 0 in a few dozen levels."""
    rng = np.random.default_rng(seed)
    src = np.concatenate([np.repeat(np.arange(vertices), degree), np.arange(vertices)])
    dst = np.concatenate([rng.integers(0, vertices, vertices * degree),
                          (np.arange(vertices) + 1 + rng.integers(0, 3, vertices)) % vertices])
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    row_start = np.zeros(vertices + 1, dtype=np.int32)
    np.add.at(row_start, src + 1, 1)
    return np.cumsum(row_start, dtype=np.int32), dst.astype(np.int32)


def run(vertices: int, degree: int, seed: int, timer=None):
    mod = cupy.RawModule(path=str(HERE / "bfs.ptx"))
    level_kernel = mod.get_function("bfs_level")
    histogram = mod.get_function("level_histogram")
    timer = timer or KernelTimer(cupy)
    row_start, adjacent = graph(vertices, degree, seed)
    d_row, d_adj = cupy.asarray(row_start), cupy.asarray(adjacent)
    level = cupy.full(vertices, -1, dtype=cupy.int32)
    level[0] = 0
    grew = cupy.zeros(1, dtype=cupy.int32)
    grid = ((vertices + THREADS - 1) // THREADS,)
    depth = 0
    while True:
        grew.fill(0)
        timer.launch("bfs_level", level_kernel, grid, (THREADS,),
                     (d_row, d_adj, level, np.int32(depth), np.int32(vertices), grew))
        if int(grew.get()[0]) == 0:
            break
        depth += 1
    counts = cupy.zeros(BINS, dtype=cupy.int32)
    timer.launch("level_histogram", histogram, (min(grid[0], 64),), (THREADS,),
                 (level, np.int32(vertices), np.int32(BINS), counts))
    return {"level": cupy.asnumpy(level), "counts": cupy.asnumpy(counts),
            "depth": np.array([depth], dtype=np.int32)}, timer


def reference(vertices: int, degree: int, seed: int) -> dict:
    """The same search level by level in numpy."""
    row_start, adjacent = graph(vertices, degree, seed)
    level = np.full(vertices, -1, dtype=np.int32)
    level[0] = 0
    depth = 0
    while True:
        frontier = np.flatnonzero(level == depth)
        nbrs = np.concatenate([adjacent[row_start[v]:row_start[v + 1]] for v in frontier]) if frontier.size else \
            np.zeros(0, np.int32)
        new = np.unique(nbrs[level[nbrs] < 0])
        if new.size == 0:
            break
        level[new] = depth + 1
        depth += 1
    counts = np.zeros(BINS, dtype=np.int32)
    binned = np.where((level < 0) | (level >= BINS - 1), BINS - 1, level)
    np.add.at(counts, binned, 1)
    return {"level": level, "counts": counts, "depth": np.array([depth], dtype=np.int32)}


def main(argv=None) -> int:
    args = parser(__doc__, SIZES).parse_args(argv)
    params = SIZES[args.size]
    outputs, timer = run(**params)
    finish("bfs", args.size, params, outputs, timer, backend_name(cupy), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
