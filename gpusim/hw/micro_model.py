"""The H100 stream microbenchmarks (``benchmarks/micro/micro.cu``, records ``tests/golden/h100/micro/sweep*.json``)
rebuilt as synthetic traces and timed by the model, so that the bandwidth the model reaches can be set beside
the bandwidth the H100 reached, configuration by configuration (occupancy, ILP, access width, DRAM- or
L2-resident working set, one SM or the chip).

What is rebuilt: ``stream_impl``'s loop as it issues on the GPU: per iteration ``ilp`` independent loads of
``vec`` bytes per lane (each warp's load 32 consecutive elements; the ``ilp`` loads of an iteration a block
apart), then their use: an FADD each (read, gather), a store of the value (copy) or an FMUL and a store
(scale); address arithmetic and the loop's branch as integer instructions (2 per load, 3 per iteration, 8
more per load for the gather's hash).  Blocks: the record's threads per block and blocks per SM, one wave on
the record's active SMs; each block walks its own chunk of a 1 GiB buffer (DRAM) or its share of an 8 MB set
that is already in L2 (the record's warm-up launch put it there; ``MemorySystem.preload_l2``).  The gather
reads random elements of the set.

What it leaves out: the block's ticket atomic and ``__syncthreads``, the timer reads; far fewer iterations
than the recorded ~1 ms (``target_bytes`` per configuration), so the first latency is a few percent of the
window where the real one is negligible.  Bandwidth is the model's useful bytes over the window from the
first warp's start to the last warp's end, as the records' in-kernel ``%globaltimer`` window; GB/s at the
preset's SM clock (the sweeps ran outside ncu, at the 1980 MHz boost clock: preset ``h100-boost``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusim.timing.synthetic import ins, make_trace

DRAM_BUFFER_BYTES = 1 << 30
L2_SET_BYTES = 8 << 20          # read and gather; copy and scale: 4 MB read + 4 MB written


@dataclass(frozen=True)
class StreamPoint:
    """One configuration of a stream microbenchmark (a row of ``sweep*.json``)."""

    op: str            # read, copy, scale, gather
    mem: str           # dram, l2
    vec: int           # bytes per lane per load: 4, 8, 16
    ilp: int           # independent loads per thread per iteration
    warps: int         # resident warps per active SM
    sms: int           # active SMs
    blocks_per_sm: int = 1
    cg: bool = False

    @classmethod
    def of_row(cls, row: dict) -> "StreamPoint":
        return cls(op=row["op"], mem=row["mem"], vec=int(row["vec"]), ilp=int(row["ilp"]),
                   warps=int(row.get("warps_per_active_sm") or row["warps"]), sms=int(row["sms"]),
                   blocks_per_sm=int(row.get("bps", 1)), cg=bool(row.get("cg", 0)))


def _kinds(vec: int, cg: bool) -> tuple[str, str]:
    load = {4: "ld.global", 8: "ld.global.v2", 16: "ld.global.v4"}[vec]
    if cg:
        load = {4: "ld.global.cg", 8: "ld.global.v2.cg", 16: "ld.global.v4.cg"}[vec]
    store = {4: "st.global", 8: "st.global.v2", 16: "st.global.v4"}[vec]
    return load, store


def stream_trace(p: StreamPoint, *, target_bytes: float = 24e6, min_iters: int = 4, max_iters: int = 64,
                 seed: int = 0, shared_bytes: int | None = None):
    """(trace, sectors to preload in L2, useful bytes moved) of configuration ``p``; ``shared_bytes`` per
    block (default: the records' 120 KB for one block per SM, 100 KB for two) selects the carve-out and so
    the L1 left."""
    load, store = _kinds(p.vec, p.cg)
    ilp = p.ilp
    prog = []
    for u in range(ilp):                           # address arithmetic, then the load into register 10+u
        n_alu = 10 if p.op == "gather" else 2
        prog += [ins("alu", dst=[2], src=[2]) for _ in range(n_alu)]
        prog.append(ins(load, dst=[10 + u], src=[2]))
    for u in range(ilp):
        if p.op in ("read", "gather"):
            prog.append(ins("fma", dst=[3], src=[3, 10 + u]))
        else:
            if p.op == "scale":
                prog.append(ins("fma", dst=[10 + u], src=[10 + u]))
            prog.append(ins(store, src=[2, 10 + u]))
    prog += [ins("alu", dst=[4], src=[4]), ins("alu", dst=[5], src=[4]), ins("alu", dst=[6], src=[5])]
    loop = list(range(len(prog)))
    exit_pc = len(prog)
    prog.append(ins("exit"))

    n_blocks = p.sms * p.blocks_per_sm
    wpb = p.warps // p.blocks_per_sm
    threads = 32 * wpb
    per_iter = p.sms * p.warps * ilp * 32 * (32 if p.op == "gather" else p.vec)    # a gather moves sectors
    iters = int(min(max_iters, max(min_iters, round(target_bytes / per_iter))))
    pcs = loop * iters + [exit_pc]
    n_warps = n_blocks * wpb

    loads_per_warp = ilp * iters
    stores_per_warp = loads_per_warp if p.op in ("copy", "scale") else 0
    lanes = np.arange(32, dtype=np.int64)
    # element index of each (block, iteration, u, thread): block chunks of iters x ilp x threads elements
    blk = np.repeat(np.arange(n_blocks, dtype=np.int64), wpb)
    wib = np.tile(np.arange(wpb, dtype=np.int64), n_blocks)
    j = np.arange(iters, dtype=np.int64)
    u = np.arange(ilp, dtype=np.int64)
    chunk = iters * ilp * threads
    if p.mem == "l2":
        set_bytes = L2_SET_BYTES // (2 if p.op in ("copy", "scale") else 1)
        elems = set_bytes // p.vec
        stride = max(1, elems // n_blocks)             # "spread": each block its own share of the set
    else:
        elems = DRAM_BUFFER_BYTES // p.vec
        stride = chunk
    # [warp, iter, u, lane]
    e = (blk[:, None, None, None] * stride + j[None, :, None, None] * ilp * threads
         + u[None, None, :, None] * threads + wib[:, None, None, None] * 32 + lanes[None, None, None, :]) % elems
    if p.op == "gather":
        rng = np.random.default_rng(seed)
        src = rng.integers(0, elems, size=e.shape, dtype=np.int64)
    else:
        src = e
    a_base = 0
    b_base = DRAM_BUFFER_BYTES if p.mem == "dram" else set_bytes
    src_addr = a_base + src * p.vec
    dst_addr = b_base + e * p.vec
    # trace order: per warp, per iteration: the ilp loads, then (copy/scale) the ilp stores
    per_iter_rows = [src_addr[:, :, k, :] for k in range(ilp)]
    if stores_per_warp:
        per_iter_rows += [dst_addr[:, :, k, :] for k in range(ilp)]
    addr = np.stack(per_iter_rows, axis=2).reshape(n_warps * (loads_per_warp + stores_per_warp), 32)
    trace = make_trace(prog, n_blocks=n_blocks, warps_per_block=wpb, warp_pcs=[pcs] * n_warps,
                       kernel=f"stream_{p.op}_{p.mem}_v{p.vec}_i{ilp}_w{p.warps}_sm{p.sms}",
                       regs_per_thread=32 if p.blocks_per_sm > 1 else 40,
                       shared_bytes=shared_bytes if shared_bytes is not None else
                       (100 if p.blocks_per_sm > 1 else 120) * 1024,
                       addresses=addr)
    warm = None
    if p.mem == "l2":
        n_sec = (L2_SET_BYTES if p.op in ("copy", "scale") else set_bytes) // 32
        warm = np.arange(n_sec, dtype=np.int64)
    moved = n_warps * (loads_per_warp + stores_per_warp) * 32 * p.vec
    if p.op == "gather":
        moved = n_warps * loads_per_warp * 32 * p.vec           # useful bytes, as the records count them
    return trace, warm, moved


def simulate_stream(p: StreamPoint, gpu="h100-boost", **kw) -> dict:
    """The model's bandwidth for ``p``: {gbps, cycles, window_cycles, bytes}."""
    from gpusim.config import load_gpu
    from gpusim.memory.system import MemorySystem
    from gpusim.timing import simulate
    gpu = load_gpu(gpu)
    trace, warm, moved = stream_trace(p, **kw)
    mem = MemorySystem(gpu)
    if warm is not None:
        mem.preload_l2(warm)
    res = simulate(trace, gpu, memory=mem)
    # the active SMs' blocks: the window from the first start to the last end, as the records' globaltimer
    window = float(res.warp_end_cycle.max() - res.warp_start_cycle.min())
    gbps = moved / window * gpu.clock_mhz * 1e6 / 1e9
    return {"gbps": gbps, "cycles": res.cycles, "window_cycles": window, "bytes": moved}


ATOMIC_KINDS = {"red_i": "red.add.u32", "atom_i": "atom.add.u32", "red_f": "red.add.f32", "atom_f": "atom.add.f32"}


def aggregation_of_uniform(kind: str) -> str:
    """How ptxas aggregates ``mb_atom_uniform_*``'s ``atomicAdd(p, 1)`` of ``kind`` (isa.aggregate's rule):
    integer ones once per warp, floating-point ones not at all."""
    from isa.aggregate import LEADER
    return LEADER if kind.endswith("_i") else ""


def atomic_trace(kind: str, pattern: str, *, sms: int = 132, warps: int = 8, iters: int = 8, seed: int = 0):
    """(trace, sectors in L2 at the start, lane-operations) of ``mb_atom_*``: every thread ``iters`` atomics of ``kind`` (``red_i``,
    ``atom_i``, ``red_f``, ``atom_f``) on the addresses of ``pattern``: ``one`` (all lanes one word),
    ``few8_words`` (8 words of one sector), ``distinct_coalesced`` (each lane its own word, a warp a line),
    ``distinct_scattered`` (each lane a random sector of 16 MB), ``wagg_one`` (a warp-aggregated atomic: one
    lane per warp, one word), ``uniform_one`` (``mb_atom_uniform_*``: all lanes one word, an address ptxas
    proves warp-uniform, so the atomic is marked as :mod:`isa.aggregate` marks it; lane-operations count
    every lane).  Between two atomics a thread does its address arithmetic (3 integer
    instructions); one block of ``warps`` warps per SM."""
    op = ATOMIC_KINDS[kind]
    prog = []
    for _ in range(iters):
        prog += [ins("alu", dst=[2], src=[2]) for _ in range(3)]
        prog.append(ins(op, dst=[5] if kind.startswith("atom") else [], src=[2, 3]))
        if pattern == "uniform_one":
            prog[-1]["aggregated"] = aggregation_of_uniform(kind)
    prog.append(ins("exit"))
    n_warps = sms * warps
    lanes = np.arange(32, dtype=np.int64)
    w = np.arange(n_warps, dtype=np.int64)[:, None, None]
    shape = (n_warps, iters, 32)
    if pattern in ("one", "wagg_one", "uniform_one"):
        addr = np.zeros(shape, dtype=np.int64)
    elif pattern == "few8_words":
        addr = np.broadcast_to((lanes % 8) * 4, shape).copy()
    elif pattern == "distinct_coalesced":
        addr = np.broadcast_to((w * 32 + lanes[None, None, :]) * 4, shape).copy()
    elif pattern == "distinct_scattered":
        addr = np.random.default_rng(seed).integers(0, (16 << 20) // 32, size=shape) * 32
    else:
        raise ValueError(f"unknown atomic pattern {pattern!r}")
    masks = None
    ops = n_warps * iters * 32
    if pattern == "wagg_one":
        # only the atomic (every 4th instruction) runs, on one lane; the rest on all
        masks = [[1 if (k % 4 == 3 and k < len(prog) - 1) else 0xFFFFFFFF for k in range(len(prog))]] * n_warps
        ops = n_warps * iters                            # atomics; each stands for 32 elements
    trace = make_trace(prog, n_blocks=sms, warps_per_block=warps, warp_pcs=[list(range(len(prog)))] * n_warps,
                       warp_masks=masks, kernel=f"atomic_{kind}_{pattern}",
                       addresses=addr.reshape(n_warps * iters, 32))
    # the recorded rates follow a warm-up launch: the words are in L2
    warm = np.unique(addr.reshape(-1) // 32)
    return trace, warm, ops


def simulate_atomics(kind: str, pattern: str, gpu="h100-boost", **kw) -> dict:
    """The model's atomic rate for ``kind`` on ``pattern``: {ops_per_ns, window_cycles, ops}."""
    from gpusim.config import load_gpu
    from gpusim.timing import simulate
    gpu = load_gpu(gpu)
    from gpusim.memory.system import MemorySystem
    trace, warm, ops = atomic_trace(kind, pattern, **kw)
    mem = MemorySystem(gpu)
    mem.preload_l2(warm)
    res = simulate(trace, gpu, memory=mem)
    window = float(res.warp_end_cycle.max() - res.warp_start_cycle.min())
    return {"ops_per_ns": ops / (window / (gpu.clock_mhz * 1e-3)), "window_cycles": window, "ops": ops}
