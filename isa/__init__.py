"""The ISA: a documented subset of PTX (see ``isa/README.md``, generated from :mod:`isa.opcodes`).

``parse_ptx(text, file)`` / ``load_ptx(path)`` turn PTX into a :class:`~isa.program.Module` of
:class:`~isa.program.Kernel` objects with decoded instructions; every problem is an
:class:`~isa.errors.PtxError` with ``file:line:col``.
"""
from isa.errors import PtxError
from isa.parser import load_ptx, parse_ptx
from isa.program import Instruction, Kernel, Module

__all__ = ["parse_ptx", "load_ptx", "PtxError", "Module", "Kernel", "Instruction"]
