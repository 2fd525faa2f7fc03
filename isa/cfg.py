"""Control-flow analysis: basic blocks, post-dominators, and the reconvergence PC of each branch.

In a device function, ``ret`` leads to the virtual exit like ``exit``: a branch whose paths only meet there
reconverges at the function's return (the linker, :mod:`isa.link`, gives that point a PC).

Divergent lanes of a warp reconverge at the *immediate post-dominator* of the branch (as in GPGPU-Sim's SIMT
stack and pre-Volta hardware): the first instruction that every path from the branch must pass through.
A virtual exit node post-dominates everything; a branch whose paths only meet at kernel exit gets
``len(instructions)`` as its reconvergence PC.
"""
from __future__ import annotations


def _leaders(instrs) -> list[int]:
    n = len(instrs)
    lead = {0}
    for ins in instrs:
        if ins.base == "bra":
            lead.add(ins.target)
            if ins.pc + 1 < n:
                lead.add(ins.pc + 1)
        elif ins.base == "brx":
            lead.update(ins.targets)
            if ins.pc + 1 < n:
                lead.add(ins.pc + 1)
        elif ins.base in ("ret", "exit", "trap") and ins.pc + 1 < n:
            lead.add(ins.pc + 1)
    return sorted(x for x in lead if x < n)


def reconvergence_points(instrs) -> dict[int, int]:
    """Map each branch PC to the PC where its divergent paths reconverge."""
    n = len(instrs)
    if n == 0:
        return {}
    leaders = _leaders(instrs)
    block_of = [0] * n
    starts = leaders
    for b, s in enumerate(starts):
        end = starts[b + 1] if b + 1 < len(starts) else n
        for pc in range(s, end):
            block_of[pc] = b
    nb = len(starts)
    exit_node = nb
    succ: list[set[int]] = [set() for _ in range(nb)]
    for b, s in enumerate(starts):
        end = (starts[b + 1] if b + 1 < nb else n) - 1
        last = instrs[end]
        if last.base == "bra":
            succ[b].add(block_of[last.target])
            unconditional = last.guard is None
            if not unconditional:
                succ[b].add(block_of[end + 1] if end + 1 < n else exit_node)
        elif last.base == "brx":
            succ[b].update(block_of[t] for t in last.targets)
            if last.guard is not None:
                succ[b].add(block_of[end + 1] if end + 1 < n else exit_node)
        elif last.base in ("ret", "exit", "trap"):
            if last.guard is None:
                succ[b].add(exit_node)
            else:
                succ[b].add(exit_node)
                succ[b].add(block_of[end + 1] if end + 1 < n else exit_node)
        else:
            succ[b].add(block_of[end + 1] if end + 1 < n else exit_node)
    # iterative post-dominator sets (bitsets as Python ints); blocks that cannot reach exit (infinite
    # loops) keep "all" and reconverge nowhere special
    all_bits = (1 << (nb + 1)) - 1
    pdom = [all_bits] * (nb + 1)
    pdom[exit_node] = 1 << exit_node
    changed = True
    order = list(range(nb - 1, -1, -1))
    while changed:
        changed = False
        for b in order:
            acc = all_bits
            for s in succ[b]:
                acc &= pdom[s]
            new = acc | (1 << b)
            if new != pdom[b]:
                pdom[b] = new
                changed = True
    result: dict[int, int] = {}
    for ins in instrs:
        if ins.base not in ("bra", "brx"):
            continue
        b = block_of[ins.pc]
        strict = pdom[b] & ~(1 << b)
        # the immediate post-dominator is the strict post-dominator that all others post-dominate
        ipdom = exit_node
        # the strict post-dominator whose own post-dominator set equals `strict` is the immediate one
        for c in range(nb + 1):
            if not strict >> c & 1:
                continue
            if pdom[c] == strict:
                ipdom = c
                break
        result[ins.pc] = starts[ipdom] if ipdom < nb else n
    return result


def rewrite(instrs, removed, replace) -> list:
    """``instrs`` without the PCs in ``removed`` and with ``replace(ins)`` for the others (an instruction, or
    the same one), renumbered: PCs, branch targets (a removed target moves to the next kept instruction) and
    reconvergence points recomputed.  The passes that rewrite ptxas-style (:mod:`isa.contract`,
    :mod:`isa.ifconvert`) end with it."""
    n = len(instrs)
    out = []
    new_pc = [0] * (n + 1)
    for ins in instrs:
        new_pc[ins.pc] = len(out)
        if ins.pc in removed:
            continue
        out.append(replace(ins))
    new_pc[n] = len(out)
    for ins in out:
        ins.pc = new_pc[ins.pc]
        if ins.target >= 0:
            ins.target = new_pc[ins.target]
        ins.targets = tuple(new_pc[t] for t in ins.targets)
    rpcs = reconvergence_points(out)
    for ins in out:
        if ins.base in ("bra", "brx"):
            ins.reconverge = rpcs[ins.pc]
    return out
