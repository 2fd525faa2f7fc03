"""The kernel faults the emulator reports, each naming where it happened: illegal addresses, barrier
deadlocks, budget overruns and constructs it does not model.

They say what a CUDA launch failure does not: the kernel, the block and thread (as ``(x, y, z)``), the
instruction, the address and the nearest allocation, the warps and lanes a barrier waits for.  The place is
always the instruction's :meth:`isa.program.Module.location`, formatted by
:meth:`isa.location.SourceLocation.format`: ``file.cu:LINE`` with the CUDA line and the PTX position below
it for a kernel compiled with line information, ``file.ptx:LINE:COL`` otherwise.  The error keeps it as
``err.location``.
"""
from __future__ import annotations

import numpy as np

from gpusim.errors import (BarrierDeadlockError, BudgetExceededError, GpusimError, IllegalAddressError,
                           LivelockError, UnsupportedError)
from isa.units import MemSpace


def _at(cls: type[GpusimError], module, ins, message: str) -> GpusimError:
    loc = module.location(ins)
    err = cls(loc.format(message))
    err.location = loc
    return err


def unsupported(module, ins, msg: str) -> UnsupportedError:
    """A construct the emulator does not model, found when the kernel is compiled."""
    return _at(UnsupportedError, module, ins, msg)


def illegal_address(module, kernel, fr, st, ins, lane_pos, where, address, space, what) -> IllegalAddressError:
    """``what`` at ``address`` in ``space`` by executing lane ``lane_pos`` (of the part ``where``)."""
    lanes = st.lane_ids(fr)
    if where is not None:
        lane_pos = int(where[lane_pos])
    blk_local, t = divmod(int(lanes[lane_pos]), fr.lanes_per_block)
    near = fr.mem.nearest(address) if space is MemSpace.GLOBAL else f".{space.value} space"
    return _at(IllegalAddressError, module, ins,
               f"illegal address in kernel '{kernel.name}': {what} of {ins.opcode} (pc {ins.pc}); "
               f"block {_dim3_of(fr.block0 + blk_local, fr.grid)}, thread {_dim3_of(t, fr.block)}: "
               f"address {address:#x} ({near})")


def budget_exceeded(module, kernel, ins, budget: int) -> BudgetExceededError:
    """The launch executed more than ``budget`` warp instructions; ``ins`` is where it stood."""
    return _at(BudgetExceededError, module, ins,
               f"kernel '{kernel.name}' exceeded the instruction budget of {budget:,} warp instructions "
               f"(at pc {ins.pc}); raise it with budget= / --budget if the kernel is meant to run this long")


def livelock(module, kernel, fr, simt, ins, period_steps: int, steps: int) -> LivelockError:
    """The batch came back to an earlier state after ``period_steps`` steps with no global write in between;
    ``ins`` is where it stands: the PCs the warps still running stand at, with their lines."""
    running = np.flatnonzero(~simt.done)
    pcs = sorted({int(p) for p in simt.pc[running]})
    where = ", ".join(f"pc {p} ({module.location(kernel.instructions[p]).brief()})"
                      for p in pcs[:4] if p < len(kernel.instructions))
    first, last = fr.block0, fr.block0 + int(simt.block_of[-1])
    return _at(LivelockError, module, ins,
               f"kernel '{kernel.name}' can never finish: blocks {_dim3_of(first, fr.grid)}..{_dim3_of(last, fr.grid)} "
               f"came back to the same state after {period_steps:,} steps with no global memory written in "
               f"between, so they would repeat it forever ({len(running):,} warps loop at {where}; found after "
               f"{steps:,} steps). A spin on a flag that no running thread sets? In the emulator, blocks of a later "
               f"batch (at most max_lanes threads run at once) and warps standing at a higher PC (the lockstep "
               f"schedule runs the lowest PC first) cannot set it while the spinning warps run")


def trace_memory_exceeded(module, kernel, ins, limit_bytes: int, rows: int, first_block: int, n_blocks: int,
                          grid) -> BudgetExceededError:
    """A batch's recorded trace outgrew ``limit_bytes`` before its blocks finished; ``ins`` is where it stood."""
    last = first_block + n_blocks - 1
    blocks = f"block {_dim3_of(first_block, grid)}" if n_blocks == 1 else \
        f"blocks {_dim3_of(first_block, grid)}..{_dim3_of(last, grid)}"
    return _at(BudgetExceededError, module, ins,
               f"kernel '{kernel.name}': the trace of {blocks} reached {limit_bytes / 2**30:.2f} GiB "
               f"({rows:,} warp instructions) before they finished, at pc {ins.pc}: a loop that does not end? "
               f"If the kernel is meant to run this long, raise trace_memory_limit= / --trace-memory GIB, or "
               f"run it with --mode emulate, which records nothing")


def barrier_deadlock(module, kernel, fr, simt) -> BarrierDeadlockError:
    """No warp of the batch can run and some wait at a barrier: the first such block's warps, where each
    waits and where its other lanes are held (located at the barrier the first waiting warp reached)."""
    wpb = simt.warps_per_block
    first = int(np.flatnonzero(simt.waiting)[0])
    b = first // wpb
    lines = []
    for wi in range(wpb):
        w = b * wpb + wi
        if simt.done[w]:
            lines.append(f"  warp {wi}: exited")
        elif simt.waiting[w]:
            bar_pc = int(simt.pc[w]) - 1
            ins = kernel.instructions[bar_pc]
            desc = (f"  warp {wi}: lanes {lane_list(int(simt.mask[w]))} wait at {ins.opcode} "
                    f"({module.location(ins).brief()}, pc {bar_pc})")
            here = int(simt.mask[w])
            others = [f"lanes {lane_list(m & ~here)} are held on another path at pc {pc} "
                      f"({module.location(kernel.instructions[pc]).brief()})"
                      for pc, m in simt.held_paths(w) if pc < len(kernel.instructions) and m & ~here]
            lines.append("; ".join([desc] + others))
    return _at(BarrierDeadlockError, module, kernel.instructions[int(simt.pc[first]) - 1],
               f"barrier deadlock in kernel '{kernel.name}', block {_dim3_of(fr.block0 + b, fr.grid)}: not every "
               f"thread of the block can reach the barrier (is __syncthreads() inside divergent code?)\n" +
               "\n".join(lines))


def mbarrier_deadlock(module, kernel, fr, simt) -> BarrierDeadlockError:
    """Every warp left waits on an mbarrier phase that no thread can complete any more."""
    w = int(np.flatnonzero(simt.parked)[0])
    ins = kernel.instructions[int(simt.pc[w])]
    b, wi = divmod(w, simt.warps_per_block)
    return _at(BarrierDeadlockError, module, ins,
               f"mbarrier deadlock in kernel '{kernel.name}', block {_dim3_of(fr.block0 + b, fr.grid)}: warp {wi} "
               f"(lanes {lane_list(int(simt.mask[w]))}) waits ({ins.opcode}) for a phase that cannot complete: "
               f"{int(simt.parked.sum())} warps wait, none can arrive (too few arrivals for the count given to "
               f"mbarrier.init?)")


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


def _dim3_of(linear: int, dims) -> tuple[int, int, int]:
    """A linear block or thread index as CUDA's (x, y, z) in a grid or block of ``dims``."""
    x, y, _ = dims
    return linear % x, (linear // x) % y, linear // (x * y)


# public names for the instruction families (call, trap) that report their own faults
at = _at
dim3_of = _dim3_of
