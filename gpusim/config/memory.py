"""The memory system's spec: frozen, documented dataclasses built from a preset's ``[memory]`` table.

``MemorySpec.from_dict(table, path="memory")`` checks every key and type and the consistency between fields
and raises :class:`gpusim.errors.ConfigError` naming the dotted field (``memory.l2.slices``).  A DRAM standard
is *data*: ``gpusim/config/dram/<standard>.toml`` holds its organisation and datasheet timings in DRAM clocks
(Ramulator 2's idea); the preset picks standard, channel count, data rate, address mapping and row policy.

Latency fields are the *unloaded load-to-use* figures a pointer chase measures (HARDWARE.md §2); the memory
system splits each into the stages it models (L1, interconnect, L2 slice, DRAM controller + core timings), so
an unloaded pointer chase reproduces them and load adds queueing on top.
"""
from __future__ import annotations

import dataclasses
import functools
import math
import tomllib
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusim.config.fields import param
from gpusim.errors import ConfigError

DRAM_DIR = Path(__file__).parent / "dram"


def _build(cls: type, d: Any, path: str) -> Any:
    """Build dataclass ``cls`` from table ``d``: unknown keys, missing keys and wrong types are errors."""
    if not isinstance(d, dict):
        raise ConfigError(f"{path}: expected a table, got {d!r}")
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    for key in d:
        if key not in names:
            raise ConfigError(f"{path}.{key}: unknown field; expected one of {', '.join(sorted(names))}")
    values = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        name = f"{path}.{f.name}"
        if f.name not in d:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                if dataclasses.is_dataclass(hints[f.name]):
                    values[f.name] = _build(hints[f.name], {}, name)
                    continue
                raise ConfigError(f"{name}: missing (required: {f.metadata.get('doc', '')})")
            continue
        v, hint = d[f.name], hints[f.name]
        if dataclasses.is_dataclass(hint):
            v = _build(hint, v, name)
        elif hint is int and (not isinstance(v, int) or isinstance(v, bool)):
            raise ConfigError(f"{name}: expected an integer, got {v!r} ({type(v).__name__})")
        elif hint is float:
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise ConfigError(f"{name}: expected a number, got {v!r} ({type(v).__name__})")
            v = float(v)
        elif hint is bool and not isinstance(v, bool):
            raise ConfigError(f"{name}: expected true or false, got {v!r} ({type(v).__name__})")
        elif hint is str and not isinstance(v, str):
            raise ConfigError(f"{name}: expected a string, got {v!r} ({type(v).__name__})")
        values[f.name] = v
    obj = cls(**values)
    obj.validate(path)
    return obj


def _positive(obj: Any, path: str, *names: str) -> None:
    for n in names:
        v = getattr(obj, n)
        if not v > 0:
            raise ConfigError(f"{path}.{n}: must be > 0, got {v}")


def _power_of_two(obj: Any, path: str, *names: str) -> None:
    for n in names:
        v = getattr(obj, n)
        if v <= 0 or v & (v - 1):
            raise ConfigError(f"{path}.{n}: must be a power of two, got {v}")


@dataclass(frozen=True, kw_only=True)
class SharedMemorySpec:
    """Shared memory: banked SRAM inside the unified L1/shared array of each SM."""

    latency_cycles: int = param("cycles: unloaded shared load-to-use latency (one wavefront)")
    banks: int = param("banks, successive words in successive banks", 32)
    bank_width_bytes: int = param("bytes per bank per cycle", 4)
    wavefronts_per_cycle: int = param("data-stage wavefronts the SM's shared pipe completes per cycle", 1)
    atomic_cycles_per_op: int = param("cycles: one read-modify-write of one address in a bank", 2)

    def validate(self, path: str) -> None:
        _positive(self, path, "latency_cycles", "banks", "bank_width_bytes", "wavefronts_per_cycle",
                  "atomic_cycles_per_op")


@dataclass(frozen=True, kw_only=True)
class L1Spec:
    """The per-SM L1 data cache (the part of the unified array not carved out for shared memory).

    Its lines also bound the misses an SM keeps in flight: every line a load misses holds one L1 line until
    its data is back (measured on the H100 at eight carve-outs, gpusim/hw/README.md "The in-flight limit
    is the L1"), so there is no separate MSHR count."""

    hit_latency_cycles: int = param("SM cycles: unloaded L1 hit load-to-use latency")
    size_bytes: int = param("bytes of L1 data when no launch says otherwise (the memory system alone); a "
                            "launch's L1 is sm.l1_shared_bytes minus the driver's shared-memory carve-out")
    line_bytes: int = param("bytes per line (tag)", 128)
    sector_bytes: int = param("bytes per sector (fill/valid unit)", 32)
    associativity: int = param("ways per set", 4)
    tags_per_cycle: int = param("distinct lines of a request the L1 tag stage looks up per cycle (HARDWARE.md: "
                                "4 tags; the H100 measured 4: micro/l1gather.json); the data stage then "
                                "reads one bank wavefront per cycle", 4)
    store_beats_per_cycle: float = param("beats of store data the L1 sends towards L2 per SM cycle: a beat per "
                                         "sector a store writes, and one for a line's byte mask when a sector "
                                         "is written only in part (0: a store line costs what a miss line "
                                         "does)", 0.0)
    miss_lines_per_cycle: float = param("lines (load misses, stores, atomics) the L1 sends towards L2 per SM "
                                        "cycle", 1.0)
    atomic_packet_cycles: float = param("SM cycles the L1's in-order pipe spends on each packet of a global "
                                        "atomic (one per sector, and one more for each further lane on one "
                                        "word of it), on top of the request's bank wavefronts; loads behind "
                                        "it wait (0: an atomic costs the pipe its tag passes only)", 0.0)
    store_merge_window_cycles: float = param("SM cycles after a store's line is ready to leave the L1 during "
                                             "which a later store of the same SM to the same line joins its L2 "
                                             "write request (its sectors, not a request of its own); a line its "
                                             "slice pushes back stays open until the slice can take it (0: "
                                             "every store line is a request)", 0.0)
    store_merge_max_lines: int = param("a store request of more lines than this neither joins nor opens a "
                                       "write request (0: any)", 0)

    def validate(self, path: str) -> None:
        _positive(self, path, "hit_latency_cycles", "size_bytes", "associativity", "tags_per_cycle",
                  "miss_lines_per_cycle")
        if self.atomic_packet_cycles < 0:
            raise ConfigError(f"{path}.atomic_packet_cycles: must be >= 0 (0: off), got {self.atomic_packet_cycles}")
        if self.store_merge_max_lines < 0:
            raise ConfigError(f"{path}.store_merge_max_lines: must be >= 0 (0: any), got {self.store_merge_max_lines}")
        if self.store_merge_window_cycles < 0:
            raise ConfigError(f"{path}.store_merge_window_cycles: must be >= 0 (0: off), got "
                              f"{self.store_merge_window_cycles}")
        if self.store_beats_per_cycle < 0:
            raise ConfigError(f"{path}.store_beats_per_cycle: must be >= 0 (0: off), got {self.store_beats_per_cycle}")
        _power_of_two(self, path, "line_bytes", "sector_bytes")
        if self.line_bytes != 128 or self.sector_bytes != 32:
            raise ConfigError(f"{path}.line_bytes/sector_bytes: the coalescer models 128 B lines of 32 B "
                              f"sectors, got {self.line_bytes}/{self.sector_bytes}")
        if self.size_bytes % (self.line_bytes * self.associativity):
            raise ConfigError(f"{path}.size_bytes: {self.size_bytes} is not a multiple of line_bytes x "
                              f"associativity ({self.line_bytes * self.associativity})")


@dataclass(frozen=True, kw_only=True)
class ConstCacheSpec:
    """The per-SM constant cache: broadcasts one address per cycle to the warp."""

    hit_latency_cycles: int = param("cycles: unloaded constant-cache hit latency")
    size_bytes: int = param("bytes of constant cache per SM", 8192)
    line_bytes: int = param("bytes per line", 64)
    associativity: int = param("ways per set", 4)
    addresses_per_cycle: int = param("distinct addresses served per cycle (divergent ones serialise)", 1)
    fill_bytes: int = param("bytes one miss brings in from L2, aligned (the sectors of the block that were not "
                            "asked for come with the one that was)", 32)

    def validate(self, path: str) -> None:
        _positive(self, path, "hit_latency_cycles", "size_bytes", "associativity", "addresses_per_cycle")
        _power_of_two(self, path, "line_bytes", "fill_bytes")
        if self.fill_bytes < 32:
            raise ConfigError(f"{path}.fill_bytes: {self.fill_bytes} is below one 32-byte sector")
        if self.size_bytes % (self.line_bytes * self.associativity):
            raise ConfigError(f"{path}.size_bytes: not a multiple of line_bytes x associativity")


@dataclass(frozen=True, kw_only=True)
class L2Spec:
    """The shared L2: partitions of slices, sectored, write-back; the point of coherence for atomics.

    Latencies are SM cycles (the H100's L2 chase measures the same SM cycles at 1590 and 1980 MHz: the path
    is mostly the SM's and the crossbar's); throughputs are L2 cycles at ``clock_mhz`` (the slices run at
    their own clock: 1705 MHz on the H100 whatever the SM clock)."""

    size_bytes: int = param("bytes of L2 over all slices")
    slices: int = param("L2 slices (each with its own tags, MSHRs and port)")
    partitions: int = param("partitions; an SM reaches the other partition's slices at the far latency", 1)
    clock_mhz: float = param("MHz of the L2 slices (0: the SM clock)", 0.0)
    hit_latency_near_cycles: int = param("SM cycles: unloaded L2 hit load-to-use latency, near partition")
    hit_latency_far_cycles: int = param("SM cycles: unloaded L2 hit load-to-use latency, far partition")
    line_bytes: int = param("bytes per line", 128)
    sector_bytes: int = param("bytes per sector", 32)
    associativity: int = param("ways per set", 16)
    mshrs_per_slice: int = param("outstanding missed sectors per slice", 256)
    requests_per_cycle_per_slice: float = param(
        "L2 cycles: requests (tag lookups: one line's sectors from one SM) a slice takes per L2 cycle", 1.0)
    sectors_per_cycle_per_slice: float = param("L2 cycles: sectors of data a slice reads or writes per cycle",
                                               2.0)
    write_beat_cycles: float = param("L2 cycles a slice spends per beat of a write (a beat per sector written, "
                                     "and one for the byte mask of a line with a sector written only in "
                                     "part); while the slice is busy the SM keeps the line's L1 line, so "
                                     "a busy slice pushes back on the SMs' stores; 0: a write costs what a "
                                     "read of its sectors does, and leaves the SM at once", 0.0)
    dirty_limit_bytes: int = param("bytes of dirty data the L2 keeps (over all slices, an equal share each); a "
                                   "write beyond it writes back the slice's line dirtied longest ago (it "
                                   "stays valid, clean), so long store streams reach DRAM during the kernel; "
                                   "0: no limit (dirty data is written back only when evicted)", 0)
    partition_copies: bool = param("a read of a line homed in the other partition leaves a copy in a slice of "
                                   "the reader's partition (the slice at the same place there): a later read "
                                   "from that partition is served there at the near latency, without a fabric "
                                   "trip; a write or atomic drops the copies; the copies take L2 capacity", False)
    dram_fetch_bytes: int = param("bytes an L2 miss reads from DRAM: 32, the sector alone, or 64, the sector and "
                                  "the other of its aligned pair (a burst of its own, unless the request asks "
                                  "for that sector too or the slice holds it)", 32)
    atomic_request_cycles: float = param(
        "L2 cycles a slice spends on one atomic request without a result (RED: one lane per word of a sector)",
        1.0)
    atomic_return_request_cycles: float = param("the same for an atomic that returns its result (ATOM, CAS)",
                                                1.0)
    atomic_words_per_cycle: float = param("distinct words of one request the slice's atomic unit updates per "
                                          "L2 cycle (RED)", 4.0)
    atomic_return_words_per_cycle: float = param("the same for atomics that return their result", 4.0)
    atomic_same_address_cycles: float = param(
        "L2 cycles between two integer (or CAS, exch) atomics on one address: lanes on one word serialise", 2.0)
    atomic_same_address_float_cycles: float = param("the same for floating-point atomics (add, min, max)", 2.0)
    atomic_same_sector_joins: bool = param(
        "an atomic request on the sector of the slice's previous atomic request costs the slice its words only "
        "(atomic_(return_)words_per_cycle), not atomic_(return_)request_cycles (the lookup of a sector the "
        "slice's atomic unit does not hold): one "
        "lane a warp on one address runs at atomic_same_address_cycles, ATOM as RED; False: every request pays "
        "the lookup", False)

    def validate(self, path: str) -> None:
        _positive(self, path, "size_bytes", "slices", "partitions", "hit_latency_near_cycles",
                  "hit_latency_far_cycles", "associativity", "mshrs_per_slice", "requests_per_cycle_per_slice",
                  "sectors_per_cycle_per_slice", "atomic_request_cycles", "atomic_return_request_cycles",
                  "atomic_words_per_cycle", "atomic_return_words_per_cycle", "atomic_same_address_cycles",
                  "atomic_same_address_float_cycles")
        if self.write_beat_cycles < 0:
            raise ConfigError(f"{path}.write_beat_cycles: must be >= 0 (0: off), got {self.write_beat_cycles}")
        if self.dram_fetch_bytes not in (32, 64):
            raise ConfigError(f"{path}.dram_fetch_bytes: 32 or 64, got {self.dram_fetch_bytes}")
        if self.dirty_limit_bytes < 0:
            raise ConfigError(f"{path}.dirty_limit_bytes: must be >= 0 (0: no limit), got {self.dirty_limit_bytes}")
        if 0 < self.dirty_limit_bytes < self.slices * self.sector_bytes:
            # each slice's share is whole sectors: a share of 0 would be no limit at all
            raise ConfigError(f"{path}.dirty_limit_bytes: {self.dirty_limit_bytes} B is less than a "
                              f"{self.sector_bytes} B sector for each of the {self.slices} slices (0: no limit)")
        _power_of_two(self, path, "line_bytes", "sector_bytes")
        if self.line_bytes != 128 or self.sector_bytes != 32:
            raise ConfigError(f"{path}.line_bytes/sector_bytes: expected 128/32, got "
                              f"{self.line_bytes}/{self.sector_bytes}")
        if self.slices % self.partitions:
            raise ConfigError(f"{path}.slices: {self.slices} slices do not split into {self.partitions} partitions")
        if self.size_bytes % (self.slices * self.line_bytes * self.associativity):
            raise ConfigError(f"{path}.size_bytes: {self.size_bytes} is not a multiple of slices x line_bytes x "
                              f"associativity ({self.slices * self.line_bytes * self.associativity})")
        if self.hit_latency_far_cycles < self.hit_latency_near_cycles:
            raise ConfigError(f"{path}.hit_latency_far_cycles: {self.hit_latency_far_cycles} is below the near "
                              f"latency {self.hit_latency_near_cycles}")
        if self.clock_mhz < 0:
            raise ConfigError(f"{path}.clock_mhz: must be >= 0 (0: the SM clock), got {self.clock_mhz}")

    def peak_bytes_per_sm_cycle(self, sm_clock_mhz: float) -> float:
        """Bytes all slices read or write per SM cycle at their sustained data rate."""
        l2_mhz = self.clock_mhz or sm_clock_mhz
        return self.slices * self.sectors_per_cycle_per_slice * self.sector_bytes * l2_mhz / sm_clock_mhz


@dataclass(frozen=True, kw_only=True)
class InterconnectSpec:
    """The crossbar between SMs and L2 slices (SM cycles)."""

    latency_cycles: int = param("SM cycles: one-way traversal, SM to slice or back")
    bytes_per_cycle_per_port: float = param("bytes per SM cycle through one SM's port (L2 data in, store "
                                            "data out)", 64.0)

    def validate(self, path: str) -> None:
        _positive(self, path, "latency_cycles", "bytes_per_cycle_per_port")


@dataclass(frozen=True, kw_only=True)
class DramTimings:
    """Datasheet timings of a DRAM standard in DRAM clocks (CK), at ``nominal_data_rate_mtps``."""

    nominal_data_rate_mtps: int = param("MT/s per pin the timings below are given for")
    tCK_ps: int = param("ps: clock period at the nominal rate")
    nBL: int = param("CK: one burst on the data bus")
    nCL: int = param("CK: read command to first data")
    nCWL: int = param("CK: write command to first data")
    nRCD: int = param("CK: activate to read")
    nRCDW: int = param("CK: activate to write")
    nRP: int = param("CK: precharge to activate")
    nRAS: int = param("CK: activate to precharge")
    nRC: int = param("CK: activate to activate, same bank")
    nRTP: int = param("CK: read to precharge")
    nWR: int = param("CK: end of write data to precharge (write recovery)")
    nCCD_S: int = param("CK: column to column, different bank group")
    nCCD_L: int = param("CK: column to column, same bank group")
    nRRD_S: int = param("CK: activate to activate, different bank group")
    nRRD_L: int = param("CK: activate to activate, same bank group")
    nFAW: int = param("CK: window holding at most four activates")
    nWTR_S: int = param("CK: end of write data to read, different bank group")
    nWTR_L: int = param("CK: end of write data to read, same bank group")
    nRTW: int = param("CK: read to write turnaround")
    nREFI: int = param("CK: refresh interval (each bank is refreshed once per interval)")
    nRFCpb: int = param("CK: per-bank refresh duration (REFpb / REFSB)")

    def validate(self, path: str) -> None:
        _positive(self, path, *[f.name for f in dataclasses.fields(self)])
        if self.nRC < self.nRAS:
            raise ConfigError(f"{path}.nRC: {self.nRC} is below nRAS {self.nRAS}")
        if self.nCCD_L < self.nCCD_S:
            raise ConfigError(f"{path}.nCCD_L: {self.nCCD_L} is below nCCD_S {self.nCCD_S}")
        if self.nRFCpb >= self.nREFI:
            raise ConfigError(f"{path}.nRFCpb: {self.nRFCpb} leaves no time between refreshes "
                              f"(nREFI {self.nREFI})")

    def at_data_rate(self, data_rate_mtps: float, beats_per_clock: int) -> "DramTimings":
        """The same datasheet in clocks of a part run at ``data_rate_mtps``: each timing keeps its
        nanoseconds (rounded up to whole clocks), the burst keeps its clocks."""
        tck_ps = beats_per_clock * 1e6 / data_rate_mtps
        scale = self.tCK_ps / tck_ps
        out = {f.name: max(1, math.ceil(getattr(self, f.name) * scale - 1e-9)) for f in dataclasses.fields(self)}
        out["nominal_data_rate_mtps"] = int(round(data_rate_mtps))
        out["tCK_ps"] = max(1, int(round(tck_ps)))
        out["nBL"] = self.nBL
        out["nCCD_S"] = max(self.nBL, out["nCCD_S"])
        return DramTimings(**out)


@dataclass(frozen=True, kw_only=True)
class DramOrganisation:
    """Organisation of one channel of a DRAM standard (pseudo-channels are the independent unit)."""

    pseudo_channels_per_channel: int = param("independent pseudo-channels per channel")
    bus_width_bits: int = param("data pins per pseudo-channel")
    burst_length: int = param("beats per burst")
    beats_per_clock: int = param("data beats per CK (2: DDR)")
    bank_groups: int = param("bank groups per pseudo-channel")
    banks_per_group: int = param("banks per bank group")
    row_bytes: int = param("bytes per row (page) of one bank")

    def validate(self, path: str) -> None:
        _positive(self, path, *[f.name for f in dataclasses.fields(self)])

    @property
    def burst_bytes(self) -> int:
        return self.bus_width_bits // 8 * self.burst_length

    @property
    def banks(self) -> int:
        return self.bank_groups * self.banks_per_group


@dataclass(frozen=True, kw_only=True)
class DramStandard:
    """A DRAM standard as data: organisation and datasheet timings (``gpusim/config/dram/<name>.toml``)."""

    name: str = param("standard name, e.g. 'HBM3'")
    source: str = param("where the numbers come from")
    organisation: DramOrganisation = param("organisation of one channel")
    timing: DramTimings = param("datasheet timings in CK")

    def validate(self, path: str) -> None:
        if self.organisation.burst_bytes != 32:
            raise ConfigError(f"{path}.organisation: a burst is {self.organisation.burst_bytes} B; the model "
                              f"maps one 32 B sector to one burst")
        if self.timing.nBL * self.organisation.beats_per_clock != self.organisation.burst_length:
            raise ConfigError(f"{path}.timing.nBL: {self.timing.nBL} CK x {self.organisation.beats_per_clock} "
                              f"beats/CK != burst_length {self.organisation.burst_length}")

    @classmethod
    def load(cls, name: str, path: str = "memory.dram.standard") -> "DramStandard":
        file = DRAM_DIR / f"{name.lower()}.toml"
        if not file.is_file():
            known = sorted(p.stem for p in DRAM_DIR.glob("*.toml"))
            raise ConfigError(f"{path}: unknown DRAM standard {name!r}; known: {', '.join(known)}")
        return _load_standard_file(str(file))


@functools.lru_cache(maxsize=None)
def _load_standard_file(file: str) -> DramStandard:
    try:
        table = tomllib.loads(Path(file).read_text())
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{file}: {e}") from None
    return _build(DramStandard, table, file)


@dataclass(frozen=True, kw_only=True)
class DramSpec:
    """The GPU's DRAM: a standard (by name) times a channel count, at a data rate, with named policies.

    The address mapping and the row policy are names the DRAM model checks where they are registered
    (:mod:`gpusim.memory.dram`), when the memory system is built.
    """

    standard: str = param("DRAM standard: a file gpusim/config/dram/<standard>.toml")
    channels: int = param("channels (each has the standard's pseudo-channels)")
    data_rate_mtps: float = param("MT/s per pin")
    latency_ns: float = param("ns an L2 miss adds to an L2 hit, unloaded (controller and DRAM core, row "
                              "closed): a DRAM pointer chase minus an L2 one")
    access_bytes: int = param("bytes DRAM reads for one missed sector: 32, or 64 (the aligned pair of "
                              "sectors, both filled into L2)", 32)
    write_queue_entries: int = param("writes each pseudo-channel buffers before it drains them as one batch "
                                     "(write-drain mode: one bus turnaround per batch); 0: every write is "
                                     "scheduled when it arrives, among the reads", 0)
    address_mapping: str = param("address-mapping name, registered in gpusim.memory.dram.mapping",
                                 "line_interleave")
    row_policy: str = param("'open' (keep the row open) or 'closed' (auto-precharge); checked by the DRAM "
                            "model (gpusim.memory.dram.controller.ROW_POLICIES)", "open")
    table: DramStandard = dataclasses.field(default=None, init=False, compare=False, repr=False)

    def validate(self, path: str) -> None:
        _positive(self, path, "channels", "data_rate_mtps", "latency_ns")
        if self.write_queue_entries < 0:
            raise ConfigError(f"{path}.write_queue_entries: 0 or more, got {self.write_queue_entries}")
        if self.access_bytes not in (32, 64):
            raise ConfigError(f"{path}.access_bytes: 32 or 64, got {self.access_bytes}")
        object.__setattr__(self, "table", DramStandard.load(self.standard, f"{path}.standard"))

    def __post_init__(self) -> None:
        # Built directly in Python (not through from_dict): check now, under the preset's usual path.
        if self.table is None:
            self.validate("memory.dram")

    @property
    def pseudo_channels(self) -> int:
        return self.channels * self.table.organisation.pseudo_channels_per_channel

    @property
    def timings(self) -> DramTimings:
        """Datasheet timings in CK at this part's data rate."""
        return self.table.timing.at_data_rate(self.data_rate_mtps, self.table.organisation.beats_per_clock)

    @property
    def clock_mhz(self) -> float:
        return self.data_rate_mtps / self.table.organisation.beats_per_clock

    @property
    def peak_bytes_per_s(self) -> float:
        org = self.table.organisation
        return self.pseudo_channels * org.bus_width_bits / 8 * self.data_rate_mtps * 1e6


@dataclass(frozen=True, kw_only=True)
class MemorySpec:
    """The whole memory system of one GPU (the ``[memory]`` table of a preset)."""

    shared: SharedMemorySpec = param("shared memory")
    l1: L1Spec = param("per-SM L1 data cache")
    const: ConstCacheSpec = param("per-SM constant cache")
    l2: L2Spec = param("shared L2")
    interconnect: InterconnectSpec = param("SM <-> L2 crossbar")
    dram: DramSpec = param("DRAM")

    def validate(self, path: str) -> None:
        icnt_round_trip = 2 * self.interconnect.latency_cycles
        slice_latency = self.l2.hit_latency_near_cycles - self.l1.hit_latency_cycles - icnt_round_trip
        if slice_latency <= 0:
            raise ConfigError(f"{path}.l2.hit_latency_near_cycles: {self.l2.hit_latency_near_cycles} leaves no "
                              f"time for the slice after L1 ({self.l1.hit_latency_cycles}) and two interconnect "
                              f"traversals ({icnt_round_trip})")

    @classmethod
    def from_dict(cls, d: dict, path: str = "memory") -> "MemorySpec":
        """Build and check a spec from a ``[memory]`` table; errors name the dotted field."""
        return _build(cls, d, path)
