"""Control flow and ordering: ``bra ret exit bar barrier membar fence``.

Branches, exits and block barriers change where warps stand, so their handlers act on the batch's
:class:`~gpusim.functional.simt.SimtStack` (``fr.simt``) instead of registers.  A guarded ``bra`` takes the
lanes whose guard is true (``bra.uni`` is taken by every active lane); lanes that disagree diverge and
reconverge at the branch's immediate post-dominator.  ``ret``/``exit`` finish the executing lanes.
``bar.sync``/``barrier.sync`` (any barrier number, the thread count ignored) wait for every non-exited thread
of the block.  ``bar.warp.sync`` (``__syncwarp``), ``membar`` and ``fence`` only order memory, and the
emulator is sequentially consistent in its execution order, so they just move on.
"""
from __future__ import annotations

from gpusim.functional.registry import semantics
from isa.program import Instruction


@semantics("bra", control=True)
def build_bra(ins: Instruction, ctx):
    uniform = ins.guard is None or "uni" in ins.mods
    target, reconverge = ins.target, ins.reconverge

    def h_bra(fr, st):
        fr.simt.branch(st.selw, st.act if uniform else st.exe, target, reconverge)
    return h_bra


@semantics("ret", "exit", control=True)
def build_exit(ins: Instruction, ctx):
    def h_exit(fr, st):
        fr.simt.exit(st.selw, st.exe)
    return h_exit


@semantics("bar", "barrier", control=True)
def build_bar(ins: Instruction, ctx):
    if "warp" in ins.mods:           # bar.warp.sync: a reconvergence hint only
        def h_syncwarp(fr, st):
            fr.simt.advance(st.selw)
        return h_syncwarp

    def h_bar(fr, st):
        fr.simt.wait_at_barrier(st.selw)
    return h_bar


@semantics("membar", "fence")
def build_fence(ins: Instruction, ctx):
    def h_fence(fr, st):
        pass
    return h_fence
