"""Declarations: variables (``.shared .local .const .global``) with their initialisers, kernel parameters,
registers (``.reg``, with the scopes of ``{ }`` blocks), and the layout of variables in their state space.
"""
from __future__ import annotations

import struct

from isa.opcodes import ALL_TYPES, SPECIAL_REGISTERS, TYPE_BITS
from isa.program import Param, Reg, Variable
from isa.tokenizer import INT_KINDS, Tok, TokenStream, int_value

PAIR_BITS = {1: 1, 8: 16, 16: 16, 32: 32, 64: 64}   # register width by type width (8-bit types live in 16)


def parse_var_decl(ts: TokenStream, space: str, allow_init: bool) -> Variable:
    """``[.align N] .type name[dims] [= initialiser]`` after the state-space directive."""
    start = ts.tok
    vector = "vector variables are not supported; declare a .b8 array"
    align, vtype = _align_and_type(ts, "variable declaration", refused={".v2": vector, ".v4": vector})
    if vtype is None or vtype == "pred":
        raise ts.error("expected a variable type such as .f32 or .b8", start)
    name = ts.expect_word("a variable name").text
    elem = max(1, TYPE_BITS[vtype] // 8)
    count = 1
    dims = []
    while ts.accept("["):
        if ts.tok.text == "]":
            dims.append(None)
        else:
            dims.append(ts.expect_int("an array size"))
        ts.expect("]")
    for dim in dims:
        count *= dim if dim is not None else 0
    init = None
    if ts.accept("="):
        if not allow_init:
            raise ts.error(f"{space} variables cannot have initialisers")
        values = parse_initializer(ts)
        if dims and dims[0] is None:
            count = len(values)
        if len(values) > count:
            raise ts.error(f"{len(values)} initialisers for {count} elements of '{name}'")
        init = pack_values(values, vtype, count, ts, name)
    size = elem * count
    return Variable(name, space, vtype, size, align or elem, init, 0, start.line)


def _align_and_type(ts: TokenStream, what: str, refused: dict[str, str], ignored: tuple[str, ...] = ()):
    """The ``.align N`` and ``.type`` words of a declaration, in any order: (alignment or 0, type or None);
    ``refused`` words are errors with their message, ``ignored`` ones are skipped."""
    align, vtype = 0, None
    while ts.tok.kind == "word" and ts.tok.text.startswith("."):
        w = ts.next().text
        if w == ".align":
            align = ts.expect_align()
        elif w in refused:
            raise ts.error(refused[w])
        elif w[1:] in ALL_TYPES:
            vtype = w[1:]
        elif w not in ignored:
            raise ts.error(f"unexpected {w!r} in a {what}")
    return align, vtype


def parse_initializer(ts: TokenStream) -> list:
    vals: list = []
    if ts.accept("{"):
        if ts.tok.text != "}":
            while True:
                if ts.tok.text == "{":
                    vals.extend(parse_initializer(ts))
                else:
                    vals.append(parse_scalar_literal(ts))
                if not ts.accept(","):
                    break
        ts.expect("}")
    else:
        vals.append(parse_scalar_literal(ts))
    return vals


def parse_scalar_literal(ts: TokenStream):
    neg = ts.accept("-")
    t = ts.next()
    if t.kind in INT_KINDS:
        v = int_value(t)
        return -v if neg else v
    if t.kind == "float":
        return -float(t.text) if neg else float(t.text)
    if t.kind in ("fimm", "dimm"):
        bits = int(t.text[2:], 16)
        return ("bits", bits, 32 if t.kind == "fimm" else 64)
    raise ts.error(f"expected a number in the initialiser, found {t.text!r}", t)


def parse_param(ts: TokenStream) -> Param:
    """One ``.param [.align N] .type name[N]`` of a kernel's parameter list."""
    ts.expect(".param")
    align, ptype = _align_and_type(ts, "parameter declaration",
                                   refused={".pred": "unexpected '.pred' in a parameter declaration"},
                                   ignored=(".ptr", ".global", ".const", ".shared", ".local"))  # .ptr.<space>
    if ptype is None:
        raise ts.error("expected a parameter type such as .u64 or .f32")
    name = ts.expect_word("a parameter name").text
    elem = TYPE_BITS[ptype] // 8
    count = 1
    if ts.accept("["):
        count = ts.expect_int("an array size")
        ts.expect("]")
    return Param(name, ptype, elem * count, align or elem)


def pack_values(values: list, vtype: str, count: int, ts: TokenStream, name: str) -> bytes:
    bits = TYPE_BITS[vtype]
    out = bytearray()
    for v in values:
        if isinstance(v, tuple):  # raw float bits
            _, raw, nbits = v
            if nbits != bits:
                raise ts.error(f"{nbits}-bit float literal in a {vtype} initialiser of '{name}'")
            out += raw.to_bytes(bits // 8, "little")
        elif vtype == "f32":
            out += struct.pack("<f", float(v))
        elif vtype == "f64":
            out += struct.pack("<d", float(v))
        elif vtype == "f16":
            import numpy as np
            out += np.float16(v).tobytes()
        else:
            if isinstance(v, float):
                raise ts.error(f"float initialiser {v} for the integer variable '{name}'")
            out += (int(v) & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
    out += bytes(max(1, bits // 8) * count - len(out))
    return bytes(out)


class Registers:
    """The registers of one kernel: dense ids in declaration order, names looked up through the ``{ }``
    scopes (an inner block may redeclare a name)."""

    def __init__(self, ts: TokenStream):
        self.ts = ts
        self.regs: list[Reg] = []
        self.scopes: list[dict[str, Reg]] = [{}]

    def parse_decl(self) -> None:
        """``.type %a, %b<N>, ...;`` after ``.reg``."""
        p = self.ts
        t = p.tok
        if t.text in (".v2", ".v4"):
            raise p.error("vector registers are not supported")
        if not (t.kind == "word" and t.text[1:] in ALL_TYPES):
            raise p.error(f"expected a register type such as .b32 or .pred after .reg, found {t.text!r}")
        rtype = p.next().text[1:]
        bits = PAIR_BITS[TYPE_BITS[rtype]]
        while True:
            nt = p.expect_word("a register name")     # '%' is a convention: temp_param_reg is a register too
            if nt.text.startswith("."):
                raise p.error(f"expected a register name, found {nt.text!r}", nt)
            if p.accept("<"):
                n = p.expect_int("a register count")
                p.expect(">")
                if n < 0 or n > 1_000_000:
                    raise p.error(f"unreasonable register count {n}")
                for k in range(n):
                    self.declare(f"{nt.text}{k}", rtype, bits, nt)
            else:
                self.declare(nt.text, rtype, bits, nt)
            if not p.accept(","):
                break
        p.expect(";")

    def declare(self, name: str, rtype: str, bits: int, tok: Tok) -> None:
        if name in self.scopes[-1]:
            raise self.ts.error(f"register {name} is declared twice", tok)
        if name.split(".")[0] in SPECIAL_REGISTERS:
            raise self.ts.error(f"{name} is a special register name", tok)
        r = Reg(len(self.regs), name, rtype, bits)
        self.regs.append(r)
        self.scopes[-1][name] = r

    def open_scope(self) -> None:
        self.scopes.append({})

    def close_scope(self) -> None:
        if len(self.scopes) > 1:
            self.scopes.pop()

    def lookup(self, name: str) -> Reg | None:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None


def align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def layout(vars_: list[Variable]) -> None:
    """Give each variable its offset in its space, in declaration order, aligned."""
    top = 0
    for v in vars_:
        v.offset = align_up(top, v.align)
        top = v.offset + v.size_bytes


def _end(vars_: list[Variable]) -> int:
    return max((v.offset + v.size_bytes for v in vars_), default=0)


def extent(vars_: list[Variable]) -> int:
    """Bytes the laid-out variables span (their space's size)."""
    return max((v.offset + v.size_bytes for v in vars_), default=0)
