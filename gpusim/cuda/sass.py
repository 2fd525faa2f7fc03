"""What ptxas made of each PTX line: the SASS instructions, read from the real tools when they are installed.

``ptxas`` assembles the PTX (``-lineinfo``) and ``nvdisasm -g`` prints the SASS with the source line of each
instruction.  The line information of a PTX file names the CUDA source (its ``.loc`` directives), so
:func:`sass_by_ptx_line` first rewrites the PTX: every ``.loc`` and ``.file`` goes, and each instruction gets a
``.loc`` naming its own PTX line.  The SASS then says, per PTX line, which instructions ptxas emitted for it
(none for an ``ld.shared.f32`` merged into the ``LDS.128`` of a neighbour, several for a division).

The tools: ``ptxas`` and ``nvdisasm`` on the PATH, in ``$CUDA_HOME/bin`` or ``/usr/local/cuda/bin``, or from the
pip wheels ``nvidia-cuda-nvcc`` and ``nvidia-cuda-nvdisasm`` (``pip install -e .[sass]``).  Without them
:func:`find_tools` gives None and the timing model's own passes apply (:mod:`gpusim.timing.vector_merge`).

Simplifications: ptxas attributes an instruction made from several PTX lines (an ``IMAD`` from a ``mul`` and an
``add``) to one of them, and code it moves keeps its line, so counts per line are ptxas's attribution, not a
partition of the work; :func:`sass_instructions_executed` is exact only where ptxas keeps the PTX's control flow
(it unrolls no loop and moves nothing across blocks).
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gpusim.errors import GpusimError, ToolMissingError

_INSTR = re.compile(r"^\s*(@!?\w+\s+)?[a-z][\w.]*(\s|;)")
_FUNC = re.compile(r"^\.text\.([\w$.]+):")
_LINE = re.compile(r'//## File "ptx", line (\d+)')
_SASS = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
_LINE_INFO = re.compile(r"\.(loc|file)\s")    # not .local, a state-space declaration
_DIRECTIVE_DECL = (".reg", ".shared", ".param", ".local", ".const", ".global", ".maxntid", ".reqntid", ".pragma")


def _tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    roots = [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]
    try:
        import nvidia
        roots += [str(Path(p) / sub) for p in nvidia.__path__ for sub in ("cu13", "cu12", "cuda_nvcc", "cuda_nvdisasm")]
    except ImportError:
        pass
    for root in roots:
        cand = Path(root) / "bin" / name
        if root and cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return None


@functools.lru_cache(maxsize=None)
def find_tools() -> tuple[str, str] | None:
    """(ptxas, nvdisasm) paths, or None when either is missing."""
    ptxas, nvdisasm = _tool("ptxas"), _tool("nvdisasm")
    return (ptxas, nvdisasm) if ptxas and nvdisasm else None


def mark_ptx_lines(ptx: str) -> str:
    """``ptx`` with its own line numbers as line information: ``.loc 1 N 0`` before the instruction on line N."""
    out = []
    for n, line in enumerate(ptx.splitlines(), 1):
        s = line.strip()
        if _LINE_INFO.match(s):
            continue
        if _INSTR.match(s) and s.endswith(";") and not s.startswith(_DIRECTIVE_DECL):
            out.append(f"\t.loc 1 {n} 0")
        out.append(line)
    text = "\n".join(out) + "\n"
    text, k = re.subn(r"(\.address_size\s+\d+)", r'\1\n.file 1 "ptx"', text, count=1)
    if not k:
        raise GpusimError("PTX without an .address_size directive: cannot add line information")
    return text


def sass_instructions(text: str):
    """Each SASS instruction of ``nvdisasm -g`` output of a marked module, as ``(kernel, ptx line, predicate,
    opcode)``: the predicate as written (``"@!P0"``), ``""`` for none."""
    func, line = None, 0
    for raw in text.splitlines():
        m = _FUNC.match(raw.strip())
        if m:
            func, line = m.group(1), 0
            continue
        m = _LINE.search(raw)
        if m:
            line = int(m.group(1))
            continue
        m = _SASS.search(raw)
        if m and func is not None:
            yield func, line, (m.group(1) or "").strip(), m.group(2)


def parse_nvdisasm(text: str) -> dict[str, dict[int, list[str]]]:
    """``{kernel: {ptx line: [SASS opcode, ...]}}`` from ``nvdisasm -g`` output of a marked module; ``NOP``
    padding and the branch-to-self after the last ``EXIT`` are left out (they never execute)."""
    out: dict[str, dict[int, list[str]]] = {}
    for raw in text.splitlines():            # every kernel, one without instructions too
        m = _FUNC.match(raw.strip())
        if m:
            out.setdefault(m.group(1), {})
    for func, line, _, op in sass_instructions(text):
        if op == "NOP" or (op == "BRA" and line == 0):
            continue
        out[func].setdefault(line, []).append(op)
    return out


def disassemble(ptx: str, arch: str = "sm_90") -> str:
    """``nvdisasm -g`` output of the module ``ptx`` (text) assembled by ``ptxas -arch=ARCH -lineinfo`` with each
    instruction's own PTX line as its line information (:func:`mark_ptx_lines`).  Raises
    :class:`ToolMissingError` without ptxas or nvdisasm and :class:`GpusimError` with ptxas's message when it
    rejects the PTX."""
    tools = find_tools()
    if tools is None:
        raise ToolMissingError("ptxas and nvdisasm are not installed (pip install -e .[sass], or a CUDA toolkit)")
    ptxas, nvdisasm = tools
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "m.ptx", Path(tmp) / "m.cubin"
        src.write_text(mark_ptx_lines(ptx))
        p = subprocess.run([ptxas, f"-arch={arch}", "-lineinfo", str(src), "-o", str(cubin)], capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise GpusimError(f"ptxas rejected the PTX:\n{p.stderr.strip()}")
        d = subprocess.run([nvdisasm, "-g", "-c", str(cubin)], capture_output=True, text=True)
        if d.returncode != 0:
            raise GpusimError(f"nvdisasm failed:\n{d.stderr.strip()}")
    return d.stdout


@functools.lru_cache(maxsize=64)
def sass_by_ptx_line(ptx: str, arch: str = "sm_90") -> dict[str, dict[int, list[str]]]:
    """For each kernel of the module ``ptx`` (text), the SASS opcodes ptxas emits for each PTX line
    (:func:`disassemble`, :func:`parse_nvdisasm`)."""
    return parse_nvdisasm(disassemble(ptx, arch))


def vector_width_bytes(opcode: str) -> int:
    """Bytes per lane of a SASS shared/global access (``LDS.128`` -> 16, ``STG.E.64`` -> 8, else 4)."""
    for w in (".128", ".64"):
        if w in opcode:
            return int(w[1:]) // 8
    return 4


_WIDE_PTX = re.compile(r"\.v[24]\.|\.[bfsu]64\b")


def wide_global_accesses(ptx: str) -> tuple[int, list[tuple[int, str, str]]]:
    """The ``LDG``/``STG`` of 8 or 16 bytes per lane that ptxas emits for the module ``ptx``, and of them
    ``(PTX line, PTX text, SASS opcode)`` for those ptxas widened: on a line that is neither a vector
    (``.v2``/``.v4``) nor a 64-bit access.  (Where this list is empty, the timing model is right to leave scalar
    global accesses scalar.)"""
    src, wide, widened = ptx.splitlines(), 0, []
    for lines in sass_by_ptx_line(ptx).values():
        for n, ops in lines.items():
            for op in ops:
                if op.startswith(("LDG", "STG")) and vector_width_bytes(op) > 4:
                    wide += 1
                    if not _WIDE_PTX.search(src[n - 1]):
                        widened.append((n, src[n - 1].strip(), op))
    return wide, widened


_ATOMIC_LINE = re.compile(r"^\s*(@!?%\w+\s+)?(atom|red)\.")
_ELECTION = ("REDUX", "VOTEU.ANY", "VOTE.ANY")


def aggregated_atomic_lines(ptx: str) -> dict[str, dict[int, bool]]:
    """For each kernel of ``ptx``, each ``atom``/``red`` line and whether ptxas aggregated it across the warp:
    the line's SASS elects a leader (``VOTEU.ANY``/``VOTE.ANY``) or reduces the lanes' operands (``REDUX``)
    before its one ``RED``/``ATOM`` (the rule: :mod:`isa.aggregate`).  A line ptxas attributes no SASS to (it
    may give a guarded atomic's code to its guard's line) is left out."""
    src = ptx.splitlines()
    out: dict[str, dict[int, bool]] = {}
    for kernel, lines in sass_by_ptx_line(ptx).items():
        out[kernel] = {n: any(op.startswith(_ELECTION) for op in ops) for n, ops in lines.items()
                       if _ATOMIC_LINE.match(src[n - 1])}
    return out


def aggregation_rule_vs_ptxas(modules: dict[str, str]) -> tuple[int, int, list[tuple[str, str, int, bool]]]:
    """Over the PTX modules ``{name: text}``: their atomics, those ptxas aggregated, and ``(name, kernel, PTX
    line, ptxas aggregated)`` of each where :mod:`isa.aggregate`'s mark says otherwise than
    :func:`aggregated_atomic_lines`."""
    from isa import parse_ptx
    from isa.link import link
    n, agg, differ = 0, 0, []
    for name, ptx in modules.items():
        if not re.search(r"\b(atom|red)\.", ptx):
            continue
        module = parse_ptx(ptx)
        for kernel, lines in aggregated_atomic_lines(ptx).items():
            marked = {i.line: bool(i.aggregated) for i in link(module, module.kernel(kernel)).instructions
                      if i.base in ("atom", "red")}
            for line, ptxas in sorted(lines.items()):
                n, agg = n + 1, agg + ptxas
                if marked.get(line) != ptxas:
                    differ.append((name, kernel, line, ptxas))
    return n, agg, differ


def reduction_rule_vs_ptxas(modules: dict[str, str]) -> tuple[int, int, list[tuple[str, str, int, bool]]]:
    """Over the PTX modules ``{name: text}``: their global and generic ``atom`` lines, those ptxas emitted as
    ``RED`` (no result; else ``ATOM``), and ``(name, kernel, PTX line, ptxas RED)`` of each where
    :mod:`isa.aggregate`'s ``result_unread`` mark says otherwise (shared ones are ``ATOMS`` either way)."""
    from isa import parse_ptx
    from isa.link import link
    n, reds, differ = 0, 0, []
    for name, ptx in modules.items():
        if not re.search(r"\batom\.", ptx):
            continue
        module = parse_ptx(ptx)
        src = ptx.splitlines()
        for kernel, lines in sass_by_ptx_line(ptx).items():
            marked = {i.line: i.result_unread for i in link(module, module.kernel(kernel)).instructions
                      if i.base == "atom" and i.space in ("global", "generic", None)}
            for line, ops in sorted(lines.items()):
                if line not in marked or not _ATOMIC_LINE.match(src[line - 1]):
                    continue
                ptxas = any(op.startswith("RED") and not op.startswith("REDUX") for op in ops)
                n, reds = n + 1, reds + ptxas
                if marked[line] != ptxas:
                    differ.append((name, kernel, line, ptxas))
    return n, reds, differ


def sass_instructions_executed(trace, lines: dict[int, list[str]]) -> int:
    """Warp instructions the SASS would execute for ``trace``: each PTX line's SASS count times the times its
    PTX instruction executed (per warp; a line of several PTX instructions counts its most executed one)."""
    import numpy as np
    per_pc = np.bincount(np.asarray(trace.pc, dtype=np.int64), minlength=len(trace.instructions))
    by_line: dict[int, int] = {}
    for ins in trace.instructions:
        by_line[ins.ptx_line] = max(by_line.get(ins.ptx_line, 0), int(per_pc[ins.pc]))
    return int(sum(len(ops) * by_line.get(line, 0) for line, ops in lines.items()))


def merge_decider(trace, lines: dict[int, list[str]]):
    """For :func:`gpusim.timing.vector_merge.find_merge_groups`: a group is merged when one of its members'
    PTX lines has a SASS shared access (``LDS``/``STS``) of the group's width, i.e. ptxas made that vector
    access of them."""
    def decide(group) -> bool:
        first = trace.instructions[group.pcs[0]]
        prefix = "STS" if first.is_store else "LDS"
        for pc in group.pcs:
            for op in lines.get(trace.instructions[pc].ptx_line, ()):
                if op.startswith(prefix) and vector_width_bytes(op) == group.width_bytes:
                    return True
        return False
    return decide
