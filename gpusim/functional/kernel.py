"""A kernel compiled for the emulator: a pre-bound handler per PC and the kernel's symbol table.

:func:`compile_kernel` links the kernel with the device functions it calls (:func:`isa.link.link`, which
also contracts mul + add into fma unless ``fmad=False``), lays out the kernel's shared variables (static,
then module-scope ``.shared``, then the dynamic ``extern`` array), gives every variable its address in its
state space, and asks the instruction table (:mod:`gpusim.functional.registry`) for each instruction's
handler, so that a kernel with an instruction gpusim has no semantics for is rejected before it runs, with
its location.

An *instrument* (the checker's, :mod:`gpusim.check`) sees the kernel while it is compiled: it is given every
memory operand (``instrument.memop(MemOp)``) and then the handler list (``instrument.wrap(ctx, handlers)``
returns the handlers to use), so that checks cost nothing in a kernel compiled without one.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from gpusim.errors import UnsupportedError
from gpusim.functional import faults
from gpusim.functional.livelock import global_writers
from gpusim.functional.recorder import static_instruction
from gpusim.functional.registry import lookup
from gpusim.functional.trace import StaticInstr
from isa.link import Program, link
from isa.program import Kernel, Module, SpecialReg
from isa.units import MemSpace


class KernelContext:
    """What a builder may ask about the kernel it compiles: symbol addresses and errors with locations."""

    def __init__(self, kernel, module: Module, symbols: dict[str, tuple[MemSpace, int]],
                 shared_static_bytes: int, program: Program | None = None):
        self.kernel = kernel          # the linked program (its .name, .instructions)
        self.module = module
        self.table = symbols
        self.shared_static_bytes = shared_static_bytes
        self.program = program
        self.memop_hook = None            # an instrument's: called with each MemOp as it is built

    def frame(self, key: str) -> tuple[int, int]:
        """(offset, bytes) of a ``.param`` variable in the thread's parameter frame."""
        return self.program.frame_symbols[key]

    def return_point(self, pc: int):
        """The function whose return point is ``pc``, or None."""
        for f in self.program.functions.values():
            if f.return_pc == pc:
                return f
        return None

    def symbol(self, name: str) -> tuple[MemSpace, int]:
        """(state space, address in it) of a variable or parameter."""
        return self.table[name]

    def unsupported(self, ins, msg: str):
        return faults.unsupported(self.module, ins, msg)

    def kernel_error(self, ins, msg: str):
        """A failure while the kernel runs (a KernelError located at ``ins``)."""
        from gpusim.errors import KernelError
        return faults.at(KernelError, self.module, ins, msg)

    def address_error(self, fr, st, ins, lane_pos, where, address, space, what):
        return faults.illegal_address(self.module, self.kernel, fr, st, ins, lane_pos, where, address, space,
                                      what)


@dataclass
class CompiledKernel:
    kernel: Kernel
    handlers: list            # per PC: h(fr, st)
    is_control: list[bool]    # per PC: the handler moves the PC itself
    ctx: KernelContext
    static: list[StaticInstr]
    program: Program | None = None
    uses_clock: bool = True   # reads %clock, %clock64 or %globaltimer: the emulator updates them per step

    @cached_property
    def writes_global(self):
        """Per PC: the instruction may write global memory (for :class:`gpusim.functional.livelock.LivelockWatch`)."""
        return global_writers(self.static)

    @property
    def instructions(self):
        return self.program.instructions


def compile_kernel(module: Module, k: Kernel, global_addr: dict[str, int], fmad: bool = True,
                   instrument=None) -> CompiledKernel:
    """Handlers for every instruction of ``k`` and the functions it calls; ``global_addr``: the launch's
    addresses of module globals; ``fmad``: contract mul + add into fma as ptxas does by default;
    ``instrument``: see the module docstring."""
    prog = link(module, k, fmad=fmad)
    shared = {v.name: v.offset for v in k.shared_vars}
    top = k.shared_bytes
    dynamic = []
    for v in module.shared_globals:
        if v.size_bytes == 0:
            dynamic.append(v)
            continue
        off = _align(top, v.align)
        shared[v.name] = off
        top = off + v.size_bytes
    for key, v in prog.function_shared:
        off = _align(top, v.align)
        shared[key] = off
        top = off + v.size_bytes
    for v in dynamic:
        shared[v.name] = _align(top, 16)
    symbols: dict[str, tuple[MemSpace, int]] = {}
    for space, layout in ((MemSpace.SHARED, shared),
                          (MemSpace.CONST, {n: v.offset for n, v in module.globals.items() if v.space == "const"}),
                          (MemSpace.GLOBAL, global_addr),
                          (MemSpace.PARAM, {p.name: p.offset for p in k.params}),
                          (MemSpace.LOCAL, prog.local_symbols)):
        symbols.update({n: (space, a) for n, a in layout.items()})
    symbols.update({f.name: (MemSpace.GLOBAL, f.address) for f in prog.functions.values()})
    ctx = KernelContext(_Named(prog), module, symbols, top, prog)
    if instrument is not None:
        ctx.memop_hook = instrument.memop
    handlers, is_control = [], []
    for ins in prog.instructions:
        row = lookup(ins)
        if row is None:
            raise ctx.unsupported(ins, f"no semantics for {ins.opcode}")
        try:
            handlers.append(row.build(ins, ctx))
        except UnsupportedError as e:     # raised below the builder, where the instruction is not known
            if e.location is not None:
                raise
            raise ctx.unsupported(ins, str(e)) from None
        is_control.append(row.control)
    if instrument is not None:
        handlers = instrument.wrap(ctx, handlers)
    clocks = {"%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"}
    uses_clock = any(isinstance(o, SpecialReg) and o.name in clocks for i in prog.instructions for o in i.operands)
    return CompiledKernel(k, handlers, is_control, ctx, [static_instruction(i) for i in prog.instructions], prog,
                          uses_clock)


class _Named:
    """The linked program as the fault reports see a kernel: its name and instructions."""

    def __init__(self, prog: Program):
        self.name = prog.kernel.name
        self.instructions = prog.instructions
        self.program = prog


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a
