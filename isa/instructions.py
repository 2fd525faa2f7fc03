"""Instruction statements of a kernel body: parsed (guard, opcode, operands) as they are read, and decoded
once every label is known: types and modifiers checked against the opcode table (:mod:`isa.opcodes`), each
operand typed and checked against the register declarations, branch targets resolved to PCs.

:class:`InstructionParser` is a mixin of the parser's kernel builder (``isa.parser``): it reads the
builder's token stream ``p`` (with the ``.loc`` in force), its ``registers``, ``labels``, ``params`` and
variables.
"""
from __future__ import annotations

from isa.opcodes import (cvt_unit_and_latency, ALL_TYPES, ATOM_OPS, BOOL_OPS, CMP_OPS, OPCODES, OUT_OF_SCOPE, SPACE_LATENCY, SPACES,
                         SPECIAL_REGISTERS, TYPE_BITS, VECTOR_SPECIALS)
from isa.program import CallInfo, Imm, Instruction, Label, Mem, Reg, SpecialReg, SymbolAddr, Vec
from isa.tokenizer import INT_KINDS, Tok, int_value
from isa.units import LatencyClass, Unit

_PRED_TYPED = ("mov", "vote", "and", "or", "xor", "not")   # instructions that take the .pred type
_SIMD_VIDEO = ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset")
_SCALAR_VIDEO = ("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset")


class InstructionParser:
    """Parsing and decoding of instruction statements (a mixin of the kernel builder)."""

    def parse_instruction(self) -> None:
        p = self.p
        start = p.tok
        guard = None
        neg = False
        if p.accept("@"):
            neg = p.accept("!")
            gt = p.expect_word("a guard predicate register")
            guard = self.registers.lookup(gt.text)
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
        # the { } scopes in force: a call sequence's registers and .param variables are resolved in them
        self.pending.append((op_tok, operands, guard, neg, start, p.loc, list(self.registers.scopes)))

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
            elif p.tok.kind in INT_KINDS:
                off = p.expect_int("an address")
            else:
                raise p.error(f"expected a register, variable or address inside [ ], found {p.tok.text!r}")
            while p.tok.text in ("+", "-"):
                sign = -1 if p.next().text == "-" else 1
                off += sign * p.expect_int("an offset")
            p.expect("]")
            return ("mem", base, off, t)
        if t.text == "(":      # the return-value and argument lists of call
            p.next()
            items = []
            if p.tok.text != ")":
                while True:
                    items.append(self.parse_operand())
                    if not p.accept(","):
                        break
            p.expect(")")
            return ("list", items, t)
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
        if t.text == "-" and p.peek().kind == "word":      # vmad's {-}a: a negated register
            p.next()
            return ("negreg", self.parse_operand(), t)
        if t.text in ("-", "!") and p.peek().kind in ("int", "hex", "float", "fimm", "dimm"):
            p.next()
            inner = self.parse_operand()
            return ("neg", inner, t)
        if t.text == "!" and p.peek().kind == "word":
            p.next()
            return ("not", self.parse_operand(), t)
        if t.kind in INT_KINDS:
            p.next()
            return ("imm", Imm(int_value(t)), t)
        if t.kind == "float":
            p.next()
            return ("imm", Imm(float(t.text)), t)
        if t.kind in ("fimm", "dimm"):
            p.next()
            return ("imm", Imm(int(t.text[2:], 16), True, 32 if t.kind == "fimm" else 64), t)
        if t.kind == "word":
            p.next()
            if p.tok.text == "|":
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

    def decode(self, pc: int, op_tok: Tok, raw_ops: list, guard, neg, start: Tok, loc) -> Instruction:
        p = self.p
        parts = op_tok.text.split(".")
        base = parts[0]
        two = OPCODES.get(".".join(parts[:2])) if len(parts) > 1 else None     # cp.async, st.async, red.async
        spec = two or OPCODES.get(base)
        if two is not None:
            base = two.name
            parts = [base] + parts[2:]
        if spec is None:
            why = OUT_OF_SCOPE.get(base) or OUT_OF_SCOPE.get(".".join(op_tok.text.split(".")[:2]))
            if why:
                raise p.error(f"'{op_tok.text}' is not supported: {why}", op_tok)
            raise p.error(f"unknown opcode '{op_tok.text}'", op_tok)
        types: list[str] = []
        mods: list[str] = []
        for s in parts[1:]:
            if "::" in s:
                head = s.split("::")[0]
                if head in ("shared", "global") and head in spec.modifiers:
                    s = head        # .shared::cta, .shared::cluster (a cluster of one block): .shared
                elif head in ("L1", "L2", "level"):
                    mods.append(s)  # cache hints: no effect on values
                    continue
            if s in ALL_TYPES and (s != "pred" or base in _PRED_TYPED) and (spec.ntypes or s not in spec.modifiers):
                types.append(s)
            elif s in spec.modifiers or (s in ("v2", "v4", "v8") and "v2" in spec.modifiers):
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
        elif base == "slct":
            if len(types) != 2 or types[0] not in spec.types or types[1] not in ("s32", "f32"):
                raise p.error(f"slct needs a value type and .s32 or .f32 for c, e.g. slct.f32.s32: "
                              f"'{op_tok.text}'", op_tok)
        elif spec.ntypes >= 2:
            if len(types) != spec.ntypes or any(t not in spec.types for t in types):
                raise p.error(f"'{op_tok.text}' needs {spec.ntypes} type suffixes (each one of "
                              f"{', '.join('.' + t for t in spec.types)})", op_tok)
        elif spec.types and spec.ntypes:
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
            ins.src_file = p.files.get(loc[0], f"<file {loc[0]}>")
            ins.src_line = loc[1] or None
        self.decode_operands(ins, raw_ops, op_tok)
        unit, lat = spec.unit_and_latency(ins.type)
        if base == "cvt":
            unit, lat = cvt_unit_and_latency(types[0], types[1], mset)
        if base in ("ld", "st", "atom", "red", "ldu"):
            unit, lat = SPACE_LATENCY[ins.space or "generic"]
        if base == "cp.async" and ins.space is None:     # commit_group / wait_group: ordering, not a copy
            unit, lat = Unit.MISC, LatencyClass.MEMBAR
        ins.unit, ins.latency_class = unit, lat
        return ins

    def decode_operands(self, ins: Instruction, raw: list, op_tok: Tok) -> None:
        p = self.p
        base = ins.base
        if base == "call":
            self.decode_call(ins, raw, op_tok)
            return
        if base == "mbarrier" or (base == "cp.async" and "mbarrier" in ins.mods):
            self.decode_mbarrier(ins, raw, op_tok)
            return
        if any(m == "L2::cache_hint" for m in ins.mods) and raw:
            raw = raw[:-1]      # the 64-bit cache policy operand: a hint
        spaces = [m for m in ins.mods if m in SPACES]
        if base == "cp.async":
            if "commit_group" in ins.mods or "wait_all" in ins.mods:
                if raw:
                    raise p.error(f"'{ins.opcode}' takes no operands", op_tok)
                return
            if "wait_group" in ins.mods:
                if len(raw) != 1 or raw[0][0] != "imm":
                    raise p.error(f"'{ins.opcode}' takes one integer operand (the groups left pending)", op_tok)
                ins.operands = (raw[0][1],)
                return
            if "shared" not in ins.mods or "global" not in ins.mods:
                raise p.error(f"'{ins.opcode}': cp.async copies .global to .shared: cp.async.ca.shared.global",
                              op_tok)
            ins.space = "global"
        if base in ("ld", "st", "atom", "red", "cvta", "ldu", "prefetch", "isspacep", "applypriority", "discard",
                    "mapa", "getctarank", "st.async", "red.async"):
            if len(spaces) > 1:
                raise p.error(f"'{ins.opcode}' names two state spaces", op_tok)
            ins.space = spaces[0] if spaces else "generic"
            if base in ("mapa", "getctarank"):
                ins.space = spaces[0] if spaces else "generic"
            elif base in ("cvta", "isspacep") and not spaces:
                raise p.error(f"{base} needs a state space: {base}.global", op_tok)
            if base in ("atom", "red"):
                ops = [m for m in ins.mods if m in ATOM_OPS]
                if len(ops) != 1:
                    raise p.error(f"'{ins.opcode}' needs one operation (.add, .cas, ...)", op_tok)
        ins.vec = 8 if "v8" in ins.mods else 4 if "v4" in ins.mods else 2 if "v2" in ins.mods else 1
        if base == "setp":
            cmps = [m for m in ins.mods if m in CMP_OPS]
            if len(cmps) != 1:
                raise p.error(f"'{ins.opcode}' needs one comparison (.eq, .lt, ...)", op_tok)
            if any(m in BOOL_OPS for m in ins.mods) != (len(raw) == 4):
                raise p.error(f"'{ins.opcode}': a .and/.or/.xor combination takes a third predicate operand "
                              f"and only then", op_tok)
        if base in ("bar", "barrier") and "red" in ins.mods:
            self.decode_bar_red(ins, raw, op_tok)
            return
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
        if base == "vmad":
            self.check_vmad(ins, op_tok)

    def check_vmad(self, ins: Instruction, op_tok):
        """The operand forms ptxas takes for vmad (the others it rejects, and so does gpusim)."""
        sel, p = ins.vsel or {}, self.p
        negs = {k for k in ("1", "2", "3") if f"neg{k}" in sel}
        if ("1" in negs) != ("2" in negs) and "3" in negs:
            raise p.error(f"'{ins.opcode}': negate either the product (-a or -b) or c, not both", op_tok)
        if negs and "po" in ins.mods:
            raise p.error(f"'{ins.opcode}': .po (a*b + c + 1) takes no negated operand", op_tok)
        if "3" in sel:
            raise p.error(f"'{ins.opcode}': c takes no part selector (.b0-.b3, .h0, .h1)", op_tok)
        if "shr7" in ins.mods and "shr15" in ins.mods:
            raise p.error(f"'{ins.opcode}': one of .shr7 and .shr15", op_tok)

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
        if base in ("bfind", "popc", "clz") and k == 0:
            return "u32"
        if base == "fns":
            return "s32" if k == 3 else "b32"
        if base in ("bmsk", "szext", "shf") and k >= 2:
            return "u32"
        if base in ("dp4a", "dp2a"):
            if k in (1, 2):
                return ins.types[k - 1]
            return "u32" if ins.types == ("u32", "u32") else "s32"
        if base == "slct":
            return ins.types[1] if k == 3 else ins.types[0]
        if base == "isspacep":
            return "b64" if k == 1 else "pred"
        if base in ("redux", "match") and k == 2:
            return "b32"
        if base == "match" and k == 0:
            return "b32"
        if base == "elect":
            return "b32"
        if base == "cp.async":
            return "u32"
        if base in ("applypriority", "discard"):
            return "u64"
        if base == "createpolicy" and k >= 1:
            return "f32" if "fractional" in ins.mods and k == (1 if "range" not in ins.mods else 3) else "b64"
        if base == "brx":
            return "u32"
        if base == "mapa" and k == 2:
            return "u32"
        if base == "getctarank" and k == 0:
            return "u32"
        if base == "alloca" and k == 2:
            return "u32"
        if base in _SCALAR_VIDEO:
            if base == "vset":
                return ins.types[k - 1] if k in (1, 2) else "u32"
            if base in ("vshl", "vshr") and k == 2:
                return "u32"
            return ins.types[k] if k < 3 else ins.types[0]
        if base[:-1] in _SIMD_VIDEO and base[-1] in "24":
            if base.startswith("vset"):
                return ins.types[k - 1] if k in (1, 2) else "u32"
            return ins.types[k] if k < 3 else ins.types[0]
        if base == "mbarrier":
            m = ins.mods
            if k == 0:
                return "u32" if "pending_count" in m else "b64"
            if k == 1 and "pending_count" in m:
                return "b64"
            if k == 2 and ("test_wait" in m or "try_wait" in m) and "parity" not in m:
                return "b64"
            return "u32"
        if base in ("mov",) and t in ("b128",):
            return t
        return t or "b32"

    def operand(self, ins: Instruction, k: int, kind: str, r):
        p = self.p
        tag = r[0]
        tok = r[-1] if tag != "name" else r[1]
        if kind == "l":
            if tag != "name":
                raise p.error(f"{ins.base} needs a label", tok)
            name = r[1].text
            if ins.base == "brx":
                table = self.branch_tables.get(name)
                if table is None:
                    raise p.error(f"'{name}' is not a .branchtargets table", r[1])
                missing = [t.text for t in table if t.text not in self.labels]
                if missing:
                    raise p.error(f"branch table '{name}': label '{missing[0]}' not found", r[1])
                ins.targets = tuple(self.labels[t.text] for t in table)
                return Label(name)
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
            reg = self.registers.lookup(name_tok.text)
            if reg is not None:
                if reg.bits not in (32, 64):
                    raise p.error(f"address register {reg.name} must be 32 or 64 bits", name_tok)
                return Mem(reg, off)
            if name_tok.text.startswith("%"):
                raise p.error(f"undeclared register {name_tok.text}", name_tok)
            key = self.lookup_frame_param(name_tok.text)
            if key is not None:
                if ins.base not in ("ld", "st") or ins.space != "param":
                    raise p.error(f"'{name_tok.text}' is a .param variable of a call sequence or device function: "
                                  f"only ld.param/st.param may access it", name_tok)
                ins.frame_param = True
                return Mem(SymbolAddr(key), off)
            self.check_symbol(ins, name_tok)
            return Mem(SymbolAddr(name_tok.text), off)
        expect = self.expected_type(ins, k, kind)
        if tag == "vec":
            items = r[1]
            if ins.base == "mov" and ins.type in ("b16", "b32", "b64", "b128"):
                # mov.b64 {lo, hi}, d (unpack) / mov.b64 d, {lo, hi} (pack): the parts split the width evenly
                width = TYPE_BITS[ins.type]
                if len(items) not in (2, 4) or width // len(items) < 8:
                    raise p.error(f"{ins.opcode} packs 2 or 4 registers, found {len(items)}", tok)
                part = {8: "b8", 16: "b16", 32: "b32", 64: "b64"}[width // len(items)]
                regs = []
                for it in items:
                    if it is None:
                        if kind != "d":
                            raise p.error("'_' stands only for an unpacked part that is not kept", tok)
                        regs.append(None)
                        continue
                    if it[0] != "name":
                        raise p.error(f"the parts of {ins.opcode} {{ }} must be registers", tok)
                    regs.append(self.reg_operand(ins, it[1], part))
                return Vec(tuple(regs))
            if ins.base not in ("ld", "st", "ldu", "atom", "red", "st.async") or ins.vec == 1:
                raise p.error(f"a vector operand needs ld/st .v2/.v4, not {ins.opcode}", tok)
            if len(items) != ins.vec:
                raise p.error(f"{ins.opcode} needs {ins.vec} registers in {{ }}, found {len(items)}", tok)
            return Vec(tuple(None if it is None else self.operand(ins, k, "a", it) for it in items))
        if tag == "pair":
            if ins.base not in ("shfl", "setp", "match", "elect"):
                raise p.error("'|' pairs are only for setp, shfl, match and elect destinations", tok)
            second = self.reg_operand(ins, r[2], "pred")
            ins.pred_out = second
            if r[1].text == "_":
                return None
            return self.reg_operand(ins, r[1], expect if ins.base != "setp" else "pred")
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
        if tag == "negreg":
            if ins.base != "vmad":
                raise p.error(f"'-' before a register is only for vmad, not {ins.opcode}", tok)
            ins.vsel = dict(ins.vsel or {}, **{f"neg{k}": "1"})
            return self.operand(ins, k, kind, r[1])
        if tag == "imm":
            if kind in ("d", "p"):
                raise p.error(f"operand {k + 1} of {ins.opcode} is a destination: it must be a register", tok)
            return self.imm_operand(ins, r[1], expect, tok)
        if tag == "mem":
            raise p.error(f"operand {k + 1} of {ins.opcode} cannot be a memory operand", tok)
        # a name: register, special register, or variable address
        name_tok, off = r[1], r[2] if len(r) > 2 else 0
        name = name_tok.text
        if self.registers.lookup(name) is not None:     # register names need not start with '%'
            return self.reg_operand(ins, name_tok, expect)
        reg_name, _, sel = name.rpartition(".")
        if ins.base in _SCALAR_VIDEO and self.registers.lookup(reg_name) is not None:
            # a scalar video operand's byte or half (a.b2, b.h1) or the destination's part (d.b0)
            if sel not in ("b0", "b1", "b2", "b3", "h0", "h1") or (k == 0 and ins.base == "vmad"):
                raise p.error(f"'.{sel}' is not a part selector of {ins.opcode} (.b0-.b3, .h0, .h1)", name_tok)
            ins.vsel = dict(ins.vsel or {}, **{str(k): sel})
            return self.reg_operand(ins, Tok(name_tok.kind, reg_name, name_tok.line, name_tok.col), expect)
        if ins.base[:-1] in _SIMD_VIDEO and ins.base[-1] in "24" and self.registers.lookup(reg_name) is not None:
            # a SIMD video operand with its element selector (a.b3210, b.h32) or the destination's mask (d.h0)
            width = "h" if ins.base[-1] == "2" else "b"
            digits = "0123" if (width == "h" or k == 0) else "01234567"
            n = 4 if width == "b" else 2
            if not (sel[:1] == width and sel[1:] and all(c in digits for c in sel[1:]) and
                    (k == 0 and len(sel) - 1 <= n or len(sel) - 1 == n)):
                raise p.error(f"'.{sel}' is not an element {'mask' if k == 0 else 'selector'} of {ins.opcode}",
                              name_tok)
            ins.vsel = dict(ins.vsel or {}, **{str(k): sel})
            return self.reg_operand(ins, Tok(name_tok.kind, reg_name, name_tok.line, name_tok.col), expect)
        if name.startswith("%"):
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

    def decode_mbarrier(self, ins: Instruction, raw: list, op_tok: Tok) -> None:
        """The mbarrier forms: a destination (state, predicate or count; ``_`` for none), the barrier's
        address ``[b]`` and the values after it (count, state/parity, transaction bytes, a time hint)."""
        p = self.p
        mods = ins.mods
        ins.space = "shared"
        waits = "test_wait" in mods or "try_wait" in mods
        has_dest = waits or "pending_count" in mods or "arrive" in mods or "arrive_drop" in mods
        if "mbarrier" in mods:     # cp.async.mbarrier.arrive [b]
            has_dest = False
        ops = []
        for k, r in enumerate(raw):
            if r[0] == "mem":
                ops.append(self.operand(ins, k, "m", r))
            elif r[0] == "name" and r[1].text == "_":
                ops.append(None)
            elif k == 0 and has_dest:
                ops.append(self.reg_operand(ins, r[1], "pred") if waits else self.operand(ins, k, "d", r))
            else:
                ops.append(self.operand(ins, k, "a", r))
        if not any(isinstance(o, Mem) for o in ops) and "pending_count" not in mods:
            raise p.error(f"'{ins.opcode}' needs the barrier's address [b]", op_tok)
        ins.operands = tuple(ops)

    def decode_bar_red(self, ins: Instruction, raw: list, op_tok: Tok) -> None:
        """``bar.red.popc.u32 d, a{, b}, {!}c`` and ``bar.red.{and,or}.pred p, a{, b}, {!}c``."""
        p = self.p
        op = [m for m in ins.mods if m in ("popc", "and", "or")]
        want = "u32" if op == ["popc"] else "pred"
        if len(op) != 1 or want not in ins.mods or not 3 <= len(raw) <= 4:
            raise p.error(f"'{ins.opcode}': expected bar.red.popc.u32 d, a, {{!}}c or bar.red.and/or.pred p, a, "
                          f"{{!}}c", op_tok)
        last = raw[-1]
        if last[0] == "not":
            ins.negate_c = True
            last = last[1]
        d = self.operand(ins, 0, "d" if want == "u32" else "p", raw[0]) if want == "u32" else \
            self.reg_operand(ins, raw[0][1], "pred")
        mids = [self.operand(ins, k, "a", r) for k, r in enumerate(raw[1:-1], 1)]
        if last[0] != "name":
            raise p.error(f"the last operand of {ins.opcode} must be a predicate register", op_tok)
        c = self.reg_operand(ins, last[1], "pred")
        ins.operands = (d, *mids, c)

    def decode_call(self, ins: Instruction, raw: list, op_tok: Tok) -> None:
        """``call[.uni] [(rets),] target[, (args)][, prototype];``"""
        p = self.p
        items = list(raw)
        rets, args, proto = [], [], None
        if items and items[0][0] == "list":
            rets = items.pop(0)[1]
        if not items or items[0][0] != "name":
            raise p.error("call needs a function name (or a register holding a function's address)", op_tok)
        target_tok = items.pop(0)[1]
        if items and items[0][0] == "list":
            args = items.pop(0)[1]
        if items and items[0][0] == "name":
            proto = items.pop(0)[1].text
        if items:
            raise p.error(f"unexpected operand after the argument list of {ins.opcode}", items[0][-1])

        def keys(lst, what):
            out = []
            for it in lst:
                if it[0] != "name" or self.lookup_frame_param(it[1].text) is None:
                    t = it[1] if it[0] == "name" else it[-1]
                    raise p.error(f"the {what} of a call must be .param variables declared before it (what nvcc "
                                  f"emits), found {getattr(t, 'text', t)!r}", t if isinstance(t, Tok) else op_tok)
                out.append(self.lookup_frame_param(it[1].text))
            return tuple(out)
        reg = self.registers.lookup(target_tok.text)
        if reg is not None:
            if reg.bits not in (32, 64):
                raise p.error(f"an indirect call needs a 32- or 64-bit register, {reg.name} is .{reg.type}",
                              target_tok)
            ins.call = CallInfo(None, reg, keys(rets, "return values"), keys(args, "arguments"), proto)
        elif target_tok.text in self.p.function_names:
            ins.call = CallInfo(target_tok.text, None, keys(rets, "return values"), keys(args, "arguments"), proto)
        else:
            raise p.error(f"call of '{target_tok.text}': no such function in this module", target_tok)

    def check_symbol(self, ins: Instruction, tok: Tok) -> None:
        name = tok.text
        if name in self.p.function_names and ins.base == "mov":
            return
        if name in self.p.globals or any(v.name == name for v in self.shared_vars + self.local_vars +
                                         self.p.shared_globals):
            return
        if any(prm.name == name for prm in self.params):
            return
        raise self.p.error(f"unknown variable '{name}' (not a declared .shared/.local/.const/.global variable "
                           f"or parameter)", tok)

    def reg_operand(self, ins: Instruction, tok: Tok, expect: str) -> Reg:
        reg = self.registers.lookup(tok.text)
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
