"""The manifest entries of the bundled programs: sizes, launches, inputs, numpy references, tolerances.

References are independent numpy code written from the kernels' mathematical definition (not translated
from their CUDA), computed from the *input* arguments.  Float references that sum in a different order from
the kernel are computed in float64 and compared with a relative tolerance; results that IEEE
round-to-nearest float32 arithmetic or integer arithmetic fully determine are compared bit for bit.

Inputs are mostly non-negative (uniform [0, 1)), so sums do not cancel and a relative tolerance is
meaningful for every element.
"""
from __future__ import annotations

from math import ceil

import numpy as np

from programs.spec import Launch, ProgramSpec, close, exact

SPECS: dict[str, ProgramSpec] = {}


def _register(spec: ProgramSpec) -> ProgramSpec:
    if spec.default_size not in spec.sizes or "small" not in spec.sizes:
        raise AssertionError(f"{spec.name}: needs a 'small' size and its default size among its sizes")
    SPECS[spec.name] = spec
    return spec


def _blocks(n: int, per_block: int) -> int:
    return max(1, ceil(n / per_block))


def _uniform(rng: np.random.Generator, n: int, lo: float = 0.0, hi: float = 1.0) -> np.ndarray:
    return rng.uniform(lo, hi, size=n).astype(np.float32)


def _zeros_f32(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.float32)


SUM_ORDER = "float sums: the kernel adds in a different order (and may fuse multiply-adds) than the reference"
BITWISE = "result fully determined: integer arithmetic, data movement or single IEEE round-to-nearest ops"

# ---------------------------------------------------------------------------------------------------------
# vector_add
BLOCK_1D = 256

_register(ProgramSpec(
    name="vector_add",
    description="C = A + B, one thread per element, tail guarded by if (i < n)",
    topic="kernel basics: thread indexing, boundary check (tail-warp divergence)",
    kernels=("vector_add",),
    sizes={"small": {"n": 10_000}, "default": {"n": 100_000}, "stream": {"n": 1 << 20}, "large": {"n": 1 << 22}},
    default_size="default",
    tolerance=exact("add.f32 rounds to nearest like numpy's float32 add"),
    launch_fn=lambda p: Launch("vector_add", (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [_uniform(rng, p["n"]), _uniform(rng, p["n"]), _zeros_f32(p["n"]), np.int32(p["n"])],
    reference_fn=lambda a, s, p: {2: a[0] + a[1]},
))


# ---------------------------------------------------------------------------------------------------------
# blur
def _blur_reference(args, _sym, p):
    w, h, r = p["width"], p["height"], 1
    img = args[0].reshape(h, w).astype(np.int64)
    padded = np.pad(img, r)
    inside = np.pad(np.ones_like(img), r)
    total = np.zeros_like(img)
    count = np.zeros_like(img)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            total += padded[dy:dy + h, dx:dx + w]
            count += inside[dy:dy + h, dx:dx + w]
    return {1: (total // count).astype(np.uint8).ravel()}


_register(ProgramSpec(
    name="blur",
    description="3x3 box blur (BLUR_SIZE 1) of an 8-bit grey image, edge pixels average fewer neighbours",
    topic="memory access efficiency: compute-to-global-memory-access ratio 1.0",
    kernels=("blur",),
    sizes={"small": {"width": 100, "height": 75}, "default": {"width": 512, "height": 384},
           "large": {"width": 1920, "height": 1080}},
    default_size="default",
    tolerance=exact(BITWISE),
    launch_fn=lambda p: Launch("blur", (_blocks(p["width"], 16), _blocks(p["height"], 16), 1), (16, 16, 1)),
    args_fn=lambda p, rng: [rng.integers(0, 256, p["width"] * p["height"], dtype=np.uint8),
                            np.zeros(p["width"] * p["height"], dtype=np.uint8),
                            np.int32(p["width"]), np.int32(p["height"])],
    reference_fn=_blur_reference,
))


# ---------------------------------------------------------------------------------------------------------
# matrix multiplication
def _matmul_args(p, rng):
    w = p["width"]
    return [_uniform(rng, w * w), _uniform(rng, w * w), _zeros_f32(w * w), np.int32(w)]


def _matmul_reference(args, _sym, p):
    w = p["width"]
    m = args[0].reshape(w, w).astype(np.float64)
    n = args[1].reshape(w, w).astype(np.float64)
    return {2: (m @ n).astype(np.float32).ravel()}


MATMUL_TOL = close(1e-4, 1e-6, SUM_ORDER + "; Width <= 1024 positive terms")

_register(ProgramSpec(
    name="matmul_naive",
    description="P = M x N (square, row-major), one thread per P element, operands straight from global memory",
    topic="memory model: global-memory traffic of matrix multiplication (2 loads per FMA)",
    kernels=("matmul_naive",),
    sizes={"small": {"width": 50}, "default": {"width": 256}, "large": {"width": 1024}},
    default_size="default",
    tolerance=MATMUL_TOL,
    launch_fn=lambda p: Launch("matmul_naive", (_blocks(p["width"], 16), _blocks(p["width"], 16), 1), (16, 16, 1)),
    args_fn=_matmul_args,
    reference_fn=_matmul_reference,
))


def _matmul_tiled_launch(p):
    t = p["tile"]
    return Launch(f"matmul_tiled_{t}", (_blocks(p["width"], t), _blocks(p["width"], t), 1), (t, t, 1))


_register(ProgramSpec(
    name="matmul_tiled",
    description="P = M x N through TILE_WIDTH^2 shared-memory tiles with boundary checks (any Width); "
                "kernels matmul_tiled_16 and matmul_tiled_32, picked by the size's tile",
    topic="tiling: shared memory cuts global traffic by TILE_WIDTH; boundary checks",
    kernels=("matmul_tiled_16", "matmul_tiled_32"),
    sizes={"small": {"width": 50, "tile": 16}, "small_tile32": {"width": 40, "tile": 32},
           "default": {"width": 256, "tile": 16}, "tile32": {"width": 256, "tile": 32},
           "large": {"width": 1024, "tile": 32}},
    default_size="default",
    tolerance=MATMUL_TOL,
    launch_fn=_matmul_tiled_launch,
    args_fn=_matmul_args,
    reference_fn=_matmul_reference,
))


# ---------------------------------------------------------------------------------------------------------
# convolution
def _correlate1d(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """P[i] = sum_j N[i - r + j] * M[j] with zero ghost elements, in float64."""
    r = len(mask) // 2
    padded = np.pad(x.astype(np.float64), r)
    out = np.zeros(len(x))
    for j, m in enumerate(mask.astype(np.float64)):
        out += m * padded[j:j + len(x)]
    return out.astype(np.float32)


CONV_TOL = close(1e-5, 1e-6, SUM_ORDER + "; at most 25 positive terms")
CONV1D_SIZES = {"small": {"n": 10_000, "mask_width": 5}, "default": {"n": 100_000, "mask_width": 7},
                "large": {"n": 1 << 22, "mask_width": 9}}

_register(ProgramSpec(
    name="conv1d_basic",
    description="1D convolution, mask and input both from global memory, ghost elements count as 0",
    topic="convolution: ghost elements, boundary divergence",
    kernels=("conv1d_basic",),
    sizes=CONV1D_SIZES,
    default_size="default",
    tolerance=CONV_TOL,
    launch_fn=lambda p: Launch("conv1d_basic", (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [_uniform(rng, p["n"]), _uniform(rng, p["mask_width"]), _zeros_f32(p["n"]),
                            np.int32(p["mask_width"]), np.int32(p["n"])],
    reference_fn=lambda a, s, p: {2: _correlate1d(a[0], a[1])},
))

CONV1D_MAX_MASK = 10   # MAX_MASK_WIDTH in conv1d_const.cu: the size of the __constant__ array M


def _conv1d_const_symbols(p, rng):
    if p["mask_width"] > CONV1D_MAX_MASK:
        raise ValueError(f"conv1d_const: mask_width {p['mask_width']} > MAX_MASK_WIDTH {CONV1D_MAX_MASK}")
    mask = np.zeros(CONV1D_MAX_MASK, dtype=np.float32)
    mask[:p["mask_width"]] = _uniform(rng, p["mask_width"])
    return {"M": mask}


_register(ProgramSpec(
    name="conv1d_const",
    description="1D convolution with the mask in __constant__ memory (symbol M, MAX_MASK_WIDTH 10 floats; "
                "the first Mask_Width are used)",
    topic="constant memory: broadcast of one address to a whole warp",
    kernels=("conv1d_const",),
    sizes=CONV1D_SIZES,
    default_size="default",
    tolerance=CONV_TOL,
    launch_fn=lambda p: Launch("conv1d_const", (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [_uniform(rng, p["n"]), _zeros_f32(p["n"]), np.int32(p["mask_width"]), np.int32(p["n"])],
    symbols_fn=_conv1d_const_symbols,
    reference_fn=lambda a, s, p: {1: _correlate1d(a[0], s["M"][:p["mask_width"]])},
))

CONV2D_MASK, CONV2D_IN_TILE = 5, 16
CONV2D_OUT_TILE = CONV2D_IN_TILE - (CONV2D_MASK - 1)


def _conv2d_reference(args, sym, p):
    w, h, r = p["width"], p["height"], CONV2D_MASK // 2
    padded = np.pad(args[0].reshape(h, w).astype(np.float64), r)
    mask = sym["Mc"].astype(np.float64)
    out = np.zeros((h, w))
    for fy in range(CONV2D_MASK):
        for fx in range(CONV2D_MASK):
            out += mask[fy, fx] * padded[fy:fy + h, fx:fx + w]
    return {1: out.astype(np.float32).ravel()}


_register(ProgramSpec(
    name="conv2d_tiled",
    description="2D convolution, 5x5 mask in __constant__ Mc, tiling strategy 2: 16x16 threads load the "
                "input tile with its halo, the inner 12x12 compute outputs",
    topic="tiled convolution: halo cells, shared-memory reuse, constant mask",
    kernels=("conv2d_tiled",),
    sizes={"small": {"width": 64, "height": 48}, "default": {"width": 512, "height": 512},
           "large": {"width": 2048, "height": 2048}},
    default_size="default",
    tolerance=CONV_TOL,
    launch_fn=lambda p: Launch("conv2d_tiled", (_blocks(p["width"], CONV2D_OUT_TILE),
                                                _blocks(p["height"], CONV2D_OUT_TILE), 1),
                               (CONV2D_IN_TILE, CONV2D_IN_TILE, 1)),
    args_fn=lambda p, rng: [_uniform(rng, p["width"] * p["height"]), _zeros_f32(p["width"] * p["height"]),
                            np.int32(p["width"]), np.int32(p["height"])],
    symbols_fn=lambda p, rng: {"Mc": rng.uniform(0, 1, (CONV2D_MASK, CONV2D_MASK)).astype(np.float32)},
    reference_fn=_conv2d_reference,
))


# ---------------------------------------------------------------------------------------------------------
# reductions: each block writes the sum of its blockDim.x elements to out[blockIdx.x]
REDUCE_SIZES = {"small": {"n": 10_000}, "default": {"n": 1 << 20}, "large": {"n": 1 << 24}}


def _block_sums(x: np.ndarray, per_block: int) -> np.ndarray:
    blocks = _blocks(len(x), per_block)
    padded = np.zeros(blocks * per_block)
    padded[:len(x)] = x
    return padded.reshape(blocks, per_block).sum(axis=1).astype(np.float32)


def _reduce_program(name: str, description: str, topic: str, dynamic_smem: bool) -> ProgramSpec:
    return _register(ProgramSpec(
        name=name, description=description, topic=topic, kernels=(name,),
        sizes=REDUCE_SIZES, default_size="default",
        tolerance=close(1e-5, 1e-6, SUM_ORDER + "; 256 positive terms per block"),
        launch_fn=lambda p: Launch(name, (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1),
                                   BLOCK_1D * 4 if dynamic_smem else 0),
        args_fn=lambda p, rng: [_uniform(rng, p["n"]), _zeros_f32(_blocks(p["n"], BLOCK_1D)), np.uint32(p["n"])],
        reference_fn=lambda a, s, p: {1: _block_sums(a[0], BLOCK_1D)},
    ))


_reduce_program("reduce_interleaved",
                "block sum, interleaved addressing: if (t % (2*stride) == 0) (dynamic shared memory)",
                "reduction: control divergence in every warp", True)
_reduce_program("reduce_strided_index",
                "block sum, index = 2*stride*t: contiguous active threads (dynamic shared memory)",
                "reduction: shared-memory bank conflicts", True)
_reduce_program("reduce_sequential",
                "block sum, sequential addressing: t < s adds sdata[t + s] (dynamic shared memory)",
                "reduction: conflict-free, divergence-free addressing", True)
_reduce_program("reduce_warp_shuffle",
                "block sum with __shfl_down_sync inside warps, one shared slot per warp",
                "warp-level primitives: shuffle reduction", False)


_register(ProgramSpec(
    name="reduce_first_add",
    description="block sum of 2*blockDim.x elements: each thread adds two during the load, then sequential "
                "addressing (dynamic shared memory)",
    topic="reduction: first add during load, no idle threads in the first step",
    kernels=("reduce_first_add",),
    sizes=REDUCE_SIZES, default_size="default",
    tolerance=close(1e-5, 1e-6, SUM_ORDER + "; 512 positive terms per block"),
    launch_fn=lambda p: Launch("reduce_first_add", (_blocks(p["n"], 2 * BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1),
                               BLOCK_1D * 4),
    args_fn=lambda p, rng: [_uniform(rng, p["n"]), _zeros_f32(_blocks(p["n"], 2 * BLOCK_1D)), np.uint32(p["n"])],
    reference_fn=lambda a, s, p: {1: _block_sums(a[0], 2 * BLOCK_1D)},
))

CASCADE_BLOCKS = 64   # a fixed grid: each thread sums n / (64 * 256) elements in its grid-stride loop


def _cascade_sums(x: np.ndarray, blocks: int, threads: int) -> np.ndarray:
    """Block b sums the elements whose index i has (i // threads) % blocks == b (the grid-stride loop)."""
    idx = np.arange(len(x))
    owner = (idx // threads) % blocks
    return np.bincount(owner, weights=x.astype(np.float64), minlength=blocks).astype(np.float32)


_register(ProgramSpec(
    name="reduce_cascade",
    description="algorithm cascading: grid-stride sums in registers, then warp shuffles and one shared slot "
                "per warp",
    topic="reduction: algorithm cascading (sequential then parallel), fewer blocks than data",
    kernels=("reduce_cascade",),
    sizes=REDUCE_SIZES, default_size="default",
    tolerance=close(1e-5, 1e-6, SUM_ORDER + "; n / 64 positive terms per block"),
    launch_fn=lambda p: Launch("reduce_cascade", (min(CASCADE_BLOCKS, _blocks(p["n"], BLOCK_1D)), 1, 1),
                               (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [_uniform(rng, p["n"]), _zeros_f32(min(CASCADE_BLOCKS, _blocks(p["n"], BLOCK_1D))),
                            np.uint32(p["n"])],
    reference_fn=lambda a, s, p: {1: _cascade_sums(a[0], min(CASCADE_BLOCKS, _blocks(p["n"], BLOCK_1D)),
                                                   BLOCK_1D)},
))


# ---------------------------------------------------------------------------------------------------------
# scans: inclusive prefix sums of each block's section
def _section_scan(x: np.ndarray, section: int) -> np.ndarray:
    blocks = _blocks(len(x), section)
    padded = np.zeros(blocks * section)
    padded[:len(x)] = x
    return np.cumsum(padded.reshape(blocks, section), axis=1).ravel()[:len(x)].astype(np.float32)


SCAN_SIZES = {"small": {"n": 10_000}, "default": {"n": 1 << 18}, "large": {"n": 1 << 22}}
SCAN_TOL = close(1e-5, 1e-6, SUM_ORDER + "; prefix sums of <= 512 positive terms")


def _scan_program(name: str, description: str, topic: str, section: int) -> ProgramSpec:
    threads = BLOCK_1D   # Kogge-Stone: one thread per element; Brent-Kung: one thread per two
    return _register(ProgramSpec(
        name=name, description=description, topic=topic, kernels=(name,),
        sizes=SCAN_SIZES, default_size="default", tolerance=SCAN_TOL,
        launch_fn=lambda p: Launch(name, (_blocks(p["n"], section), 1, 1), (threads, 1, 1)),
        args_fn=lambda p, rng: [_uniform(rng, p["n"]), _zeros_f32(p["n"]), np.int32(p["n"])],
        reference_fn=lambda a, s, p: {1: _section_scan(a[0], section)},
    ))


_scan_program("scan_kogge_stone", "inclusive scan of 256-element sections, one thread per element",
              "parallel scan: Kogge-Stone, O(n log n) work, two barriers per step", BLOCK_1D)
_scan_program("scan_brent_kung", "inclusive scan of 512-element sections by 256 threads: reduction tree + "
              "distribution tree", "parallel scan: Brent-Kung, work-efficient", 2 * BLOCK_1D)


# ---------------------------------------------------------------------------------------------------------
# histogram
def _histogram_input(rng: np.random.Generator, n: int) -> np.ndarray:
    """Half uniform bytes, half lower-case letters: some bins are hot, as in text, so atomics contend."""
    data = np.concatenate([rng.integers(0, 256, n - n // 2), rng.integers(ord("a"), ord("z") + 1, n // 2)])
    return rng.permutation(data).astype(np.uint8)


_register(ProgramSpec(
    name="histogram_smem",
    description="256-bin byte histogram: per-block shared-memory copy with shared atomics, merged with "
                "global atomics; grid-stride loop",
    topic="privatisation and atomics",
    kernels=("histogram_smem",),
    sizes={"small": {"n": 20_000, "blocks": 16}, "default": {"n": 1 << 20, "blocks": 264},
           "large": {"n": 1 << 24, "blocks": 528}},
    default_size="default",
    tolerance=exact("integer counts"),
    launch_fn=lambda p: Launch("histogram_smem", (p["blocks"], 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [_histogram_input(rng, p["n"]), np.zeros(256, dtype=np.uint32), np.uint32(p["n"])],
    reference_fn=lambda a, s, p: {1: np.bincount(a[0][:p["n"]], minlength=256).astype(np.uint32)},
))


# ---------------------------------------------------------------------------------------------------------
# transposes
TRANSPOSE_SIZES = {"small": {"width": 70, "height": 45}, "default": {"width": 1024, "height": 1024},
                   "large": {"width": 4096, "height": 4096}}
TRANSPOSE_TOPICS = {
    "transpose_naive": ("out = in^T straight through global memory (uncoalesced writes)",
                        "memory coalescing: strided writes"),
    "transpose_smem": ("transpose through an unpadded 32x32 shared tile: 32-way conflicts on column reads",
                       "shared-memory bank conflicts: stride 32"),
    "transpose_padded": ("transpose through a 32x33 padded shared tile: conflict-free column reads",
                         "shared-memory bank conflicts: padding to 33"),
}
for _name, (_desc, _topic) in TRANSPOSE_TOPICS.items():
    _register(ProgramSpec(
        name=_name, description=_desc, topic=_topic, kernels=(_name,),
        sizes=TRANSPOSE_SIZES, default_size="default", tolerance=exact("data movement only"),
        launch_fn=(lambda k: lambda p: Launch(k, (_blocks(p["width"], 32), _blocks(p["height"], 32), 1),
                                              (32, 32, 1)))(_name),
        args_fn=lambda p, rng: [_uniform(rng, p["width"] * p["height"]), _zeros_f32(p["width"] * p["height"]),
                                np.int32(p["width"]), np.int32(p["height"])],
        reference_fn=lambda a, s, p: {1: np.ascontiguousarray(a[0].reshape(p["height"], p["width"]).T).ravel()},
    ))


# ---------------------------------------------------------------------------------------------------------
# 7-point stencil
STENCIL_COEFFS = (0.4, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1)   # c0 (centre), c1..c6 (x-1, x+1, y-1, y+1, z-1, z+1)


def _stencil_reference(args, _sym, p):
    n = p["n"]
    x = args[0].reshape(n, n, n).astype(np.float64)       # [z][y][x]
    c = [float(np.float32(v)) for v in args[3:10]]
    out = np.zeros((n, n, n))
    i = slice(1, n - 1)
    out[i, i, i] = (c[0] * x[i, i, i] + c[1] * x[i, i, :-2] + c[2] * x[i, i, 2:] + c[3] * x[i, :-2, i]
                    + c[4] * x[i, 2:, i] + c[5] * x[:-2, i, i] + c[6] * x[2:, i, i])
    return {1: out.astype(np.float32).ravel()}


_register(ProgramSpec(
    name="stencil7",
    description="7-point 3D stencil on an N^3 grid (interior points; boundary of out left 0), 8x8x8 blocks",
    topic="stencil: memory-bound sweep, the start of coarsening / register and shared tiling",
    kernels=("stencil7",),
    sizes={"small": {"n": 20}, "default": {"n": 64}, "large": {"n": 256}},
    default_size="default",
    tolerance=close(1e-5, 1e-6, SUM_ORDER + "; 7 positive terms"),
    launch_fn=lambda p: Launch("stencil7", (_blocks(p["n"], 8),) * 3, (8, 8, 8)),
    args_fn=lambda p, rng: [_uniform(rng, p["n"] ** 3), _zeros_f32(p["n"] ** 3), np.uint32(p["n"]),
                            *[np.float32(c) for c in STENCIL_COEFFS]],
    reference_fn=_stencil_reference,
))


# ---------------------------------------------------------------------------------------------------------
# shared-memory stride probe
SMEM_WORDS = 4096
SMEM_STRIDES = (1, 2, 3, 4, 8, 32, 33)   # the seeds' bank-conflict-by-stride table


def _smem_probe_reference(args, _sym, p):
    words, block = args[0], p["block"]
    tid = np.arange(block, dtype=np.int64)
    acc = np.zeros(block, dtype=np.uint32)
    for r in range(p["reps"]):
        acc ^= words[(tid * p["stride"] + r) & (SMEM_WORDS - 1)]
    return {1: np.tile(acc, p["blocks"])}


_register(ProgramSpec(
    name="smem_stride_probe",
    description="each thread reads shared word tid*stride (reps times, XOR-accumulated); sizes stride_S sweep "
                "the seeds' strides 1, 2, 3, 4, 8, 32, 33",
    topic="shared-memory bank conflicts by stride",
    kernels=("smem_stride_probe",),
    sizes={"small": {"stride": 33, "reps": 4, "blocks": 4, "block": 256},
           "default": {"stride": 32, "reps": 64, "blocks": 264, "block": 256},
           **{f"stride_{s}": {"stride": s, "reps": 16, "blocks": 4, "block": 256} for s in SMEM_STRIDES}},
    default_size="default",
    tolerance=exact("integer XOR of copied words"),
    launch_fn=lambda p: Launch("smem_stride_probe", (p["blocks"], 1, 1), (p["block"], 1, 1)),
    args_fn=lambda p, rng: [rng.integers(0, 2**32, SMEM_WORDS, dtype=np.uint32),
                            np.zeros(p["blocks"] * p["block"], dtype=np.uint32),
                            np.int32(p["stride"]), np.int32(p["reps"])],
    reference_fn=_smem_probe_reference,
))


# ---------------------------------------------------------------------------------------------------------
# global-memory stride probe
GMEM_STRIDES = (1, 2, 4, 8, 16, 32)

_register(ProgramSpec(
    name="gmem_stride_probe",
    description="thread i copies in[i*stride + offset] to out[i]; sizes stride_S sweep strides 1..32, "
                "offset_1 is the misaligned case",
    topic="global-memory coalescing: sectors per request by stride and offset",
    kernels=("gmem_stride_probe",),
    sizes={"small": {"n": 8192, "stride": 2, "offset": 0},
           "default": {"n": 1 << 20, "stride": 1, "offset": 0},
           **{f"stride_{s}": {"n": 8192, "stride": s, "offset": 0} for s in GMEM_STRIDES},
           "offset_1": {"n": 8192, "stride": 1, "offset": 1}},
    default_size="default",
    tolerance=exact("data movement only"),
    launch_fn=lambda p: Launch("gmem_stride_probe", (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [_uniform(rng, p["n"] * p["stride"] + p["offset"]), _zeros_f32(p["n"]),
                            np.int32(p["n"]), np.int32(p["stride"]), np.int32(p["offset"])],
    reference_fn=lambda a, s, p: {1: a[0][np.arange(p["n"]) * p["stride"] + p["offset"]]},
))


# ---------------------------------------------------------------------------------------------------------
# divergence
def _path_a(v: np.ndarray, iters: int) -> np.ndarray:
    v = v.copy()
    for k in range(iters):
        v = v * (v | np.uint32(1)) + np.uint32(k)
    return v


def _path_b(v: np.ndarray, iters: int) -> np.ndarray:
    v = v.copy()
    for _ in range(iters):
        v = (v ^ (v >> np.uint32(3))) + np.uint32(7)
    return v


def _divergence_reference(args, _sym, p):
    x, n, iters = args[0], p["n"], p["iters"]
    tid = np.arange(n) % BLOCK_1D
    first = (tid % 2 == 0) if p["kernel"] == "divergence_lane" else ((tid // 32) % 2 == 0)
    return {1: np.where(first, _path_a(x, iters), _path_b(x, iters)).astype(np.uint32)}


_register(ProgramSpec(
    name="divergence",
    description="the same two integer loops selected by lane parity (divergence_lane: 2 passes per warp) or "
                "by warp parity (divergence_warp: 1 pass)",
    topic="control divergence: branch granularity vs warp size",
    kernels=("divergence_lane", "divergence_warp"),
    sizes={"small": {"kernel": "divergence_lane", "n": 4096, "iters": 16},
           "small_warp": {"kernel": "divergence_warp", "n": 4096, "iters": 16},
           "default": {"kernel": "divergence_lane", "n": 1 << 16, "iters": 64},
           "warp": {"kernel": "divergence_warp", "n": 1 << 16, "iters": 64}},
    default_size="default",
    tolerance=exact("uint32 arithmetic wraps identically in numpy"),
    launch_fn=lambda p: Launch(p["kernel"], (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [rng.integers(0, 2**32, p["n"], dtype=np.uint32), np.zeros(p["n"], dtype=np.uint32),
                            np.int32(p["n"]), np.int32(p["iters"])],
    reference_fn=_divergence_reference,
))


# ---------------------------------------------------------------------------------------------------------
# hand-written PTX
_register(ProgramSpec(
    name="saxpy_hand",
    description="hand-written PTX: y = a*x + y with mul.rn + add.rn (not fused)",
    topic="reading PTX: params, special registers, guard predicates, cvta",
    kernels=("saxpy_hand",),
    sizes={"small": {"n": 10_000}, "default": {"n": 1 << 20}},
    default_size="default",
    tolerance=exact("separately rounded mul.rn/add.rn match numpy float32 a*x + y"),
    launch_fn=lambda p: Launch("saxpy_hand", (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [np.uint32(p["n"]), np.float32(2.5), _uniform(rng, p["n"], -1, 1),
                            _uniform(rng, p["n"], -1, 1)],
    reference_fn=lambda a, s, p: {3: a[1] * a[2] + a[3]},
    hand_written=True,
))

_register(ProgramSpec(
    name="loop_tripcount",
    description="hand-written PTX: thread i loops count[i] times (0..63); out = sum of 0..count-1, "
                "iters = count",
    topic="SIMT: divergent loops and reconvergence at the post-dominator",
    kernels=("loop_tripcount",),
    sizes={"small": {"n": 4096}, "default": {"n": 1 << 16}},
    default_size="default",
    tolerance=exact("integer arithmetic"),
    launch_fn=lambda p: Launch("loop_tripcount", (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [rng.integers(0, 64, p["n"], dtype=np.uint32), np.zeros(p["n"], dtype=np.uint32),
                            np.zeros(p["n"], dtype=np.uint32), np.uint32(p["n"])],
    reference_fn=lambda a, s, p: {1: (a[0] * (a[0] - 1) // 2).astype(np.uint32),
                                  2: a[0].copy()},
    hand_written=True,
))


def _vote_input(rng: np.random.Generator, n: int) -> np.ndarray:
    """Values > 0 with a per-warp probability of 0, 0.5, 0.9 or 1, so warps vote none / some / all."""
    warps = _blocks(n, 32)
    p_true = np.repeat(rng.choice([0.0, 0.5, 0.9, 1.0], warps), 32)[:n]
    positive = rng.uniform(size=n) < p_true
    return np.where(positive, rng.integers(1, 100, n), rng.integers(-100, 1, n)).astype(np.int32)


def _vote_reference(args, _sym, p):
    n, threshold = p["n"], int(args[4])
    warps = _blocks(n, 32)
    pred = np.zeros(warps * 32, dtype=bool)
    pred[:n] = args[0] > threshold
    lanes = pred.reshape(warps, 32)
    ballot = (lanes.astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    flags = lanes.any(axis=1).astype(np.uint32) + 2 * lanes.all(axis=1).astype(np.uint32)
    return {1: np.repeat(ballot, 32)[:n], 2: np.repeat(flags, 32)[:n]}


_register(ProgramSpec(
    name="warp_vote",
    description="hand-written PTX: vote.sync ballot/any/all of (in[i] > threshold) per warp",
    topic="warp-level primitives: ballot, any, all",
    kernels=("warp_vote",),
    sizes={"small": {"n": 5000}, "default": {"n": 1 << 16}},
    default_size="default",
    tolerance=exact("bit masks"),
    launch_fn=lambda p: Launch("warp_vote", (_blocks(p["n"], BLOCK_1D), 1, 1), (BLOCK_1D, 1, 1)),
    args_fn=lambda p, rng: [_vote_input(rng, p["n"]), np.zeros(p["n"], dtype=np.uint32),
                            np.zeros(p["n"], dtype=np.uint32), np.uint32(p["n"]), np.int32(0)],
    reference_fn=_vote_reference,
    hand_written=True,
))
