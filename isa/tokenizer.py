"""The PTX tokenizer and the token-stream helpers every part of the parser reads with.

:func:`tokenize` turns the whole text into :class:`Tok` objects (kind, text, 1-based line and column), dropping
whitespace and comments; :class:`TokenStream` walks them with ``expect``/``accept`` helpers whose errors name
the file, line and column and what was expected.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from isa.errors import PtxError
from isa.location import SourceLocation, locate

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
  | (?P<word>[.%]?[A-Za-z_$][\w$]*(?:(?:\.|::)[\w$]+)*)
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


INT_KINDS = ("int", "hex")


def int_value(tok: Tok) -> int:
    t = tok.text.rstrip("uU")
    return int(t, 16) if tok.kind == "hex" else int(t)


class TokenStream:
    """A cursor over the tokens of one PTX text, with the helpers of a recursive-descent parser.

    Errors name the token's position; when the parser has set ``loc`` (the ``.loc`` in force: file index,
    CUDA line) and ``files`` (the ``.file`` table), they name the CUDA line too (:mod:`isa.location`),
    reading the CUDA file from ``directory``.
    """

    def __init__(self, text: str, file: str, directory: str | Path | None = None):
        self.file = file
        self.text = text
        self.directory = directory
        self.toks = tokenize(text, file)
        self.i = 0
        self.files: dict[int, str] = {}
        self.loc: tuple[int, int] | None = None

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
        return PtxError(self.file, t.line, t.col, msg, self.location(t.line, t.col))

    def location(self, line: int, col: int = 0) -> SourceLocation:
        """PTX ``line:col`` with the CUDA line of the ``.loc`` in force."""
        fidx, cuda_line = self.loc if self.loc is not None else (None, None)
        return locate(self.file, self.text, line, col, self.files.get(fidx), cuda_line, self.directory)

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
        if t.kind not in INT_KINDS:
            raise self.error(f"expected {what} (an integer), found {t.text!r}" if t.kind != "eof"
                             else f"expected {what}, found end of file")
        self.next()
        v = int_value(t)
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
