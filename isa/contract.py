"""FMA contraction as ptxas does it by default (``--fmad=true``): ``mul`` + ``add``/``sub`` -> one ``fma``.

The PTX ISA allows a ``mul``/``add``/``sub`` without a rounding modifier to be contracted; ptxas does so,
and the result is rounded once instead of twice, so a simulator that rounds twice differs from the GPU in
the last bits and counts one instruction too many.  The rule, learnt from the SASS ptxas 13.0 writes for
sm_90 (``FMUL``/``FADD`` vs ``FFMA``/``DFMA``; the probes are ``tests/isa/test_contract.py``'s cases):

* only ``mul.f32``/``mul.f64`` and ``add``/``sub`` of the same type without ``.rn .rz .rm .rp`` (an
  explicit rounding modifier forbids it), with the same ``.ftz``;
* the product is contracted into every add/sub that uses it only when *all* its uses are such adds/subs in
  the same basic block (a product also stored, compared or used in another block stays a ``mul``), and
  then the ``mul`` disappears;
* when both operands of an add are contractible products, the first operand's is contracted;
* ``sub a, P`` becomes ``fma(-x, y, a)``, ``sub P, c`` becomes ``fma(x, y, -c)``.

The fused instruction is an ``fma`` at the add's place (its PTX line), with ``fused`` recording the
negations and the mul's line.  Kept conservative where the probes said nothing: the product's register
must have one definition in the function and the mul's sources no redefinition before the add.
"""
from __future__ import annotations

import dataclasses

from isa.cfg import rewrite
from isa.opcodes import OPCODES
from isa.program import Instruction, Reg

_ROUNDING = ("rn", "rz", "rm", "rp")
_CONTROL = ("bra", "brx", "ret", "exit", "call", "trap")


def _plain(ins: Instruction, bases: tuple[str, ...]) -> bool:
    return ins.base in bases and ins.type in ("f32", "f64") and not (ins.mods & set(_ROUNDING))


def contract(instrs: list[Instruction]) -> tuple[list[Instruction], int]:
    """The instructions of one function with its contractible mul + add/sub pairs fused (see the module
    docstring), and how many were.  Branch targets and reconvergence points are recomputed."""
    if not any(_plain(i, ("mul",)) for i in instrs):
        return instrs, 0
    block = _blocks(instrs)
    defs: dict[int, list[int]] = {}
    uses: dict[int, list[int]] = {}
    for ins in instrs:
        for r in ins.regs_written():
            defs.setdefault(r.id, []).append(ins.pc)
        for r in ins.regs_read():
            uses.setdefault(r.id, []).append(ins.pc)
    cands: dict[int, Instruction] = {}      # product register id -> its mul
    for m in instrs:
        if not _plain(m, ("mul",)) or not isinstance(m.operands[0], Reg):
            continue
        d = m.operands[0].id
        if len(defs.get(d, ())) != 1 or not uses.get(d):
            continue
        srcs = [o.id for o in m.operands[1:] if isinstance(o, Reg)]
        ok = True
        for u in uses[d]:
            a = instrs[u]
            if not (_plain(a, ("add", "sub")) and a.type == m.type and block[u] == block[m.pc] and u > m.pc
                    and ("ftz" in a.mods) == ("ftz" in m.mods)):
                ok = False
                break
            if m.guard is not None and (a.guard != m.guard or a.guard_negated != m.guard_negated):
                ok = False
                break
            ops = [o.id if isinstance(o, Reg) else None for o in a.operands[1:3]]
            if ops.count(d) != 1:
                ok = False
                break
            if any(p for s in srcs for p in defs.get(s, ()) if m.pc < p < u):
                ok = False
                break
        if ok:
            cands[d] = m
    # each add takes its first contractible operand; a product not taken by all its uses is not contracted
    while True:
        choice: dict[int, int] = {}          # add pc -> product register
        for d in cands:
            for u in uses[d]:
                if u in choice:
                    continue
                a = instrs[u]
                ids = [o.id if isinstance(o, Reg) else None for o in a.operands[1:3]]
                first = ids[0] if ids[0] in cands else ids[1]
                choice[u] = first
        dropped = [d for d in cands if any(choice.get(u) != d for u in uses[d])]
        if not dropped:
            break
        for d in dropped:
            del cands[d]
    if not cands:
        return instrs, 0
    removed = {m.pc for m in cands.values()}
    out = rewrite(instrs, removed, lambda ins: _fused(ins, cands[choice[ins.pc]]) if ins.pc in choice else ins)
    return out, len(choice)


def _fused(add: Instruction, mul: Instruction) -> Instruction:
    """``add``/``sub`` with one operand the product of ``mul``, as one fma."""
    d, a, b = add.operands[0], add.operands[1], add.operands[2]
    prod = mul.operands[0]
    first = isinstance(a, Reg) and a.id == prod.id
    other = b if first else a
    neg_product = add.base == "sub" and not first      # c - x*y
    neg_addend = add.base == "sub" and first           # x*y - c
    mods = {"rn"} | (add.mods & {"ftz", "sat"})
    spec = OPCODES["fma"]
    t = add.type
    unit, lat = spec.unit_and_latency(t)
    opcode = "fma.rn" + "".join(f".{m}" for m in ("ftz", "sat") if m in mods) + f".{t}"
    return dataclasses.replace(add, opcode=opcode, base="fma", spec=spec, mods=frozenset(mods),
                               operands=(d, mul.operands[1], mul.operands[2], other), unit=unit,
                               latency_class=lat, fused=(neg_product, neg_addend, mul.line))


def _blocks(instrs: list[Instruction]) -> list[int]:
    """Basic-block number of each PC (a new block at every branch target and after control flow)."""
    n = len(instrs)
    lead = [False] * (n + 1)
    lead[0] = True
    for ins in instrs:
        if ins.base in _CONTROL:
            lead[ins.pc + 1] = True
        if ins.base == "bra" and 0 <= ins.target < n:
            lead[ins.target] = True
        for t in ins.targets:
            lead[t] = True
    out, b = [], -1
    for pc in range(n):
        b += lead[pc]
        out.append(b)
    return out
