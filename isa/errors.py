"""The parser's error type: every problem in PTX text is reported as ``file:line:col: message``."""
from __future__ import annotations

from gpusim.errors import GpusimError


class PtxError(GpusimError, ValueError):
    """A syntax, declaration or type error in PTX text, or an unsupported construct.

    Attributes ``file``, ``line`` (1-based), ``col`` (1-based) and ``reason`` are kept for tools; ``str()``
    gives the compiler-style ``matmul.ptx:42:9: unknown opcode 'fma.rz.f16x2'``.
    """

    def __init__(self, file: str, line: int, col: int, reason: str):
        self.file, self.line, self.col, self.reason = file, line, col, reason
        super().__init__(f"{file}:{line}:{col}: {reason}")
