"""The seam between an SM and the memory system: :class:`MemoryRequest` and the :class:`MemoryModel` protocol.

The timing model's LSU front end (:mod:`gpusim.timing.lsu`) turns every memory instruction a warp executes
into one :class:`MemoryRequest`, once per kernel and before the first cycle (every lane's address is in the
trace): it resolves state-space offsets to physical addresses (:mod:`gpusim.memory.address_map`),
coalesces global and local lanes into sectors, and costs shared accesses in bank wavefronts.  A memory
model sees nothing of the trace: only requests, through the contract below.

The contract of a :class:`MemoryModel`
--------------------------------------

``begin(requests, launch)``
    Called once per kernel, before the first ``access``, with the request of every memory slot of the
    trace (the same object may stand for several slots: requests are values, shared where equal) and the
    :class:`LaunchResources` the launch fixed (``None``: the memory system alone, as in unit tests; then
    the spec's defaults apply).  A model may prime its state from them (the full memory system puts the
    kernel parameters in L2, as the launch writes them there, and sizes each SM's L1 by the carve-out) and
    must not keep per-slot state.  When the trace streams in chunks of blocks
    (:mod:`gpusim.functional.stream`), ``begin`` sees the first chunk's requests and ``admit`` the others'.

``admit(requests)``
    Called with the requests of each later chunk of a streamed trace, before any of them is accessed (at
    the simulated cycle the chunk's first block is dispatched, when the kernel is already running).  Whatever
    ``begin`` would have done with them, done now: so a trace timed chunk by chunk gives what it gives
    whole, as long as ``begin``'s priming of a request does not depend on when it happens.

``warm(now, sectors)``
    Only in a sampled simulation (:mod:`gpusim.timing.sampling`): global-memory sectors (byte address // 32)
    that SMs not simulated touched at about cycle ``now``; a model with shared caches puts them there as
    those SMs' misses would, without counting them.

``access(now, sm, request) -> (ready, busy)``
    One warp memory instruction issued on SM ``sm`` at SM cycle ``now``.  Calls come in nondecreasing
    ``now`` per SM, once per issued instruction; over all SMs in time order (the GPU steps its SMs in time
    order) except that, with an LSU queue (``lsu_queue_entries`` > 0), ``now`` is the cycle the SM's pipe
    takes the instruction, which may lie ahead of the GPU's time by the queue's backlog.  Returns:

    * ``ready`` (SM cycle, ``>= now``): for a load or an atomic that returns a value, the cycle its
      destination registers may be read (load-to-use); for a store, the cycle the memory system has
      accepted it (a warp's ``membar`` and its exit wait for its stores' ``ready``).
    * ``busy`` (SM cycles, ``>= 0``): how long from ``now`` the SM's memory path (the L1TEX/MIO port
      shared by its sub-partitions) takes no other memory instruction.

    A model must not change ``request``.

``counters() -> dict``
    Nsight-Compute-named totals (floats) of what the model modelled, plus optional tables (lists) under
    names that contain a dot before the metric (``dram.per_channel.bytes``).  Read after the last access.

:class:`gpusim.memory.system.MemorySystem` (caches, crossbar, DRAM) and
:class:`gpusim.memory.fixed_latency.FixedLatencyMemory` (unloaded latencies only) implement it.
"""
from __future__ import annotations

from typing import NamedTuple, Protocol, Sequence, runtime_checkable

from isa.units import MemSpace

# What a request does to memory (``MemoryRequest.op``); OP_NAMES are Nsight's ``op`` names for counters.
LOAD, STORE, ATOMIC = 0, 1, 2
OP_NAMES = ("ld", "st", "atom")
# MemoryRequest.atomic_flags
ATOMIC_RETURNS, ATOMIC_FLOAT = 1, 2
_FLOAT_TYPES = (".f16", ".bf16", ".f32", ".f64")


def atomic_flags_of(opcode: str, result_unread: bool = False) -> int:
    """``atomic_flags`` of a global atomic PTX mnemonic (``red.global.add.f32`` -> ATOMIC_FLOAT);
    ``result_unread``: an ``atom`` whose result nothing reads, which ptxas emits as ``RED`` (no ATOMIC_RETURNS)."""
    flags = 0 if opcode.startswith("red") or result_unread else ATOMIC_RETURNS
    if any(t in opcode for t in _FLOAT_TYPES):
        flags |= ATOMIC_FLOAT
    return flags


class MemoryRequest:
    """One warp's memory instruction as the memory system receives it.

    Fields (all plain ints, tuples and a :class:`MemSpace`; a request never changes once built):

    * ``space``: the resolved state space (never ``GENERIC``: a generic access is resolved per lane by the
      emulator; lanes of one instruction resolve to one space).
    * ``op``: :data:`LOAD`, :data:`STORE` or :data:`ATOMIC` (``atom`` and ``red``; an atomic counts as
      neither a load nor a store).
    * ``pc``: the static instruction (index into the kernel's instructions), for diagnostics.
    * ``active_lanes``: lanes that access memory (0: the guard was false everywhere; the instruction still
      passes through the LSU).
    * ``sectors``: the distinct 32-byte sectors (physical byte address // 32, ascending) the active lanes
      touch, for the spaces that reach the caches (global, local, const, param); ``()`` for shared.
    * ``lines``: distinct 128-byte lines among ``sectors`` for global and local (each costs one L1 tag
      lookup); 0 otherwise.
    * ``wavefronts``: shared: data-stage wavefronts the banks need (conflicts included, >= ``ideal_
      wavefronts``); global and local loads and stores: the L1 data-stage wavefronts by the same bank rule
      (the L1 shares the shared-memory SRAM: distinct words of different lines in one bank serialise);
      const and param: distinct addresses (the constant cache serves one per cycle); 0 otherwise.
    * ``ideal_wavefronts``: shared: the wavefronts without bank conflicts; 0 otherwise.
    * ``bypass_l1``: global and local: the access skips L1 (``.cg``/``.cs``/``.cv``/``.lu``, and atomics,
      which execute at L2).
    * ``atomics``: global atomics: ``(sector, byte address, lanes)`` per distinct address, ascending by
      address (lanes on one address serialise); ``()`` otherwise.
    * ``atomic_flags``: global atomics: ``ATOMIC_RETURNS`` (atom, cas: the result goes back; red does not)
      | ``ATOMIC_FLOAT`` (a floating-point operation: slower at the slice); 0 otherwise.
    * ``masked_lines``: global and local stores: bit ``i`` set when the ``i``-th of the request's lines
      (ascending) has a sector its lanes write only in part, so its data travels with a byte mask; 0
      otherwise.

    Invariants: ``len(sectors) == 0`` when ``active_lanes == 0``; ``lines <= len(sectors)``;
    ``ideal_wavefronts <= wavefronts``.  Equality is identity: equal requests of several slots are one
    object.
    """

    __slots__ = ("space", "op", "pc", "active_lanes", "sectors", "lines", "wavefronts", "ideal_wavefronts",
                 "bypass_l1", "atomics", "atomic_flags", "masked_lines")

    def __init__(self, space: MemSpace, op: int, pc: int, active_lanes: int, sectors: tuple[int, ...] = (),
                 lines: int = 0, wavefronts: int = 0, ideal_wavefronts: int = 0, bypass_l1: bool = False,
                 atomics: tuple[tuple[int, int, int], ...] = (), atomic_flags: int = 0,
                 masked_lines: int = 0) -> None:
        self.space = space
        self.op = op
        self.pc = pc
        self.active_lanes = active_lanes
        self.sectors = sectors
        self.lines = lines
        self.wavefronts = wavefronts
        self.ideal_wavefronts = ideal_wavefronts
        self.bypass_l1 = bypass_l1
        self.atomics = atomics
        self.atomic_flags = atomic_flags
        self.masked_lines = masked_lines

    def __repr__(self) -> str:
        return (f"MemoryRequest({self.space.value} {OP_NAMES[self.op]} pc {self.pc}, {self.active_lanes} lanes, "
                f"{len(self.sectors)} sectors, {self.lines} lines, {self.wavefronts} wavefronts)")


class LaunchResources(NamedTuple):
    """What a kernel launch fixes for the memory system besides its requests.

    ``l1_data_bytes``: the L1 data capacity of each SM, what the unified L1/shared array keeps after the
    shared-memory carve-out the driver picked for this launch
    (:func:`gpusim.timing.occupancy.driver_carveout_bytes`)."""

    l1_data_bytes: int


@runtime_checkable
class MemoryModel(Protocol):
    """What the timing model needs of a memory model (the module docstring is the contract)."""

    def begin(self, requests: Sequence[MemoryRequest], launch: LaunchResources | None = None) -> None:
        """A kernel starts; ``requests`` are all it will issue (by memory slot), ``launch`` what it fixed."""

    def admit(self, requests: Sequence[MemoryRequest]) -> None:
        """A later chunk of the kernel's trace arrives; ``requests`` are all it will issue."""

    def warm(self, now: int, sectors: Sequence[int], dirty: Sequence[int] = (), write_back: bool = True) -> None:
        """Sectors that SMs outside a sampled simulation touched at about ``now`` (``dirty``: those they
        wrote; ``write_back``: whether what they evict is written back)."""

    def access(self, now: int, sm: int, request: MemoryRequest) -> tuple[int, int]:
        """(ready cycle, cycles the SM's memory path is busy) of ``request`` issued at ``now`` on ``sm``."""

    def counters(self) -> dict:
        """Nsight-named totals (and tables) of what was modelled."""
