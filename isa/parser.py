"""PTX text -> :class:`isa.program.Module`.

A hand-written tokenizer and recursive-descent parser for the subset in :mod:`isa.opcodes`.  Every problem
is a :class:`isa.errors.PtxError` naming file, line and column and what was expected; nothing else escapes
(the hypothesis test in ``tests/isa`` holds the parser to that).  Instructions are decoded once here:
operands typed and checked against the registers' declarations, labels resolved to PCs, variables laid out,
branch reconvergence points computed (:mod:`isa.cfg`).
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

from isa.cfg import reconvergence_points
from isa.errors import PtxError, read_text
from isa.opcodes import (ALL_TYPES, ATOM_OPS, BOOL_OPS, CMP_OPS, OPCODES, SPACE_LATENCY, SPECIAL_REGISTERS,
                         TYPE_BITS, VECTOR_SPECIALS)
from isa.program import (Imm, Instruction, Kernel, Label, Mem, Module, Param, Reg, SpecialReg, SymbolAddr,
                         Variable, Vec)

_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<nl>\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<string>"[^"\n]*")
  | (?P<fimm>0[fF][0-9a-fA-F]{8}(?![\w$]))
  | (?P<dimm>0[dD][0-9a-fA-F]{16}(?![\w$]))
  | (?P<hex>0[xX][0-9a-fA-F]+[uU]?(?![\w$]))
  | (?P<float>\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)
  | (?P<int>\d+[uU]?(?![\w$]))
  | (?P<word>[.%]?[A-Za-z_$][\w$]*(?:\.[\w$]+)*)
  | (?P<punct>[{}\[\](),;:+\-<>|@!=_])
""", re.VERBOSE | re.DOTALL)


@dataclass(slots=True)
class Tok:
    kind: str
    text: str
    line: int
    col: int


def tokenize(text: str, file: str) -> list[Tok]:
    toks: list[Tok] = []
    pos, line, line_start = 0, 1, 0
    n = len(text)
    while pos < n:
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            raise PtxError(file, line, pos - line_start + 1, f"unexpected character {text[pos]!r}")
        kind = m.lastgroup
        s = m.group()
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind == "bcomment":
            nls = s.count("\n")
            if nls:
                line += nls
                line_start = m.start() + s.rfind("\n") + 1
        elif kind not in ("ws", "lcomment"):
            toks.append(Tok(kind, s, line, m.start() - line_start + 1))
        pos = m.end()
    toks.append(Tok("eof", "", line, pos - line_start + 1))
    return toks


_INT_KINDS = ("int", "hex")
_SCOPE_DIRECTIVES = (".visible", ".extern", ".weak")
_IGNORED_KERNEL_DIRECTIVES = (".pragma", ".minnctapersm", ".maxnreg", ".maxnctapersm", ".noreturn",
                              ".explicitcluster", ".reqnctapercluster", ".maxclusterrank")


def _int_value(tok: Tok) -> int:
    t = tok.text.rstrip("uU")
    return int(t, 16) if tok.kind == "hex" else int(t)


class _Parser:
    def __init__(self, text: str, file: str):
        self.file = file
        self.text = text
        self.toks = tokenize(text, file)
        self.i = 0
        self.files: dict[int, str] = {}
        self.globals: dict[str, Variable] = {}
        self.kernels: dict[str, Kernel] = {}
        self.version = ""
        self.target = ""
        self.address_size = 64
        self.const_top = 0
        self.global_top = 0
        self.shared_globals: list[Variable] = []

    # -- token helpers -----------------------------------------------------------------------------------
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def error(self, msg: str, tok: Tok | None = None) -> PtxError:
        t = tok or self.tok
        return PtxError(self.file, t.line, t.col, msg)

    def expect(self, text: str) -> Tok:
        t = self.tok
        if t.text != text:
            got = "end of file" if t.kind == "eof" else repr(t.text)
            raise self.error(f"expected '{text}', found {got}")
        return self.next()

    def accept(self, text: str) -> bool:
        if self.tok.text == text:
            self.next()
            return True
        return False

    def expect_int(self, what: str) -> int:
        neg = self.accept("-")
        t = self.tok
        if t.kind not in _INT_KINDS:
            raise self.error(f"expected {what} (an integer), found {t.text!r}" if t.kind != "eof"
                             else f"expected {what}, found end of file")
        self.next()
        v = _int_value(t)
        return -v if neg else v

    def expect_align(self) -> int:
        """The N of ``.align N``: a power of two."""
        align = self.expect_int("an alignment")
        if align <= 0 or align & (align - 1):
            raise self.error(f"alignment must be a power of two, not {align}")
        return align

    def expect_word(self, what: str) -> Tok:
        t = self.tok
        if t.kind != "word":
            raise self.error(f"expected {what}, found {t.text!r}" if t.kind != "eof"
                             else f"expected {what}, found end of file")
        return self.next()

    def skip_statement(self) -> None:
        while self.tok.kind != "eof" and self.tok.text != ";":
            self.next()
        self.accept(";")

    def skip_braces(self) -> None:
        self.expect("{")
        depth = 1
        while depth:
            t = self.next()
            if t.kind == "eof":
                raise self.error("unbalanced '{': end of file inside a block", t)
            if t.text == "{":
                depth += 1
            elif t.text == "}":
                depth -= 1

    # -- module level ----------------------------------------------------------------------------------
    def parse(self) -> Module:
        while self.tok.kind != "eof":
            t = self.tok
            d = t.text
            if d == ".version":
                self.next()
                tv = self.next()
                if tv.kind not in ("float", "int"):
                    raise self.error("expected a version number like 8.0", tv)
                self.version = tv.text
                major = int(tv.text.split(".")[0])
                if major < 6 or major > 9:
                    raise self.error(f"PTX ISA version {tv.text} is not supported (6.x..9.x)", tv)
            elif d == ".target":
                self.next()
                parts = [self.expect_word("a target such as sm_90").text]
                while self.accept(","):
                    parts.append(self.expect_word("a target option").text)
                self.target = ",".join(parts)
            elif d == ".address_size":
                self.next()
                self.address_size = self.expect_int("an address size")
                if self.address_size not in (32, 64):
                    raise self.error(f"address size must be 32 or 64, not {self.address_size}")
            elif d == ".file":
                self.next()
                idx = self.expect_int("a file index")
                s = self.tok
                if s.kind != "string":
                    raise self.error("expected a file name in quotes")
                self.next()
                self.files[idx] = s.text[1:-1]
                while self.accept(","):
                    self.expect_int("a timestamp or size")
                continue
            elif d == ".section":
                self.next()
                self.expect_word("a section name")
                self.skip_braces()
                continue
            elif d in _SCOPE_DIRECTIVES or d in (".entry", ".func", ".const", ".global", ".shared"):
                self.parse_module_decl()
                continue
            elif d == ";":
                self.next()
                continue
            else:
                raise self.error(f"unexpected {t.text!r} at module scope: expected a directive such as "
                                 f".version, .target, .entry, .const or .global" if t.kind != "eof" else "")
            self.accept(";")
        if not self.version:
            raise PtxError(self.file, 1, 1, "missing .version directive")
        for k in self.kernels.values():
            for ins in k.instructions:
                if ins.src_file is not None:
                    ins.src_file = self.files.get(int(ins.src_file), f"<file {ins.src_file}>")
        return Module(self.file, self.version, self.target, self.address_size, self.kernels, self.globals,
                      self.files, self.text, self.shared_globals)

    def parse_module_decl(self) -> None:
        linkage = None
        while self.tok.text in _SCOPE_DIRECTIVES:
            linkage = self.next().text
        d = self.tok.text
        if d == ".entry":
            self.next()
            self.parse_entry()
        elif d == ".func":
            self.skip_func()
        elif d == ".shared":
            # module-scope shared variables; `.extern .shared .b8 x[];` is the dynamic shared memory
            self.next()
            var = self.parse_var_decl("shared", allow_init=False)
            self.shared_globals.append(var)
            self.accept(";")
        elif d in (".const", ".global"):
            space = self.next().text[1:]
            var = self.parse_var_decl(space, allow_init=True)
            if linkage == ".extern":
                self.accept(";")
                return
            if space == "const":
                var.offset = _align(self.const_top, var.align)
                self.const_top = var.offset + var.size_bytes
                if self.const_top > 65536:
                    raise self.error(f"constant memory is 64 KB; '{var.name}' ends at {self.const_top} bytes")
            else:
                var.offset = _align(self.global_top, var.align)
                self.global_top = var.offset + var.size_bytes
            if var.name in self.globals:
                raise self.error(f"'{var.name}' is declared twice")
            self.globals[var.name] = var
            self.accept(";")
        else:
            raise self.error(f"expected .entry, .func, .const or .global after {linkage}, found {d!r}")

    def skip_func(self) -> None:
        """Device functions are not supported (calls are rejected); their bodies are skipped."""
        self.next()
        while self.tok.kind != "eof" and self.tok.text not in ("{", ";"):
            self.next()
        if self.tok.text == "{":
            self.skip_braces()
        else:
            self.accept(";")

    def parse_var_decl(self, space: str, allow_init: bool) -> Variable:
        start = self.tok
        align = 0
        vtype = None
        while self.tok.kind == "word" and self.tok.text.startswith("."):
            w = self.next().text
            if w == ".align":
                align = self.expect_align()
            elif w[1:] in ALL_TYPES:
                vtype = w[1:]
            elif w in (".v2", ".v4"):
                raise self.error("vector variables are not supported; declare a .b8 array")
            else:
                raise self.error(f"unexpected {w!r} in a variable declaration")
        if vtype is None or vtype == "pred":
            raise self.error("expected a variable type such as .f32 or .b8", start)
        name = self.expect_word("a variable name").text
        elem = max(1, TYPE_BITS[vtype] // 8)
        count = 1
        dims = []
        while self.accept("["):
            if self.tok.text == "]":
                dims.append(None)
            else:
                dims.append(self.expect_int("an array size"))
            self.expect("]")
        for dim in dims:
            count *= dim if dim is not None else 0
        init = None
        if self.accept("="):
            if not allow_init:
                raise self.error(f"{space} variables cannot have initialisers")
            values = self.parse_initializer()
            if dims and dims[0] is None:
                count = len(values)
            if len(values) > count:
                raise self.error(f"{len(values)} initialisers for {count} elements of '{name}'")
            init = _pack_values(values, vtype, count, self, name)
        size = elem * count
        return Variable(name, space, vtype, size, align or elem, init, 0, start.line)

    def parse_initializer(self) -> list:
        vals: list = []
        if self.accept("{"):
            if self.tok.text != "}":
                while True:
                    if self.tok.text == "{":
                        vals.extend(self.parse_initializer())
                    else:
                        vals.append(self.parse_scalar_literal())
                    if not self.accept(","):
                        break
            self.expect("}")
        else:
            vals.append(self.parse_scalar_literal())
        return vals

    def parse_scalar_literal(self):
        neg = self.accept("-")
        t = self.next()
        if t.kind in _INT_KINDS:
            v = _int_value(t)
            return -v if neg else v
        if t.kind == "float":
            return -float(t.text) if neg else float(t.text)
        if t.kind in ("fimm", "dimm"):
            bits = int(t.text[2:], 16)
            return ("bits", bits, 32 if t.kind == "fimm" else 64)
        raise self.error(f"expected a number in the initialiser, found {t.text!r}", t)

    # -- kernels ---------------------------------------------------------------------------------------
    def parse_entry(self) -> None:
        name_tok = self.expect_word("a kernel name")
        name = name_tok.text
        params: list[Param] = []
        offset = 0
        if self.accept("("):
            if self.tok.text != ")":
                while True:
                    p = self.parse_param()
                    p.offset = offset = _align(offset, p.align)
                    offset += p.size_bytes
                    params.append(p)
                    if not self.accept(","):
                        break
            self.expect(")")
        kb = _KernelBuilder(self, name, params, offset, name_tok.line)
        while self.tok.text in (".maxntid", ".reqntid") or self.tok.text in _IGNORED_KERNEL_DIRECTIVES:
            d = self.next().text
            vals = []
            if d == ".pragma":
                if self.tok.kind == "string":
                    self.next()
                self.accept(";")
                continue
            vals.append(self.expect_int(f"a number after {d}"))
            while self.accept(","):
                vals.append(self.expect_int(f"a number after {d}"))
            if d == ".maxntid":
                kb.maxntid = tuple(vals)
            elif d == ".reqntid":
                kb.reqntid = tuple(vals)
        if self.accept(";"):
            return  # a declaration without a body
        self.expect("{")
        kb.parse_body()
        if name in self.kernels:
            raise self.error(f"kernel '{name}' is defined twice", name_tok)
        self.kernels[name] = kb.finish()

    def parse_param(self) -> Param:
        self.expect(".param")
        align = 0
        ptype = None
        while self.tok.kind == "word" and self.tok.text.startswith("."):
            w = self.next().text
            if w == ".align":
                align = self.expect_align()
            elif w[1:] in ALL_TYPES and w != ".pred":
                ptype = w[1:]
            elif w == ".ptr":
                pass
            elif w in (".global", ".const", ".shared", ".local"):
                pass  # .ptr.<space>.align N annotations
            else:
                raise self.error(f"unexpected {w!r} in a parameter declaration")
        if ptype is None:
            raise self.error("expected a parameter type such as .u64 or .f32")
        name = self.expect_word("a parameter name").text
        elem = TYPE_BITS[ptype] // 8
        count = 1
        if self.accept("["):
            count = self.expect_int("an array size")
            self.expect("]")
        return Param(name, ptype, elem * count, align or elem)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _pack_values(values: list, vtype: str, count: int, parser: _Parser, name: str) -> bytes:
    bits = TYPE_BITS[vtype]
    out = bytearray()
    for v in values:
        if isinstance(v, tuple):  # raw float bits
            _, raw, nbits = v
            if nbits != bits:
                raise parser.error(f"{nbits}-bit float literal in a {vtype} initialiser of '{name}'")
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
                raise parser.error(f"float initialiser {v} for the integer variable '{name}'")
            out += (int(v) & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
    out += bytes(max(1, bits // 8) * count - len(out))
    return bytes(out)


_PAIR_BITS = {1: 1, 8: 16, 16: 16, 32: 32, 64: 64}


class _KernelBuilder:
    """Parses one kernel body and decodes its instructions."""

    def __init__(self, p: _Parser, name: str, params: list[Param], param_bytes: int, line: int):
        self.p = p
        self.name = name
        self.params = params
        self.param_bytes = param_bytes
        self.line = line
        self.regs: list[Reg] = []
        self.scopes: list[dict[str, Reg]] = [{}]
        self.instrs: list[Instruction] = []
        self.pending: list[tuple] = []   # raw instruction records, decoded after all labels are known
        self.labels: dict[str, int] = {}
        self.label_toks: dict[str, Tok] = {}
        self.shared_vars: list[Variable] = []
        self.local_vars: list[Variable] = []
        self.maxntid = None
        self.reqntid = None
        self.loc: tuple[int, int] | None = None

    # -- body ------------------------------------------------------------------------------------------
    def parse_body(self) -> None:
        p = self.p
        depth = 1
        while True:
            t = p.tok
            if t.kind == "eof":
                raise p.error(f"end of file inside kernel '{self.name}': missing '}}'")
            if t.text == "}":
                p.next()
                depth -= 1
                if len(self.scopes) > 1:
                    self.scopes.pop()
                if depth == 0:
                    return
                continue
            if t.text == "{":
                p.next()
                depth += 1
                self.scopes.append({})
                continue
            if t.text == ";":
                p.next()
                continue
            if t.text == ".reg":
                p.next()
                self.parse_reg_decl()
            elif t.text in (".shared", ".local"):
                p.next()
                var = p.parse_var_decl(t.text[1:], allow_init=False)
                (self.shared_vars if t.text == ".shared" else self.local_vars).append(var)
                p.expect(";")
            elif t.text == ".loc":
                p.next()
                fidx = p.expect_int("a file index")
                lno = p.expect_int("a line number")
                p.expect_int("a column number")
                while p.accept(","):  # ", function_name $L__info_string0, inlined_at 1 22 3"
                    if p.tok.text == "inlined_at":
                        # attribute inlined code to the user's line that called it
                        p.next()
                        fidx = p.expect_int("a file index")
                        lno = p.expect_int("a line number")
                        p.expect_int("a column number")
                        continue
                    while p.tok.text not in (",", ";") and p.tok.kind != "eof" and p.tok.line == t.line:
                        p.next()
                self.loc = (fidx, lno)
            elif t.text in _IGNORED_KERNEL_DIRECTIVES:
                p.skip_statement()
            elif t.text in (".const", ".global", ".param"):
                raise p.error(f"{t.text} variables inside a kernel are not supported; declare them at module scope")
            elif t.kind == "word" and p.peek().text == ":" and not t.text.startswith("."):
                p.next()
                p.next()
                if t.text in self.labels:
                    raise p.error(f"label '{t.text}' is defined twice", t)
                self.labels[t.text] = len(self.pending)
                self.label_toks[t.text] = t
            elif t.text == "@" or (t.kind == "word" and not t.text.startswith(".")):
                self.parse_instruction()
            else:
                raise p.error(f"unexpected {t.text!r} in kernel body: expected an instruction, a label or a "
                              f"declaration")

    def parse_reg_decl(self) -> None:
        p = self.p
        t = p.tok
        if t.text in (".v2", ".v4"):
            raise p.error("vector registers are not supported")
        if not (t.kind == "word" and t.text[1:] in ALL_TYPES):
            raise p.error(f"expected a register type such as .b32 or .pred after .reg, found {t.text!r}")
        rtype = p.next().text[1:]
        bits = _PAIR_BITS[TYPE_BITS[rtype]]
        while True:
            nt = p.expect_word("a register name")
            if not nt.text.startswith("%"):
                raise p.error(f"register names start with '%': {nt.text!r}", nt)
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
            raise self.p.error(f"register {name} is declared twice", tok)
        if name.split(".")[0] in SPECIAL_REGISTERS:
            raise self.p.error(f"{name} is a special register name", tok)
        r = Reg(len(self.regs), name, rtype, bits)
        self.regs.append(r)
        self.scopes[-1][name] = r

    def lookup(self, name: str) -> Reg | None:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return None

    # -- instructions ----------------------------------------------------------------------------------
    def parse_instruction(self) -> None:
        p = self.p
        start = p.tok
        guard = None
        neg = False
        if p.accept("@"):
            neg = p.accept("!")
            gt = p.expect_word("a guard predicate register")
            guard = self.lookup(gt.text)
            if guard is None:
                raise p.error(f"undeclared register {gt.text}", gt)
            if guard.bits != 1:
                raise p.error(f"guard {gt.text} must be a .pred register, it is .{guard.type}", gt)
        op_tok = p.expect_word("an opcode")
        operands = []
        if p.tok.text != ";":
            while True:
                operands.append(self.parse_operand())
                if not p.accept(","):
                    break
        if p.tok.text != ";":
            raise p.error(f"expected ',' or ';' after an operand of {op_tok.text}, found "
                          f"{p.tok.text!r}" if p.tok.kind != "eof" else "expected ';', found end of file")
        p.next()
        self.pending.append((op_tok, operands, guard, neg, start, self.loc))

    def parse_operand(self):
        """Returns a raw operand: ('reg', name, tok) / ('imm', Imm, tok) / ('mem', base, off, tok) / ..."""
        p = self.p
        t = p.tok
        if t.text == "[":
            p.next()
            base = None
            off = 0
            if p.tok.kind == "word":
                base = ("name", p.next())
            elif p.tok.kind in _INT_KINDS:
                off = p.expect_int("an address")
            else:
                raise p.error(f"expected a register, variable or address inside [ ], found {p.tok.text!r}")
            while p.tok.text in ("+", "-"):
                sign = -1 if p.next().text == "-" else 1
                off += sign * p.expect_int("an offset")
            p.expect("]")
            return ("mem", base, off, t)
        if t.text == "{":
            p.next()
            items = []
            while True:
                if p.accept("_"):
                    items.append(None)
                else:
                    items.append(self.parse_operand())
                if not p.accept(","):
                    break
            p.expect("}")
            return ("vec", items, t)
        if t.text in ("-", "!") and p.peek().kind in ("int", "hex", "float", "fimm", "dimm"):
            p.next()
            inner = self.parse_operand()
            return ("neg", inner, t)
        if t.text == "!" and p.peek().kind == "word":
            p.next()
            return ("not", self.parse_operand(), t)
        if t.kind in _INT_KINDS:
            p.next()
            return ("imm", Imm(_int_value(t)), t)
        if t.kind == "float":
            p.next()
            return ("imm", Imm(float(t.text)), t)
        if t.kind in ("fimm", "dimm"):
            p.next()
            return ("imm", Imm(int(t.text[2:], 16), True, 32 if t.kind == "fimm" else 64), t)
        if t.kind == "word":
            p.next()
            if p.tok.text == "|" and t.text.startswith("%"):
                p.next()
                second = p.expect_word("a predicate register after '|'")
                return ("pair", t, second, t)
            if p.tok.text == "+" and not t.text.startswith("%"):
                p.next()
                off = p.expect_int("an offset")
                return ("name", t, off)
            return ("name", t, 0)
        raise p.error(f"expected an operand, found {t.text!r}" if t.kind != "eof"
                      else "expected an operand, found end of file")

    # -- decoding ------------------------------------------------------------------------------------------
    def finish(self) -> Kernel:
        _layout(self.shared_vars)
        _layout(self.local_vars)
        for idx, rec in enumerate(self.pending):
            self.instrs.append(self.decode(idx, *rec))
        if not self.instrs or self.instrs[-1].base not in ("ret", "exit", "bra"):
            # falling off the end of a kernel is an implicit exit, as on the GPU
            last = self.pending[-1][4] if self.pending else Tok("word", "", self.line, 1)
            spec = OPCODES["exit"]
            self.instrs.append(Instruction(len(self.instrs), "exit", "exit", spec, (), frozenset(), (),
                                           unit=spec.unit_and_latency(None)[0],
                                           latency_class=spec.unit_and_latency(None)[1], line=last.line,
                                           col=last.col))
        for ins in self.instrs:
            if ins.base == "bra" and ins.target >= len(self.instrs):
                ins.target = len(self.instrs) - 1
        rpcs = reconvergence_points(self.instrs)
        for ins in self.instrs:
            if ins.base == "bra":
                ins.reconverge = rpcs[ins.pc]
        k = Kernel(self.name, self.params, self.regs, self.instrs, self.labels, self.shared_vars,
                   self.local_vars, _end(self.shared_vars), _end(self.local_vars), self.param_bytes,
                   self.maxntid, self.reqntid, self.line)
        return k

    def decode(self, pc: int, op_tok: Tok, raw_ops: list, guard, neg, start: Tok, loc) -> Instruction:
        p = self.p
        parts = op_tok.text.split(".")
        base = parts[0]
        spec = OPCODES.get(base)
        if spec is None:
            if base == "call":
                raise p.error("device-function calls are not supported (compile with the calls inlined)", op_tok)
            raise p.error(f"unknown opcode '{op_tok.text}'", op_tok)
        types: list[str] = []
        mods: list[str] = []
        for s in parts[1:]:
            if s in ALL_TYPES and s not in ("pred",) or (s == "pred" and base in ("mov", "vote", "and", "or",
                                                                                 "xor", "not")):
                types.append(s)
            elif s in spec.modifiers or (s.startswith("v") and s in ("v2", "v4") and "v2" in spec.modifiers):
                mods.append(s)
            else:
                raise p.error(f"unknown opcode '{op_tok.text}': '.{s}' is not a modifier or type of {base}",
                              op_tok)
        if base == "cvt":
            if len(types) != 2:
                raise p.error(f"cvt needs a destination and a source type, e.g. cvt.rn.f32.s32: '{op_tok.text}'",
                              op_tok)
        elif base == "set":
            # set.CmpOp.dtype.stype: the destination type (u32, s32 or f32) comes before the source type
            if len(types) != 2 or types[0] not in ("u32", "s32", "f32") or types[1] not in spec.types:
                raise p.error(f"set needs a destination type (.u32, .s32 or .f32) and a source type, e.g. "
                              f"set.lt.u32.s32: '{op_tok.text}'", op_tok)
        elif spec.types:
            if len(types) != 1:
                raise p.error(f"'{op_tok.text}' needs exactly one type suffix (one of "
                              f"{', '.join('.' + t for t in spec.types)})", op_tok)
            if types[0] not in spec.types:
                raise p.error(f"unknown opcode '{op_tok.text}': {base} does not take .{types[0]}", op_tok)
        elif types:
            raise p.error(f"'{op_tok.text}': {base} takes no type", op_tok)
        mset = frozenset(mods)
        ins = Instruction(pc, op_tok.text, base, spec, tuple(types), mset, (), guard, neg,
                          line=op_tok.line, col=start.col)
        if loc is not None:
            ins.src_file = str(loc[0])  # a .file index until the module's .file directives are all read
            ins.src_line = loc[1] or None
        self.decode_operands(ins, raw_ops, op_tok)
        unit, lat = spec.unit_and_latency(ins.type)
        if base in ("ld", "st", "atom", "red"):
            unit, lat = SPACE_LATENCY[ins.space or "generic"]
        ins.unit, ins.latency_class = unit, lat
        return ins

    def decode_operands(self, ins: Instruction, raw: list, op_tok: Tok) -> None:
        p = self.p
        base = ins.base
        spaces = [m for m in ins.mods if m in ("global", "shared", "const", "local", "param")]
        if base in ("ld", "st", "atom", "red", "cvta"):
            if len(spaces) > 1:
                raise p.error(f"'{ins.opcode}' names two state spaces", op_tok)
            ins.space = spaces[0] if spaces else "generic"
            if base == "cvta" and not spaces:
                raise p.error("cvta needs a state space: cvta.global.u64 or cvta.to.global.u64", op_tok)
            if base in ("atom", "red"):
                ops = [m for m in ins.mods if m in ATOM_OPS]
                if len(ops) != 1:
                    raise p.error(f"'{ins.opcode}' needs one operation (.add, .cas, ...)", op_tok)
        ins.vec = 4 if "v4" in ins.mods else 2 if "v2" in ins.mods else 1
        if base == "setp":
            cmps = [m for m in ins.mods if m in CMP_OPS]
            if len(cmps) != 1:
                raise p.error(f"'{ins.opcode}' needs one comparison (.eq, .lt, ...)", op_tok)
            if any(m in BOOL_OPS for m in ins.mods) != (len(raw) == 4):
                raise p.error(f"'{ins.opcode}': a .and/.or/.xor combination takes a third predicate operand "
                              f"and only then", op_tok)
        shape = ins.spec.operands.split()
        need = [s for s in shape if not s.endswith("?")]
        if not (len(need) <= len(raw) <= len(shape)):
            want = f"{len(need)}" if len(need) == len(shape) else f"{len(need)} to {len(shape)}"
            raise p.error(f"'{ins.opcode}' takes {want} operands, found {len(raw)}", op_tok)
        ops = []
        for k, r in enumerate(raw):
            kind = shape[k].rstrip("?")
            ops.append(self.operand(ins, k, kind, r))
        ins.operands = tuple(ops)

    def expected_type(self, ins: Instruction, k: int, kind: str) -> str:
        """The PTX type an operand is read or written as."""
        base, t = ins.base, ins.type
        if kind == "p":
            return "pred"
        if base == "cvt":
            return ins.types[0] if k == 0 else ins.types[1]
        if base in ("mul", "mad") and "wide" in ins.mods and (k == 0 or (base == "mad" and k == 3)):
            return {"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}.get(t, t)
        if base in ("setp",) and k == 3:
            return "pred"
        if base == "selp" and k == 3:
            return "pred"
        if base in ("shl", "shr") and k == 2:
            return "u32"
        if base == "bfe" and k >= 2:
            return "u32"
        if base == "bfi" and k >= 3:
            return "u32"
        if base in ("popc", "clz") and k == 0:
            return "u32"
        if base == "testp" and k == 0:
            return "pred"
        if base == "vote":
            if k == 1:
                return "pred"
            if k == 2:
                return "b32"
            return "b32" if "ballot" in ins.mods else "pred"
        if base == "shfl" and k >= 2:
            return "b32"
        if base in ("bar", "barrier"):
            return "u32"
        if base == "set":
            return "pred" if k == 3 else ins.types[0] if k == 0 else ins.types[1]
        if base == "lop3" and k == 4:
            return "b32"
        return t or "b32"

    def operand(self, ins: Instruction, k: int, kind: str, r):
        p = self.p
        tag = r[0]
        tok = r[-1] if tag != "name" else r[1]
        if kind == "l":
            if tag != "name":
                raise p.error(f"{ins.base} needs a label", tok)
            name = r[1].text
            if name not in self.labels:
                raise p.error(f"label '{name}' not found", r[1])
            ins.target = self.labels[name]
            return Label(name)
        if kind == "m":
            if tag != "mem":
                raise p.error(f"operand {k + 1} of {ins.opcode} must be a memory operand [address]", tok)
            _, b, off, t0 = r
            if b is None:
                return Mem(None, off)
            name_tok = b[1]
            reg = self.lookup(name_tok.text)
            if reg is not None:
                if reg.bits not in (32, 64):
                    raise p.error(f"address register {reg.name} must be 32 or 64 bits", name_tok)
                return Mem(reg, off)
            if name_tok.text.startswith("%"):
                raise p.error(f"undeclared register {name_tok.text}", name_tok)
            self.check_symbol(ins, name_tok)
            return Mem(SymbolAddr(name_tok.text), off)
        expect = self.expected_type(ins, k, kind)
        if tag == "vec":
            if ins.base not in ("ld", "st") or ins.vec == 1:
                raise p.error(f"a vector operand needs ld/st .v2/.v4, not {ins.opcode}", tok)
            items = r[1]
            if len(items) != ins.vec:
                raise p.error(f"{ins.opcode} needs {ins.vec} registers in {{ }}, found {len(items)}", tok)
            return Vec(tuple(None if it is None else self.operand(ins, k, "a", it) for it in items))
        if tag == "pair":
            if ins.base not in ("shfl", "setp"):
                raise p.error(f"'|' pairs are only for setp and shfl destinations", tok)
            first = self.reg_operand(ins, r[1], expect if ins.base != "setp" else "pred")
            second = self.reg_operand(ins, r[2], "pred")
            ins.pred_out = second
            return first
        if tag == "neg":
            inner = r[1]
            if inner[0] != "imm":
                raise p.error("'-' must precede a number", tok)
            im = inner[1]
            if im.is_float_bits:
                sign = 1 << (im.float_bits - 1)
                return Imm(im.value ^ sign, True, im.float_bits)
            return self.imm_operand(ins, Imm(-im.value), expect, tok)
        if tag == "not":
            raise p.error("'!' operands (negated predicates as sources) are not supported", tok)
        if tag == "imm":
            if kind in ("d", "p"):
                raise p.error(f"operand {k + 1} of {ins.opcode} is a destination: it must be a register", tok)
            return self.imm_operand(ins, r[1], expect, tok)
        if tag == "mem":
            raise p.error(f"operand {k + 1} of {ins.opcode} cannot be a memory operand", tok)
        # a name: register, special register, or variable address
        name_tok, off = r[1], r[2] if len(r) > 2 else 0
        name = name_tok.text
        if name.startswith("%"):
            reg = self.lookup(name)
            if reg is not None:
                return self.reg_operand(ins, name_tok, expect)
            sbase, _, comp = name.partition(".")
            if sbase in SPECIAL_REGISTERS:
                if kind in ("d", "p"):
                    raise p.error(f"{name} is read-only", name_tok)
                if (sbase in VECTOR_SPECIALS) != bool(comp) or (comp and comp not in ("x", "y", "z")):
                    raise p.error(f"special register {name}: expected {sbase}.x, .y or .z" if sbase in
                                  VECTOR_SPECIALS else f"special register {sbase} has no components", name_tok)
                return SpecialReg(sbase, comp)
            raise p.error(f"undeclared register {name}", name_tok)
        if kind in ("d", "p"):
            raise p.error(f"operand {k + 1} of {ins.opcode} must be a register, found {name!r}", name_tok)
        self.check_symbol(ins, name_tok)
        return SymbolAddr(name, off)

    def check_symbol(self, ins: Instruction, tok: Tok) -> None:
        name = tok.text
        if name in self.p.globals or any(v.name == name for v in self.shared_vars + self.local_vars +
                                         self.p.shared_globals):
            return
        if any(prm.name == name for prm in self.params):
            return
        raise self.p.error(f"unknown variable '{name}' (not a declared .shared/.local/.const/.global variable "
                           f"or parameter)", tok)

    def reg_operand(self, ins: Instruction, tok: Tok, expect: str) -> Reg:
        reg = self.lookup(tok.text)
        if reg is None:
            raise self.p.error(f"undeclared register {tok.text}", tok)
        if not _compatible(reg, expect, ins):
            raise self.p.error(f"type mismatch: {ins.opcode} expects a .{expect} operand here, {reg.name} is "
                               f".{reg.type}", tok)
        return reg

    def imm_operand(self, ins: Instruction, im: Imm, expect: str, tok: Tok) -> Imm:
        if expect == "pred":
            if ins.base == "mov" and not im.is_float_bits and im.value in (0, 1):
                return im
            raise self.p.error(f"{ins.opcode} expects a predicate register here, not a number", tok)
        if im.is_float_bits and expect not in ("f32", "f64", "f16", "b32", "b64"):
            raise self.p.error(f"float literal for a .{expect} operand of {ins.opcode}", tok)
        if im.is_float_bits and TYPE_BITS.get(expect, 32) != im.float_bits and expect != "f16":
            raise self.p.error(f"{im.float_bits}-bit float literal for a .{expect} operand of {ins.opcode}", tok)
        if isinstance(im.value, float) and expect not in ("f32", "f64", "f16"):
            raise self.p.error(f"float literal for a .{expect} operand of {ins.opcode}", tok)
        return im


def _compatible(reg: Reg, expect: str, ins: Instruction) -> bool:
    if expect == "pred" or reg.bits == 1:
        return expect == "pred" and reg.bits == 1
    tb = TYPE_BITS[expect]
    rb = reg.bits
    relaxed = ins.base in ("ld", "st", "cvt", "atom", "red", "mov") and expect[0] in "sub"
    if tb == 8:
        tb = 16
    if rb != tb and not (relaxed and rb >= tb):
        return False
    # float instruction types need float or bit-size registers; integer types need integer or bit registers
    if expect[0] == "f" and reg.type[0] in "su":
        return False
    if expect[0] in "su" and reg.type[0] == "f":
        return False
    return True


def _layout(vars_: list[Variable]) -> None:
    top = 0
    for v in vars_:
        v.offset = _align(top, v.align)
        top = v.offset + v.size_bytes


def _end(vars_: list[Variable]) -> int:
    return max((v.offset + v.size_bytes for v in vars_), default=0)


def parse_ptx(text: str, file: str = "<ptx>") -> Module:
    """Parse PTX text into a :class:`Module`. Raises :class:`PtxError` for any problem."""
    if not isinstance(text, str):
        raise TypeError("parse_ptx expects the PTX text as a str")
    return _Parser(text, file).parse()


def load_ptx(path: str | Path) -> Module:
    path = Path(path)
    return parse_ptx(read_text(path), path.name)
