"""What ptxas does to a constant load at a fixed address, as the timing model sees it: an operand, not an
instruction.

``ld.const`` of a ``__constant__`` variable at an address the PTX fixes (a symbol plus an immediate, no
register) becomes a ``c[0x3][offset]`` operand of the instructions that use the value (``FFMA R4, R5,
c[0x3][0x8], R4``): no LDC is issued, nothing goes through the LSU/MIO pipe, and the users do not wait for a
load.  The lecture notes' 2D convolution reads its 5 x 5 mask this way: ncu counts 1,250,956 warp
instructions on the H100 (``tests/golden/h100/conv2d_tiled__default.json``), the PTX as written 1,517,360,
and 25 of its instructions per output pixel are such loads.

The rule (:func:`find_constant_operands`): a ``ld.const`` that reads no register (no address register, no
guard), whose destination register no other instruction writes, and every reader of which is an arithmetic
instruction (the FP32, INT or FP64 pipe: an SASS ALU instruction takes one constant-bank operand) is folded:
:func:`fold_constant_operands` drops its rows and takes its register out of its readers' sources.

It runs after the other passes (vector merging, loop unrolling: :func:`gpusim.timing.apply_passes`), on the
PCs they leave; a register counts as written once when all its writers are copies of one PTX instruction.
Not folded: vector or multi-register ``ld.const``, and ``ld.param`` (which ptxas also reads as ``c[0x0][..]``
operands; not measured yet).

Simplifications: an instruction that reads two folded registers (ptxas must load one of them) is still
counted as reading both from the bank; the constant cache is not charged for the operands' reads (a bank
operand is served by the SM's constant cache as part of operand collection, not as a request).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from gpusim.functional.trace import KernelTrace
from gpusim.timing.vector_merge import drop_instructions
from isa.units import MemSpace, Unit

OPERAND_UNITS = frozenset({Unit.FP32.value, Unit.INT.value, Unit.FP64.value})


def find_constant_operands(trace: KernelTrace) -> list[int]:
    """The PCs of ``trace`` whose ``ld.const`` ptxas turns into constant-bank operands (module docstring)."""
    instrs = trace.instructions
    # writers by the PC they came from: an unrolled loop's last copy writes the body's own names again
    origin = trace.meta.get("origin_pc") or range(len(instrs))
    writers: dict[int, set[int]] = {}
    readers: dict[int, list[int]] = {}
    for ins in instrs:
        for r in ins.dst_regs:
            writers.setdefault(r, set()).add(origin[ins.pc])
        for r in ins.src_regs:
            readers.setdefault(r, []).append(ins.pc)
    out = []
    for ins in instrs:
        if not (ins.mem_space == MemSpace.CONST.value and ins.is_load and not ins.src_regs
                and len(ins.dst_regs) == 1):
            continue
        r = ins.dst_regs[0]
        users = readers.get(r, [])
        if len(writers[r]) == 1 and users and all(instrs[u].unit in OPERAND_UNITS and instrs[u].mem_space is None
                                             for u in users):
            out.append(ins.pc)
    return out


def fold_constant_operands(trace: KernelTrace, pcs: list[int] | None = None) -> KernelTrace:
    """``trace`` with the loads at ``pcs`` (default: :func:`find_constant_operands`) folded into their users
    as constant-bank operands: their rows go, and their registers leave the readers' sources."""
    if pcs is None:
        pcs = find_constant_operands(trace)
    if not pcs:
        return trace
    instrs = trace.instructions
    drop = np.zeros(len(instrs), dtype=bool)
    drop[pcs] = True
    folded = {instrs[p].dst_regs[0] for p in pcs}
    kept = [dataclasses.replace(ins, src_regs=tuple(r for r in ins.src_regs if r not in folded))
            if folded.intersection(ins.src_regs) else ins
            for ins in (instrs[p] for p in np.flatnonzero(~drop).tolist())]
    trace = drop_instructions(trace, drop, kept)
    trace.meta["constant_operands"] = len(pcs)
    return trace
