"""What a timing simulation returns."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpusim.timing.warp_states import STALL_REASONS


@dataclass
class TimingResult:
    """Cycles, Nsight-named counters and warp-state breakdowns of one kernel on one GPU config.

    * ``counters``: Nsight Compute metric name -> value (core metrics, occupancy, memory system's metrics).
    * ``stalls``: warp state -> warp-cycles over the whole GPU (sums to the resident warp-cycles).
    * ``stalls_by_pc``: PC -> {state: warp-cycles} (states with zero cycles left out); a warp's cycles are
      charged to the instruction it was waiting to issue.
    * ``stalls_by_warp``: int64 [n_warps, n_states], columns in ``STALL_REASONS`` order.
    * ``per_sm``: numpy arrays indexed by SM: ``cycles_active``, ``inst_executed``, ``warp_cycles``
      (resident warp-cycles), ``blocks_executed``, ``stalls`` [n_sm, n_states], ``smsp_inst_executed``
      [n_sm, subpartitions].
    * ``warp_start_cycle`` / ``warp_end_cycle`` / ``warp_sm``: when each warp became resident, when it left
      (after draining its stores), and on which SM.
    * ``instruction_schedule``: the order the warps issued their rows in (the config's, ``"hoist"`` or
      ``"ptx"``: :func:`gpusim.timing.decode.schedule_rows`).
    * ``trace_rows``: how the trace came in (:mod:`gpusim.timing.feed`): ``chunks``, ``rows`` (warp
      instructions timed), ``peak_rows`` (the most rows held at once) and ``compactions`` (how often the rows
      no warp would issue again were dropped).
    * ``sampling``: None for a full simulation; for a sampled estimate (:mod:`gpusim.timing.sampling`) what
      was timed and the error bound; then ``per_sm``, ``stalls_by_warp`` and the warp arrays are the sampled
      machine's (its SMs, the timed blocks' warps renumbered).
    """

    kernel: str
    gpu: str
    scheduler: str
    cycles: int
    counters: dict[str, float]
    stalls: dict[str, int]
    stalls_by_pc: dict[int, dict[str, int]]
    stalls_by_warp: np.ndarray
    per_sm: dict[str, np.ndarray]
    occupancy: object
    regs_per_thread: int
    regs_source: str                 # "override", "trace" (from the compiler) or "estimate"
    memory_model: str
    clock_mhz: float
    warp_start_cycle: np.ndarray = field(repr=False, default=None)
    warp_end_cycle: np.ndarray = field(repr=False, default=None)
    warp_sm: np.ndarray = field(repr=False, default=None)
    instruction_schedule: str = "ptx"
    trace_rows: dict = field(default_factory=dict)   # chunks loaded, rows timed, most rows held at once
    sampling: object = None          # gpusim.timing.sampling.SampleInfo when the result is a sampled estimate
    sampling_declined: str | None = None   # why the automatic default timed a large launch in full after all
    _trace: object = field(repr=False, default=None)         # the trace as timed, when the model held it whole
    _passes: object = field(repr=False, default=None)        # recorded trace -> the trace as timed
    _trace_again: object = field(repr=False, default=None)   # () -> the recorded trace, for a streamed launch
    _time_replay: object = field(repr=False, default=None)   # a sample on a few SMs: the launch's records kept
                                                             # for a sample in time (sampling.KeptForTime)

    @property
    def trace(self):
        """The trace the timing model ran: after the ptxas-like passes (merged vector accesses,
        :mod:`gpusim.timing.vector_merge`).  A launch streamed to the model in chunks was never held whole:
        its trace is recorded again on first use (where the run says how: :func:`gpusim.run`), else None."""
        if self._trace is None and self._trace_again is not None:
            self._trace = self._passes(self._trace_again())
        return self._trace

    @property
    def ipc(self) -> float:
        """Warp instructions per cycle per active SM (``sm__inst_executed.avg.per_cycle_active``)."""
        return float(self.counters["sm__inst_executed.avg.per_cycle_active"])

    @property
    def time_us(self) -> float:
        return self.cycles / self.clock_mhz

    def top_stalls(self, n: int = 5, *, include_selected: bool = False) -> list[tuple[str, float]]:
        """The ``n`` largest warp states as (name, warp-cycles per issued instruction)."""
        inst = max(1, int(self.counters["smsp__inst_executed.sum"]))
        items = [(r, c / inst) for r, c in self.stalls.items() if c and (include_selected or r != "selected")]
        return sorted(items, key=lambda rc: -rc[1])[:n]

    def summary(self) -> str:
        c = self.counters
        occ = self.occupancy
        limiting = ", ".join(getattr(occ, "limiting", ()) or ()) or "-"
        lines = [
            f"{self.kernel} on {self.gpu} ({self.scheduler} scheduler, {self.memory_model} memory)",
            f"  cycles          {self.cycles:,} ({self.time_us:,.2f} us at {self.clock_mhz:g} MHz)",
            f"  instructions    {int(c['smsp__inst_executed.sum']):,} warp-instr, "
            f"{c['smsp__thread_inst_executed_per_inst_executed.ratio']:.1f} threads/instr",
            f"  IPC             {self.ipc:.2f} per SM, {c['smsp__inst_executed.avg.per_cycle_active']:.2f} "
            f"per SMSP (issue slots busy {c['smsp__issue_active.avg.pct_of_peak_sustained_active']:.0f}%)",
            f"  occupancy       achieved {c['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f}%, "
            f"theoretical {c['sm__maximum_warps_per_active_cycle_pct']:.1f}% "
            f"({getattr(occ, 'blocks_per_sm', '?')} blocks/SM, limited by {limiting}; "
            f"{self.regs_per_thread} regs/thread, {self.regs_source})",
            "  top stalls (warp-cycles per issued instruction):",
        ]
        for reason, ratio in self.top_stalls(5):
            lines.append(f"    {reason:<20s}{ratio:8.2f}")
        if self.sampling is not None:
            lines.insert(1, f"  {self.sampling.describe()}")
        elif self.sampling_declined:
            lines.insert(1, f"  full detail ({self.sampling_declined})")
        return "\n".join(lines)

    def stall_table(self) -> dict[str, float]:
        """Warp-cycles per issued instruction for every state (Nsight's ``..._per_issue_active.ratio``)."""
        inst = max(1, int(self.counters["smsp__inst_executed.sum"]))
        return {r: self.stalls[r] / inst for r in STALL_REASONS}
