"""Functional-unit and latency classes of instructions: the vocabulary shared by the ISA table, the trace
record and the timing model.

A *unit* is the pipeline an instruction is issued to (its issue interval comes from the GPU config); a
*latency class* says how long until its result can be read and whether that wait is fixed (the scheduler
knows it: Nsight's ``wait`` stall) or variable (tracked by a scoreboard: ``short_scoreboard`` for MIO work
such as shared memory and SFU, ``long_scoreboard`` for L1TEX work: global, local, texture).
"""
from __future__ import annotations

from enum import Enum


class Unit(str, Enum):
    """Execution pipelines of an SM sub-partition (as on Volta..Hopper)."""

    FP32 = "fp32"      # FMA pipe: f32 add/mul/fma, also f32 min/max/abs/neg
    INT = "int"        # ALU pipe: integer and logic, setp, selp, mov, cvt between ints
    FP64 = "fp64"      # DMMA/DFMA pipe
    SFU = "sfu"        # the XU: MUFU (rcp, sqrt, ex2, lg2, sin, cos approx) and I2F/F2I/F2F/FRND conversions
    LSU = "lsu"        # LD/ST through MIO/L1TEX: global, local, shared, const, param, atomics, shfl
    BRANCH = "branch"  # CBU: bra, ret, exit, vote/activemask sync
    MISC = "misc"      # bar, membar/fence, nop-like directives that still issue


class LatencyClass(str, Enum):
    """How the result latency of an instruction is determined (values in ``GpuConfig.latency``)."""

    ALU = "alu"            # fixed: integer add/logic/compare/move (~4 cycles)
    FMA = "fma"            # fixed: f32 arithmetic (~4 cycles)
    IMAD = "imad"          # fixed: integer multiply / mad (~4-5 cycles, half-rate issue)
    FP64 = "fp64"          # fixed: double-precision arithmetic
    CONVERT = "convert"    # variable (short scoreboard): the XU conversions I2F, F2I, F2F, FRND (isa.opcodes.cvt_sass)
    SFU = "sfu"            # variable (short scoreboard): MUFU ops, division/sqrt sequences
    SHARED = "shared"      # variable (short scoreboard): shared-memory load/store/atomic, shfl
    GLOBAL = "global"      # variable (long scoreboard): global/local loads, stores and atomics
    CONST = "const"        # variable: constant-cache / param loads (hit latency from config)
    BRANCH = "branch"      # branch resolution
    BARRIER = "barrier"    # bar.sync
    MEMBAR = "membar"      # membar / fence
    NONE = "none"          # produces no register result (e.g. exit)

    @property
    def is_variable(self) -> bool:
        return self in (LatencyClass.SFU, LatencyClass.CONVERT, LatencyClass.SHARED, LatencyClass.GLOBAL,
                        LatencyClass.CONST)

    @property
    def is_long(self) -> bool:
        """Long-scoreboard (L1TEX) dependencies; the rest of the variable ones are short-scoreboard."""
        return self is LatencyClass.GLOBAL


class MemSpace(str, Enum):
    """The PTX state spaces a memory instruction names: the one vocabulary of the ISA table, the emulator,
    the trace and the memory system. ``code`` is the small integer a trace stores per access (the order
    below); ``GENERIC`` is resolved per lane to one of the others by the emulator, so a trace never holds it.
    """

    GLOBAL = "global"
    SHARED = "shared"
    CONST = "const"
    LOCAL = "local"
    PARAM = "param"
    GENERIC = "generic"

    @property
    def code(self) -> int:
        return _SPACE_CODES[self]

    @staticmethod
    def by_code(code: int) -> "MemSpace":
        return _SPACES_BY_CODE[int(code)]

    @staticmethod
    def concrete() -> tuple["MemSpace", ...]:
        """The spaces an access resolves to (all but GENERIC), in code order: what a trace can hold."""
        return _CONCRETE


_SPACES_BY_CODE = tuple(MemSpace)
_SPACE_CODES = {s: i for i, s in enumerate(_SPACES_BY_CODE)}
_CONCRETE = tuple(s for s in _SPACES_BY_CODE if s is not MemSpace.GENERIC)
