"""Program objects: what the parser produces and the emulator and timing model consume.

A :class:`Module` is one PTX file: its module-scope variables (``.const``/``.global``) and its kernels.  A
:class:`Kernel` holds its parameters (laid out in the ``.param`` space), its registers (dense ids), its
shared and local variables (laid out with their alignment), and its instructions, decoded once: each
:class:`Instruction` knows its operands as typed objects, its branch target as a PC, its functional unit
and latency class, and its source position (PTX line, and CUDA line when the PTX carries ``.loc``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from isa.errors import KernelLookupError
from isa.location import SourceLocation, locate
from isa.opcodes import OpSpec
from isa.units import LatencyClass, Unit


@dataclass(frozen=True)
class Reg:
    """A declared register: ``bits`` is 1 for ``.pred``, else 16/32/64 (8-bit registers are held in 16)."""

    id: int
    name: str
    type: str
    bits: int


@dataclass(frozen=True)
class Imm:
    """An immediate: ``value`` is a Python int (integers, and floats given as raw bits with ``is_float_bits``)
    or float (decimal float literal)."""

    value: int | float
    is_float_bits: bool = False   # 0fXXXXXXXX (32-bit) or 0dXXXXXXXXXXXXXXXX (64-bit) literal
    float_bits: int = 0           # 32 or 64 when is_float_bits


@dataclass(frozen=True)
class SpecialReg:
    name: str            # e.g. "%tid"
    component: str = ""  # "x", "y", "z" or ""


@dataclass(frozen=True)
class SymbolAddr:
    """The address of a variable (``mov.u64 %rd1, Mc;`` or a label-free symbol operand)."""

    name: str
    offset: int = 0


@dataclass(frozen=True)
class Mem:
    """A memory operand ``[base+offset]``: base is a Reg, a SymbolAddr or None (absolute address)."""

    base: Reg | SymbolAddr | None
    offset: int = 0


@dataclass(frozen=True)
class Vec:
    """A vector operand ``{%f1, %f2, _, %f4}`` (``None`` for the ``_`` sink)."""

    items: tuple[Reg | Imm | None, ...]


@dataclass(frozen=True)
class Label:
    name: str


@dataclass(frozen=True)
class CallInfo:
    """The operands of a ``call``: the callee (a function name, or a register holding a function's address),
    the ``.param`` variables that receive its return values and that hold its arguments (their symbol keys),
    and the prototype or ``.calltargets`` label of an indirect call."""

    callee: str | None                  # direct call: the function's name
    target: Reg | None = None           # indirect call: register holding a function address
    rets: tuple[str, ...] = ()          # symbol keys of the caller's .param variables for the return values
    args: tuple[str, ...] = ()          # symbol keys of the caller's .param variables holding the arguments
    proto: str | None = None


Operand = Reg | Imm | SpecialReg | SymbolAddr | Mem | Vec | Label


@dataclass
class Instruction:
    """One decoded PTX instruction."""

    pc: int
    opcode: str                       # full mnemonic as written, e.g. "ld.global.v4.f32"
    base: str                         # "ld"
    spec: OpSpec
    types: tuple[str, ...]            # instruction types in order (cvt: (dst, src))
    mods: frozenset[str]              # the other suffixes
    operands: tuple[Operand, ...]
    guard: Reg | None = None          # guard predicate
    guard_negated: bool = False
    pred_out: Reg | None = None       # second destination of shfl/setp ("d|p")
    target: int = -1                  # branch target PC
    reconverge: int = -1              # immediate post-dominator PC of a branch (len(instrs): exit)
    space: str | None = None          # memory state space (ld/st/atom/red/cvta)
    vec: int = 1                      # vector width of ld/st
    unit: Unit = Unit.INT
    latency_class: LatencyClass = LatencyClass.ALU
    line: int = 0                     # 1-based PTX line
    col: int = 0
    src_file: str | None = None       # CUDA source from .loc/.file
    src_line: int | None = None
    targets: tuple[int, ...] = ()     # brx.idx: the branch table's PCs
    call: CallInfo | None = None      # call: callee, arguments, return values
    fused: tuple = ()                 # an fma contracted from mul + add/sub (isa.contract): (negate product,
                                      # negate addend, PTX line of the mul)
    aggregated: str = ""              # atom/red ptxas sends once per warp (isa.aggregate): "leader", "full_warp"
    result_unread: bool = False       # an atom whose result no instruction reads and ptxas drops: RED (global) or
                                      # ATOMS into RZ (shared integer), no result to wait for (isa.aggregate)
    frame_param: bool = False         # ld/st.param of a device function's parameter frame (a register move)
    negate_c: bool = False            # bar.red: its predicate operand is {!}c
    vsel: dict | None = None          # SIMD video: operand index -> element selector / mask (".b3210", ".h10")
    nounroll: bool = False            # the first instruction after `.pragma "nounroll";` (a loop ptxas keeps rolled)

    @property
    def type(self) -> str | None:
        return self.types[-1] if self.types else None

    def regs_written(self) -> tuple[Reg, ...]:
        out: list[Reg] = []
        if self.base in ("bar", "barrier") and "red" in self.mods:
            out.append(self.operands[0])
        elif self.base == "mbarrier":
            if self.operands and isinstance(self.operands[0], Reg):
                out.append(self.operands[0])
        elif self.base in ("st", "red", "st.async", "red.async", "bra", "ret", "exit", "bar", "barrier", "membar",
                           "fence", "call", "brx",
                         "cp.async", "nanosleep", "trap", "brkpt", "pmevent", "prefetch", "prefetchu",
                         "applypriority", "discard", "griddepcontrol", "setmaxnreg", "stackrestore"):
            pass
        elif self.operands:
            d = self.operands[0]
            if isinstance(d, Reg):
                out.append(d)
            elif isinstance(d, Vec):
                out.extend(r for r in d.items if isinstance(r, Reg))
        if self.pred_out is not None:
            out.append(self.pred_out)
        return tuple(out)

    def regs_read(self) -> tuple[Reg, ...]:
        red_bar = self.base in ("bar", "barrier") and "red" in self.mods
        if self.base == "mbarrier":
            red_bar = bool(self.operands) and not isinstance(self.operands[0], Mem)
        srcs = self.operands[1:] if red_bar else self.operands if self.base in (
                                              "st", "red", "st.async", "red.async", "bar", "barrier", "cp.async",
                                              "mbarrier", "nanosleep", "brx", "prefetch",
                                              "prefetchu", "applypriority", "discard", "stackrestore", "pmevent",
                                              "trap", "brkpt", "griddepcontrol", "setmaxnreg") \
            else self.operands[1:]
        out: list[Reg] = [self.guard] if self.guard is not None else []
        for op in srcs:
            if isinstance(op, Reg):
                out.append(op)
            elif isinstance(op, Vec):
                out.extend(r for r in op.items if isinstance(r, Reg))
            elif isinstance(op, Mem) and isinstance(op.base, Reg):
                out.append(op.base)
        if self.call is not None and self.call.target is not None:
            out.append(self.call.target)
        return tuple(out)

    def __str__(self) -> str:
        return f"{self.opcode} (line {self.line})"


@dataclass
class Variable:
    """A declared variable in a state space (module ``.const``/``.global``, kernel ``.shared``/``.local``)."""

    name: str
    space: str
    type: str
    size_bytes: int
    align: int
    init: bytes | None = None   # initialiser bytes (little endian), None: zero
    offset: int = 0             # byte offset in its space's layout
    line: int = 0


@dataclass
class Param:
    name: str
    type: str
    size_bytes: int
    align: int
    offset: int = 0

    @property
    def is_pointer_sized(self) -> bool:
        return self.size_bytes == 8 and self.type in ("u64", "b64", "s64")


@dataclass
class Kernel:
    """An ``.entry`` (or, with ``is_entry`` False, a device function ``.func``): parameters, registers,
    variables, instructions.  A function's ``params`` and ``returns`` are its formal ``.param`` lists; its
    own ``.param`` variables and the ones of its call sequences (``frame_params``) live in the calling
    thread's parameter frame.  ``error`` is the problem that keeps it from running (raised when a kernel
    that needs it is launched), so that one unsupported function does not stop a module from loading."""

    name: str
    params: list[Param]
    registers: list[Reg]
    instructions: list[Instruction]
    labels: dict[str, int]
    shared_vars: list[Variable] = field(default_factory=list)
    local_vars: list[Variable] = field(default_factory=list)
    shared_bytes: int = 0               # static shared memory, laid out
    local_bytes: int = 0                # per-thread local memory
    param_bytes: int = 0
    maxntid: tuple[int, ...] | None = None
    reqntid: tuple[int, ...] | None = None
    line: int = 0
    module: "Module | None" = field(default=None, repr=False)
    is_entry: bool = True
    returns: list[Param] = field(default_factory=list)
    frame_params: dict[str, Variable] = field(default_factory=dict)   # symbol key -> .param variable
    callees: tuple[str, ...] = ()       # functions it calls or takes the address of
    error: Exception | None = None      # the PtxError that keeps it from running

    def variable(self, name: str) -> Variable | None:
        for v in self.shared_vars + self.local_vars:
            if v.name == name:
                return v
        return self.module.globals.get(name) if self.module else None


@dataclass
class Module:
    """A parsed PTX file."""

    source_name: str
    version: str
    target: str
    address_size: int
    kernels: dict[str, Kernel]
    globals: dict[str, Variable]        # module-scope .const and .global variables
    files: dict[int, str]               # .file index -> path
    text: str = field(default="", repr=False)
    shared_globals: list[Variable] = field(default_factory=list)   # module-scope .shared (incl. extern [])
    directory: Path | str | None = None     # where the CUDA files of .file are looked for (the PTX's folder)
    functions: dict[str, Kernel] = field(default_factory=dict)      # device functions with a body
    extern_functions: dict[str, Kernel] = field(default_factory=dict)  # declared only (vprintf, __assertfail)

    def location(self, ins: Instruction) -> SourceLocation:
        """Where ``ins`` is: its PTX line and, with ``.loc`` information, its CUDA line (see
        :mod:`isa.location`); every error about an instruction names it with this."""
        return locate(self.source_name, self.text, ins.line, ins.col, ins.src_file, ins.src_line, self.directory)

    @property
    def const_bytes(self) -> int:
        return max((v.offset + v.size_bytes for v in self.globals.values() if v.space == "const"), default=0)

    def kernel(self, name: str | None = None) -> Kernel:
        if name is None:
            if len(self.kernels) == 1:
                return next(iter(self.kernels.values()))
            raise KernelLookupError(f"{self.source_name} has {len(self.kernels)} kernels "
                              f"({', '.join(self.kernels)}): pick one with kernel=")
        try:
            return self.kernels[name]
        except KeyError:
            raise KernelLookupError(f"{self.source_name} has no kernel '{name}'; it has: "
                              f"{', '.join(self.kernels) or 'none'}") from None
