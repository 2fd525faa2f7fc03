"""Source counters: stall cycles and executions per PTX line and per CUDA line (Nsight's Source page).

The timing model charges every warp-cycle to the instruction the warp was waiting to issue
(``TimingResult.stalls_by_pc``, as Nsight's stall sampling does).  For the source view
:func:`attributed_stalls` charges each cycle to the instruction that *waited*, which differs in two cases:

* a warp waits at a barrier, for a branch to resolve or at a memory barrier *after* issuing that
  instruction, while its next instruction is already the one after it: those states (``barrier``,
  ``branch_resolving``, ``membar``) go to the ``bar.sync``, branch or ``membar`` that caused them (when
  several precede the same instruction, in proportion to how often each did);
* ``ld.param`` does not exist in the machine code: ptxas folds a kernel parameter into the instructions
  that use it (a ``c[0x0][...]`` operand), so the cycles a warp waits to issue an ``ld.param`` go to the
  first instruction that reads its result, not to the kernel's signature line where ``.loc`` puts the
  parameter loads.

This module groups the cycles per PTX line, or per CUDA line when the PTX carries ``.loc`` information
(:attr:`StaticInstr.src_line`), and adds executions and thread executions from the trace.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpusim.functional.trace import popcount32
from gpusim.timing.warp_states import N_STALL_REASONS, STALL_REASONS, StallReason


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


def pc_stalls(timing, n_pcs: int) -> np.ndarray:
    """``timing.stalls_by_pc`` as int64 [n_pcs, n_states] (the model's charge: the next instruction)."""
    out = np.zeros((n_pcs, N_STALL_REASONS), dtype=np.int64)
    index = {r: i for i, r in enumerate(STALL_REASONS)}
    for pc, by in timing.stalls_by_pc.items():
        for r, c in by.items():
            out[pc, index[r]] = c
    return out


# States a warp enters right after issuing an instruction of this kind, charged to that instruction.
_AFTER = ((StallReason.BARRIER, "is_barrier"), (StallReason.BRANCH_RESOLVING, "is_branch"),
          (StallReason.MEMBAR, "is_membar"))


def attributed_stalls(trace, timing) -> np.ndarray:
    """Warp-cycles per PC and state, charged to the instruction that waited (see the module docstring):
    int64 [n_pcs, n_states], the same total per state as ``timing.stalls``."""
    from gpusim.timing.decode import schedule_rows
    instrs = trace.instructions
    n = len(instrs)
    out = pc_stalls(timing, n)
    if n == 0 or trace.n_instructions == 0:
        return out
    # the rows as issued: the trace as timed (after the ptxas-like passes, which drop, merge and add PCs), its
    # PCs mapped back to the recorded ones the stalls are charged to
    timed = getattr(timing, "trace", None)
    origin = timed.meta.get("origin_pc") if timed is not None else None
    if origin:
        pcs, _ = schedule_rows(timed, getattr(timing, "instruction_schedule", "ptx"))
        pcs = np.asarray(origin, dtype=np.int64)[pcs]
        starts = np.asarray(timed.warp_start, dtype=np.int64)
    else:
        pcs, _ = schedule_rows(trace, getattr(timing, "instruction_schedule", "ptx"))
        starts = np.asarray(trace.warp_start, dtype=np.int64)
    last_row = np.zeros(pcs.size, dtype=bool)
    last_row[starts[1:][starts[1:] > 0] - 1] = True
    prev, nxt = pcs[:-1][~last_row[:-1]], pcs[1:][~last_row[:-1]]
    for state, flag in _AFTER:
        kind = np.array([getattr(i, flag) for i in instrs], dtype=bool)
        sel = kind[prev]
        if not sel.any():
            continue
        # how often each (cause, next) pair occurred: the next PC's cycles are split over its causes
        key, count = np.unique(prev[sel] * n + nxt[sel], return_counts=True)
        cause, after = key // n, key % n
        per_next = np.bincount(after, weights=count, minlength=n)
        cyc = out[:, state].astype(np.float64)
        share = cyc[after] * count / per_next[after]
        new = np.where(per_next > 0, 0.0, cyc) + np.bincount(cause, weights=share, minlength=n)
        new = np.floor(new + 1e-9).astype(np.int64)
        new[int(np.argmax(new))] += int(out[:, state].sum()) - int(new.sum())    # rounding: the total stays
        out[:, state] = new
    return _param_loads_to_users(instrs, out)


def _param_loads_to_users(instrs, stalls: np.ndarray) -> np.ndarray:
    """Move the cycles of each ``ld.param`` to the first later instruction that reads its result."""
    for ins in instrs:
        if ins.mem_space != "param" or not ins.is_load or not ins.dst_regs:
            continue
        user = next((j for j in instrs[ins.pc + 1:] if set(j.src_regs) & set(ins.dst_regs)), None)
        if user is not None:
            stalls[user.pc] += stalls[ins.pc]
            stalls[ins.pc] = 0
    return stalls


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
    stalls = attributed_stalls(trace, timing)
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
