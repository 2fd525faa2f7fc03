"""Seeded input builders for the SHOC kernels of the validation corpus (``fill = "python"`` in the launch
files): each is ``func(params, rng) -> {argument name: numpy array}``, called once per (size, seed)."""
from __future__ import annotations

import numpy as np


def _random_rows(dim: int, density: float, rng) -> list[np.ndarray]:
    """The sorted column indices of each row of a dim x dim matrix whose entries are nonzero independently
    with probability ``density`` (SHOC's random sparse matrix: 1% of the entries, uniformly placed)."""
    lengths = rng.binomial(dim, density, size=dim)
    return [np.sort(rng.choice(dim, size=int(n), replace=False)) for n in lengths]


def csr_matrix(params, rng):
    """A random sparse matrix in CSR form: ``val`` (float32 in [0, 1)), ``cols``, ``rowDelimiters``."""
    rows = _random_rows(params["dim"], params["density"], rng)
    lengths = np.array([len(r) for r in rows])
    delimiters = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    cols = np.concatenate(rows).astype(np.int32)
    val = rng.uniform(0.0, 1.0, size=cols.size).astype(np.float32)
    return {"val": val, "cols": cols, "rowDelimiters": delimiters}


def ellpackr_matrix(params, rng):
    """The same kind of random matrix in ELLPACK-R form: ``val`` and ``cols`` column-major and padded to the
    longest row (entry k of row r at k * dim + r; padding is value 0 at column 0), ``rowLengths``."""
    dim = params["dim"]
    rows = _random_rows(dim, params["density"], rng)
    lengths = np.array([len(r) for r in rows], dtype=np.int32)
    width = int(lengths.max())
    cols = np.zeros((width, dim), dtype=np.int32)
    val = np.zeros((width, dim), dtype=np.float32)
    for r, c in enumerate(rows):
        cols[:len(c), r] = c
        val[:len(c), r] = rng.uniform(0.0, 1.0, size=len(c))
    return {"val": val.ravel(), "cols": cols.ravel(), "rowLengths": lengths}


def md5_key(index: int, byte_length: int, vals_per_byte: int) -> bytes:
    """The key of ``index`` in SHOC's MD5Hash key space: byte i is digit i (least significant first) of
    ``index`` in base ``vals_per_byte``."""
    key = []
    for _ in range(byte_length):
        key.append(index % vals_per_byte)
        index //= vals_per_byte
    return bytes(key)


def md5_target(params, rng):
    """``searchDigest``: the MD5 digest (four little-endian 32-bit words) of a key drawn uniformly from the
    key space."""
    import hashlib
    keyspace = params["valsPerByte"] ** params["byteLength"]
    index = int(rng.integers(0, keyspace))
    digest = hashlib.md5(md5_key(index, params["byteLength"], params["valsPerByte"])).digest()
    return {"searchDigest": np.frombuffer(digest, dtype="<u4").astype(np.uint32)}


def md_system(params, rng):
    """Atoms on a jittered cubic lattice (spacing 1.5, each coordinate displaced by up to +-0.05, so no pair
    lies within 0.07 of the cutoff 4 and the cutoff test is never a rounding question) and SHOC's neighbour
    list of neighCount = 128 entries per atom, stored neighbour-major (entry j of atom i at j * inum + i).

    The neighbours of an atom are the 128 lattice sites nearest to it (periodic in the site indices, so the
    wrapped ones at the faces are far away in space and fall outside the cutoff), listed in a random order;
    about 80 of them are within the cutoff.  The atoms are numbered in a random order, as SHOC's randomly
    placed atoms are, so neighbour positions are gathered from scattered addresses.
    Returns ``position`` (inum x 4 float32, w = 0) and ``neighList``."""
    lx, ly, lz, count = params["lx"], params["ly"], params["lz"], params["neighCount"]
    inum = lx * ly * lz
    r = np.arange(-4, 5)
    off = np.stack(np.meshgrid(r, r, r, indexing="ij"), axis=-1).reshape(-1, 3)
    off = off[np.any(off != 0, axis=1)]
    order = np.lexsort((off[:, 2], off[:, 1], off[:, 0], (off ** 2).sum(axis=1)))
    off = off[order[:count]]                                         # the 128 nearest lattice offsets
    site = np.stack(np.meshgrid(np.arange(lx), np.arange(ly), np.arange(lz), indexing="ij"), axis=-1).reshape(-1, 3)
    perm = rng.permutation(inum)                                     # atom number of each site
    pos = site * 1.5 + rng.uniform(-0.05, 0.05, size=site.shape)
    position = np.zeros((inum, 4), dtype=np.float32)
    position[perm, :3] = pos
    nb_site = (site[:, None, :] + off[None, :, :]) % np.array([lx, ly, lz])
    nb_atom = perm[(nb_site[..., 0] * ly + nb_site[..., 1]) * lz + nb_site[..., 2]]   # [site, j]
    nb_atom = rng.permuted(nb_atom, axis=1)
    neigh = np.empty((count, inum), dtype=np.int32)
    neigh[:, perm] = nb_atom.T
    return {"position": position, "neighList": neigh.ravel()}


UNVISITED = 0xFFFFFFFF


def bfs_graph(params, rng):
    """An undirected graph in CSR form (``edgeArray``: numVertices + 1 offsets, ``edgeArrayAux``: the
    neighbours, sorted) and ``levels`` as a level-synchronous BFS from vertex 0 leaves them just before the
    launch for level ``curr``: the level of every vertex reached by then, UNVISITED for the rest.

    ``kway = 1``: SHOC's graph, a k-way tree of k = degree (vertex v's children are k v + 1 ... k v + k), so a
    level is a contiguous range of vertices; ``kway = 0``: a uniform random graph of numVertices * degree / 2
    edges with uniformly drawn end points (self loops and repeats dropped), irregular gathers."""
    n, k, curr = params["numVertices"], params["degree"], params["curr"]
    if params["kway"]:
        child = np.arange(1, n)
        src, dst = (child - 1) // k, child
    else:
        src = rng.integers(0, n, size=n * k // 2)
        dst = rng.integers(0, n, size=n * k // 2)
        keep = src != dst
        src, dst = src[keep], dst[keep]
    key = np.sort(np.concatenate([src * n + dst, dst * n + src]))   # both directions, by source then neighbour
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]
    src, dst = key // n, key % n
    offsets = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    levels = np.full(n, UNVISITED, dtype=np.uint32)
    levels[0] = 0
    frontier = np.array([0])
    for level in range(curr):
        counts = offsets[frontier + 1] - offsets[frontier]
        first = np.repeat(offsets[frontier] - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
        reached = np.zeros(n, dtype=bool)
        reached[dst[first + np.arange(counts.sum())]] = True
        frontier = np.flatnonzero(reached & (levels == UNVISITED))
        levels[frontier] = level + 1
    return {"levels": levels, "edgeArray": offsets.astype(np.uint32), "edgeArrayAux": dst.astype(np.uint32)}


def _block_sorted_keys(params, rng):
    """Random 32-bit keys, each block's 2 * 256 of them stably sorted by the 4-bit digit at startbit (what
    the local-sort step of a radix pass leaves), and the values: each key's index before that sort."""
    n, shift = params["n"], params["startbit"]
    keys = rng.integers(0, 2 ** 32, size=n, dtype=np.uint32)
    digit = (keys >> np.uint32(shift)) & np.uint32(0xF)
    order = np.lexsort((digit, np.arange(n) // 512))               # by block, then digit, stable
    return keys[order], order.astype(np.uint32), digit[order]


def radix_block_keys(params, rng):
    """``keys`` for findRadixOffsets: see _block_sorted_keys."""
    keys, _, _ = _block_sorted_keys(params, rng)
    return {"keys": keys}


def radix_scatter_inputs(params, rng):
    """Inputs of reorderData, consistent with each other: block-sorted ``keys`` and ``values``, each block's
    digit starts ``blockOffsets`` (block-major; 0 for an absent digit) and ``offsets``, the exclusive scan of
    the digit counts taken digit-major over the blocks (the destination of each block's run of a digit)."""
    keys, values, digit = _block_sorted_keys(params, rng)
    blocks = params["n"] // 512
    per_block = digit.reshape(blocks, 512)
    counts = np.stack([(per_block == d).sum(axis=1) for d in range(16)])          # [digit, block]
    starts = np.stack([np.where(c > 0, np.argmax(per_block == d, axis=1), 0) for d, c in enumerate(counts)])
    offsets = np.concatenate([[0], np.cumsum(counts.ravel())[:-1]])
    return {"keys": keys, "values": values, "blockOffsets": starts.T.ravel().astype(np.uint32),
            "offsets": offsets.astype(np.uint32)}
