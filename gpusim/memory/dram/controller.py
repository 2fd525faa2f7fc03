"""The DRAM channel model: banks with row buffers under datasheet timing constraints, computed arithmetically.

No event per cycle: each bank, bank group and channel keeps the earliest cycle its next command may issue
("next free" cycles), and one request is turned into its ACT/RD/WR/PRE times by a handful of ``max``
operations.  All times here are DRAM clocks (CK); :class:`gpusim.memory.system.MemorySystem` converts to and
from SM cycles.
"""
from __future__ import annotations

from array import array
from enum import IntEnum
from typing import NamedTuple

from gpusim.config.memory import DramSpec, DramTimings
from gpusim.errors import ConfigError
from gpusim.memory.dram.mapping import ADDRESS_MAPPINGS

#: Row-buffer policies of :class:`DramChannel` (``memory.dram.row_policy``).
ROW_POLICIES = ("open", "closed")


class Command(IntEnum):
    """DRAM commands the channel model issues (refresh is modelled as a blocked window, not a command)."""

    ACT = 0
    PRE = 1
    RD = 2
    WR = 3


class RowOutcome(IntEnum):
    """What the row buffer did for an access: the row was open (hit), the bank had none open (miss), or
    another row was open and had to be closed first (conflict)."""

    HIT = 0
    MISS = 1
    CONFLICT = 2


DRAM_COMMANDS = tuple(c.name for c in Command)
ROW_OUTCOMES = tuple(o.name.lower() for o in RowOutcome)
HIT, MISS, CONFLICT = RowOutcome.HIT, RowOutcome.MISS, RowOutcome.CONFLICT
ACT, PRE, RD, WR = Command.ACT, Command.PRE, Command.RD, Command.WR


class DramCommand(NamedTuple):
    """Observer event: ``command`` issued to ``bank`` of pseudo-channel ``channel`` at DRAM clock ``ck``,
    for an access whose row-buffer ``outcome`` the channel decided (a PRE and an ACT serve a conflict or
    a miss; a column command any of the three)."""

    ck: int
    channel: int
    bank: int
    command: Command
    outcome: RowOutcome


_event = tuple.__new__          # _event(DramCommand, (...)) is DramCommand(...) without a Python-level __new__
_PRUNE_SLOTS = 1 << 17


_RECENT = 16      # recent ACT / column-command cycles kept per spacing rule


# The recent cycles a spacing rule looks at are kept as sorted runs of at most _RECENT in a flat array of C
# integers (run k: ``times[k * _RECENT:]``, ``counts[k]`` long), so that the compiled build compares and moves
# C integers rather than the Python ints of a list (measured: the lists' insert/del and conversions were 20%
# of a DRAM-bound kernel's time).
def _after(times, base: int, n: int, t: int) -> int:
    """The index (counted from ``base``) of the first cycle later than ``t`` in the sorted
    ``times[base:base + n]`` (``bisect_right``)."""
    lo, hi = base, base + n
    while lo < hi:
        mid = (lo + hi) // 2
        if t < times[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo - base


def _spaced(times, base: int, n: int, t: int, gap: int) -> int:
    """Earliest t' >= t at least ``gap`` away from every cycle in the sorted ``times[base:base + n]``."""
    # Cycles at or before t - gap cannot push t (it only grows), and once one is at or after t + gap so
    # are the rest: only the window between needs looking at.
    for i in range(base + _after(times, base, n, t - gap), base + n):
        x = times[i]
        if x - gap >= t:
            break
        if t < x + gap:
            t = x + gap
    return t


def _remember(times, counts, k: int, t: int) -> None:
    """Put ``t`` in order into run ``k``; past :data:`_RECENT` cycles the oldest goes (``t`` itself when it
    is the oldest): it can no longer constrain a nondecreasing caller."""
    base = k * _RECENT
    n = counts[k]
    p = base + _after(times, base, n, t)
    if n < _RECENT:
        i = base + n
        while i > p:
            times[i] = times[i - 1]
            i -= 1
        times[p] = t
        counts[k] = n + 1
    elif p > base:
        i = base
        while i < p - 1:
            times[i] = times[i + 1]
            i += 1
        times[p - 1] = t


class SlotCalendar:
    """The data bus's taken burst slots: :meth:`first_free` at or after a slot, :meth:`claim` one.

    Kept as sorted runs of consecutive taken slots (``starts[i]``, ``ends[i]``: slots ``starts[i]`` to
    ``ends[i] - 1``, runs neither overlapping nor touching), so that the first free slot is one binary
    search away and a claim extends, joins or inserts a run near the end (bursts are claimed near the newest
    slot).  Once ``prune_slots`` slots are taken, a claim of a newer slot than any before forgets every slot
    more than ``prune_slots // 2`` behind it: a nondecreasing caller asks for none of them again (a slot
    forgotten counts as free).  (A dict from each taken slot to a later one to try, path-compressed, gave
    the same slots; with up to ``prune_slots`` Python ints per channel it missed the CPU's caches and took
    a fifth of a DRAM-bound kernel's time.)
    """

    __slots__ = ("starts", "ends", "n", "taken", "newest", "prune_slots")

    def __init__(self, prune_slots: int = _PRUNE_SLOTS) -> None:
        self.starts = array("q", [0]) * 16
        self.ends = array("q", [0]) * 16
        self.n = 0                     # runs
        self.taken = 0                 # slots in them
        self.newest = 0                # the newest slot claimed
        self.prune_slots = prune_slots

    def first_free(self, slot: int) -> int:
        """The first slot at or after ``slot`` that is not taken."""
        p = _after(self.starts, 0, self.n, slot)          # runs starting at or before ``slot``
        if p > 0 and slot < self.ends[p - 1]:
            return self.ends[p - 1]
        return slot

    def claim(self, slot: int) -> None:
        """Take ``slot``, a free one (:meth:`first_free`)."""
        starts = self.starts
        ends = self.ends
        n = self.n
        p = _after(starts, 0, n, slot)
        joins_before = p > 0 and ends[p - 1] == slot
        joins_after = p < n and starts[p] == slot + 1
        if joins_before and joins_after:            # fills the gap between two runs: one run
            ends[p - 1] = ends[p]
            for i in range(p, n - 1):
                starts[i] = starts[i + 1]
                ends[i] = ends[i + 1]
            self.n = n - 1
        elif joins_before:
            ends[p - 1] = slot + 1
        elif joins_after:
            starts[p] = slot
        else:                                       # a run of its own, at p
            if n == len(starts):
                self._grow()
                starts = self.starts
                ends = self.ends
            i = n
            while i > p:
                starts[i] = starts[i - 1]
                ends[i] = ends[i - 1]
                i -= 1
            starts[p] = slot
            ends[p] = slot + 1
            self.n = n + 1
        self.taken += 1
        if slot > self.newest:
            self.newest = slot
            if self.taken > self.prune_slots:
                self._forget_before(slot - self.prune_slots // 2)

    def _forget_before(self, horizon: int) -> None:
        """Free every slot before ``horizon``."""
        starts = self.starts
        ends = self.ends
        n = self.n
        q = 0
        while q < n and ends[q] <= horizon:
            self.taken -= ends[q] - starts[q]
            q += 1
        if q < n and starts[q] < horizon:
            self.taken -= horizon - starts[q]
            starts[q] = horizon
        for i in range(q, n):
            starts[i - q] = starts[i]
            ends[i - q] = ends[i]
        self.n = n - q

    def _grow(self) -> None:
        n = len(self.starts)
        starts = array("q", [0]) * (2 * n)
        ends = array("q", [0]) * (2 * n)
        starts[:n] = self.starts
        ends[:n] = self.ends
        self.starts = starts
        self.ends = ends


class DramChannel:
    """One independent DRAM channel (an HBM pseudo-channel): its banks, bank groups and data bus.

    Models: per-bank row buffer (open row or closed), ACT->RD/WR ``nRCD``/``nRCDW``, ACT->PRE ``nRAS``,
    ACT->ACT same bank ``nRC``, PRE->ACT ``nRP``, RD->PRE ``nRTP``, write recovery ``nWR``, ACT->ACT
    ``nRRD_S``/``nRRD_L``, at most four ACTs per ``nFAW``, column-to-column ``nCCD_L`` within a bank group,
    the data bus one burst (``nBL``, at least ``nCCD_S``) at a time, write->read ``nWTR_S`` and read->write
    ``nRTW`` turnarounds, and a per-bank refresh (REFpb) of ``nRFCpb`` once every ``nREFI`` per bank,
    staggered over banks and channels, that closes the bank's row.  Open-page (rows stay open; a request to another row is a *conflict*: PRE+ACT) or
    closed-page (auto-precharge after each access) by ``row_policy``.

    Scheduling (FR-FCFS, approximated): requests must be answered when they arrive, so nothing already
    answered can be reordered.  Instead the data bus is a calendar of burst slots and ACTs and column
    commands are placed in the earliest gap that keeps nRRD/nFAW/nCCD_L with every recent command, not
    after the last one: a request that is *ready first* (a row hit, or an idle bank) is served in a gap
    before an older request that is still precharging/activating (the "first-ready" part).  Within one
    bank, order is arrival order (FCFS), and a row conflict closes the row even if a hit to it arrives a
    little later (true FR-FCFS would serve that hit first).  Commands share no command bus (HBM's separate row/column
    buses make that the smaller effect); the pseudo-channels of a channel are independent.

    Write queue (``write_queue_entries`` > 0): a write is accepted into the channel's write buffer; when the
    buffer is full the channel drains it as one batch starting at the arrival of the write that filled it
    (row by row, so writes to one open row follow each other), so the data bus turns from reads to writes
    and back (``nRTW``, ``nWTR_S``) once per batch instead of once per write, as a controller's write-drain
    mode does.  A batch's entries stay taken until their bursts are done: the ``j``-th write of the next
    batch is accepted (``access`` returns) no earlier than the ``j``-th of the previous batch's bursts ends,
    so a writer faster than the channel waits for it (the L2 holds a store whose write-back is not yet
    accepted); a write accepted while that batch still drains is scheduled from its acceptance (the channel
    stays in write mode), so back-to-back batches keep the bus busy.  Without the queue (0) every write is
    scheduled when it arrives, among the reads.  Writes still in the buffer when the launch ends are counted
    (``writes``) but never scheduled.
    """

    __slots__ = ("t", "observer", "index", "policy_closed", "open_row", "bank_next_act", "bank_next_pre",
                 "bank_col_ready", "bank_epoch", "acts", "bg_acts", "bg_cols", "acts_n", "bg_acts_n", "bg_cols_n",
                 "last_read_col",
                 "last_write_end", "slot_ck", "bus", "refresh_offset", "n_banks",
                 "reads", "writes", "row_hits", "row_misses", "row_conflicts", "busy_ck",
                 "bank_reads", "bank_writes", "bank_hits", "bank_misses", "bank_conflicts", "banks_per_group",
                 "nBL", "nCL", "nCWL", "nRTW", "nWTR_S", "nRCD", "nRCDW", "nRP", "nRAS", "nRC", "nRTP", "nWR",
                 "nCCD_L", "nRRD_S", "nRRD_L", "nFAW", "nREFI", "nRFCpb", "write_queue_entries", "wq_bank", "wq_row",
                 "wq_accepted", "wq_free")

    def __init__(self, timings: DramTimings, bank_groups: int, banks_per_group: int, row_policy: str = "open",
                 refresh_offset: int = 0, observer=None, index: int = 0, write_queue_entries: int = 0) -> None:
        if row_policy not in ROW_POLICIES:
            raise ConfigError(f"memory.dram.row_policy: {row_policy!r}; expected one of {', '.join(ROW_POLICIES)}")
        self.t = timings
        # the timings this channel uses, in CK (copied: the compiled build keeps them as C integers)
        self.nBL, self.nCL, self.nCWL, self.nRTW, self.nWTR_S = (timings.nBL, timings.nCL, timings.nCWL,
                                                                  timings.nRTW, timings.nWTR_S)
        self.nRCD, self.nRCDW, self.nRP, self.nRAS, self.nRC = (timings.nRCD, timings.nRCDW, timings.nRP,
                                                                 timings.nRAS, timings.nRC)
        self.nRTP, self.nWR, self.nCCD_L, self.nRRD_S, self.nRRD_L, self.nFAW = (
            timings.nRTP, timings.nWR, timings.nCCD_L, timings.nRRD_S, timings.nRRD_L, timings.nFAW)
        self.nREFI, self.nRFCpb = timings.nREFI, timings.nRFCpb
        self.observer = observer           # gets a DramCommand per command (gpusim.timing.hooks)
        self.index = index                 # this channel's number in the controller
        self.policy_closed = row_policy == "closed"
        n = bank_groups * banks_per_group
        self.n_banks = n
        self.banks_per_group = banks_per_group
        self.open_row = array("q", [-1]) * n
        self.bank_next_act = array("q", [0]) * n
        self.bank_next_pre = array("q", [0]) * n
        self.bank_col_ready = array("q", [0]) * n
        self.bank_epoch = array("q", [0]) * n
        # recent ACT and column-command cycles (sorted runs of at most _RECENT, see _remember) for the
        # spacing rules: the channel's ACTs, and each bank group's ACTs and column commands
        self.acts = array("q", [0]) * _RECENT
        self.acts_n = array("q", [0])
        self.bg_acts = array("q", [0]) * (bank_groups * _RECENT)
        self.bg_acts_n = array("q", [0]) * bank_groups
        self.bg_cols = array("q", [0]) * (bank_groups * _RECENT)
        self.bg_cols_n = array("q", [0]) * bank_groups
        self.last_read_col = -(1 << 30)
        self.last_write_end = -(1 << 30)
        self.slot_ck = max(timings.nBL, timings.nCCD_S)
        self.bus = SlotCalendar()          # the data bus's taken burst slots
        self.refresh_offset = refresh_offset
        self.reads = self.writes = self.row_hits = self.row_misses = self.row_conflicts = self.busy_ck = 0
        self.bank_reads = array("q", [0]) * n
        self.bank_writes = array("q", [0]) * n
        self.bank_hits = array("q", [0]) * n
        self.bank_misses = array("q", [0]) * n
        self.bank_conflicts = array("q", [0]) * n
        self.write_queue_entries = write_queue_entries
        self.wq_bank: list[int] = []           # the write buffer: bank and row of each write not yet drained
        self.wq_row: list[int] = []
        self.wq_accepted: list[int] = []       # CK each write in the buffer was accepted
        self.wq_free: list[int] = []           # CK each entry frees: the last drained batch's burst ends, sorted

    def _outside_refresh(self, t: int, bank: int) -> int:
        # Per-bank refresh (HBM's REFpb): bank b of this channel refreshes for nRFCpb once every nREFI, the
        # banks staggered evenly over the interval so the others keep the bus busy meanwhile.
        phase = (t - self.refresh_offset - bank * self.nREFI // self.n_banks) % self.nREFI
        return t + (self.nRFCpb - phase) if phase < self.nRFCpb else t

    def _act_slot(self, t: int, bg: int, bank: int) -> int:
        """Earliest ACT cycle >= t that keeps nRRD_L (same bank group), nRRD_S and nFAW with every recent
        ACT, earlier *or later* (so a ready bank may activate in a gap before an ACT already planned)."""
        acts = self.acts
        n = self.acts_n[0]
        for _ in range(64):
            t0 = t
            t = _spaced(self.bg_acts, bg * _RECENT, self.bg_acts_n[bg], t, self.nRRD_L)
            t = _spaced(acts, 0, n, t, self.nRRD_S)
            t = self._outside_refresh(t, bank)
            # nFAW: every five consecutive ACTs of ``acts`` with t inserted at p span at least nFAW
            p = _after(acts, 0, n, t - 1)        # the first ACT at or after t (cycles are integers)
            for k in range(max(0, p - 4), min(p + 1, n - 3)):
                first = acts[k] if k < p else t
                fifth = t if k + 4 == p else acts[k + 3]
                if fifth - first < self.nFAW:
                    t = max(t + 1, first + self.nFAW)
                    break
            if t == t0:
                break
        _remember(acts, self.acts_n, 0, t)
        _remember(self.bg_acts, self.bg_acts_n, bg, t)
        return t

    def access(self, arrival: int, bank: int, row: int, is_write: bool) -> int:
        """Serve one burst arriving at CK ``arrival``; returns the CK its data transfer ends (for a write taken
        into the write queue: the CK it was accepted, ``arrival`` unless its entry still holds a write of the
        batch draining)."""
        if is_write and self.write_queue_entries:
            self.writes += 1
            self.bank_writes[bank] += 1
            j = len(self.wq_bank)
            accepted = arrival
            if j < len(self.wq_free) and self.wq_free[j] > arrival:
                accepted = self.wq_free[j]     # its entry still holds a write of the batch draining
            self.wq_bank.append(bank)
            self.wq_row.append(row)
            self.wq_accepted.append(accepted)
            if j + 1 >= self.write_queue_entries:
                self._drain(accepted)
            return accepted
        return self._serve(arrival, bank, row, is_write, True)

    def _drain(self, t: int) -> None:
        """Schedule every buffered write from CK ``t`` on, row by row."""
        order = sorted(zip(self.wq_row, self.wq_bank, self.wq_accepted))
        # a write accepted while the previous batch was still draining continues that drain (the channel is
        # still in write mode): it goes from its own acceptance on, not from the batch's fill
        busy_until = -1
        if self.wq_free:
            busy_until = self.wq_free[len(self.wq_free) - 1]
        self.wq_bank = []
        self.wq_row = []
        self.wq_accepted = []
        ends = []
        for row, bank, accepted in order:
            ends.append(self._serve(accepted if accepted < busy_until else t, bank, row, True, False))
        ends.sort()
        self.wq_free = ends

    def _serve(self, arrival: int, bank: int, row: int, is_write: bool, count: bool) -> int:
        """Place one burst's commands; ``count``: count it as a read/write (a drained write was counted when
        it was buffered)."""
        obs = self.observer
        bg = bank // self.banks_per_group
        arrival = self._outside_refresh(arrival, bank)
        epoch = (arrival - self.refresh_offset - bank * self.nREFI // self.n_banks) // self.nREFI
        if self.bank_epoch[bank] != epoch:
            self.bank_epoch[bank] = epoch
            self.open_row[bank] = -1           # a refresh precharged the bank since its last access
        open_row = self.open_row[bank]
        if open_row == row:
            kind = HIT
            col = max(arrival, self.bank_col_ready[bank])
        else:
            if open_row < 0:
                kind = MISS
                act = max(arrival, self.bank_next_act[bank])
            else:
                kind = CONFLICT
                pre = max(arrival, self.bank_next_pre[bank])
                act = max(pre + self.nRP, self.bank_next_act[bank])
                if obs is not None:
                    obs.on_dram_command(_event(DramCommand, (pre, self.index, bank, PRE, kind)))
            act = self._act_slot(self._outside_refresh(act, bank), bg, bank)
            self.bank_next_act[bank] = act + self.nRC
            self.bank_next_pre[bank] = act + self.nRAS
            self.open_row[bank] = row
            col = act + (self.nRCDW if is_write else self.nRCD)
            self.bank_col_ready[bank] = col
            if obs is not None:
                obs.on_dram_command(_event(DramCommand, (act, self.index, bank, ACT, kind)))
        if is_write:
            col = max(col, self.last_read_col + self.nRTW)
            cas = self.nCWL
        else:
            col = max(col, self.last_write_end + self.nWTR_S)
            cas = self.nCL
        slot_ck = self.slot_ck
        slot = -(-(col + cas) // slot_ck)
        while True:
            slot = self.bus.first_free(slot)
            col = slot * slot_ck - cas
            spaced = _spaced(self.bg_cols, bg * _RECENT, self.bg_cols_n[bg], col, self.nCCD_L)
            if spaced == col:
                break
            slot = -(-(spaced + cas) // slot_ck)
        self.bus.claim(slot)
        _remember(self.bg_cols, self.bg_cols_n, bg, col)
        data_start = slot * slot_ck
        data_end = data_start + self.nBL
        if is_write:
            if data_end > self.last_write_end:
                self.last_write_end = data_end
            self.bank_next_pre[bank] = max(self.bank_next_pre[bank], data_end + self.nWR)
            if count:
                self.writes += 1
                self.bank_writes[bank] += 1
        else:
            if col > self.last_read_col:
                self.last_read_col = col
            self.bank_next_pre[bank] = max(self.bank_next_pre[bank], col + self.nRTP)
            self.reads += 1
            self.bank_reads[bank] += 1
        if self.policy_closed:
            self.bank_next_act[bank] = max(self.bank_next_act[bank], self.bank_next_pre[bank] + self.nRP)
            self.open_row[bank] = -1
        self.busy_ck += self.nBL
        if kind is HIT:
            self.row_hits += 1
            self.bank_hits[bank] += 1
        elif kind is MISS:
            self.row_misses += 1
            self.bank_misses[bank] += 1
        else:
            self.row_conflicts += 1
            self.bank_conflicts[bank] += 1
        if obs is not None:
            obs.on_dram_command(_event(DramCommand, (col, self.index, bank, WR if is_write else RD, kind)))
        return data_end


class DramController:
    """All DRAM channels of the GPU behind one address mapping (bursts of 32 B = one L2 sector).

    Models what :class:`DramChannel` models, for ``spec.pseudo_channels`` independent channels, with the
    named address mapping choosing channel, bank and row for each burst.  Simplifies: one request per
    sector (no multi-burst requests), writes buffered per channel and drained in batches
    (``spec.write_queue_entries``; 0: each scheduled when the L2 evicts it, among the reads), no power-down
    states.

    Counters: reads, writes, row hits/misses (bank closed)/conflicts (other row open), busy CK and bytes per
    channel and per bank; Nsight's ``dram__bytes_read.sum``, ``dram__bytes_write.sum``,
    ``dram__sectors_read.sum``, ``dram__sectors_write.sum``.
    """

    def __init__(self, spec: DramSpec, observer=None) -> None:
        self.spec = spec
        org = spec.table.organisation
        self.timings = spec.timings
        n = spec.pseudo_channels
        self.n_channels = n
        self.burst_bytes = org.burst_bytes
        if spec.address_mapping not in ADDRESS_MAPPINGS:
            raise ConfigError(f"memory.dram.address_mapping: unknown mapping {spec.address_mapping!r}; known: "
                              f"{', '.join(sorted(ADDRESS_MAPPINGS))}")
        self.mapping = ADDRESS_MAPPINGS[spec.address_mapping](n, org)
        self.channels = [DramChannel(self.timings, org.bank_groups, org.banks_per_group, spec.row_policy,
                                     refresh_offset=(c * self.timings.nREFI) // n, observer=observer, index=c,
                                     write_queue_entries=spec.write_queue_entries)
                         for c in range(n)]

    def access(self, arrival_ck: int, address: int, is_write: bool = False) -> int:
        """One 32 B burst at byte ``address`` arriving at CK ``arrival_ck``; returns the CK its data is done (a
        write into the write queue: the CK it was accepted, :meth:`DramChannel.access`)."""
        ch, _bg, bank, row = self.mapping.map(address // self.burst_bytes)
        c = self.channels[ch]
        return c.access(arrival_ck, bank, row, is_write)

    def closed_row_read_ck(self) -> int:
        """CK from a read's arrival at an idle bank with no open row to the end of its data."""
        T = self.timings
        return T.nRCD + T.nCL + T.nBL + T.nCCD_S - 1   # the data slot may round up by up to one slot

    def tables(self) -> dict[str, list]:
        """Per-channel lists and per-bank [channel][bank] lists of the counters."""
        chs = self.channels
        b = self.burst_bytes
        return {
            "dram.per_channel.reads": [c.reads for c in chs],
            "dram.per_channel.writes": [c.writes for c in chs],
            "dram.per_channel.row_hits": [c.row_hits for c in chs],
            "dram.per_channel.row_misses": [c.row_misses for c in chs],
            "dram.per_channel.row_conflicts": [c.row_conflicts for c in chs],
            "dram.per_channel.busy_cycles": [c.busy_ck for c in chs],
            "dram.per_channel.bytes": [(c.reads + c.writes) * b for c in chs],
            "dram.per_bank.reads": [list(c.bank_reads) for c in chs],
            "dram.per_bank.writes": [list(c.bank_writes) for c in chs],
            "dram.per_bank.row_hits": [list(c.bank_hits) for c in chs],
            "dram.per_bank.row_misses": [list(c.bank_misses) for c in chs],
            "dram.per_bank.row_conflicts": [list(c.bank_conflicts) for c in chs],
        }

    def counters(self) -> dict[str, float]:
        reads = sum(c.reads for c in self.channels)
        writes = sum(c.writes for c in self.channels)
        hits = sum(c.row_hits for c in self.channels)
        total = reads + writes
        return {
            "dram__bytes_read.sum": float(reads * self.burst_bytes),
            "dram__bytes_write.sum": float(writes * self.burst_bytes),
            "dram__sectors_read.sum": float(reads * self.burst_bytes // 32),
            "dram__sectors_write.sum": float(writes * self.burst_bytes // 32),
            "gpusim__dram_row_hits.sum": float(hits),
            "gpusim__dram_row_misses.sum": float(sum(c.row_misses for c in self.channels)),
            "gpusim__dram_row_conflicts.sum": float(sum(c.row_conflicts for c in self.channels)),
            "gpusim__dram_row_hit_rate.pct": 100.0 * hits / total if total else 0.0,
            "gpusim__dram_busy_cycles.sum": float(sum(c.busy_ck for c in self.channels)),
        }


class UnlimitedDram(DramController):
    """DRAM without a bandwidth limit (the "dram" what-if of :mod:`gpusim.timing.idealize`): every burst
    ends :meth:`closed_row_read_ck` after it arrives, the unloaded latency of an idle bank, whatever else is
    in flight.  Reads and writes are still counted per channel and bank (so the DRAM byte counters are the
    same); no row-buffer state, no refresh, no commands for an observer."""

    def __init__(self, spec: DramSpec, observer=None) -> None:
        super().__init__(spec, None)
        self._latency_ck = self.closed_row_read_ck()

    def access(self, arrival_ck: int, address: int, is_write: bool = False) -> int:
        ch, _bg, bank, _row = self.mapping.map(address // self.burst_bytes)
        c = self.channels[ch]
        if is_write:
            c.writes += 1
            c.bank_writes[bank] += 1
        else:
            c.reads += 1
            c.bank_reads[bank] += 1
        return arrival_ck + self._latency_ck
