"""The instruction table of the emulator: which builder gives each PTX mnemonic its semantics.

Each instruction family is one module, mirroring the tests (``tests/functional/test_inst_<family>.py``)::

    inst_int      integer arithmetic          add sub mul mad div rem min max abs neg (integer types)
    inst_float    float arithmetic            add ... fma rcp sqrt rsqrt ex2 lg2 sin cos tanh copysign testp
    inst_logic    bitwise, shifts, bit fields and or xor not cnot lop3 shl shr popc clz brev bfe bfi prmt
    inst_compare  compare and select          setp set selp
    inst_move     moves and conversions       mov cvta cvt
    inst_memory   loads, stores, atomics      ld st atom red
    inst_warp     warp-level operations       shfl vote activemask
    inst_control  control flow and ordering   bra ret exit bar barrier membar fence

A family registers its builders with the :func:`semantics` decorator::

    @semantics("popc", "clz")
    def build_count(ins, ctx):          # called once per static instruction, when the kernel is compiled
        ...
        def h(fr, st):                  # called at every execution, for all warps at that PC at once
            ...
        return h

``ctx`` is the kernel's :class:`~gpusim.functional.kernel.KernelContext` (symbols, errors with their
source location); ``fr``/``st`` are described in :mod:`gpusim.functional.state`.  ``types="int"`` or
``types="float"`` splits a mnemonic that both integer and float types use (``add.s32`` / ``add.f32``) between
two families.  A ``control=True`` handler moves the PC itself through ``fr.simt``; every other handler's
warps advance to the next PC after it.

To add an instruction: its row in :mod:`isa.opcodes` (syntax, unit, latency class) and a builder in its
family here.  To add a family: a module ``inst_<family>.py`` and its name in :data:`FAMILIES`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from isa.program import Instruction

FAMILIES = ("inst_int", "inst_float", "inst_logic", "inst_compare", "inst_move", "inst_memory", "inst_warp",
            "inst_control")
TYPE_KINDS = ("int", "float")


@dataclass(frozen=True)
class Semantics:
    """One row of the table: the builder of a mnemonic (for one kind of type, or any)."""

    mnemonic: str
    build: Callable
    types: str | None = None     # "int", "float" or None (any type)
    control: bool = False        # the handler moves the PC itself (through fr.simt)


_TABLE: dict[str, list[Semantics]] = {}
_loaded = False


def semantics(*mnemonics: str, types: str | None = None, control: bool = False):
    """Register the decorated builder for ``mnemonics`` (base opcodes such as ``"add"``)."""
    if types is not None and types not in TYPE_KINDS:
        raise ValueError(f"types must be one of {TYPE_KINDS} or None, not {types!r}")

    def register(build: Callable) -> Callable:
        for m in mnemonics:
            rows = _TABLE.setdefault(m, [])
            if any(r.types is None or types is None or r.types == types for r in rows):
                raise ValueError(f"semantics of '{m}' ({types or 'any type'}) registered twice")
            rows.append(Semantics(m, build, types, control))
        return build
    return register


def lookup(ins: Instruction) -> Semantics | None:
    """The table row for an instruction, or None when gpusim has no semantics for it."""
    _load_families()
    t = ins.type or ""
    kind = "float" if t[:1] == "f" or t.startswith("bf16") else "int"
    for row in _TABLE.get(ins.base, ()):
        if row.types is None or row.types == kind:
            return row
    return None


def mnemonics() -> dict[str, list[Semantics]]:
    """The whole table (mnemonic -> rows), for documentation and tests."""
    _load_families()
    return dict(_TABLE)


def _load_families() -> None:
    global _loaded
    if not _loaded:
        for name in FAMILIES:
            importlib.import_module(f"gpusim.functional.{name}")
        _loaded = True
