"""Linking a kernel with the device functions it calls into one program the emulator runs.

:func:`link` lays the kernel's instructions out first and every function it can reach (by ``call``, or by
taking its address) after it, as one instruction list with one register file:

* registers: each function's registers get their own ids after the kernel's;
* a function returns through one *return point* (its last ``ret``, or a ``ret`` appended when it has
  several or a guarded one): every other ``ret`` jumps there, so that lanes returning on different paths
  reconverge before they return together, and a branch whose paths only meet at the return reconverges
  there;
* local variables: the kernel's at the start of the thread's local memory, each function's after them;
* ``.param`` variables of functions and call sequences (``param0``, ``retval0``, a function's formals): a
  per-thread *parameter frame*, each function's region after the kernel's; ``ld.param``/``st.param`` on them
  are register moves for the timing model (the ABI passes them in registers);
* the symbol keys of functions' variables are prefixed with the function's name (``f::param0``).

A recursive function (one on a cycle of the call graph) saves its registers, its local variables and its
parameter frame when it is entered and restores them when it returns, so each activation has its own (a
pointer to an outer activation's local variable sees the innermost one's: a simplification).

``fmad=True`` (ptxas's default, ``--fmad=true``) contracts ``mul`` + ``add``/``sub`` into ``fma`` first
(:mod:`isa.contract`); short forward branches over a few arithmetic instructions become guarded
instructions, as ptxas if-converts them (:mod:`isa.ifconvert`, always); atomics ptxas aggregates across a warp are marked (:mod:`isa.aggregate`; the emulator
ignores the mark, the timing model sends one atomic per warp for them), and so are atoms whose result nothing reads
(ptxas makes them RED: no result to wait for).  An error kept in the kernel or a function it needs (an unsupported instruction, see
``parse_ptx(strict=False)``) is raised here, when that kernel is linked.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from isa.aggregate import mark_aggregated, mark_unread_results
from isa.contract import contract
from isa.declarations import align_up
from isa.errors import PtxError
from isa.ifconvert import if_convert
from isa.program import CallInfo, Instruction, Kernel, Mem, Module, Reg, SymbolAddr, Vec

FUNCTION_BASE = 0x0500_0000_0000     # generic "addresses" of functions (for indirect calls)
FUNCTION_STRIDE = 16
BUILTINS = ("vprintf", "__assertfail")   # extern functions the emulator provides (printf, assert)
STACK_BYTES = 1024                       # per-thread alloca stack: CUDA's default stack size


@dataclass
class FunctionLayout:
    """Where one function sits in a linked program."""

    name: str
    entry_pc: int = -1
    return_pc: int = -1                       # its return point
    params: tuple[str, ...] = ()              # program symbol keys of its formal .params, in order
    returns: tuple[str, ...] = ()             # ... and of its return .params
    registers: tuple[int, ...] = ()           # its register ids
    local_range: tuple[int, int] = (0, 0)     # [start, end) of its variables in the thread's local memory
    frame_range: tuple[int, int] = (0, 0)     # [start, end) of its .params in the parameter frame
    recursive: bool = False                   # on a cycle of the call graph: saves its state per activation
    builtin: str | None = None                # an extern the emulator provides (vprintf, __assertfail)
    address: int = 0


@dataclass
class Program:
    """A kernel linked with its device functions (see the module docstring)."""

    kernel: Kernel
    instructions: list[Instruction]
    registers: list[Reg]
    functions: dict[str, FunctionLayout] = field(default_factory=dict)
    local_symbols: dict[str, int] = field(default_factory=dict)            # key -> offset in local memory
    function_shared: list = field(default_factory=list)     # (key, Variable): .shared declared in functions
    frame_symbols: dict[str, tuple[int, int]] = field(default_factory=dict)   # key -> (offset, bytes)
    local_bytes: int = 0
    frame_bytes: int = 0
    stack_range: tuple[int, int] = (0, 0)     # [floor, top) of the per-thread alloca stack in local memory
    fmad: bool = True
    contracted: int = 0                       # add/sub instructions that became fma (isa.contract)

    @property
    def has_calls(self) -> bool:
        return bool(self.functions)

    def function_at(self, address: int) -> FunctionLayout | None:
        for f in self.functions.values():
            if f.address == address:
                return f
        return None


def link(module: Module, kernel: Kernel, *, fmad: bool = True) -> Program:
    """The program of ``kernel``: its instructions and those of every function it needs (module docstring)."""
    if kernel.error is not None:
        raise kernel.error
    order = _reachable(module, kernel)
    recursive = _recursive(module, [kernel.name] + order)
    units: list[tuple[Kernel, list[Instruction]]] = []
    contracted = 0
    for unit in [kernel] + [module.functions[n] for n in order if n in module.functions]:
        instrs = [dataclasses.replace(i) for i in unit.instructions]
        if fmad:
            instrs, n = contract(instrs)
            contracted += n
        instrs, _ = if_convert(instrs)
        instrs, _ = mark_aggregated(instrs)
        instrs, _ = mark_unread_results(instrs)
        units.append((unit, instrs))
    prog = Program(kernel, [], [], fmad=fmad, contracted=contracted)
    for k, name in enumerate(order):
        prog.functions[name] = FunctionLayout(name, recursive=name in recursive,
                                              address=FUNCTION_BASE + FUNCTION_STRIDE * (k + 1),
                                              builtin=name if name not in module.functions else None)
    local_top, frame_top = kernel.local_bytes, 0
    pending_exit: list[Instruction] = []
    for unit, instrs in units:
        is_fn = not unit.is_entry
        prefix = f"{unit.name}::" if is_fn else ""
        reg_base = len(prog.registers)
        regs = [Reg(r.id + reg_base, r.name, r.type, r.bits) for r in unit.registers]
        prog.registers.extend(regs)
        pc_base = len(prog.instructions)
        if is_fn:
            lay = prog.functions[unit.name]
            lay.entry_pc = pc_base
            lay.registers = tuple(r.id for r in regs)
            start = local_top = align_up(local_top, 16)
            for v in unit.local_vars:
                prog.local_symbols[prefix + v.name] = local_top + v.offset
            local_top += unit.local_bytes
            # a function's .shared variables are the block's (nvcc demotes a kernel's array into the
            # function that uses it): laid out after the kernel's by the emulator
            prog.function_shared.extend((prefix + v.name, v) for v in unit.shared_vars)
            lay.local_range = (start, local_top)
            lay.params = tuple(prefix + p.name for p in unit.params)
            lay.returns = tuple(prefix + p.name for p in unit.returns)
        else:
            for v in unit.local_vars:
                prog.local_symbols[v.name] = v.offset
        fstart = frame_top = align_up(frame_top, 16)
        for key, v in unit.frame_params.items():
            frame_top = align_up(frame_top, max(v.align, 1))
            prog.frame_symbols[prefix + key] = (frame_top, v.size_bytes)
            frame_top += v.size_bytes
        if is_fn:
            lay.frame_range = (fstart, frame_top)
        n = len(instrs)
        rets = [i for i in instrs if i.base == "ret"]
        last = instrs[-1] if instrs else None
        single = is_fn and len(rets) == 1 and rets[0] is last and last.guard is None
        synthetic = is_fn and not single
        ret_point = pc_base + (n if synthetic else n - 1)
        for ins in instrs:
            exits = ins.base in ("bra", "brx") and ins.reconverge == n
            _relocate(ins, pc_base, regs, prefix, unit)
            if exits:
                if is_fn:
                    ins.reconverge = ret_point
                else:
                    pending_exit.append(ins)
            if is_fn and ins.base == "ret":
                ins.target = ret_point       # every ret goes to the return point (which returns)
                ins.reconverge = ret_point
        prog.instructions.extend(instrs)
        if synthetic:
            anchor = last or Instruction(0, "ret", "ret", None, (), frozenset(), ())
            r = Instruction(ret_point, "ret", "ret", _ret_spec(), (), frozenset(), (), unit=anchor.unit,
                            latency_class=anchor.latency_class, line=anchor.line, col=anchor.col,
                            src_file=anchor.src_file, src_line=anchor.src_line)
            r.target = r.reconverge = ret_point
            prog.instructions.append(r)
        if is_fn:
            lay.return_pc = ret_point
    end = len(prog.instructions)
    for ins in pending_exit:       # the kernel's "reconverge at exit": never reached, the lanes exit first
        ins.reconverge = end
    if any(i.base == "alloca" for i in prog.instructions):
        floor = align_up(local_top, 16)
        local_top = floor + STACK_BYTES
        prog.stack_range = (floor, local_top)
    prog.local_bytes = local_top
    prog.frame_bytes = frame_top
    return prog


def _ret_spec():
    from isa.opcodes import OPCODES
    return OPCODES["ret"]


def _relocate(ins: Instruction, pc_base: int, regs: list[Reg], prefix: str, unit: Kernel) -> None:
    """Move one (copied) instruction of ``unit`` into the program: PCs, register ids, symbol keys."""
    def reg(r):
        return regs[r.id] if isinstance(r, Reg) else r

    def sym(name: str) -> str:
        if not prefix:
            return name
        if name in unit.frame_params or any(v.name == name for v in unit.local_vars + unit.shared_vars):
            return prefix + name
        return name

    def op(o):
        if isinstance(o, Reg):
            return reg(o)
        if isinstance(o, Mem):
            b = o.base
            if isinstance(b, Reg):
                return Mem(reg(b), o.offset)
            if isinstance(b, SymbolAddr):
                return Mem(SymbolAddr(sym(b.name), b.offset), o.offset)
            return o
        if isinstance(o, Vec):
            return Vec(tuple(op(x) if x is not None else None for x in o.items))
        if isinstance(o, SymbolAddr):
            return SymbolAddr(sym(o.name), o.offset)
        return o
    ins.pc += pc_base
    if ins.target >= 0:
        ins.target += pc_base
    if ins.reconverge >= 0:
        ins.reconverge += pc_base
    ins.targets = tuple(t + pc_base for t in ins.targets)
    ins.operands = tuple(op(o) for o in ins.operands)
    ins.guard = reg(ins.guard) if ins.guard is not None else None
    ins.pred_out = reg(ins.pred_out) if ins.pred_out is not None else None
    if ins.call is not None:
        c = ins.call
        ins.call = CallInfo(c.callee, reg(c.target) if c.target is not None else None,
                            tuple(prefix + k for k in c.rets), tuple(prefix + k for k in c.args), c.proto)


def _reachable(module: Module, kernel: Kernel) -> list[str]:
    """The functions ``kernel`` may call, breadth first; raises the error of one that cannot run."""
    seen: list[str] = []
    todo = list(kernel.callees)
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        f = module.functions.get(name)
        if f is None:
            if name in module.extern_functions and name in BUILTINS:
                seen.append(name)
                continue
            raise PtxError(module.source_name, kernel.line, 0,
                           f"kernel '{kernel.name}' calls '{name}', which is declared but not defined in this "
                           f"module (gpusim links one module: compile the callee into it)"
                           if name in module.extern_functions else
                           f"kernel '{kernel.name}' calls '{name}', which is not defined in this module")
        if f.error is not None:
            raise f.error
        seen.append(name)
        todo.extend(f.callees)
    return seen


def _recursive(module: Module, names: list[str]) -> set[str]:
    """Functions on a cycle of the call graph (they can be active more than once at a time)."""
    graph = {n: [c for c in (module.functions[n].callees if n in module.functions else ())]
             for n in names if n in module.functions}
    out = set()
    for start in graph:
        stack, seen = list(graph[start]), set()
        while stack:
            n = stack.pop()
            if n == start:
                out.add(start)
                break
            if n in seen or n not in graph:
                continue
            seen.add(n)
            stack.extend(graph[n])
    return out
