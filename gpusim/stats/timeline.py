"""Timelines: what happened when, per SM and sub-partition, from the timing model's hooks.

A :class:`TimelineCollector` is a :class:`gpusim.timing.TimingHooks` that only *buffers*: each hook call
appends one tuple to a plain list (the SimPy guide's advice: buffer monitoring data, process it in chunks),
and every ``CHUNK`` events the list is packed into an int64 array. Nothing is binned during the simulation.
:meth:`TimelineCollector.finish` turns the buffers into a :class:`Timeline`:

* ``intervals``: every warp's merged state runs (warp, start, end, state, pc), exact: summed per warp and
  state they equal ``TimingResult.stalls_by_warp``;
* event streams: ``shared`` (cycle, sm, warp, pc, ptx_line, wavefronts, ideal), ``global_`` (cycle, sm,
  warp, pc, ptx_line, sectors), ``dram`` (cycle in SM clocks, channel, bank, command, row outcome);
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

from gpusim.stats.stall_reasons import N_STALL_REASONS, STALL_REASONS, StallReason

TARGET_BINS = 200
CHUNK = 1 << 16
ISSUE_CODE = 32            # event code of an issue: ISSUE_CODE + smsp (warp states are 0..N_STALL_REASONS-1)
SELECTED = int(StallReason.SELECTED)
NOT_SELECTED = int(StallReason.NOT_SELECTED)

DRAM_COMMANDS = ("ACT", "PRE", "RD", "WR")
ROW_HIT, ROW_MISS, ROW_CONFLICT = 0, 1, 2
ROW_OUTCOMES = ("hit", "miss", "conflict")
_MEM_KIND = {"shared": 0, "global": 1, "dram_command": 2}
_DRAM_CODE = {c: i for i, c in enumerate(DRAM_COMMANDS)}


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


class TimelineCollector:
    """Timing hooks that record warp states, issues and memory events (see the module docstring).

    Use through ``gpusim.run(..., timeline=True)`` or directly::

        col = TimelineCollector()
        res = simulate(trace, "h100", hooks=col)
        tl = col.finish(trace, res, "h100")
    """

    def __init__(self) -> None:
        self._core = _Buffer(5)
        self._mem: list = []
        self._mem_chunks: list[np.ndarray] = []
        self._rows = self._core.rows
        self._n = 0

    # -- the hooks (hot path: one tuple append) -------------------------------------------------------
    def on_issue(self, cycle: int, sm: int, smsp: int, warp: int, pc: int) -> None:
        rows = self._rows
        rows.append((cycle, sm, warp, pc, ISSUE_CODE + smsp))
        if len(rows) >= CHUNK:
            self._core.pack()

    def on_state(self, cycle: int, sm: int, warp: int, pc: int, state: int) -> None:
        self._rows.append((cycle, sm, warp, pc, state))

    def on_memory(self, kind: str, a, b, c, d) -> None:
        # shared/global: (cycle, sm, slot, n); dram_command: (channel, bank, command, ck)
        self._mem.append((kind, a, b, c, d))
        if len(self._mem) >= CHUNK:
            self._pack_mem()

    def _pack_mem(self) -> None:
        if not self._mem:
            return
        arr = np.empty((len(self._mem), 5), dtype=np.int64)
        for i, (kind, a, b, c, d) in enumerate(self._mem):
            if kind == "dram_command":
                arr[i] = (2, int(d), a, b, _DRAM_CODE.get(c, 0))
            else:
                arr[i] = (_MEM_KIND[kind], a, b, c, d)
        self._mem_chunks.append(arr)
        self._mem.clear()

    # -- after the simulation ---------------------------------------------------------------------------
    def finish(self, trace, timing, gpu, *, bin_cycles: int | None = None) -> "Timeline":
        """Build the :class:`Timeline` of ``trace`` simulated as ``timing`` (a TimingResult) on ``gpu``."""
        if isinstance(gpu, str):
            from gpusim.config import load_gpu
            gpu = load_gpu(gpu)
        core = self._core.array()
        self._pack_mem()
        mem = np.concatenate(self._mem_chunks) if self._mem_chunks else np.zeros((0, 5), dtype=np.int64)
        return build_timeline(trace, timing, gpu, core, mem, bin_cycles=bin_cycles)


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
      (wavefronts without conflicts), ``conflicts`` (= ways - ideal);
    * ``global_``: ``cycle``, ``sm``, ``warp``, ``pc``, ``ptx_line``, ``sectors``;
    * ``dram``: ``cycle`` (SM clocks), ``ck`` (DRAM clocks), ``channel``, ``bank``, ``command`` (index in
      ``DRAM_COMMANDS``), ``outcome`` (for RD/WR: index in ``ROW_OUTCOMES``, else -1);
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
            ok = self.warp_start >= 0
            nblk = int(self.warp_block.max()) + 1 if self.warp_block.size else 0
            bstart = np.full(nblk, np.iinfo(np.int64).max)
            bend = np.full(nblk, -1)
            bsm = np.zeros(nblk, dtype=np.int64)
            np.minimum.at(bstart, self.warp_block[ok], self.warp_start[ok])
            np.maximum.at(bend, self.warp_block[ok], self.warp_end[ok])
            bsm[self.warp_block[ok]] = self.warp_sm[ok]
            has = bend >= 0
            b = _bin_intervals(bsm[has], bstart[has], bend[has], np.ones(int(has.sum())), n_sm, w, nb, self.cycles)
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
            rw = cmds[:, _DRAM_CODE["RD"]] + cmds[:, _DRAM_CODE["WR"]]
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


def build_timeline(trace, timing, gpu, core: np.ndarray, mem: np.ndarray, *, bin_cycles=None) -> Timeline:
    """Turn the collector's raw arrays into a :class:`Timeline` (see :meth:`TimelineCollector.finish`)."""
    n_warps = trace.n_warps
    n_sub = int(gpu.sm.subpartitions)
    start = np.asarray(timing.warp_start_cycle, dtype=np.int64)
    end = np.asarray(timing.warp_end_cycle, dtype=np.int64)
    warp_sm = np.asarray(timing.warp_sm, dtype=np.int64)

    # warp-state change points: the start of each warp (NOT_SELECTED placeholder), on_state, on_issue
    is_issue = core[:, 4] >= ISSUE_CODE
    warp_smsp = np.zeros(n_warps, dtype=np.int64)
    iss = core[is_issue]
    warp_smsp[iss[:, 2]] = iss[:, 4] - ISSUE_CODE
    ok = np.flatnonzero(start >= 0)
    first_row = np.asarray(trace.warp_start[:-1], dtype=np.int64)
    first_pc = np.asarray(trace.pc, dtype=np.int64)[np.minimum(first_row, max(trace.n_instructions - 1, 0))] \
        if trace.n_instructions else np.zeros(n_warps, dtype=np.int64)
    st_cycle = np.concatenate([start[ok], core[:, 0]])
    st_warp = np.concatenate([ok, core[:, 2]])
    st_pc = np.concatenate([first_pc[ok], core[:, 3]])
    st_state = np.concatenate([np.full(ok.size, NOT_SELECTED), np.where(is_issue, SELECTED, core[:, 4])])
    order = np.argsort(st_warp, kind="stable")      # per warp, emission order is cycle order
    st_cycle, st_warp, st_pc, st_state = st_cycle[order], st_warp[order], st_pc[order], st_state[order]
    nxt = np.empty_like(st_cycle)
    if st_cycle.size:
        nxt[:-1] = st_cycle[1:]
        last = np.ones(st_cycle.size, dtype=bool)
        last[:-1] = st_warp[1:] != st_warp[:-1]
        nxt[last] = end[st_warp[last]]
    w, s, e, stt, pc = _merge_runs(st_warp, st_cycle, nxt, st_state, st_pc)
    intervals = {"warp": w, "start": s, "end": e, "state": stt, "pc": pc}
    issues = {"cycle": iss[:, 0], "sm": iss[:, 1], "smsp": iss[:, 4] - ISSUE_CODE, "warp": iss[:, 2],
              "pc": iss[:, 3]}

    # memory events: slot -> (warp, pc)
    m = int(trace.addresses.shape[0])
    rows = np.flatnonzero(trace.mem_slot >= 0)
    slot_row = np.zeros(max(m, 1), dtype=np.int64)
    slot_row[trace.mem_slot[rows]] = rows
    slot_pc = np.asarray(trace.pc, dtype=np.int64)[slot_row] if trace.n_instructions else slot_row
    slot_warp = np.searchsorted(np.asarray(trace.warp_start), slot_row, side="right") - 1
    ptx_line = np.array([i.ptx_line for i in trace.instructions] or [0], dtype=np.int64)

    def stream(kind):
        ev = mem[mem[:, 0] == kind]
        slot = ev[:, 3]
        pcs = slot_pc[slot]
        return ev, slot, {"cycle": ev[:, 1], "sm": ev[:, 2], "warp": slot_warp[slot], "pc": pcs,
                          "ptx_line": ptx_line[pcs] if pcs.size else pcs}

    ev, slot, shared = stream(0)
    shared["ways"] = ev[:, 4]
    shared["ideal"] = _ideal_wavefronts(trace, gpu, slot) if slot.size else slot.copy()
    shared["conflicts"] = np.maximum(shared["ways"] - shared["ideal"], 0)
    ev, slot, global_ = stream(1)
    global_["sectors"] = ev[:, 4]

    # DRAM commands: emitted [PRE] [ACT] RD|WR per access, so a column command's outcome is its predecessors
    di = np.flatnonzero(mem[:, 0] == 2)
    cmd = mem[di, 4]
    outcome = np.full(di.size, -1, dtype=np.int64)
    col = np.flatnonzero(cmd >= _DRAM_CODE["RD"])
    prev = col - 1
    act_before = (prev >= 0) & (cmd[np.maximum(prev, 0)] == _DRAM_CODE["ACT"])
    pre_before = act_before & (prev >= 1) & (cmd[np.maximum(prev - 1, 0)] == _DRAM_CODE["PRE"])
    outcome[col] = np.where(pre_before, ROW_CONFLICT, np.where(act_before, ROW_MISS, ROW_HIT))
    dspec = gpu.memory.dram
    core_per_ck = float(gpu.clock_mhz) / float(dspec.clock_mhz)
    ck = mem[di, 1]
    dram = {"ck": ck, "cycle": np.floor(ck * core_per_ck).astype(np.int64), "channel": mem[di, 2],
            "bank": mem[di, 3], "command": cmd, "outcome": outcome}
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


def _ideal_wavefronts(trace, gpu, slots: np.ndarray) -> np.ndarray:
    """Conflict-free wavefronts of each shared access (the Source page's ``..._ideal``)."""
    from gpusim.memory.shared_banks import SharedMemoryBanks
    spec = gpu.memory.shared
    banks = SharedMemoryBanks(spec.banks, spec.bank_width_bytes)
    rows = np.flatnonzero(trace.mem_slot >= 0)
    slot_pc = np.zeros(int(trace.addresses.shape[0]), dtype=np.int64)
    slot_pc[trace.mem_slot[rows]] = trace.pc[rows]
    out = np.ones(slots.size, dtype=np.int64)
    uniq, inv = np.unique(slots, return_inverse=True)
    ideal_u = np.ones(uniq.size, dtype=np.int64)
    pcs = slot_pc[uniq]
    for pc in np.unique(pcs):
        sel = np.flatnonzero(pcs == pc)
        instr = trace.instructions[int(pc)]
        res = banks.wavefronts_for(trace.addresses[uniq[sel]].astype(np.int64), max(1, int(instr.access_bytes)),
                                   atomic=instr.is_atomic)
        ideal_u[sel] = res.ideal_wavefronts
    out[:] = ideal_u[inv]
    return out


class _FanOut:
    """Several hooks objects as one (each gets every event it has a method for)."""

    def __init__(self, *hooks) -> None:
        self._all = hooks
        self._issue = [h.on_issue for h in hooks if hasattr(h, "on_issue")]
        self._state = [h.on_state for h in hooks if hasattr(h, "on_state")]
        self._memory = [h.on_memory for h in hooks if hasattr(h, "on_memory")]

    def on_issue(self, *a) -> None:
        for f in self._issue:
            f(*a)

    def on_state(self, *a) -> None:
        for f in self._state:
            f(*a)

    def on_memory(self, *a) -> None:
        for f in self._memory:
            f(*a)


def combine_hooks(*hooks):
    """One hooks object that forwards to each of ``hooks`` (``None`` entries skipped)."""
    hooks = [h for h in hooks if h is not None]
    if len(hooks) == 1:
        return hooks[0]
    return _FanOut(*hooks)


def collect_timeline(trace, gpu="h100", *, bin_cycles: int | None = None, hooks=None, **simulate_kwargs):
    """Simulate ``trace`` on ``gpu`` with a :class:`TimelineCollector`: (TimingResult, Timeline)."""
    from gpusim.timing import _resolve_gpu, simulate
    gpu = _resolve_gpu(gpu)
    col = TimelineCollector()
    timing = simulate(trace, gpu, hooks=combine_hooks(col, hooks), **simulate_kwargs)
    return timing, col.finish(trace, timing, gpu, bin_cycles=bin_cycles)
