"""What the checker found, and how it is printed.

A :class:`Finding` is one problem at one place: a tool (``racecheck``, ``initcheck``, ``synccheck``,
``memcheck``), a kind (``RAW hazard``, ``uninitialised read``, ``divergent barrier``, ``out-of-bounds
access``, ...), its severity, the accesses or instructions involved (each an :class:`Access` with its
:class:`isa.location.SourceLocation`, so that it names ``file.cu:LINE`` and shows the source line), how many
times it happened, and one example (threads, blocks, address).  Findings are kept once per (tool, kind,
scope, severity, lines): a race between lines 20 and 21 seen in 500 pairs of threads is one finding counted 500 times.

A :class:`CheckReport` is the checker's answer for one launch: the findings grouped by tool and counted like
compute-sanitizer's summaries, whether the launch completed, and (under a non-default warp schedule) whether
its outputs differed from the default order's.  ``report.format()`` is the text ``gpusim check`` prints;
``report.to_json()`` the same as data.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from isa.location import SourceLocation

TOOLS = ("racecheck", "initcheck", "synccheck", "memcheck")
SEVERITIES = ("error", "warning", "info")     # info: no effect on the result (a write of the value there)


@dataclass(frozen=True)
class Access:
    """One side of a finding: what an instruction did (``read``, ``write``, ``atomic``, ``barrier``, ...),
    where it is, and the example thread (block and thread as CUDA's ``(x, y, z)``)."""

    what: str
    pc: int
    location: SourceLocation
    block: tuple[int, int, int] | None = None
    thread: tuple[int, int, int] | None = None

    @property
    def line(self) -> int:
        """The CUDA line when known, else the PTX line (what findings are keyed by)."""
        return self.location.cuda_line if self.location.has_cuda else self.location.ptx_line

    def describe(self) -> str:
        who = ""
        if self.thread is not None:
            who = f" by thread {_xyz(self.thread)}" + (f" of block {_xyz(self.block)}" if self.block else "")
        return f"{self.what}{who} at {self.location}"


@dataclass
class Finding:
    """One problem, counted over every thread that had it (see the module docstring)."""

    tool: str
    kind: str
    severity: str
    message: str                       # one line: what, where in memory, why it is a problem
    accesses: list[Access]
    count: int = 1
    space: str | None = None           # shared / global / local / constant / param, where it applies
    scope: str | None = None           # races: warp / block / grid
    details: list[str] = field(default_factory=list)

    @property
    def lines(self) -> tuple[int, ...]:
        """The source lines of the accesses, sorted (a race between one line and itself: one line)."""
        return tuple(sorted({a.line for a in self.accesses}))

    @property
    def key(self) -> tuple:
        return self.tool, self.kind, self.scope, self.severity, self.lines

    @property
    def title(self) -> str:
        scope = {"warp": " between lanes of one warp", "block": " between warps of a block",
                 "grid": " between blocks"}.get(self.scope or "", "")
        space = f" in {self.space} memory" if self.space else ""
        return f"{self.kind}{scope}{space}"

    def format(self) -> list[str]:
        plural = "s" if self.count != 1 else ""
        out = [f"{self.tool} {self.severity}: {self.title} ({self.count:,} time{plural})"]
        for a in self.accesses:
            out.append(f"    {a.describe()}")
            loc = a.location
            if loc.has_cuda and loc.cuda_text is not None:
                out.append(f"      {loc.cuda_line:>5} | {loc.cuda_text}")
            out.append(f"        PTX {loc.ptx}" + (f": {loc.ptx_text}" if loc.ptx_text else ""))
        out.append(f"    {self.message}")
        out.extend(f"    {d}" for d in self.details)
        return out

    def to_json(self) -> dict:
        return {"tool": self.tool, "kind": self.kind, "severity": self.severity, "scope": self.scope,
                "space": self.space, "count": self.count, "lines": list(self.lines), "message": self.message,
                "details": list(self.details),
                "accesses": [{"what": a.what, "pc": a.pc, "location": str(a.location), "line": a.line,
                              "ptx": a.location.ptx, "block": a.block, "thread": a.thread}
                             for a in self.accesses]}


@dataclass
class CheckReport:
    """The checker's findings for one launch (see the module docstring)."""

    kernel: str
    source: str
    tools: tuple[str, ...]
    schedule: str
    findings: list[Finding] = field(default_factory=list)
    completed: bool = True             # False: the launch stopped (a deadlock, or a fault a tool left on)
    stopped: str | None = None         # why it stopped
    outputs_changed: list[str] | None = None   # under a non-default schedule: the outputs that differ
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None

    @property
    def ok(self) -> bool:
        """No error or warning, the launch completed, and the outputs did not depend on the schedule."""
        return not self.problems and self.completed and not self.outputs_changed

    @property
    def problems(self) -> list[Finding]:
        """The findings of severity error or warning (``info`` ones change nothing)."""
        return [f for f in self.findings if f.severity != "info"]

    @property
    def errors(self) -> int:
        return sum(f.count for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(f.count for f in self.findings if f.severity == "warning")

    def by_tool(self, tool: str, info: bool = True) -> list[Finding]:
        return [f for f in self.findings if f.tool == tool and (info or f.severity != "info")]

    def lines(self, tool: str | None = None, kind: str | None = None) -> set[int]:
        """Every source line the findings (of a tool, of a kind) name."""
        return {ln for f in self.findings if (tool is None or f.tool == tool) and (kind is None or f.kind == kind)
                for ln in f.lines}

    def summary(self) -> list[str]:
        """compute-sanitizer's way of counting: per tool the distinct findings and their occurrences, then
        one ERROR SUMMARY line."""
        out = []
        for tool in self.tools:
            fs = self.by_tool(tool, info=False)
            n_err = sum(1 for f in fs if f.severity == "error")
            n_warn = len(fs) - n_err
            occ = sum(f.count for f in fs)
            n_info = len(self.by_tool(tool)) - len(fs)
            out.append(f"{tool.upper()} SUMMARY: {len(fs)} finding{'s' if len(fs) != 1 else ''} "
                       f"({n_err} error{'s' if n_err != 1 else ''}, {n_warn} warning{'s' if n_warn != 1 else ''}),"
                       f" {occ:,} occurrence{'s' if occ != 1 else ''}"
                       + (f"; {n_info} info (writes of the value already there)" if n_info else ""))
        n_err = sum(1 for f in self.problems if f.severity == "error")
        n_warn = len(self.problems) - n_err
        out.append(f"ERROR SUMMARY: {n_err} error{'s' if n_err != 1 else ''}, "
                   f"{n_warn} warning{'s' if n_warn != 1 else ''}")
        return out

    def format(self, info: bool = False) -> str:
        """The report as ``gpusim check`` prints it; ``info=True`` also prints the info findings."""
        where = f"  grid {self.grid}  block {self.block}" if self.grid else ""
        lines = [f"gpusim check: kernel {self.kernel} ({self.source}){where}",
                 f"  tools: {', '.join(self.tools)};  warp schedule: {self.schedule}", ""]
        for tool in self.tools:
            for f in self.by_tool(tool, info):
                lines.extend(f.format())
                lines.append("")
        if not self.completed:
            lines.append(f"the launch did not complete: {self.stopped}")
            lines.append("")
        if self.outputs_changed is not None:
            if self.outputs_changed:
                lines.append(f"outputs changed under the {self.schedule} schedule (against the lockstep order):")
                lines.extend(f"  {o}" for o in self.outputs_changed)
                lines.append("  the result depends on the order in which warps or blocks run")
            else:
                lines.append(f"outputs: the same under the {self.schedule} schedule as in the lockstep order")
            lines.append("")
        lines.extend(self.summary())
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "source": self.source, "tools": list(self.tools), "schedule": self.schedule,
                "grid": self.grid, "block": self.block, "completed": self.completed, "stopped": self.stopped,
                "outputs_changed": self.outputs_changed, "errors": self.errors, "warnings": self.warnings,
                "findings": [f.to_json() for f in self.findings]}


def merge(findings: list[Finding]) -> list[Finding]:
    """One finding per (tool, kind, scope, severity, lines): counts added, the first example kept."""
    out: dict[tuple, Finding] = {}
    for f in findings:
        have = out.get(f.key)
        if have is None:
            out[f.key] = f
        else:
            have.count += f.count
    return sorted(out.values(), key=lambda f: (TOOLS.index(f.tool), SEVERITIES.index(f.severity), f.lines,
                                               f.kind, f.scope or ""))


def _xyz(t) -> str:
    return "(" + ",".join(str(int(v)) for v in t) + ")"
