"""Source locations: where an instruction, or a problem in PTX text, is in the PTX and, when the PTX carries
line information (``.loc``/``.file``, from ``nvcc -lineinfo`` or NVRTC's ``-lineinfo``), in the CUDA source
it was compiled from.

Every error that names a place goes through one formatter, :meth:`SourceLocation.format`: for a kernel
compiled from CUDA it leads with ``file.cu:LINE``, prints that line of the ``.cu`` file (looked for beside
the PTX), and gives the PTX position and instruction as secondary detail::

    faults.cu:5: illegal address in kernel 'out_of_bounds': out-of-bounds access of st.global.f32 ...
        5 |     out[i] = 2.0f * i;
      PTX faults.ptx:38:2: st.global.f32 [%rd4], %f2;

Without line information it is the compiler-style ``file.ptx:LINE:COL: message`` on one line.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


@dataclass(frozen=True)
class SourceLocation:
    """A position in the PTX (always) and in the CUDA source (when known)."""

    ptx_file: str                   # the PTX's name as shown (file name, or "<ptx 1a2b3c4d>" for text)
    ptx_line: int                   # 1-based; 0: the file as a whole
    ptx_col: int = 0                # 1-based; 0: unknown
    ptx_text: str | None = None     # the PTX line, its white space collapsed to single spaces
    cuda_file: str | None = None    # the CUDA file's name (as the .file directive gives it, without folders)
    cuda_line: int | None = None
    cuda_text: str | None = None    # that line of the CUDA file (indentation kept), when the file was found

    @property
    def ptx(self) -> str:
        """``file.ptx:LINE:COL`` (as much of it as is known)."""
        if not self.ptx_line:
            return self.ptx_file
        return f"{self.ptx_file}:{self.ptx_line}" + (f":{self.ptx_col}" if self.ptx_col else "")

    @property
    def has_cuda(self) -> bool:
        return bool(self.cuda_file and self.cuda_line)

    def __str__(self) -> str:
        """The primary location: ``file.cu:LINE`` when known, else the PTX position."""
        return f"{self.cuda_file}:{self.cuda_line}" if self.has_cuda else self.ptx

    def brief(self) -> str:
        """One-line form for lists (``faults.cu:11, PTX line 61``)."""
        return f"{self}, PTX line {self.ptx_line}" if self.has_cuda else f"{self.ptx_file}:{self.ptx_line}"

    def format(self, message: str) -> str:
        """``LOCATION: message``, then (CUDA only) the source line and the PTX position; the lines of a
        multi-line message after its first follow the source lines."""
        head, _, rest = message.partition("\n")
        lines = [f"{self}: {head}"]
        if self.has_cuda:
            if self.cuda_text is not None:
                lines.append(f"  {self.cuda_line:>5} | {self.cuda_text}")
            lines.append(f"  PTX {self.ptx}" + (f": {self.ptx_text}" if self.ptx_text else ""))
        if rest:
            lines.append(rest)
        return "\n".join(lines)


def locate(ptx_file: str, ptx_text: str, line: int, col: int = 0, cuda_file: str | None = None,
           cuda_line: int | None = None, directory: str | Path | None = None) -> SourceLocation:
    """The location of PTX ``line:col`` of ``ptx_text``; ``cuda_file``/``cuda_line`` from its ``.loc``.  The
    CUDA file is read, when it exists, at the path ``.file`` gives relative to ``directory`` (the PTX's
    folder; ``gpusim compile`` writes such a path), else under its bare name in that folder (the bundled
    programs), else at the path itself."""
    ptx_src = _line_of(ptx_text, line) if ptx_text else None
    ptx_src = " ".join(ptx_src.split()) if ptx_src is not None else None   # nvcc separates with tabs
    if not (cuda_file and cuda_line):
        return SourceLocation(ptx_file, line, col, ptx_src)
    name = Path(cuda_file).name
    text = None
    beside = [Path(directory) / cuda_file, Path(directory) / name] if directory is not None else []
    for cand in beside + [Path(cuda_file)]:
        text = _file_line(str(cand), cuda_line)
        if text is not None:
            text = text.rstrip().expandtabs(4)
            break
    return SourceLocation(ptx_file, line, col, ptx_src, name, cuda_line, text)


def _line_of(text: str, line: int) -> str | None:
    lines = _lines(text)
    return lines[line - 1] if 0 < line <= len(lines) else None


@lru_cache(maxsize=8)
def _lines(text: str) -> list[str]:
    return text.splitlines()


def _file_line(path: str, line: int) -> str | None:
    try:
        p = Path(path)
        if not p.is_file():
            return None
        return _line_of(p.read_text(errors="replace"), line)
    except OSError:
        return None
