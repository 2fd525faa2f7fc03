"""``gpusim.cupy.report()``: what the program's kernels cost on the simulated GPU.

A per-kernel table (launches, simulated cycles and time, share of the total, the largest stall reason over
its launches), the program's total simulated time (the sum of its kernels': the program clock), and what
was not simulated (host operations by kind, bytes copied).  The launches themselves, with every result the
simulator kept, are :func:`gpusim.cupy.launches`.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class KernelSummary:
    name: str
    launches: int
    cycles: int
    time_ms: float
    top_stall: str | None
    stalls: dict = field(default_factory=dict)


@dataclass
class ProgramReport:
    """What :func:`gpusim.cupy.report` returns (its text is ``str(report)``)."""

    mode: str
    gpu: str
    clock_mhz: float
    flush_caches: bool
    kernels: list
    launches: list
    total_cycles: int
    host_ops: dict
    transfer_bytes: dict

    @property
    def total_ms(self) -> float:
        return self.total_cycles / (self.clock_mhz * 1e3)

    @property
    def unsimulated_ops(self) -> int:
        return sum(self.host_ops.values())

    def kernel(self, name: str) -> KernelSummary:
        for k in self.kernels:
            if k.name == name or k.name.startswith(f"_Z{len(name)}{name}"):
                return k
        raise KeyError(f"no launches of kernel {name!r}; launched: {', '.join(k.name for k in self.kernels)}")

    def __str__(self) -> str:
        caches = "caches flushed before every launch (as ncu)" if self.flush_caches else "L2 kept across launches"
        lines = [f"gpusim.cupy: {len(self.launches)} launches on {self.gpu} ({self.clock_mhz:g} MHz), "
                 f"{self.mode} mode, {caches}"]
        if self.kernels:
            w = max(6, max(len(k.name) for k in self.kernels))
            timed = self.mode == "timing" or any(k.cycles for k in self.kernels)
            lines.append(f"  {'kernel':<{w}}  launches  {'cycles':>12}  {'time (us)':>10}  {'share':>6}  top stall")
            for k in self.kernels:
                if timed:
                    share = 100.0 * k.cycles / self.total_cycles if self.total_cycles else 0.0
                    lines.append(f"  {k.name:<{w}}  {k.launches:>8}  {k.cycles:>12,}  {k.time_ms * 1e3:>10.2f}  "
                                 f"{share:>5.1f}%  {k.top_stall or '-'}")
                else:
                    lines.append(f"  {k.name:<{w}}  {k.launches:>8}  {'-':>12}  {'-':>10}  {'-':>6}  -")
        lines.append(f"  total simulated time: {self.total_ms * 1e3:.2f} us ({self.total_cycles:,} cycles)"
                     + ("" if self.mode == "timing" else " (emulate mode: kernels are not timed)"))
        ops = ", ".join(f"{k} {v}" for k, v in sorted(self.host_ops.items(), key=lambda kv: -kv[1]))
        lines.append(f"  not simulated (numpy on the host, no simulated time): {self.unsimulated_ops} array "
                     f"operations{' (' + ops + ')' if ops else ''}")
        if self.transfer_bytes:
            lines.append("  copies (not simulated): " + ", ".join(
                f"{k} {v:,} B" for k, v in sorted(self.transfer_bytes.items())))
        checked = [r.sanitizer for r in self.launches if r.sanitizer is not None]
        if checked:
            bad = [c for c in checked if not c.ok]
            n_err = sum(1 for c in checked for f in c.problems if f.severity == "error")
            n_warn = sum(len(c.problems) for c in checked) - n_err
            lines.append(f"  sanitizer ({', '.join(checked[-1].tools)}): {len(checked)} launches checked, "
                         f"{len(bad)} reported something ({n_err} error{'s' if n_err != 1 else ''}, "
                         f"{n_warn} warning{'s' if n_warn != 1 else ''}; each launch's "
                         f"report: gpusim.cupy.launches()[i].sanitizer)")
        return "\n".join(lines)


def build_report(sess) -> ProgramReport:
    order: dict[str, KernelSummary] = {}
    for rec in sess.launches:
        k = order.get(rec.kernel)
        if k is None:
            k = order[rec.kernel] = KernelSummary(rec.kernel, 0, 0, 0.0, None)
        k.launches += 1
        if rec.timing is not None:
            k.cycles += int(rec.timing.cycles)
            k.time_ms += rec.timing.cycles / (rec.timing.clock_mhz * 1e3)
            for r, c in rec.timing.stalls.items():
                k.stalls[r] = k.stalls.get(r, 0) + int(c)
    for k in order.values():
        waits = {r: c for r, c in k.stalls.items() if c and r != "selected"}
        k.top_stall = max(waits, key=waits.get) if waits else None
    return ProgramReport(mode=sess.mode, gpu=sess.gpu.name, clock_mhz=sess.clock_mhz, flush_caches=sess.flush_caches,
                         kernels=list(order.values()), launches=list(sess.launches),
                         total_cycles=int(sess.clock_cycles), host_ops=dict(sess.host_ops),
                         transfer_bytes=dict(sess.transfer_bytes))
