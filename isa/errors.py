"""The errors of the ``isa`` package: it depends on nothing above it, so it has its own base class.

:class:`IsaError` is the base of every error the ISA reports to a user (bad PTX text, an unknown kernel);
``gpusim.errors.USER_ERRORS`` pairs it with gpusim's own base so that a front end catches every user error
with one ``except`` clause.
"""
from __future__ import annotations

from isa.location import SourceLocation


class IsaError(Exception):
    """Base class of every error the ``isa`` package reports to a user."""


class PtxError(IsaError, ValueError):
    """A syntax, declaration or type error in PTX text, or an unsupported construct.

    Attributes ``file``, ``line`` (1-based), ``col`` (1-based) and ``reason`` are kept for tools, and
    ``location`` (a :class:`~isa.location.SourceLocation`, with the CUDA line when the PTX has ``.loc``
    information); ``str()`` gives the compiler-style ``matmul.ptx:42:9: unknown opcode 'fma.rz.f16x2'``, or
    for generated PTX ``matmul.cu:17: ...`` with the CUDA line and the PTX position below it.
    """

    def __init__(self, file: str, line: int, col: int, reason: str, location: SourceLocation | None = None):
        self.file, self.line, self.col, self.reason = file, line, col, reason
        self.location = location or SourceLocation(file, line, col)
        super().__init__(self.location.format(reason))


class KernelLookupError(IsaError, LookupError):
    """A module has no kernel of the name asked for (or several, and none was named)."""


def read_text(path) -> str:
    """The UTF-8 text of a source file; a byte that is not UTF-8 is a :class:`PtxError` at its line:col."""
    from pathlib import Path
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PtxError(str(path), 0, 0, "no such file") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise PtxError(str(path), line, col, f"not UTF-8 text (byte 0x{raw[e.start]:02x}: {e.reason})") from None
