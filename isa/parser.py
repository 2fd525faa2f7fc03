"""PTX text -> :class:`isa.program.Module`.

A hand-written recursive-descent parser for the subset in :mod:`isa.opcodes`, in four parts:
:mod:`isa.tokenizer` (tokens and the stream helpers), :mod:`isa.declarations` (variables, parameters,
registers, layout), :mod:`isa.instructions` (instruction statements and their decoding) and this module
(module-scope directives, kernels and their bodies).  Every problem is a :class:`isa.errors.PtxError` naming
file, line and column and what was expected; nothing else escapes (the hypothesis test in ``tests/isa``
holds the parser to that).  Instructions are decoded once here: operands typed and checked against the
registers' declarations, labels resolved to PCs, variables laid out, branch reconvergence points computed
(:mod:`isa.cfg`).
"""
from __future__ import annotations

from pathlib import Path

from isa.cfg import reconvergence_points
from isa.declarations import Registers, align_up, extent, layout, parse_param, parse_var_decl
from isa.errors import PtxError, read_text
from isa.instructions import InstructionParser
from isa.opcodes import OPCODES
from isa.program import Instruction, Kernel, Module, Param, SymbolAddr, Variable
from isa.tokenizer import INT_KINDS, Tok, TokenStream, int_value

_SCOPE_DIRECTIVES = (".visible", ".extern", ".weak")
_IGNORED_KERNEL_DIRECTIVES = (".pragma", ".minnctapersm", ".maxnreg", ".maxnctapersm", ".noreturn",
                              ".explicitcluster", ".reqnctapercluster", ".maxclusterrank")


class _Parser(TokenStream):
    """The module scope: directives, module variables, kernels and device functions.

    With ``strict`` False, an error inside a kernel's or function's body (an unknown opcode, a type
    mismatch) does not stop the module from loading: it is kept as the function's ``error`` and raised when
    a kernel that needs the function is launched (:func:`isa.link.link`)."""

    def __init__(self, text: str, file: str, directory=None, strict: bool = True):
        super().__init__(text, file, directory)
        self.strict = strict
        self.functions: dict[str, Kernel] = {}
        self.extern_functions: dict[str, Kernel] = {}
        self.files = _file_directives(self.toks)   # read first: nvcc puts .file at the end, after the .loc
        self.function_names = _function_names(self.toks)   # a call may come before the callee's definition
        self.globals: dict[str, Variable] = {}
        self.kernels: dict[str, Kernel] = {}
        self.version = ""
        self.target = ""
        self.address_size = 64
        self.const_top = 0
        self.global_top = 0
        self.shared_globals: list[Variable] = []

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
            elif d == ".file":   # the table was read by _file_directives; here only the syntax is checked
                self.next()
                self.expect_int("a file index")
                if self.tok.kind != "string":
                    raise self.error("expected a file name in quotes")
                self.next()
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
        for name in list(self.extern_functions):
            if name in self.functions:
                del self.extern_functions[name]
        return Module(self.file, self.version, self.target, self.address_size, self.kernels, self.globals,
                      self.files, self.text, self.shared_globals, self.directory, self.functions,
                      self.extern_functions)

    def parse_module_decl(self) -> None:
        linkage = None
        while self.tok.text in _SCOPE_DIRECTIVES:
            linkage = self.next().text
        d = self.tok.text
        if d == ".entry":
            self.next()
            self.parse_function(True)
        elif d == ".func":
            self.next()
            self.parse_function(False)
        elif d == ".shared":
            # module-scope shared variables; `.extern .shared .b8 x[];` is the dynamic shared memory
            self.next()
            var = parse_var_decl(self, "shared", allow_init=False)
            self.shared_globals.append(var)
            self.accept(";")
        elif d in (".const", ".global"):
            space = self.next().text[1:]
            var = parse_var_decl(self, space, allow_init=True)
            if linkage == ".extern":
                self.accept(";")
                return
            if space == "const":
                var.offset = align_up(self.const_top, var.align)
                self.const_top = var.offset + var.size_bytes
                if self.const_top > 65536:
                    raise self.error(f"constant memory is 64 KB; '{var.name}' ends at {self.const_top} bytes")
            else:
                var.offset = align_up(self.global_top, var.align)
                self.global_top = var.offset + var.size_bytes
            if var.name in self.globals:
                raise self.error(f"'{var.name}' is declared twice")
            self.globals[var.name] = var
            self.accept(";")
        else:
            raise self.error(f"expected .entry, .func, .const or .global after {linkage}, found {d!r}")

    # -- kernels and device functions --------------------------------------------------------------------
    def parse_param_list(self) -> tuple[list[Param], int]:
        """``( .param ..., ... )``: the parameters laid out in order, and their bytes."""
        params: list[Param] = []
        offset = 0
        self.expect("(")
        if self.tok.text != ")":
            while True:
                if self.tok.text == ".reg":
                    raise self.error("register (.reg) parameters of device functions are not supported; "
                                     "only .param parameters (what nvcc emits)")
                p = parse_param(self)
                p.offset = offset = align_up(offset, p.align)
                offset += p.size_bytes
                params.append(p)
                if not self.accept(","):
                    break
        self.expect(")")
        return params, offset

    def parse_function(self, is_entry: bool) -> None:
        """``.entry name (params) {body}`` or ``.func [(returns)] name [(params)] {body}`` (or ``;``)."""
        while self.tok.text == ".attribute":      # .func .attribute(.unified)
            self.next()
            self.expect("(")
            while self.tok.kind != "eof" and self.tok.text != ")":
                self.next()
            self.expect(")")
        returns: list[Param] = []
        if not is_entry and self.tok.text == "(":
            returns, _ = self.parse_param_list()
        name_tok = self.expect_word("a kernel name" if is_entry else "a function name")
        name = name_tok.text
        params: list[Param] = []
        offset = 0
        if self.tok.text == "(":
            params, offset = self.parse_param_list()
        kb = _KernelBuilder(self, name, params, offset, name_tok.line, is_entry, returns)
        while self.tok.text in (".maxntid", ".reqntid", ".noreturn") or self.tok.text in _IGNORED_KERNEL_DIRECTIVES:
            d = self.next().text
            vals = []
            if d == ".noreturn":
                continue
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
            if not is_entry and name not in self.functions:   # a declaration (.extern, or a prototype)
                self.extern_functions[name] = kb.declaration()
            return
        self.expect("{")
        kb.parse_body()
        table = self.kernels if is_entry else self.functions
        if name in table:
            raise self.error(f"{'kernel' if is_entry else 'function'} '{name}' is defined twice", name_tok)
        table[name] = kb.finish()


class _KernelBuilder(InstructionParser):
    """Parses one kernel body and decodes its instructions."""

    def __init__(self, p: _Parser, name: str, params: list[Param], param_bytes: int, line: int,
                 is_entry: bool = True, returns: list[Param] | None = None):
        self.p = p
        self.name = name
        self.is_entry = is_entry
        self.returns = returns or []
        self.params = params
        self.param_bytes = param_bytes
        self.line = line
        self.registers = Registers(p)
        self.instrs: list[Instruction] = []
        self.pending: list[tuple] = []   # raw instruction records, decoded after all labels are known
        self.labels: dict[str, int] = {}
        self.label_toks: dict[str, Tok] = {}
        self.nounroll_at: set[int] = set()   # pending indices that follow a `.pragma "nounroll";`
        self.shared_vars: list[Variable] = []
        self.local_vars: list[Variable] = []
        self.maxntid = None
        self.reqntid = None
        self.branch_tables: dict[str, list[Tok]] = {}   # .branchtargets label -> its labels
        # .param variables of the frame: a function's formals and returns, and the call sequences' own
        self.frame_params: dict[str, Variable] = {}
        if not is_entry:
            for prm in self.params + self.returns:
                self.declare_frame_param(Variable(prm.name, "param", prm.type, prm.size_bytes, prm.align, None,
                                                  0, line))
        p.loc = None     # the .loc in force (the stream's, so that its errors name the CUDA line)

    def declare_frame_param(self, var: Variable) -> None:
        """A ``.param`` variable of this function's frame, visible in the current ``{ }`` scope under its name;
        its symbol key is unique in the function (call sequences in different blocks reuse names)."""
        key = var.name if var.name not in self.frame_params else f"{var.name}~{len(self.frame_params)}"
        self.frame_params[key] = var
        self.registers.scopes[-1][("param", var.name)] = key

    def lookup_frame_param(self, name: str) -> str | None:
        for s in reversed(self.registers.scopes):
            k = s.get(("param", name))
            if k is not None:
                return k
        return None

    def declaration(self) -> Kernel:
        """A function declared without a body."""
        return Kernel(self.name, self.params, [], [], {}, line=self.line, is_entry=False, returns=self.returns)

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
                self.registers.close_scope()
                if depth == 0:
                    return
                continue
            if t.text == "{":
                p.next()
                depth += 1
                self.registers.open_scope()
                continue
            if t.text == ";":
                p.next()
                continue
            if t.text == ".reg":
                p.next()
                self.registers.parse_decl()
            elif t.text in (".shared", ".local"):
                p.next()
                var = parse_var_decl(p, t.text[1:], allow_init=False)
                (self.shared_vars if t.text == ".shared" else self.local_vars).append(var)
                p.expect(";")
            elif t.text == ".loc":
                p.next()
                fidx = p.expect_int("a file index")
                lno = p.expect_int("a line number")
                p.expect_int("a column number")
                caller = None
                while p.accept(","):  # ", function_name $L__info_string0, inlined_at 1 22 3"
                    if p.tok.text == "inlined_at":
                        p.next()
                        caller = (p.expect_int("a file index"), p.expect_int("a line number"))
                        p.expect_int("a column number")
                        continue
                    while p.tok.text not in (",", ";") and p.tok.kind != "eof" and p.tok.line == t.line:
                        p.next()
                # Inlined code keeps its own line (the device function body's, as Nsight's source view and
                # compute-sanitizer show it), so a kernel whose body is an inlined template is not all
                # charged to the call line; code inlined from a header (a toolkit intrinsic such as
                # __syncwarp in sm_30_intrinsics.hpp) takes the line that called it, as compute-sanitizer's
                # first frame outside the headers does.
                if caller is not None and p.files.get(fidx, "").endswith(HEADER_SUFFIXES):
                    fidx, lno = caller
                p.loc = (fidx, lno)
            elif t.text == ".pragma":
                p.next()
                if p.tok.kind == "string" and p.tok.text.strip('"') == "nounroll":
                    self.nounroll_at.add(len(self.pending))
                p.skip_statement()
            elif t.text in _IGNORED_KERNEL_DIRECTIVES:
                p.skip_statement()
            elif t.text == ".param":
                p.next()
                var = parse_var_decl(p, "param", allow_init=False)
                self.declare_frame_param(var)
                p.expect(";")
            elif t.text in (".const", ".global"):
                raise p.error(f"{t.text} variables inside a kernel are not supported; declare them at module scope")
            elif t.kind == "word" and p.peek().text == ":" and not t.text.startswith("."):
                p.next()
                p.next()
                if t.text in self.labels or t.text in self.branch_tables:
                    raise p.error(f"label '{t.text}' is defined twice", t)
                if p.tok.text in (".branchtargets", ".calltargets", ".callprototype"):
                    d = p.next().text
                    if d == ".branchtargets":
                        targets = [p.expect_word("a label")]
                        while p.accept(","):
                            targets.append(p.expect_word("a label"))
                        self.branch_tables[t.text] = targets
                        p.expect(";")
                    else:   # the prototype of an indirect call: the callee's own declaration is used
                        p.skip_statement()
                    continue
                self.labels[t.text] = len(self.pending)
                self.label_toks[t.text] = t
            elif t.text == "@" or (t.kind == "word" and not t.text.startswith(".")):
                self.parse_instruction()
            else:
                raise p.error(f"unexpected {t.text!r} in kernel body: expected an instruction, a label or a "
                              f"declaration")

    # -- decoding ------------------------------------------------------------------------------------------
    def finish(self) -> Kernel:
        """Decode the body; with a non-strict parser an error becomes the function's ``error``."""
        try:
            return self._finish()
        except PtxError as e:
            if self.p.strict:
                raise
            self.p.loc = None
            k = Kernel(self.name, self.params, self.registers.regs, [], self.labels, self.shared_vars,
                       self.local_vars, param_bytes=self.param_bytes, line=self.line, is_entry=self.is_entry,
                       returns=self.returns, error=e)
            return k

    def _finish(self) -> Kernel:
        layout(self.shared_vars)
        layout(self.local_vars)
        outer = self.registers.scopes
        for idx, rec in enumerate(self.pending):
            self.p.loc = rec[5]
            self.registers.scopes = rec[6]
            try:
                self.instrs.append(self.decode(idx, *rec[:5], rec[5]))
            finally:
                self.registers.scopes = outer
        self.p.loc = None
        for idx in self.nounroll_at:
            if idx < len(self.instrs):
                self.instrs[idx].nounroll = True
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
            if ins.base == "brx":
                ins.targets = tuple(min(t, len(self.instrs) - 1) for t in ins.targets)
        rpcs = reconvergence_points(self.instrs)
        for ins in self.instrs:
            if ins.base in ("bra", "brx"):
                ins.reconverge = rpcs[ins.pc]
        callees = []
        for ins in self.instrs:
            if ins.call is not None and ins.call.callee is not None:
                callees.append(ins.call.callee)
            for op in ins.operands:
                name = op.name if isinstance(op, SymbolAddr) else None
                if name is not None and name in self.p.function_names:
                    callees.append(name)
        k = Kernel(self.name, self.params, self.registers.regs, self.instrs, self.labels, self.shared_vars,
                   self.local_vars, extent(self.shared_vars), extent(self.local_vars), self.param_bytes,
                   self.maxntid, self.reqntid, self.line, is_entry=self.is_entry, returns=self.returns,
                   frame_params=self.frame_params, callees=tuple(dict.fromkeys(callees)))
        return k


def parse_ptx(text: str, file: str = "<ptx>", directory: str | Path | None = None, *,
              strict: bool = True) -> Module:
    """Parse PTX text into a :class:`Module`. Raises :class:`PtxError` for any problem.

    ``file`` is the name errors show; ``directory`` the folder where the CUDA sources its ``.file``
    directives name are looked for (the PTX file's folder), so that errors can print their lines.
    ``strict=False`` (what the runtime uses) keeps an error inside a kernel's or function's body as that
    function's ``error``, raised when a kernel that needs it is launched."""
    if not isinstance(text, str):
        raise TypeError("parse_ptx expects the PTX text as a str")
    return _Parser(text, file, directory, strict).parse()


#: Files whose inlined code is charged to the line that called it (see the ``.loc`` directive above).
HEADER_SUFFIXES = (".h", ".hpp")


def _file_directives(toks: list[Tok]) -> dict[int, str]:
    """The ``.file N "name"`` table (file index -> name), wherever the directives stand."""
    files = {}
    for i, t in enumerate(toks[:-2]):
        if t.text == ".file" and toks[i + 1].kind in INT_KINDS and toks[i + 2].kind == "string":
            files[int_value(toks[i + 1])] = toks[i + 2].text[1:-1]
    return files


def _function_names(toks: list[Tok]) -> set[str]:
    """The names of every ``.func`` declared or defined in the module."""
    names = set()
    for i, t in enumerate(toks):
        if t.text != ".func":
            continue
        j = i + 1
        while toks[j].text == ".attribute":
            while toks[j].text not in (")", "") and toks[j].kind != "eof":
                j += 1
            j += 1
        if toks[j].text == "(":
            depth = 0
            while toks[j].kind != "eof":
                depth += toks[j].text == "("
                depth -= toks[j].text == ")"
                j += 1
                if depth == 0:
                    break
        if toks[j].kind == "word":
            names.add(toks[j].text)
    return names


def load_ptx(path: str | Path, *, strict: bool = True) -> Module:
    path = Path(path)
    return parse_ptx(read_text(path), path.name, path.parent, strict=strict)
