"""GPU specification dataclasses: :class:`SmSpec` (one streaming multiprocessor), :class:`SchedulerSpec`
(the warp scheduler's policy and parameters) and :class:`GpuConfig` (the whole GPU as the timing model sees
it, with the memory system's :class:`~gpusim.config.memory.MemorySpec`).

All are frozen plain data: a configuration is a value, built once (usually from a TOML preset by
:func:`gpusim.config.load_gpu`) and never mutated; :meth:`GpuConfig.replace` makes a changed copy and re-runs
the validation.  Each field is declared with :func:`param` (gem5 style): its type, default and a one-line
description with the unit sit on one line, and ``GpuConfig.describe()`` prints them.

Validation runs in ``__post_init__``, so a config built directly in Python is checked the same way as one
read from a file: wrong types, out-of-range values and inconsistent fields raise
:class:`gpusim.errors.ConfigError` naming the dotted field (``sm.max_warps``); the loader adds the file name.
Names that select a registered component (a warp-scheduling policy, a DRAM address mapping or row policy,
an instruction schedule) are checked by the registry that holds them, when a simulation is built: the
config keeps no copy of those lists and imports nothing above it.
"""
from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass
from typing import Any

from gpusim.config.fields import (FrozenMap, apply_overrides, check_field_types, param, plain_copy, require,
                                  require_positive)
from gpusim.config.memory import MemorySpec
from gpusim.errors import ConfigError
from isa.units import LatencyClass, Unit


@dataclass(frozen=True, kw_only=True)
class SmSpec:
    """One streaming multiprocessor: the resources that limit how many blocks can be resident at once, and
    its division into sub-partitions (SMSPs).

    Models the per-SM limits of ``cudaOccupancyMaxActiveBlocksPerMultiprocessor``: thread, warp and block
    slots; a register file allocated per warp in ``register_alloc_unit`` steps from one of
    ``register_partitions`` equal banks; shared memory allocated in ``shared_alloc_unit_bytes`` steps plus a
    per-block reservation, out of a carve-out of the unified L1/shared array.
    Simplifies: every SM of the GPU is identical, and the register banks are those of the SMSPs (a warp's
    registers all live in one bank), as the CUDA occupancy calculator assumes.
    """

    count: int = param("SMs on the GPU")
    subpartitions: int = param("SM sub-partitions (SMSPs), one warp scheduler each", 4)
    warp_size: int = param("threads per warp", 32)
    max_threads: int = param("resident threads per SM")
    max_warps: int = param("resident warps per SM")
    max_blocks: int = param("resident blocks (CTAs) per SM")
    max_threads_per_block: int = param("threads per block", 1024)
    registers: int = param("32-bit registers per SM")
    register_partitions: int = param(
        "register-file banks per SM; a warp's registers come from one bank (4 = one per SMSP)", 4)
    register_alloc_unit: int = param("registers: per-warp register allocation granularity", 256)
    max_registers_per_thread: int = param("registers per thread", 255)
    max_registers_per_block: int = param("registers per block", 65536)
    shared_bytes_per_sm: int = param("bytes: shared memory per SM at the largest carve-out")
    shared_bytes_per_block: int = param("bytes: shared memory per block without the opt-in attribute", 49152)
    shared_bytes_per_block_optin: int = param("bytes: shared memory per block with the opt-in attribute")
    shared_alloc_unit_bytes: int = param("bytes: shared-memory allocation granularity per block", 128)
    shared_reserved_per_block_bytes: int = param(
        "bytes: shared memory the driver reserves per block (1 KB on cc >= 8.0)", 1024)
    shared_carveout_kb: tuple[int, ...] = param("KB: selectable shared-memory carve-outs, increasing")
    l1_shared_bytes: int = param("bytes: unified L1 + shared-memory array per SM")
    # The driver's carve-out when the kernel states no preference (gpusim.timing.occupancy
    # .driver_carveout_bytes); defaults measured on the H100, driver 580.159.04 (tests/golden/h100/micro/).
    carveout_blocks_factor_no_shared: int = param(
        "driver carve-out: a kernel without shared memory gets room for this many times the blocks that "
        "warps, registers and block slots allow (capped at max_blocks)", 4)
    carveout_blocks_factor: int = param(
        "driver carve-out: a kernel with shared memory gets room for this many times those blocks", 2)
    carveout_single_above_threads: int = param(
        "driver carve-out: blocks of more threads than this (or one resident block) get room for those "
        "blocks only", 896)
    carveout_extra_max_kb: int = param(
        "KB: driver carve-out: the largest carve-out the driver takes to give room to blocks beyond those "
        "that warps, registers and block slots allow", 132)
    max_barriers_per_block: int = param("named barriers a block may use (bar.sync 0..15)", 16)
    barriers_per_sm: int = param(
        "barrier slots per SM that limit resident blocks (cc >= 9.0); 0 = not a limit", 0)

    def __post_init__(self) -> None:
        self.validate("sm.")

    def validate(self, prefix: str = "sm.") -> None:
        """Raise :class:`ConfigError` naming the first wrong or inconsistent field."""
        check_field_types(self, prefix)
        require_positive(self, prefix, (
            "count", "subpartitions", "warp_size", "max_threads", "max_warps", "max_blocks",
            "max_threads_per_block", "registers", "register_partitions", "register_alloc_unit",
            "max_registers_per_thread", "max_registers_per_block", "shared_bytes_per_sm",
            "shared_bytes_per_block", "shared_bytes_per_block_optin", "shared_alloc_unit_bytes",
            "l1_shared_bytes", "max_barriers_per_block", "carveout_blocks_factor_no_shared",
            "carveout_blocks_factor", "carveout_single_above_threads"))
        p = prefix
        require(self.shared_reserved_per_block_bytes >= 0,
                f"{p}shared_reserved_per_block_bytes: must be >= 0, got {self.shared_reserved_per_block_bytes}")
        require(self.carveout_extra_max_kb >= 0,
                f"{p}carveout_extra_max_kb: must be >= 0, got {self.carveout_extra_max_kb}")
        require(self.barriers_per_sm >= 0, f"{p}barriers_per_sm: must be >= 0 (0 = not a limit), "
                f"got {self.barriers_per_sm}")
        require(self.max_warps * self.warp_size == self.max_threads,
                f"{p}max_threads: must equal max_warps * warp_size = {self.max_warps} * {self.warp_size} "
                f"= {self.max_warps * self.warp_size}, got {self.max_threads}")
        require(self.max_warps % self.subpartitions == 0,
                f"{p}max_warps: {self.max_warps} warps cannot be split evenly over "
                f"{self.subpartitions} subpartitions")
        require(self.registers % self.register_partitions == 0,
                f"{p}registers: {self.registers} cannot be split evenly over register_partitions "
                f"{self.register_partitions}")
        for small, big in (("max_threads_per_block", "max_threads"), ("max_registers_per_block", "registers"),
                           ("shared_bytes_per_block", "shared_bytes_per_block_optin"),
                           ("shared_bytes_per_block_optin", "shared_bytes_per_sm"),
                           ("shared_bytes_per_sm", "l1_shared_bytes")):
            require(getattr(self, small) <= getattr(self, big),
                    f"{p}{small}: {getattr(self, small)} exceeds {big} {getattr(self, big)}")
        steps = self.shared_carveout_kb
        require(len(steps) > 0, f"{p}shared_carveout_kb: needs at least one carve-out step")
        require(steps[0] >= 0, f"{p}shared_carveout_kb: steps must be >= 0, got {list(steps)}")
        require(all(a < b for a, b in zip(steps, steps[1:])),
                f"{p}shared_carveout_kb: steps must be strictly increasing, got {list(steps)}")
        require(steps[-1] * 1024 == self.shared_bytes_per_sm,
                f"{p}shared_carveout_kb: the largest step ({steps[-1]} KB = {steps[-1] * 1024} B) must equal "
                f"shared_bytes_per_sm ({self.shared_bytes_per_sm} B)")

    @property
    def warps_per_subpartition(self) -> int:
        """Resident warp slots of one SMSP (warps are statically bound to an SMSP)."""
        return self.max_warps // self.subpartitions

    @property
    def registers_per_partition(self) -> int:
        """32-bit registers in one register-file bank."""
        return self.registers // self.register_partitions


@dataclass(frozen=True, kw_only=True)
class SchedulerSpec:
    """The warp scheduler of each SM sub-partition: which policy picks among the eligible warps, and that
    policy's parameters (the ``[scheduler]`` table).

    The policy name is checked where the policies are registered (:mod:`gpusim.timing.schedulers`), when a
    simulation is built; parameters a policy does not use are ignored by it.
    """

    policy: str = param("warp-scheduling policy registered in gpusim.timing.schedulers ('gto', 'lrr', "
                        "'two_level', ...)", "gto")
    active_pool_warps: int = param("two_level: warps per sub-partition in the active pool that may issue", 8)

    def __post_init__(self) -> None:
        self.validate("scheduler.")

    def validate(self, prefix: str = "scheduler.") -> None:
        check_field_types(self, prefix)
        require_positive(self, prefix, ("active_pool_warps",))


@dataclass(frozen=True, kw_only=True)
class GpuConfig:
    """A whole GPU as the timing model sees it: SM resources, per-pipe issue intervals, fixed and base
    latencies, launch overheads, the warp scheduler (policy and parameters) and the memory system's spec.

    Simplifies: one clock for the whole chip (the SM clock; memory timings are converted by the memory
    system); latencies of variable-latency classes are unloaded floors, the memory system computes the
    real ones under load.
    """

    name: str = param("short name, e.g. 'h100'")
    description: str = param("one line: product, variant, where the numbers come from")
    clock_mhz: float = param("MHz: SM clock used to convert cycles to time")
    sm: SmSpec = param("streaming multiprocessor resources")
    issue_interval_cycles: Mapping[str, int] = param(
        "cycles between two issues to a pipe from one SMSP, keyed by isa.units.Unit value")
    latency_cycles: Mapping[str, int] = param(
        "cycles until the result is readable, keyed by isa.units.LatencyClass value (variable ones: unloaded)")
    imad_issue_interval_cycles: int = param("cycles between two integer multiplies from one SMSP", 2)
    kernel_launch_cycles: int = param(
        "SM cycles from kernel launch to the first block dispatch (the part paid at the SM clock)")
    kernel_launch_ns: float = param(
        "ns from kernel launch to the first block dispatch paid at a fixed time whatever the SM clock; "
        "added to kernel_launch_cycles at clock_mhz", 0.0)
    block_launch_cycles: int = param("cycles from dispatching a block to an SM to its first warp issuing")
    block_dispatch_interval_cycles: float = param(
        "cycles between two block dispatches of the GPU-wide block scheduler (its rate is 1/this)", 0.0)
    block_completion_interval_cycles: float = param(
        "cycles the GPU-wide block scheduler needs per retiring block; the next block for the freed slot, "
        "and the kernel's end, wait for it", 0.0)
    instruction_schedule: str = param(
        "issue order of each basic block: 'ptx' (program order) or 'hoist' (ptxas-like: loads and their "
        "address arithmetic first); checked by gpusim.timing.decode", "hoist")
    loop_unroll_factor: int = param(
        "how many trips of a short counted loop ptxas unrolls into one body, their registers renamed, so that "
        "the hoisting schedule issues all their loads first (1: none; gpusim.timing.loop_unroll)", 1)
    merge_vector_accesses: bool = param(
        "issue neighbouring scalar shared accesses as the one vector access ptxas makes of them "
        "(LDS.64/.128, STS.64/.128; gpusim.timing.vector_merge)", False)
    aggregate_warp_atomics: bool = param(
        "send one atomic per warp for the integer atomics ptxas aggregates across a warp (REDUX/POPC + one "
        "RED/ATOM by a leader lane, for a warp-uniform address; isa.aggregate)", False)
    fold_constant_operands: bool = param(
        "issue no instruction for an ld.const at a fixed address whose readers are all arithmetic: ptxas makes "
        "it a constant-bank operand of them (gpusim.timing.const_fold)", False)
    fuse_alu_instructions: bool = param(
        "issue integer add chains, logic trees, shift-adds, mul.wide + add.s64 and register copies as ptxas "
        "issues them: one IADD3/LOP3/LEA/IMAD(.WIDE) for up to three inputs, nothing for a copy "
        "(gpusim.timing.fusion)", False)
    fma_pipe_split: bool = param(
        "the FMA pipe is two halves, FMA-heavy and FMA-lite (Ampere GA10x, Hopper): FP32 arithmetic issues to "
        "FMA-lite, or to FMA-heavy when FMA-lite is busy and no integer multiply waits for FMA-heavy, "
        "at twice issue_interval_cycles.fp32 on either; integer multiplies (IMAD) only to the heavy one; a 32-bit "
        "integer add, subtract or shift by an immediate to the ALU pipe or the heavy half, fixed per PC as ptxas "
        "balances them (IADD3/SHF or IMAD.IADD/VIADD/IMAD.SHL), at imad_issue_interval_cycles on the heavy half; "
        "False: one FMA pipe, all integer work on the ALU pipe (gpusim.timing.decode)", False)
    if_convert_max_instructions: int = param(
        "issue a forward conditional branch's body of at most this many instructions (one basic block) as the "
        "predicated instructions ptxas makes of it, for every warp, without the branch (gpusim.timing.ifconvert); "
        "0: follow the PTX's branch", 0)
    expand_integer_division: bool = param(
        "issue each integer div/rem as the SASS sequence ptxas makes of it (17-23 instructions for 32 bits: "
        "I2F, MUFU.RCP, F2I on the XU, then IMAD/ISETP corrections, one dependent chain; a subroutine call for "
        "64 bits; gpusim.timing.divrem)", False)
    lsu_queue_entries: int = param(
        "memory instructions a sub-partition may have issued that wait for the SM's LSU/MIO pipe (a warp goes "
        "on issuing past them; the registers they read stay busy until the pipe takes them); 0: none, a memory "
        "instruction issues only when the pipe is free", 0)
    guard_latency_cycles: int = param(
        "cycles from the issue of an instruction that writes a predicate to the issue of an instruction that the "
        "predicate guards (``@p``; branches excepted); a predicate read as an operand (``selp``) waits only the "
        "writer's latency; 0: a guard waits the writer's latency too", 0)
    barrier_arrive_cycles: int = param(
        "SM cycles the barrier unit takes to count one warp's arrival at bar.sync (arrivals are counted one "
        "after another; the release waits for the last count); 0: counting is free", 0)
    scheduler: SchedulerSpec = param("the warp scheduler: policy and parameters", SchedulerSpec())
    memory: MemorySpec = param("memory-system spec")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the first wrong or inconsistent field."""
        check_field_types(self, "")
        require(self.clock_mhz > 0, f"clock_mhz: must be > 0, got {self.clock_mhz}")
        require(self.kernel_launch_cycles >= 0,
                f"kernel_launch_cycles: must be >= 0, got {self.kernel_launch_cycles}")
        require(self.kernel_launch_ns >= 0, f"kernel_launch_ns: must be >= 0, got {self.kernel_launch_ns}")
        require(self.block_launch_cycles >= 0,
                f"block_launch_cycles: must be >= 0, got {self.block_launch_cycles}")
        for name in ("block_dispatch_interval_cycles", "block_completion_interval_cycles", "lsu_queue_entries",
                     "barrier_arrive_cycles", "guard_latency_cycles"):
            require(getattr(self, name) >= 0, f"{name}: must be >= 0, got {getattr(self, name)}")
        require(self.if_convert_max_instructions >= 0,
                f"if_convert_max_instructions: must be >= 0 (0: none), got {self.if_convert_max_instructions}")
        require(self.loop_unroll_factor >= 1,
                f"loop_unroll_factor: must be >= 1 (1: no unrolling), got {self.loop_unroll_factor}")
        require(self.imad_issue_interval_cycles > 0,
                f"imad_issue_interval_cycles: must be > 0, got {self.imad_issue_interval_cycles}")
        _check_keys("issue_interval_cycles", self.issue_interval_cycles, [u.value for u in Unit], minimum=1)
        # "none" (no register result) has latency 0 by definition and need not be written in a preset.
        _check_keys("latency_cycles", self.latency_cycles,
                    [c.value for c in LatencyClass if c is not LatencyClass.NONE], minimum=0,
                    optional=(LatencyClass.NONE.value,))

    def latency(self, latency_class: LatencyClass | str) -> int:
        """Cycles until the result of an instruction of this latency class can be read."""
        key = LatencyClass(latency_class).value
        return self.latency_cycles.get(key, 0)

    def issue_interval(self, unit: Unit | str) -> int:
        """Cycles between two issues to this pipe from one SMSP."""
        return self.issue_interval_cycles[Unit(unit).value]

    @property
    def kernel_launch_latency_cycles(self) -> int:
        """SM cycles from kernel launch to the first block dispatch: ``kernel_launch_cycles`` plus
        ``kernel_launch_ns`` at ``clock_mhz`` (rounded to a whole cycle)."""
        return self.kernel_launch_cycles + int(round(self.kernel_launch_ns * self.clock_mhz / 1000.0))

    def cycles_to_ns(self, cycles: float) -> float:
        """Convert SM cycles to nanoseconds at ``clock_mhz``."""
        return cycles * 1000.0 / self.clock_mhz

    def to_dict(self) -> dict[str, Any]:
        """The config as plain nested dicts/lists, in the shape of a preset TOML file."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = plain_copy(value)
        return out

    def replace(self, **dotted_overrides: Any) -> "GpuConfig":
        """A copy with fields changed, e.g. ``cfg.replace(**{"sm.count": 4, "latency_cycles.fma": 5})``;
        the result is validated like a loaded preset."""
        table = apply_overrides(self.to_dict(), dotted_overrides, source="<overrides>")
        return config_from_dict(table, source=f"{self.name} with overrides")

    @classmethod
    def describe(cls) -> str:
        """The documented fields of :class:`GpuConfig`, :class:`SmSpec` and :class:`SchedulerSpec`, one per
        line (the memory system's: :mod:`gpusim.config.memory`)."""
        lines = []
        for spec, prefix in ((cls, ""), (SmSpec, "sm."), (SchedulerSpec, "scheduler.")):
            hints = typing.get_type_hints(spec)
            for f in dataclasses.fields(spec):
                default = "" if f.default is MISSING else f" = {f.default!r}"
                hint = getattr(hints[f.name], "__name__", str(hints[f.name]))
                lines.append(f"{prefix}{f.name}: {hint}{default}  # {f.metadata.get('doc', '')}")
        return "\n".join(lines)


def _check_keys(name: str, table: Mapping[str, int], required: list[str], minimum: int,
                optional: tuple[str, ...] = ()) -> None:
    for key in table:
        require(key in required or key in optional,
                f"{name}.{key}: unknown key; expected {', '.join(required + list(optional))}")
    for key in required:
        require(key in table, f"{name}.{key}: missing")
    for key, value in table.items():
        require(value >= minimum, f"{name}.{key}: must be >= {minimum}, got {value}")


def _check_table_keys(table: Any, cls: type, prefix: str) -> None:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{prefix.rstrip('.') or 'config'}: expected a table, got {table!r}")
    known = {f.name: f for f in dataclasses.fields(cls)}
    for key in table:
        if key not in known:
            raise ConfigError(f"{prefix}{key}: unknown field; known fields: {', '.join(known)}")
    for name, f in known.items():
        if f.default is dataclasses.MISSING and name not in table:
            raise ConfigError(f"{prefix}{name}: missing ({f.metadata.get('doc', '')})")


def _int_table(table: Any, name: str) -> FrozenMap:
    if not isinstance(table, Mapping):
        raise ConfigError(f"{name}: expected a table of integers, got {table!r}")
    return FrozenMap(table)


def config_from_dict(table: Mapping[str, Any], source: str = "<dict>") -> GpuConfig:
    """Build and validate a :class:`GpuConfig` from a preset-shaped dict; errors are prefixed by
    ``source`` (the file name)."""
    try:
        _check_table_keys(table, GpuConfig, "")
        sm_table = table["sm"]
        _check_table_keys(sm_table, SmSpec, "sm.")
        sm_values = {k: tuple(v) if isinstance(v, list) else v for k, v in sm_table.items()}
        values = dict(table)
        values["sm"] = SmSpec(**sm_values)
        values["issue_interval_cycles"] = _int_table(table["issue_interval_cycles"], "issue_interval_cycles")
        values["latency_cycles"] = _int_table(table["latency_cycles"], "latency_cycles")
        sched = table.get("scheduler", {})
        if isinstance(sched, str):           # the short form: scheduler = "lrr"
            sched = {"policy": sched}
        _check_table_keys(sched, SchedulerSpec, "scheduler.")
        values["scheduler"] = SchedulerSpec(**sched)
        values["memory"] = MemorySpec.from_dict(table["memory"], path="memory")
        return GpuConfig(**values)
    except ConfigError as err:
        raise ConfigError(f"{source}: {err}") from None
