"""The kernel faults the emulator reports, each naming where it happened: illegal addresses, barrier
deadlocks, budget overruns and constructs it does not model.

They say what a CUDA launch failure does not: the kernel, the block and thread (as ``(x, y, z)``), the
instruction and its line, the address and the nearest allocation, the warps and lanes a barrier waits for.
"""
from __future__ import annotations

from gpusim.errors import BarrierDeadlockError, BudgetExceededError, IllegalAddressError, UnsupportedError


def unsupported(module, ins, msg: str) -> UnsupportedError:
    return UnsupportedError(f"{module.source_name}:{ins.line}:{ins.col}: {msg}")


def _block_thread(fr, lane: int) -> tuple[tuple, tuple]:
    """(block, thread) of a batch lane, as CUDA's ``blockIdx``/``threadIdx``."""
    blk_local, t = divmod(lane, fr.lanes_per_block)
    blk = fr.block0 + blk_local
    return _dim3_of(blk, fr.grid), _dim3_of(t, fr.block)


def _dim3_of(linear: int, dims) -> tuple[int, int, int]:
    x, y, _ = dims
    return linear % x, (linear // x) % y, linear // (x * y)


def illegal_address(module, kernel, fr, st, ins, lane_pos, where, address, space, what) -> IllegalAddressError:
    """``what`` at ``address`` in ``space`` by executing lane ``lane_pos`` (of the part ``where``)."""
    lanes = st.lane_ids(fr)
    if where is not None:
        lane_pos = int(where[lane_pos])
    b3, t3 = _block_thread(fr, int(lanes[lane_pos]))
    near = fr.mem.nearest(address) if space == "global" else f".{space.value} space"
    return IllegalAddressError(
        f"illegal address in kernel '{kernel.name}': {what} of {ins.opcode} at "
        f"{module.source_name}:{ins.line} (pc {ins.pc}); block {b3}, thread {t3}: address "
        f"{address:#x} ({near})")


def budget_exceeded(module, kernel, ins, budget: int) -> BudgetExceededError:
    return BudgetExceededError(
        f"kernel '{kernel.name}' exceeded the instruction budget of {budget:,} warp instructions "
        f"(at pc {ins.pc}, PTX line {ins.line}); raise it with budget= / --budget if the kernel is "
        f"meant to run this long")


def barrier_deadlock(module, kernel, fr, simt) -> BarrierDeadlockError:
    """No warp of the batch can run and some wait at a barrier: describe the first such block's warps."""
    import numpy as np
    src = module.source_name
    wpb = simt.warps_per_block
    b = int(np.flatnonzero(simt.waiting)[0] // wpb)
    b3 = _dim3_of(fr.block0 + b, fr.grid)
    lines = []
    for wi in range(wpb):
        w = b * wpb + wi
        if simt.done[w]:
            lines.append(f"  warp {wi}: exited")
            continue
        if simt.waiting[w]:
            bar_pc = int(simt.pc[w]) - 1
            ins = kernel.instructions[bar_pc]
            desc = (f"  warp {wi}: lanes {lane_list(int(simt.mask[w]))} wait at {ins.opcode} "
                    f"({src}:{ins.line}, pc {bar_pc})")
            others = [f"lanes {lane_list(m)} are held on another path at pc {pc} "
                      f"({src}:{kernel.instructions[pc].line})"
                      for pc, m in simt.held_paths(w) if pc < len(kernel.instructions)]
            if others:
                desc += "; " + "; ".join(others)
            lines.append(desc)
    return BarrierDeadlockError(
        f"barrier deadlock in kernel '{kernel.name}', block {b3}: not every thread of the block can reach the "
        f"barrier (is __syncthreads() inside divergent code?)\n" + "\n".join(lines))


def lane_list(mask: int) -> str:
    """``0-3,8,10-31``: the lanes of a 32-bit mask as runs."""
    idx = [i for i in range(32) if mask >> i & 1]
    if not idx:
        return "none"
    runs, start, prev = [], idx[0], idx[0]
    for i in idx[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        runs.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ",".join(runs)
