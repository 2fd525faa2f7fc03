"""numpy references for the SHOC kernels of the validation corpus.

Each function takes the launch's input values (``inputs[name]``, copied before the launch) and the size's
parameters and returns the expected value of every output argument, written from the benchmark's
mathematical definition (not from the CUDA): float sums in float64, cast to the argument's dtype at the end
(the launch file gives the tolerance and why); integer results exactly.
"""
from __future__ import annotations

import numpy as np

F32 = np.float32


def _f64(x):
    return np.asarray(x, dtype=np.float64)


def fma_f32(a, b, c):
    """a * b + c rounded once to float32 (round to nearest even), elementwise.

    The product of two float32 is exact in float64; the float64 sum is made round-to-odd (a sticky last bit
    when the sum was inexact, found by Knuth's two-sum), which a second rounding to float32 then rounds
    correctly."""
    p = _f64(a) * _f64(b)
    c = _f64(c)
    s = p + c
    bp = s - c
    err = (p - bp) + (c - (s - bp))
    bits = s.view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0) & np.isfinite(s)
    toward = np.where(err > 0, np.inf, -np.inf)
    s = np.where(fix, np.nextafter(s, toward), s)
    return s.astype(F32)


def triad(inputs, params):
    """C = A + s B, one rounding (a fused multiply-add)."""
    return {"C": fma_f32(inputs["s"], inputs["B"], inputs["A"])}


def reduce(inputs, params):
    """Partial sums: block b adds the pairs of elements at b*2*bs + t and b*2*bs + t + bs, stepping by the grid
    (2*bs*blocks elements), i.e. every element whose index mod (2*bs*blocks) lies in [2*bs*b, 2*bs*(b+1))."""
    x = _f64(inputs["g_idata"])
    blocks, bs = params["blocks"], 256
    stride = 2 * bs * blocks
    pad = (-x.size) % stride
    tiles = np.concatenate([x, np.zeros(pad)]).reshape(-1, blocks, 2 * bs)
    return {"g_odata": tiles.sum(axis=(0, 2)).astype(F32)}


def _csr_product(val, cols, row_of_entry, vec, dim):
    return np.bincount(row_of_entry, weights=_f64(val) * _f64(vec)[cols], minlength=dim)


def spmv_csr(inputs, params):
    """y = A x for A in CSR form (rows delimited by rowDelimiters)."""
    dim = int(inputs["dim"])
    delim = inputs["rowDelimiters"]
    rows = np.repeat(np.arange(dim), np.diff(delim))
    return {"out": _csr_product(inputs["val"], inputs["cols"], rows, inputs["vec"], dim).astype(F32)}


def spmv_ellpackr(inputs, params):
    """y = A x for A in ELLPACK-R form (entry k of row r at k*dim + r, rowLengths[r] entries per row)."""
    dim = int(inputs["dim"])
    lengths = inputs["rowLengths"]
    width = inputs["val"].size // dim
    k = np.arange(width)[:, None]
    live = (k < lengths[None, :]).ravel()
    rows = np.tile(np.arange(dim), width)[live]
    return {"out": _csr_product(inputs["val"][live], inputs["cols"][live], rows, inputs["vec"], dim).astype(F32)}



def md5_search(inputs, params):
    """The index in [0, keyspace) whose key's MD5 digest is searchDigest, that key and the digest (-1 and
    zeros when there is none), by exhaustive search with Python's hashlib.  Key ``index`` is the byteLength
    base-valsPerByte digits of index, least significant first, one per byte."""
    import hashlib
    import itertools
    target = np.asarray(inputs["searchDigest"], dtype="<u4").tobytes()
    n, vals, keyspace = int(inputs["byteLength"]), int(inputs["valsPerByte"]), int(inputs["keyspace"])
    index = np.array(inputs["foundIndex"], copy=True)
    key = np.array(inputs["foundKey"], copy=True)
    digest = np.array(inputs["foundDigest"], copy=True)
    # itertools.product varies its last position fastest: reversed, that is digit 0 fastest, i.e. index order
    for i, digits in enumerate(itertools.product(range(vals), repeat=n)):
        if i >= keyspace:
            break
        k = bytes(reversed(digits))
        if hashlib.md5(k).digest() == target:
            index[0] = i
            key[:n] = np.frombuffer(k, dtype=np.uint8)
            digest[:] = np.frombuffer(target, dtype="<u4")
            break
    return {"foundIndex": index, "foundKey": key, "foundDigest": digest}


def lj_force(inputs, params):
    """F_i = sum over the neighbours j of i with r^2 < cutsq of del * r^-8 (lj1 r^-6 - lj2), del = x_i - x_j."""
    inum, count = int(inputs["inum"]), int(inputs["neighCount"])
    pos = _f64(inputs["position"])[:, :3]
    nb = np.asarray(inputs["neighList"]).reshape(count, inum)
    d = pos[None, :, :] - pos[nb]                                    # [j, i, xyz]
    r2 = (d ** 2).sum(axis=-1)
    inside = r2 < float(inputs["cutsq"])
    inv = np.where(inside, 1.0 / np.where(inside, r2, 1.0), 0.0)
    r6 = inv ** 3
    fc = inv * r6 * (float(inputs["lj1"]) * r6 - float(inputs["lj2"]))
    f = (d * fc[..., None]).sum(axis=0)
    out = np.zeros((inum, 4), dtype=F32)
    out[:, :3] = f
    return {"force": out}


def stencil2d(inputs, params):
    """One 9-point step on the interior: wCenter c + wCardinal (n + s + e + w) + wDiagonal (diagonals); the
    halo and the row padding of the output are left as they were."""
    rows, cols = params["rows"], params["cols"]
    a = _f64(inputs["data"])
    out = np.array(inputs["newData"], copy=True)
    c = a[1:rows + 1, 1:cols + 1]
    card = a[:rows, 1:cols + 1] + a[2:rows + 2, 1:cols + 1] + a[1:rows + 1, :cols] + a[1:rows + 1, 2:cols + 2]
    diag = a[:rows, :cols] + a[:rows, 2:cols + 2] + a[2:rows + 2, :cols] + a[2:rows + 2, 2:cols + 2]
    res = float(inputs["wCenter"]) * c + float(inputs["wCardinal"]) * card + float(inputs["wDiagonal"]) * diag
    out[1:rows + 1, 1:cols + 1] = res.astype(F32)
    return {"newData": out}


UNVISITED = 0xFFFFFFFF


def bfs_level(inputs, params):
    """One BFS level: every UNVISITED neighbour of a vertex at level curr gets level curr + 1; the flag is
    raised when any vertex does."""
    levels = np.asarray(inputs["levels"])
    offsets = np.asarray(inputs["edgeArray"]).astype(np.int64)
    nbrs = np.asarray(inputs["edgeArrayAux"]).astype(np.int64)
    curr = int(inputs["curr"])
    src = np.repeat(np.arange(levels.size), np.diff(offsets))
    reached = nbrs[levels[src] == curr]
    reached = reached[levels[reached] == UNVISITED]
    out = levels.copy()
    out[reached] = curr + 1
    flag = np.array(inputs["flag"], copy=True)
    if reached.size:
        flag[0] = 1
    return {"levels": out, "flag": flag}


def block_ranges(n, blocks):
    """SHOC Scan's partition: block b owns float4 groups [b * (n/4 // blocks), ...), the last one the rest."""
    n4 = n // 4
    per = n4 // blocks
    return [(4 * b * per, 4 * (n4 if b == blocks - 1 else (b + 1) * per)) for b in range(blocks)]


def scan_reduce(inputs, params):
    """The sum of each block's share of the input (see block_ranges)."""
    x = _f64(inputs["in"])
    sums = [x[lo:hi].sum() for lo, hi in block_ranges(int(inputs["n"]), params["blocks"])]
    return {"isums": np.array(sums).astype(F32)}


def scan_bottom(inputs, params):
    """Exclusive prefix sums within each block's share, plus the block's seed isums[b]."""
    x = _f64(inputs["in"])
    out = np.array(inputs["out"], copy=True)
    for b, (lo, hi) in enumerate(block_ranges(int(inputs["n"]), params["blocks"])):
        seg = x[lo:hi]
        out[lo:hi] = (float(inputs["isums"][b]) + np.concatenate([[0.0], np.cumsum(seg)[:-1]])).astype(F32)
    return {"out": out}


# The mechanism of s3d.cu, one row per reaction r: (form, A, b, C) with form 0: exp(A - C/T),
# 1: exp(A + b log T), 2: exp(A + b log T - C/T), 3: A / T, 4: A exp(-C/T) / T^2.
S3D_REACTIONS = [
    (2, 20.07489776611328, 0.9608122706413269, 24599.845703125),
    (0, 29.67984390258789, -1.127228856086731, 15041.470703125),
    (2, 33.282135009765625, 0.6424486637115479, 5659.75244140625),
    (1, 35.43954849243164, -0.5821143388748169, 17628.626953125),
    (2, 36.86262893676758, -0.7649709582328796, 873.785888671875),
    (3, 9013862896500736.0, 1.5731323957443237, 23691.9296875),
    (2, 20.780595779418945, 0.2550574243068695, 1061.9285888671875),
    (0, 31.837793350219727, 1.0030897855758667, 10032.1650390625),
    (4, 49446079430656.0, 0.8270382285118103, 22067.33203125),
    (2, 22.58380126953125, -1.1310601234436035, 18030.923828125),
    (1, 36.30782699584961, 0.6837071180343628, 1424.9771728515625),
    (2, 29.92427635192871, 1.3980324268341064, 11771.7890625),
    (0, 20.42720603942871, 2.4154889583587646, 14972.27734375),
    (2, 25.435453414916992, 1.413620114326477, 24443.49609375),
    (2, 30.379337310791016, -0.9500226378440857, 4192.228515625),
    (4, 25490551209984.0, 1.8290740251541138, 19937.029296875),
    (2, 20.968101501464844, -1.1104744672775269, 20281.859375),
    (0, 30.737228393554688, 0.7632248997688293, 9897.92578125),
    (2, 25.36627769470215, -0.06362686306238174, 20558.974609375),
    (1, 34.97737503051758, 2.0936272144317627, 14296.4140625),
    (2, 29.757780075073242, 0.04589645192027092, 7765.5029296875),
    (3, 1.0723897682952192e+16, 0.6210821866989136, 20133.85546875),
    (2, 22.9273624420166, 0.3211299180984497, 19955.470703125),
    (0, 33.349327087402344, 0.859678328037262, 21878.171875),
    (4, 64785974558720.0, 2.1624345779418945, 22310.51171875),
    (2, 37.3699951171875, 0.6517017483711243, 22574.248046875),
    (1, 31.625507354736328, 0.9868568778038025, 10348.064453125),
    (2, 29.28919219970703, 1.9897215366363525, 14989.6923828125),
    (0, 35.59973907470703, -1.2323267459869385, 13552.0869140625),
    (2, 35.526771545410156, 1.632228136062622, 13852.3291015625),
    (2, 31.54172706604004, 2.124863386154175, 22869.806640625),
    (4, 12695569956864.0, 0.5616580843925476, 13182.767578125),
]


def s3d_rates(inputs, params):
    """RF[r][i]: the forward rate constant of reaction r at grid point i, at temperature T[i] * TCONV."""
    t = _f64(inputs["T"]) * float(inputs["TCONV"])
    logt, ti = np.log(t), 1.0 / t
    rf = np.empty((len(S3D_REACTIONS), t.size))
    for r, (form, a, b, c) in enumerate(S3D_REACTIONS):
        rf[r] = {0: lambda: np.exp(a - c * ti), 1: lambda: np.exp(a + b * logt),
                 2: lambda: np.exp(a + b * logt - c * ti), 3: lambda: a * ti,
                 4: lambda: a * ti * ti * np.exp(-c * ti)}[form]()
    return {"RF": rf.astype(F32).ravel()}


def fft512(inputs, params):
    """The forward DFT X[f] = sum_n x[n] exp(-2 pi i n f / 512) of each consecutive 512-point sequence."""
    w = _f64(inputs["work"])
    z = (w[:, 0] + 1j * w[:, 1]).reshape(-1, 512)
    x = np.fft.fft(z, axis=1).ravel()
    return {"work": np.stack([x.real, x.imag], axis=1).astype(F32)}


def radix_offsets(inputs, params):
    """For each block of 512 keys (sorted by the digit within the block) and each 4-bit digit d at startbit:
    counters[d * blocks + b] = how many keys of block b have digit d; blockOffsets[b * 16 + d] = the position
    in the block of the first of them (0 when there is none)."""
    keys = np.asarray(inputs["keys"]).view(np.uint32)
    blocks = int(inputs["totalBlocks"])
    digit = ((keys >> np.uint32(int(inputs["startbit"]))) & 0xF).reshape(blocks, 512)
    counters = np.zeros((16, blocks), dtype=np.uint32)
    starts = np.zeros((blocks, 16), dtype=np.uint32)
    for d in range(16):
        hit = digit == d
        counters[d] = hit.sum(axis=1)
        starts[:, d] = np.where(hit.any(axis=1), hit.argmax(axis=1), 0)
    return {"counters": counters.ravel(), "blockOffsets": starts.ravel()}


def radix_scatter(inputs, params):
    """One pass of an LSD radix sort: the keys (and their values) stably sorted by the digit at startbit."""
    keys = np.asarray(inputs["keys"]).view(np.uint32).ravel()
    values = np.asarray(inputs["values"]).view(np.uint32).ravel()
    order = np.argsort((keys >> np.uint32(int(inputs["startbit"]))) & 0xF, kind="stable")
    return {"outKeys": keys[order], "outValues": values[order]}
