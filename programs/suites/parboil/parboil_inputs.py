"""Seeded input builders for the Parboil kernels whose inputs are data structures rather than plain arrays
(``fill = "python"`` in their launch files).  Each is ``func(params, rng) -> {arg or symbol name: array}``.
"""
from __future__ import annotations

import numpy as np

MAX_JDS_DIAGONALS = 1024     # the __constant__ array sizes in spmv_jds.cu
MAX_JDS_GROUPS = 8192


def jds_matrix(p, rng):
    """A finite-element-like sparse matrix (rows of ~``nnz_row`` non-zeros around the diagonal, a band of
    width ~``band``) in Parboil's padded JDS layout, plus the vector x.

    The sparsity pattern is fixed per size (drawn from a generator seeded by the size's parameters, as the
    suite's matrices are fixed files), so that the constant-memory tables (``[symbols]``, which the loader
    fills from a stream of their own) agree with the arrays; the values and x come from ``rng``.

    Rows are sorted by decreasing length (``perm`` maps sorted row -> original row); group g of 32 sorted rows
    needs ``sh_zcnt_int[g]`` diagonals (its longest row); diagonal d covers the first 32 * (groups needing
    more than d diagonals) sorted rows, padded with zero values and column 0.
    """
    n, mean, band = int(p["rows"]), float(p["nnz_row"]), int(p["band"])
    pattern = np.random.default_rng([n, band])
    lens = np.clip(np.rint(pattern.normal(mean, mean / 3.0, size=n)), 1, 4 * mean).astype(np.int64)
    # a few dense rows, as coupling rows in FEM matrices
    heavy = pattern.random(n) < 0.002
    lens[heavy] = np.minimum(lens[heavy] * 4, MAX_JDS_DIAGONALS - 1)
    row_of = np.repeat(np.arange(n), lens)
    first = np.r_[0, np.cumsum(lens)[:-1]]
    slot = np.arange(row_of.size) - np.repeat(first, lens)
    offs = np.rint(pattern.normal(0.0, band, size=row_of.size)).astype(np.int64)
    offs[slot == 0] = 0                                   # every row has its diagonal entry
    cols = (row_of + offs) % n
    vals = rng.uniform(0.0, 1.0, size=row_of.size)

    perm = np.argsort(-lens, kind="stable")
    groups = -(-n // 32)
    padded = np.zeros(groups * 32, dtype=np.int64)
    padded[:n] = lens[perm]
    zcnt = padded.reshape(groups, 32).max(axis=1)
    ndiag = int(zcnt.max())
    if ndiag > MAX_JDS_DIAGONALS or groups > MAX_JDS_GROUPS:
        raise ValueError("spmv_jds: matrix exceeds the kernel's constant tables")
    diag_len = np.array([32 * int(np.count_nonzero(zcnt > d)) for d in range(ndiag)], dtype=np.int64)
    jds_ptr = np.r_[0, np.cumsum(diag_len)[:-1]]

    rank = np.empty(n, dtype=np.int64)
    rank[perm] = np.arange(n)                            # sorted position of each original row
    pos = jds_ptr[slot] + rank[row_of]
    total = int(diag_len.sum())
    data = np.zeros(total, dtype=np.float32)
    index = np.zeros(total, dtype=np.int32)
    data[pos] = vals
    index[pos] = cols

    ptr_sym = np.zeros(MAX_JDS_DIAGONALS, dtype=np.int32)
    ptr_sym[:ndiag] = jds_ptr
    zcnt_sym = np.zeros(MAX_JDS_GROUPS, dtype=np.int32)
    zcnt_sym[:groups] = zcnt
    return {"d_data": data, "d_index": index, "d_perm": perm.astype(np.int32),
            "x_vec": rng.uniform(0.0, 1.0, size=n).astype(np.float32),
            "jds_ptr_int": ptr_sym, "sh_zcnt_int": zcnt_sym}


def histo_image(p, rng):
    """An image of bin indices concentrated like the suite's input: most pixels in a 2D Gaussian blob around
    the histogram's centre (a few hot bins), the rest uniform over all bins."""
    w, h = int(p["histo_width"]), int(p["histo_height"])
    n = int(p["img_width"]) * int(p["img_height"])
    hot = rng.random(n) < 0.75
    x = np.where(hot, rng.normal(w / 2, w / 16, n), rng.uniform(0, w, n))
    y = np.where(hot, rng.normal(h / 2, h / 16, n), rng.uniform(0, h, n))
    x = np.clip(x, 0, w - 1).astype(np.int64)
    y = np.clip(y, 0, h - 1).astype(np.int64)
    return {"img": (y * w + x).astype(np.uint32)}


def _graph_gen():
    """The shared graph generators of programs/suites/graphs (imported by path: launch-file helpers are
    loaded as files, not as a package)."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "graphs" / "graph_gen.py"
    spec = importlib.util.spec_from_file_location("suites_graph_gen", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BFS_GRAY0, BFS_GRAY1 = 1, 2    # WHITE is 0 in bfs.cu; levels alternate between the two grey shades
BFS_INF = 2147483647


def bfs_state(p, rng):
    """A uniform random graph (``nodes`` vertices, mean degree ``degree``) in Parboil's layout (nodes
    {first edge, count}, edges {destination, cost}) and the BFS state at the start of its widest level:
    the frontier queue q1 in discovery order, colours (visited vertices grey by level parity), costs."""
    gg = _graph_gen()
    n = int(p["nodes"])
    row_ptr, col = gg.uniform_graph(n, float(p["degree"]), rng)
    level, queues = gg.bfs_queues(row_ptr, col, gg.source_vertex(row_ptr))
    L = int(np.argmax([len(q) for q in queues]))
    nodes = np.stack([row_ptr[:-1], np.diff(row_ptr)], axis=1).astype(np.int32)
    edges = np.stack([col, rng.integers(1, 100, col.size)], axis=1).astype(np.int32)
    visited = (level >= 0) & (level <= L)
    color = np.where(visited, np.where(level % 2 == 0, BFS_GRAY0, BFS_GRAY1), 0).astype(np.int32)
    cost = np.where(visited, level, BFS_INF).astype(np.int32)
    q1 = np.zeros(n, dtype=np.int32)
    q1[:len(queues[L])] = queues[L]
    return {"q1": q1, "g_graph_nodes": nodes, "g_graph_edges": edges, "g_color": color, "g_cost": cost,
            "no_of_nodes": np.int32(len(queues[L])),
            "gray_shade": np.int32(BFS_GRAY0 if (L + 1) % 2 == 0 else BFS_GRAY1)}


CUTCP_BIN_LENGTH = 4.0      # A: 8 lattice spacings of 0.5 A (REGION in cutcp.cu)
CUTCP_BIN_DEPTH = 8
CUTCP_NBRLIST_MAXLEN = 343


def cutcp_neighbour_offsets(cutoff: float = 12.0) -> np.ndarray:
    """Bin offsets (dx, dy, dz) whose bin may hold an atom within ``cutoff`` of a point of the region bin:
    along each axis the gap between the two cubes is at least (|d| - 1) bin lengths."""
    r = int(np.ceil(cutoff / CUTCP_BIN_LENGTH))
    d = np.array(np.meshgrid(*[np.arange(-r, r + 1)] * 3, indexing="ij")).reshape(3, -1).T
    gap = np.maximum(np.abs(d) - 1, 0) * CUTCP_BIN_LENGTH
    return d[(gap ** 2).sum(axis=1) < cutoff ** 2]


def cutcp_atoms(p, rng):
    """Water-box-like atoms (4 to 8 per 4 A bin, about 0.1 atoms per cubic A, charges of O -0.834 and
    H +0.417) already binned: ``bins`` x BIN_DEPTH float4 slots, empty slots far away with no charge."""
    bx, by, bz = int(p["bins_x"]), int(p["bins_y"]), int(p["bins_z"])
    nbins = bx * by * bz
    count = rng.integers(4, CUTCP_BIN_DEPTH + 1, size=nbins)
    slots = np.zeros((nbins, CUTCP_BIN_DEPTH, 4), dtype=np.float32)
    slots[:, :, :3] = -1000.0
    k, j, i = np.unravel_index(np.arange(nbins), (bz, by, bx))
    corner = np.stack([i, j, k], axis=1) * CUTCP_BIN_LENGTH
    for s in range(CUTCP_BIN_DEPTH):
        used = count > s
        pos = corner[used] + rng.uniform(0.0, CUTCP_BIN_LENGTH, size=(int(used.sum()), 3))
        slots[used, s, :3] = pos
        slots[used, s, 3] = rng.choice([-0.834, 0.417, 0.417], size=int(used.sum()))
    return {"binZeroAddr": slots.reshape(nbins * CUTCP_BIN_DEPTH, 4)}


def cutcp_neighbour_list(p, rng):
    """The constant symbol NbrList (the neighbour-bin offsets for the size's cutoff, zero-padded to
    NBRLIST_MAXLEN) and its length nbrlistlen."""
    offs = cutcp_neighbour_offsets(float(p["cutoff"]))
    nbr = np.zeros((CUTCP_NBRLIST_MAXLEN, 3), dtype=np.int32)
    nbr[:len(offs)] = offs
    return {"NbrList": nbr, "nbrlistlen": np.int32(len(offs))}


def mri_k_space(p, rng):
    """One constant-memory chunk of k-space samples {Kx, Ky, Kz, PhiMag}: k uniform in [-0.5, 0.5)^3 cycles
    per unit, PhiMag = phiR^2 + phiI^2 with phiR, phiI uniform in [-1, 1) (the suite's ComputePhiMag)."""
    k = rng.uniform(-0.5, 0.5, size=(1024, 3))
    phi = rng.uniform(-1.0, 1.0, size=(1024, 2))
    ck = np.zeros((1024, 4), dtype=np.float32)
    ck[:, :3] = k
    ck[:, 3] = (phi ** 2).sum(axis=1)
    return {"ck": ck}


GRIDDING_LUT_SIZE = 257          # squared distances 0 .. halfWidth^2 at lutScale = 256 / halfWidth^2


def gridding_samples(p, rng):
    """3D radial k-space trajectory (``spokes`` lines through the centre, ``per_spoke`` samples each, in grid
    units within 0.45 of the grid size of the centre) as ReconstructionSample {real, imag, kX, kY, kZ, sdc}
    records, density compensation sdc ~ r^2; and the Kaiser-Bessel lookup table, normalised to 1 at the
    centre, for a kernel of width 2 * halfWidth on a twice-oversampled grid (beta after Beatty et al.)."""
    n, spokes, per = int(p["grid"]), int(p["spokes"]), int(p["per_spoke"])
    d = rng.normal(size=(spokes, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    r = np.linspace(-0.45 * n, 0.45 * n, per)
    k = (d[:, None, :] * r[None, :, None]).reshape(-1, 3)
    rr = np.abs(np.repeat(r[None, :], spokes, axis=0).ravel())
    s = np.zeros((spokes * per, 6), dtype=np.float32)
    s[:, 0:2] = rng.uniform(-1.0, 1.0, size=(spokes * per, 2))
    s[:, 2:5] = k
    s[:, 5] = (rr * rr + 0.25) / (0.45 * n) ** 2
    width = 2.0 * float(p["halfWidth"])
    beta = np.pi * np.sqrt((width / 2.0) ** 2 * (2.0 - 0.5) ** 2 - 0.8)
    d2 = np.arange(GRIDDING_LUT_SIZE) / (256.0 / float(p["halfWidth"]) ** 2)
    arg = np.clip(1.0 - d2 / (width / 2.0) ** 2, 0.0, None)
    lut = (np.i0(beta * np.sqrt(arg)) / np.i0(beta)).astype(np.float32)     # 1 at distance 0
    return {"samples": s, "kernelLUT": lut}


# D3Q19 weights in lbm.cu's entry order: rest, six faces, twelve edges
LBM_WEIGHTS = np.array([1 / 3] + [1 / 18] * 6 + [1 / 36] * 12)
LBM_OBSTACLE, LBM_ACCEL = 1, 2


def lbm_grids(p, rng):
    """Source and destination grids (structure of arrays, 20 entries x (nz + 4) planes, flags in entry 19
    as int bits): a box channel with obstacle walls, 2% random obstacle cells inside (a porous medium), an
    accelerating inflow plane at z = 1, and distributions near the rest equilibrium."""
    nx, ny, nz = int(p["nx"]), int(p["ny"]), int(p["nz"])
    total = nx * ny * (nz + 4)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    wall = (x == 0) | (x == nx - 1) | (y == 0) | (y == ny - 1) | (z == 0) | (z == nz - 1)
    flags = np.where(wall | (rng.random(wall.shape) < 0.02), LBM_OBSTACLE, 0)
    flags = np.where((flags == 0) & (z == 1), LBM_ACCEL, flags).astype(np.int32).ravel()
    src = np.zeros((20, total), dtype=np.float32)
    dst = np.zeros((20, total), dtype=np.float32)
    domain = slice(2 * nx * ny, 2 * nx * ny + nx * ny * nz)
    src[:19, domain] = (LBM_WEIGHTS[:, None] * (1.0 + rng.uniform(-0.01, 0.01, size=(19, nx * ny * nz))))
    src[19, domain] = flags.view(np.float32)
    dst[19, domain] = flags.view(np.float32)
    return {"srcGrid": src, "dstGrid": dst}


def tpacf_points(p, rng):
    """A clustered catalogue on a patch of sky (``clusters`` centres within 20 degrees of a pole, points
    scattered about them by ~1 degree), as float32 unit vectors."""
    n = int(p["n"])
    nc = int(p["clusters"])
    deg = np.pi / 180.0
    c_theta = np.arccos(rng.uniform(np.cos(20 * deg), 1.0, nc))
    c_phi = rng.uniform(0.0, 2 * np.pi, nc)
    which = rng.integers(0, nc, n)
    theta = np.abs(c_theta[which] + rng.normal(0.0, 1.0 * deg, n))
    phi = c_phi[which] + rng.normal(0.0, 1.0 * deg, n) / np.maximum(np.sin(theta), 1e-3)
    xyz = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)])
    return {"x": xyz[0].astype(np.float32), "y": xyz[1].astype(np.float32), "z": xyz[2].astype(np.float32)}


def tpacf_bins(p, rng):
    """The constant symbol binb: cosines of the NUM_BINS + 1 = 21 angular bin boundaries, 5 per decade
    from 1 to 10,000 arcminutes."""
    arcmin = 10.0 ** (np.arange(21) / 5.0)
    return {"binb": np.cos(np.radians(arcmin / 60.0))}
