"""Source counters: stall cycles and executions per PTX line and per CUDA line (Nsight's Source page).

The timing model charges every warp-cycle to the instruction the warp was waiting to issue
(``TimingResult.stalls_by_pc``); this module groups those per PTX line, or per CUDA line when the PTX
carries ``.loc`` information (:attr:`StaticInstr.src_line`), and adds executions and thread executions from
the trace.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpusim.functional.trace import popcount32
from gpusim.timing.warp_states import N_STALL_REASONS, STALL_REASONS


@dataclass
class SourceLine:
    """One row of the source view."""

    key: str                         # "L36" for a PTX line, "matmul_tiled.cu:53" for a CUDA line
    line: int
    file: str | None
    text: str                        # the PTX instruction(s) or the CUDA source text
    pcs: list[int]
    inst_executed: int               # warp instructions (smsp__inst_executed)
    thread_inst_executed: int
    stalls: np.ndarray = field(repr=False)   # warp-cycles per state, STALL_REASONS order

    @property
    def stall_cycles(self) -> int:
        """Warp-cycles charged to this line, ``selected`` included (Nsight's "Warp Stall Sampling (All)")."""
        return int(self.stalls.sum())

    def as_dict(self) -> dict:
        d = {"key": self.key, "line": self.line, "file": self.file, "text": self.text,
             "smsp__inst_executed.sum": self.inst_executed,
             "smsp__thread_inst_executed.sum": self.thread_inst_executed,
             "stall_cycles": self.stall_cycles}
        d.update({f"stall_{r}": int(self.stalls[i]) for i, r in enumerate(STALL_REASONS)})
        return d


def _pc_stalls(timing, n_pcs: int) -> np.ndarray:
    out = np.zeros((n_pcs, N_STALL_REASONS), dtype=np.int64)
    index = {r: i for i, r in enumerate(STALL_REASONS)}
    for pc, by in timing.stalls_by_pc.items():
        for r, c in by.items():
            out[pc, index[r]] = c
    return out


def _cuda_text(file: str | None, line: int, search: list[Path]) -> str:
    if not file:
        return ""
    for d in search:
        p = Path(file) if Path(file).is_absolute() else d / file
        try:
            lines = p.read_text(errors="replace").splitlines()
        except OSError:
            continue
        if 1 <= line <= len(lines):
            return lines[line - 1].strip()
    return ""


def source_table(trace, timing, *, by: str = "ptx", source_dirs=()) -> list[SourceLine]:
    """Rows per PTX line (``by="ptx"``) or per CUDA line (``by="cuda"``), in source order.

    For ``by="cuda"`` instructions without line info are grouped under the key ``"?"``; ``source_dirs``
    are searched for the CUDA file to show its text (the bundled ``programs/`` folder is always searched).
    """
    if by not in ("ptx", "cuda"):
        raise ValueError(f"by must be 'ptx' or 'cuda', not {by!r}")
    n = len(trace.instructions)
    stalls = _pc_stalls(timing, n)
    pcs = np.asarray(trace.pc, dtype=np.int64)
    execs = np.bincount(pcs, minlength=n)[:n]
    threads = np.bincount(pcs, weights=popcount32(trace.active_mask).astype(np.float64), minlength=n)[:n]
    search = [Path(d) for d in source_dirs]
    try:
        import programs
        search.append(Path(programs.__file__).parent)
    except ImportError:
        pass
    groups: dict = {}
    for ins in trace.instructions:
        if by == "ptx":
            key = (None, ins.ptx_line)
        else:
            key = (ins.src_file, ins.src_line if ins.src_line is not None else -1)
        groups.setdefault(key, []).append(ins)
    rows = []
    for (file, line), instrs in sorted(groups.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])):
        ids = [i.pc for i in instrs]
        if by == "ptx":
            key, text = f"L{line}", "; ".join(dict.fromkeys(i.opcode for i in instrs))
        elif line < 0:
            key, text = "?", "(no line info)"
        else:
            key, text = f"{Path(file).name if file else '?'}:{line}", _cuda_text(file, line, search)
        rows.append(SourceLine(key=key, line=int(line), file=file, text=text, pcs=ids,
                               inst_executed=int(execs[ids].sum()), thread_inst_executed=int(threads[ids].sum()),
                               stalls=stalls[ids].sum(axis=0)))
    return rows


def has_line_info(trace) -> bool:
    return any(i.src_line is not None for i in trace.instructions)
