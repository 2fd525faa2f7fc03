"""Timelines: what happened when, per SM and sub-partition, from the timing model's observer events.

A :class:`TimelineCollector` is a :class:`gpusim.timing.hooks.TimingObserver` that only *buffers*: each
event (a small named tuple) is appended to a plain list (the SimPy guide's advice: buffer monitoring data,
process it in chunks), and every ``CHUNK`` events the list is packed into an int64 array. Nothing is binned
during the simulation. :meth:`TimelineCollector.finish` turns the buffers into a :class:`Timeline`:

* ``intervals``: every warp's merged state runs (warp, start, end, state, pc), exact: summed per warp and
  state they equal ``TimingResult.stalls_by_warp``;
* event streams: ``shared`` (cycle, sm, warp, pc, ptx_line, wavefronts, ideal, ready), ``global_`` (cycle,
  sm, warp, pc, ptx_line, sectors, ready), ``dram`` (cycle in SM clocks, channel, bank, command, row
  outcome as the DRAM channel decided it);
* time-binned series (bin width ``bin_cycles``, chosen automatically so that a kernel has about
  ``TARGET_BINS`` bins, or set with :meth:`Timeline.rebin`): warps in each state per SM and per
  sub-partition, instructions issued, active warps, resident blocks, shared wavefronts and conflicts, DRAM
  bytes and commands.

Binned series of warp states are *average warps in that state over the bin* (warp-cycles / bin width), so
a stacked plot reads as "how many warps were doing what"; the last bin may be shorter than the others and
is averaged over its own length.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from gpusim.config import load_gpu
from gpusim.memory.dram import DRAM_COMMANDS, Command
from gpusim.timing.hooks import TimingObserver, combine_observers
from gpusim.timing.warp_states import N_STALL_REASONS, STALL_REASONS, StallReason

TARGET_BINS = 200
# Events are named tuples, which the garbage collector tracks as long as they live (it untracks only plain
# tuples of atoms), so buffers are packed into arrays often: few events are ever alive at once.
CHUNK = 1 << 10
SELECTED = int(StallReason.SELECTED)
NOT_SELECTED = int(StallReason.NOT_SELECTED)


def auto_bin_cycles(cycles: int, target_bins: int = TARGET_BINS) -> int:
    """A round bin width (1, 2 or 5 x 10^k cycles) giving at most about ``target_bins`` bins."""
    raw = max(1.0, cycles / max(1, target_bins))
    k = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * k >= raw:
            return int(m * k)
    return int(10 * k)


class _Buffer:
    """Tuples appended to a list, packed into int64 arrays of CHUNK rows."""

    __slots__ = ("width", "rows", "chunks")

    def __init__(self, width: int) -> None:
        self.width = width
        self.rows: list = []
        self.chunks: list[np.ndarray] = []

    def add(self, row) -> None:
        rows = self.rows
        rows.append(row)
        if len(rows) >= CHUNK:
            self.pack()

    def pack(self) -> None:
        if self.rows:
            flat = np.fromiter(itertools.chain.from_iterable(self.rows), dtype=np.int64,
                               count=len(self.rows) * self.width)
            self.chunks.append(flat.reshape(-1, self.width))
            self.rows.clear()

    def array(self) -> np.ndarray:
        self.pack()
        if not self.chunks:
            return np.zeros((0, self.width), dtype=np.int64)
        return np.concatenate(self.chunks) if len(self.chunks) > 1 else self.chunks[0]


class TimelineCollector(TimingObserver):
    """An observer that records warp states, issues and memory events (see the module docstring).

    Use through ``gpusim.run(..., timeline=True)`` or directly::

        col = TimelineCollector()
        res = simulate(trace, "h100", observer=col)
        tl = col.finish(trace, res, "h100")
    """

    def __init__(self) -> None:
        self._issues = _Buffer(5)        # WarpIssue
        self._states = _Buffer(5)        # WarpStateChange
        self._shared = _Buffer(7)        # SharedAccess
        self._global = _Buffer(6)        # GlobalAccess
        self._dram = _Buffer(5)          # DramCommand
        self._issue_rows = self._issues.rows
        # The most frequent events are kept as they come, with no Python frame: a list's own append.
        self.on_warp_state = self._states.rows.append
        self.on_shared_access = self._shared.add
        self.on_global_access = self._global.add
        self.on_dram_command = self._dram.add

    # -- the events (hot path: one tuple append) --------------------------------------------------------
    def on_issue(self, e) -> None:
        rows = self._issue_rows
        rows.append(e)
        if len(rows) >= CHUNK:           # a warp changes state a few times per issue: pack both
            self._issues.pack()
            self._states.pack()

    # -- after the simulation ---------------------------------------------------------------------------
    def finish(self, trace, timing, gpu, *, bin_cycles: int | None = None) -> "Timeline":
        """Build the :class:`Timeline` of ``trace`` simulated as ``timing`` (a TimingResult) on ``gpu``."""
        return build_timeline(trace, timing, load_gpu(gpu), self._issues.array(), self._states.array(),
                              self._shared.array(), self._global.array(), self._dram.array(), bin_cycles=bin_cycles)


def _merge_runs(warp, start, end, state, pc):
    """Drop empty intervals and merge consecutive runs of one warp in one state."""
    keep = end > start
    warp, start, end, state, pc = warp[keep], start[keep], end[keep], state[keep], pc[keep]
    if warp.size == 0:
        return warp, start, end, state, pc
    new = np.ones(warp.size, dtype=bool)
    new[1:] = (warp[1:] != warp[:-1]) | (state[1:] != state[:-1]) | (start[1:] != end[:-1])
    idx = np.flatnonzero(new)
    last = np.append(idx[1:], warp.size) - 1
    return warp[idx], start[idx], end[last], state[idx], pc[idx]


def _bin_intervals(group, start, end, weight, n_groups, bin_cycles, n_bins, total_cycles):
    """Sum over intervals of ``weight`` x overlap([start, end), bin), per group: float [n_groups, n_bins].

    Uses H(t) = overlap of [0, t) with each bin (w for bins below t // w, t % w for bin t // w): the overlap
    of [a, b) is H(b) - H(a), and H is built with a difference array plus one partial entry per interval.
    """
    out = np.zeros((n_groups, n_bins + 1), dtype=np.float64)
    diff = np.zeros((n_groups, n_bins + 2), dtype=np.float64)
    for t, sign in ((end, 1.0), (start, -1.0)):
        q = np.minimum(t // bin_cycles, n_bins)
        r = t - q * bin_cycles
        np.add.at(diff, (group, 0), sign * weight * bin_cycles)
        np.add.at(diff, (group, q), -sign * weight * bin_cycles)
        np.add.at(out, (group, q), sign * weight * r)
    full = np.cumsum(diff, axis=1)[:, :n_bins + 1]
    return (full + out)[:, :n_bins]


@dataclass
class Timeline:
    """Warp-state intervals, memory event streams and binned series of one simulated kernel.

    Arrays (all numpy):

    * ``intervals``: dict of ``warp``, ``start``, ``end``, ``state``, ``pc`` (merged runs, cycles);
    * ``issues``: dict of ``cycle``, ``sm``, ``smsp``, ``warp``, ``pc``;
    * ``shared``: ``cycle``, ``sm``, ``warp``, ``pc``, ``ptx_line``, ``ways`` (wavefronts), ``ideal``
      (wavefronts without conflicts), ``conflicts`` (= ways - ideal), ``ready`` (cycle the result is ready);
    * ``global_``: ``cycle``, ``sm``, ``warp``, ``pc``, ``ptx_line``, ``sectors``, ``ready``;
    * ``dram``: ``cycle`` (SM clocks), ``ck`` (DRAM clocks), ``channel``, ``bank``, ``command``
      (:class:`gpusim.memory.dram.Command`, an index in ``DRAM_COMMANDS``), ``outcome``
      (:class:`gpusim.memory.dram.RowOutcome`: hit, miss or conflict of the access the command serves);
    * binned (``bin_cycles`` wide, ``n_bins`` bins, ``bin_start`` cycles): ``states_sm`` [sm, state, bin]
      and ``states_smsp`` [sm, smsp, state, bin] (average warps), ``issued`` [sm, smsp, bin]
      (instructions), ``active_warps`` [sm, bin] and ``resident_blocks`` [sm, bin] (averages),
      ``shared_wavefronts`` / ``shared_conflicts`` [sm, bin], ``dram_bytes`` [channel, bin],
      ``dram_commands`` [channel, command, bin].
    """

    kernel: str
    gpu: str
    cycles: int
    n_sm: int
    n_smsp: int
    max_warps_per_sm: int
    theoretical_warps_per_sm: int
    blocks_per_sm: int
    clock_mhz: float
    dram_channels: int
    dram_banks: int
    dram_burst_bytes: int
    dram_peak_bytes_per_cycle: float
    intervals: dict
    issues: dict
    shared: dict
    global_: dict
    dram: dict
    warp_sm: np.ndarray
    warp_smsp: np.ndarray
    warp_block: np.ndarray
    warp_start: np.ndarray
    warp_end: np.ndarray
    bin_cycles: int = 0
    _binned: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.bin_cycles:
            self.bin_cycles = auto_bin_cycles(self.cycles)

    # -- bins --------------------------------------------------------------------------------------------
    @property
    def n_bins(self) -> int:
        return max(1, -(-self.cycles // self.bin_cycles))

    @property
    def bin_start(self) -> np.ndarray:
        return np.arange(self.n_bins, dtype=np.int64) * self.bin_cycles

    @property
    def bin_width(self) -> np.ndarray:
        """Length of each bin in cycles (the last one may be shorter)."""
        return np.minimum(self.bin_start + self.bin_cycles, max(self.cycles, 1)) - self.bin_start

    def rebin(self, bin_cycles: int) -> "Timeline":
        """The same timeline with another bin width (the event streams are shared, not copied)."""
        if bin_cycles < 1:
            raise ValueError("bin_cycles must be >= 1")
        d = {f: getattr(self, f) for f in self.__dataclass_fields__ if f not in ("bin_cycles", "_binned")}
        return Timeline(**d, bin_cycles=int(bin_cycles))

    def _series(self, name: str) -> np.ndarray:
        if name not in self._binned:
            self._binned.update(self._compute_bins(name))
        return self._binned[name]

    def _compute_bins(self, name: str) -> dict:
        w, nb, n_sm, n_sub = self.bin_cycles, self.n_bins, self.n_sm, self.n_smsp
        width = self.bin_width.astype(np.float64)
        iv = self.intervals
        if name in ("states_sm", "states_smsp"):
            wsub = self.warp_smsp[iv["warp"]]
            wsm = self.warp_sm[iv["warp"]]
            group = (wsm * n_sub + wsub) * N_STALL_REASONS + iv["state"]
            b = _bin_intervals(group, iv["start"], iv["end"], np.ones(group.size), n_sm * n_sub * N_STALL_REASONS,
                               w, nb, self.cycles) / width
            smsp = b.reshape(n_sm, n_sub, N_STALL_REASONS, nb)
            return {"states_smsp": smsp, "states_sm": smsp.sum(axis=1)}
        if name == "issued":
            iss = self.issues
            out = np.zeros((n_sm * n_sub, nb), dtype=np.int64)
            np.add.at(out, (iss["sm"] * n_sub + iss["smsp"], np.minimum(iss["cycle"] // w, nb - 1)), 1)
            return {"issued": out.reshape(n_sm, n_sub, nb)}
        if name == "active_warps":
            ok = self.warp_start >= 0
            b = _bin_intervals(self.warp_sm[ok], self.warp_start[ok], self.warp_end[ok], np.ones(int(ok.sum())),
                               n_sm, w, nb, self.cycles)
            return {"active_warps": b / width}
        if name == "resident_blocks":
            _, bstart, bend, bsm = self.block_spans()
            b = _bin_intervals(bsm, bstart, bend, np.ones(bsm.size), n_sm, w, nb, self.cycles)
            return {"resident_blocks": b / width}
        if name in ("shared_wavefronts", "shared_conflicts"):
            s = self.shared
            wf = np.zeros((n_sm, nb), dtype=np.int64)
            cf = np.zeros((n_sm, nb), dtype=np.int64)
            q = np.minimum(s["cycle"] // w, nb - 1)
            np.add.at(wf, (s["sm"], q), s["ways"])
            np.add.at(cf, (s["sm"], q), s["conflicts"])
            return {"shared_wavefronts": wf, "shared_conflicts": cf}
        if name in ("dram_bytes", "dram_commands"):
            d = self.dram
            q = np.clip(d["cycle"] // w, 0, nb - 1)
            cmds = np.zeros((self.dram_channels, len(DRAM_COMMANDS), nb), dtype=np.int64)
            np.add.at(cmds, (d["channel"], d["command"], q), 1)
            rw = cmds[:, Command.RD] + cmds[:, Command.WR]
            return {"dram_commands": cmds, "dram_bytes": rw * self.dram_burst_bytes}
        raise KeyError(name)

    # -- the binned series ------------------------------------------------------------------------------
    states_sm = property(lambda self: self._series("states_sm"))
    states_smsp = property(lambda self: self._series("states_smsp"))
    issued = property(lambda self: self._series("issued"))
    active_warps = property(lambda self: self._series("active_warps"))
    resident_blocks = property(lambda self: self._series("resident_blocks"))
    shared_wavefronts = property(lambda self: self._series("shared_wavefronts"))
    shared_conflicts = property(lambda self: self._series("shared_conflicts"))
    dram_bytes = property(lambda self: self._series("dram_bytes"))
    dram_commands = property(lambda self: self._series("dram_commands"))

    def block_spans(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(block, first warp resident, last warp gone, SM) of every block that ran: int64 arrays."""
        ok = self.warp_start >= 0
        nblk = int(self.warp_block.max()) + 1 if self.warp_block.size else 0
        bstart = np.full(nblk, np.iinfo(np.int64).max)
        bend = np.full(nblk, -1)
        bsm = np.zeros(nblk, dtype=np.int64)
        np.minimum.at(bstart, self.warp_block[ok], self.warp_start[ok])
        np.maximum.at(bend, self.warp_block[ok], self.warp_end[ok])
        bsm[self.warp_block[ok]] = self.warp_sm[ok]
        has = np.flatnonzero(bend >= 0)
        return has, bstart[has], bend[has], bsm[has]

    @property
    def launch_cycles(self) -> int:
        """Cycles from the launch until the first warp became resident (the kernel launch and the first
        block's dispatch): no figure has anything to show before it."""
        ok = self.warp_start >= 0
        return int(self.warp_start[ok].min()) if ok.any() else int(self.cycles)

    def stall_series(self, sm: int | None = None) -> dict[str, np.ndarray]:
        """State name -> average warps in that state per bin, over the GPU (``sm=None``) or one SM."""
        a = self.states_sm.sum(axis=0) if sm is None else self.states_sm[sm]
        return {r: a[i] for i, r in enumerate(STALL_REASONS)}

    def dram_bandwidth(self) -> np.ndarray:
        """Achieved DRAM bandwidth per bin in bytes per SM cycle (all channels)."""
        return self.dram_bytes.sum(axis=0) / self.bin_width

    def warp_state_cycles(self) -> np.ndarray:
        """Warp-cycles per warp and state from the intervals: int64 [n_warps, n_states]."""
        iv = self.intervals
        out = np.zeros((self.warp_sm.size, N_STALL_REASONS), dtype=np.int64)
        np.add.at(out, (iv["warp"], iv["state"]), iv["end"] - iv["start"])
        return out

    def summary(self) -> str:
        return (f"timeline of {self.kernel} on {self.gpu}: {self.cycles:,} cycles in {self.n_bins} bins of "
                f"{self.bin_cycles:,}; {self.intervals['warp'].size:,} warp-state runs, "
                f"{self.issues['cycle'].size:,} issues, {self.shared['cycle'].size:,} shared accesses, "
                f"{self.global_['cycle'].size:,} global requests, {self.dram['cycle'].size:,} DRAM commands")


def _recorded_pcs(events: np.ndarray, col: int, origin: np.ndarray) -> np.ndarray:
    """``events`` with column ``col`` (timed PCs; negative: none) mapped through ``origin``."""
    if not len(events):
        return events
    out = np.array(events, dtype=np.int64, copy=True)
    pc = out[:, col]
    ok = pc >= 0
    pc[ok] = origin[pc[ok]]
    return out


def build_timeline(trace, timing, gpu, iss: np.ndarray, states: np.ndarray, shared_ev: np.ndarray,
                   global_ev: np.ndarray, dram_ev: np.ndarray, *, bin_cycles=None) -> Timeline:
    """Turn the collector's raw arrays into a :class:`Timeline` (see :meth:`TimelineCollector.finish`).  The
    events name PCs of the trace as timed (after the ptxas-like passes); they are kept as PCs of ``trace``,
    as recorded (``meta["origin_pc"]`` of the timed trace), which ``trace.instructions`` and the source view
    index."""
    timed = getattr(timing, "trace", None)
    origin = timed.meta.get("origin_pc") if timed is not None and timed is not trace else None
    if origin:
        o = np.asarray(origin, dtype=np.int64)
        iss, states, shared_ev, global_ev = (_recorded_pcs(a, col, o) for a, col in
                                             ((iss, 4), (states, 3), (shared_ev, 3), (global_ev, 3)))
    n_warps = trace.n_warps
    n_sub = int(gpu.sm.subpartitions)
    start = np.asarray(timing.warp_start_cycle, dtype=np.int64)
    end = np.asarray(timing.warp_end_cycle, dtype=np.int64)
    warp_sm = np.asarray(timing.warp_sm, dtype=np.int64)

    # warp-state change points: the start of each warp (a NOT_SELECTED placeholder), state changes, issues.
    # Per warp they are in cycle order; at one cycle the placeholder comes first, then state changes in the
    # order they came, then the issue (a warp issues at most once per cycle, and only after its state
    # changes of that cycle).
    warp_smsp = np.zeros(n_warps, dtype=np.int64)
    warp_smsp[iss[:, 3]] = iss[:, 2]
    ok = np.flatnonzero(start >= 0)
    first_row = np.asarray(trace.warp_start[:-1], dtype=np.int64)
    first_pc = np.asarray(trace.pc, dtype=np.int64)[np.minimum(first_row, max(trace.n_instructions - 1, 0))] \
        if trace.n_instructions else np.zeros(n_warps, dtype=np.int64)
    st_cycle = np.concatenate([start[ok], states[:, 0], iss[:, 0]])
    st_warp = np.concatenate([ok, states[:, 2], iss[:, 3]])
    st_pc = np.concatenate([first_pc[ok], states[:, 3], iss[:, 4]])
    st_state = np.concatenate([np.full(ok.size, NOT_SELECTED), states[:, 4], np.full(len(iss), SELECTED)])
    kind = np.repeat(np.arange(3), [ok.size, len(states), len(iss)])
    span = int(st_cycle.max()) + 1 if st_cycle.size else 1
    if (n_warps + 1) * span * 3 < 1 << 62:
        order = np.argsort((st_warp * span + st_cycle) * 3 + kind, kind="stable")   # equal keys keep their order
    else:
        order = np.lexsort((kind, st_cycle, st_warp))
    st_cycle, st_warp, st_pc, st_state = st_cycle[order], st_warp[order], st_pc[order], st_state[order]
    nxt = np.empty_like(st_cycle)
    if st_cycle.size:
        nxt[:-1] = st_cycle[1:]
        last = np.ones(st_cycle.size, dtype=bool)
        last[:-1] = st_warp[1:] != st_warp[:-1]
        nxt[last] = end[st_warp[last]]
    w, s, e, stt, pc = _merge_runs(st_warp, st_cycle, nxt, st_state, st_pc)
    intervals = {"warp": w, "start": s, "end": e, "state": stt, "pc": pc}
    issues = {"cycle": iss[:, 0], "sm": iss[:, 1], "smsp": iss[:, 2], "warp": iss[:, 3], "pc": iss[:, 4]}

    # memory events, as the LSU and the DRAM channels reported them
    ptx_line = np.array([i.ptx_line for i in trace.instructions] or [0], dtype=np.int64)

    def stream(ev):
        return {"cycle": ev[:, 0], "sm": ev[:, 1], "warp": ev[:, 2], "pc": ev[:, 3], "ptx_line": ptx_line[ev[:, 3]]}

    shared = stream(shared_ev)
    shared.update(ways=shared_ev[:, 4], ideal=shared_ev[:, 5], ready=shared_ev[:, 6])
    shared["conflicts"] = np.maximum(shared["ways"] - shared["ideal"], 0)
    global_ = stream(global_ev)
    global_.update(sectors=global_ev[:, 4], ready=global_ev[:, 5])
    dspec = gpu.memory.dram
    core_per_ck = float(gpu.clock_mhz) / float(dspec.clock_mhz)
    ck = dram_ev[:, 0]
    dram = {"ck": ck, "cycle": np.floor(ck * core_per_ck).astype(np.int64), "channel": dram_ev[:, 1],
            "bank": dram_ev[:, 2], "command": dram_ev[:, 3], "outcome": dram_ev[:, 4]}
    org = dspec.table.organisation
    occ = timing.occupancy
    return Timeline(
        kernel=trace.kernel, gpu=gpu.name, cycles=int(timing.cycles), n_sm=int(gpu.sm.count), n_smsp=n_sub,
        max_warps_per_sm=int(gpu.sm.max_warps),
        theoretical_warps_per_sm=int(getattr(occ, "active_warps_per_sm", gpu.sm.max_warps)),
        blocks_per_sm=int(getattr(occ, "blocks_per_sm", 0)), clock_mhz=float(gpu.clock_mhz),
        dram_channels=int(dspec.pseudo_channels), dram_banks=int(org.bank_groups * org.banks_per_group),
        dram_burst_bytes=int(org.burst_bytes),
        dram_peak_bytes_per_cycle=float(dspec.peak_bytes_per_s) / (float(gpu.clock_mhz) * 1e6),
        intervals=intervals, issues=issues, shared=shared, global_=global_, dram=dram,
        warp_sm=warp_sm, warp_smsp=warp_smsp, warp_block=np.asarray(trace.warp_block, dtype=np.int64),
        warp_start=start, warp_end=end, bin_cycles=int(bin_cycles or 0))


def collect_timeline(trace, gpu="h100", *, bin_cycles: int | None = None, observer=None, **simulate_kwargs):
    """Simulate ``trace`` on ``gpu`` with a :class:`TimelineCollector` (and ``observer``, if given):
    (TimingResult, Timeline)."""
    from gpusim.timing import simulate
    gpu = load_gpu(gpu)
    col = TimelineCollector()
    timing = simulate(trace, gpu, observer=combine_observers(col, observer), **simulate_kwargs)
    return timing, col.finish(trace, timing, gpu, bin_cycles=bin_cycles)
