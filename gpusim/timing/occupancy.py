"""Theoretical occupancy: how many blocks of a kernel can be resident on one SM at once, and which resource
stops there.

:func:`occupancy` gives the same numbers as CUDA's ``cudaOccupancyMaxActiveBlocksPerMultiprocessor`` (the
algorithm of ``cuda_occupancy.h``, transcribed in ``shared/HARDWARE.md`` section 5) for any
:class:`~gpusim.config.GpuConfig`: the block scheduler uses it to decide how many blocks an SM takes, and
``gpusim occupancy`` prints it.  Every resource gives its own limit in blocks per SM; the smallest wins:

- **blocks**: ``sm.max_blocks`` block slots;
- **warps**: ``sm.max_warps`` warp slots, a block taking ``ceil(threads / warp_size)`` of them;
- **registers**: each warp takes ``regs * warp_size`` registers rounded up to ``sm.register_alloc_unit``;
  warps are allocated from ``sm.register_partitions`` equal banks (one per SMSP on real GPUs), and a warp
  cannot straddle two banks, so the leftover of each bank is lost;
- **shared_mem**: each block takes its static + dynamic shared memory plus the driver's per-block
  reservation, rounded up to ``sm.shared_alloc_unit_bytes``, out of the carve-out the launch runs with;
- **barriers** (cc >= 9.0 only): ``sm.barriers_per_sm`` slots, a block taking one per barrier it uses.

The carve-out is the driver's choice (:func:`driver_carveout_bytes`), as Nsight Compute reports it in
``launch__shared_mem_config_size`` and divides by in ``launch__occupancy_limit_shared_mem``: the driver sizes
shared memory for the blocks the kernel can keep resident (and some more), not the largest step, and the
L1 data cache gets the rest of the unified array (``Occupancy.l1_bytes_per_sm``).  The rule never leaves
fewer blocks resident than the largest carve-out would, so the choice moves the reported limit and the L1
size, not ``blocks_per_sm``.  A caller's preference (``carveout_kb``) replaces the rule.

Simplifies: the rule was measured on the H100 with driver 580.159.04 (279 microbenchmark launches and the
159 suite launches of ``tests/golden/h100/``); other GPUs use it with their own carve-out steps, unmeasured.
A preference is taken as given (or the next step that holds one block); the H100 follows 0/25/50/100% but
not the smaller percentages for 1024-thread blocks (``gpusim/hw/README.md``).  Thread-block clusters and
cooperative launches are not modelled.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gpusim.config import GpuConfig
from gpusim.errors import LaunchError

#: Resource names, in the order ``limiting`` lists them; they are the suffixes of Nsight Compute's
#: ``launch__occupancy_limit_<name>`` metrics.
RESOURCES = ("blocks", "warps", "registers", "shared_mem", "barriers")


@dataclass(frozen=True)
class Occupancy:
    """Resident blocks per SM for one kernel launch configuration, with the limit each resource sets.

    ``limit_barriers`` is ``None`` on GPUs without a barrier term (before cc 9.0).  A resource the kernel
    does not use at all (0 registers; 0 shared bytes on a GPU with no per-block reservation) reports the
    block-slot limit and is never named in ``limiting``.  ``waves_per_sm`` is
    ``None`` unless the grid size was given, and infinite when no block fits.
    """

    blocks_per_sm: int            # blocks resident at once on one SM
    limit_blocks: int             # blocks per SM allowed by block slots
    limit_warps: int              # ... by warp (thread) slots
    limit_registers: int          # ... by the register file
    limit_shared_mem: int         # ... by shared memory
    limit_barriers: int | None    # ... by barrier slots (cc >= 9.0)
    limiting: tuple[str, ...]     # the resource(s) whose limit equals blocks_per_sm (unused ones excluded)
    warps_per_block: int
    active_warps_per_sm: int      # blocks_per_sm * warps_per_block
    max_warps_per_sm: int
    occupancy_pct: float          # theoretical occupancy, % of the SM's warp slots
    registers_per_block_allocated: int        # registers, after per-warp rounding
    shared_bytes_per_block_allocated: int     # bytes, with reservation and rounding
    shared_bytes_per_sm_configured: int       # bytes: the carve-out the launch runs with (the driver's choice)
    l1_bytes_per_sm: int                      # bytes: the unified L1 + shared array less that carve-out
    waves_per_sm: float | None = None         # grid blocks / (blocks_per_sm * SM count)

    def as_counters(self) -> dict[str, float]:
        """The Nsight Compute metrics for these numbers (``launch__*`` and theoretical occupancy)."""
        counters: dict[str, float] = {
            "launch__occupancy_limit_blocks": self.limit_blocks,
            "launch__occupancy_limit_registers": self.limit_registers,
            "launch__occupancy_limit_shared_mem": self.limit_shared_mem,
            "launch__occupancy_limit_warps": self.limit_warps,
            "launch__shared_mem_config_size": self.shared_bytes_per_sm_configured,
            "sm__maximum_warps_per_active_cycle_pct": self.occupancy_pct,
        }
        if self.limit_barriers is not None:
            # ncu reports 32 on the H100 for kernels of 0 and 1 barriers (452 launches), where the barrier
            # slots allow 64: it caps the term at the block slots.  Kernels of more barriers: not measured.
            counters["launch__occupancy_limit_barriers"] = min(self.limit_barriers, self.limit_blocks)
        if self.waves_per_sm is not None:
            counters["launch__waves_per_multiprocessor"] = self.waves_per_sm
        return counters


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def _threads(threads_per_block: int | Sequence[int]) -> int:
    """Threads of a block given as a count or as its (x, y, z) dimensions."""
    if isinstance(threads_per_block, int) and not isinstance(threads_per_block, bool):
        dims: Sequence[int] = (threads_per_block,)
    elif isinstance(threads_per_block, Sequence) and 1 <= len(threads_per_block) <= 3:
        dims = threads_per_block
    else:
        raise LaunchError(f"block: expected a thread count or (x, y, z) dimensions, got {threads_per_block!r}")
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool) or d < 1:
            raise LaunchError(f"block: dimensions must be positive integers, got {threads_per_block!r}")
    return math.prod(dims)


def _register_limit(gpu: GpuConfig, warps_per_block: int, regs_per_thread: int) -> tuple[int, int]:
    """(blocks per SM allowed by registers, registers allocated per warp)."""
    sm = gpu.sm
    if regs_per_thread == 0:
        return sm.max_blocks, 0
    regs_per_warp = _round_up(regs_per_thread * sm.warp_size, sm.register_alloc_unit)
    # A block's warps are spread over the banks round-robin, so it needs whole rows of them.
    if regs_per_warp * _round_up(warps_per_block, sm.register_partitions) > sm.max_registers_per_block:
        return 0, regs_per_warp
    warps_per_bank = sm.registers_per_partition // regs_per_warp
    return warps_per_bank * sm.register_partitions // warps_per_block, regs_per_warp


def _shared_per_block(gpu: GpuConfig, shared_bytes: int) -> int:
    """Bytes a block takes out of the carve-out: its own plus the reservation, in allocation units
    (ncu's ``launch__shared_mem_per_block_allocated``)."""
    sm = gpu.sm
    return _round_up(shared_bytes + sm.shared_reserved_per_block_bytes, sm.shared_alloc_unit_bytes)


def _smallest_carveout(gpu: GpuConfig, nbytes: int) -> int:
    """Bytes of the smallest carve-out step holding ``nbytes`` (the largest step if none does)."""
    steps = gpu.sm.shared_carveout_kb
    return 1024 * next((kb for kb in steps if kb * 1024 >= nbytes), steps[-1])


def driver_carveout_bytes(gpu: GpuConfig, threads_per_block: int | Sequence[int], regs_per_thread: int,
                          shared_bytes_per_block: int) -> int:
    """The shared-memory carve-out (bytes per SM) the driver configures for a launch that states no
    preference: ncu's ``launch__shared_mem_config_size``; the L1 data cache is the rest of the unified array
    (``gpu.sm.l1_shared_bytes`` minus this).

    ``shared_bytes_per_block`` is the kernel's static + dynamic shared memory (without the per-block
    reservation).  The rule, measured on the H100 (``gpusim/hw/README.md``, "The carve-out rule"; it gives
    every one of the 279 default-preference microbenchmark launches and the 159 suite launches): let *occ*
    be the blocks per SM that block slots, warps and registers allow, and *S* a block's allocation.  The
    driver aims at room for ``min(max_blocks, carveout_blocks_factor_no_shared x occ)`` blocks when the
    kernel has no shared memory, otherwise ``carveout_blocks_factor x occ`` (just *occ* when *occ* is 1 or
    the block has more than ``carveout_single_above_threads`` threads), and takes the smallest carve-out
    step that holds that many (or as many as fit in the largest step) blocks of *S* bytes; but for blocks
    beyond *occ* it goes no higher than ``carveout_extra_max_kb``.  It never holds fewer blocks than the
    largest carve-out would let run.
    """
    sm = gpu.sm
    threads = _threads(threads_per_block)
    warps_per_block = -(-threads // sm.warp_size)
    per_block = _shared_per_block(gpu, shared_bytes_per_block)
    if per_block == 0:
        return 1024 * sm.shared_carveout_kb[0]
    occ = min(sm.max_blocks, sm.max_warps // warps_per_block,
              _register_limit(gpu, warps_per_block, regs_per_thread)[0])
    if shared_bytes_per_block == 0:
        target = min(sm.max_blocks, sm.carveout_blocks_factor_no_shared * occ)
    elif occ == 1 or threads > sm.carveout_single_above_threads:
        target = occ
    else:
        target = min(sm.max_blocks, sm.carveout_blocks_factor * occ)
    fit = sm.shared_bytes_per_sm // per_block
    for_occ = _smallest_carveout(gpu, min(occ, fit) * per_block)
    for_target = _smallest_carveout(gpu, min(target, fit) * per_block)
    extra_max = sm.carveout_extra_max_kb * 1024
    if for_target > extra_max:
        return min(for_target, max(extra_max, for_occ))
    return for_target


def _shared_limit(gpu: GpuConfig, threads: int, regs_per_thread: int, shared_static_bytes: int,
                  shared_dynamic_bytes: int, carveout_kb: int | None,
                  optin: bool) -> tuple[int, int, int, int]:
    """(blocks per SM allowed by shared memory in the configured carve-out, the same in the largest one,
    bytes allocated per block, bytes of the configured carve-out)."""
    sm = gpu.sm
    per_block = _shared_per_block(gpu, shared_static_bytes + shared_dynamic_bytes)
    steps_bytes = [kb * 1024 for kb in sm.shared_carveout_kb]
    if carveout_kb is None:
        configured = driver_carveout_bytes(gpu, threads, regs_per_thread,
                                           shared_static_bytes + shared_dynamic_bytes)
    elif carveout_kb in sm.shared_carveout_kb:
        configured = carveout_kb * 1024
    else:
        raise LaunchError(f"carveout_kb: {carveout_kb} KB is not a carve-out of {gpu.name}; expected one of "
                          f"{', '.join(map(str, sm.shared_carveout_kb))}")
    # Static shared memory is fixed at 48 KB by the compiler; only dynamic memory may use the opt-in.
    per_block_limit = sm.shared_bytes_per_block_optin if optin else sm.shared_bytes_per_block
    dynamic_limit = per_block_limit - shared_static_bytes
    too_big = (shared_static_bytes > sm.shared_bytes_per_block or shared_dynamic_bytes > dynamic_limit
               or per_block > per_block_limit + sm.shared_reserved_per_block_bytes)
    if too_big:
        return 0, 0, per_block, configured
    if configured < per_block:
        # The driver takes the preference as a hint and moves to the next carve-out that fits one block.
        configured = next((b for b in steps_bytes if b >= per_block), steps_bytes[-1])
    if per_block == 0:
        return sm.max_blocks, sm.max_blocks, 0, configured
    largest = sm.shared_bytes_per_sm if carveout_kb is None else configured
    return configured // per_block, largest // per_block, per_block, configured


def occupancy(gpu: GpuConfig, threads_per_block: int | Sequence[int], regs_per_thread: int,
              shared_static_bytes: int = 0, shared_dynamic_bytes: int = 0, *,
              carveout_kb: int | None = None, optin: bool = False, n_blocks: int | None = None,
              barriers_per_block: int = 1) -> Occupancy:
    """Blocks of this launch configuration resident per SM, as ``cudaOccupancyMaxActiveBlocksPerMultiprocessor``.

    ``threads_per_block`` is a count or the block's (x, y, z); ``carveout_kb`` the preferred shared-memory
    carve-out (default: the driver's choice, :func:`driver_carveout_bytes`); ``optin`` means the kernel set the attribute that allows more than
    48 KB of dynamic shared memory; ``n_blocks`` (grid size) adds the waves count.

    Raises :class:`LaunchError` for launches CUDA rejects outright (more threads per block than the GPU
    allows, more registers per thread than the ISA has, negative sizes).  Too much shared memory or too
    many registers per block is not an error here: the result has 0 blocks and names the resource, as
    CUDA's occupancy API returns 0.
    """
    sm = gpu.sm
    threads = _threads(threads_per_block)
    if threads > sm.max_threads_per_block:
        raise LaunchError(f"block: {threads} threads per block exceeds {gpu.name}'s limit of "
                          f"{sm.max_threads_per_block}")
    if not 0 <= regs_per_thread <= sm.max_registers_per_thread:
        raise LaunchError(f"regs_per_thread: {regs_per_thread} is outside 0..{sm.max_registers_per_thread} "
                          f"({gpu.name})")
    for name, value in (("shared_static_bytes", shared_static_bytes),
                        ("shared_dynamic_bytes", shared_dynamic_bytes)):
        if value < 0:
            raise LaunchError(f"{name}: must be >= 0, got {value}")
    if not 1 <= barriers_per_block <= sm.max_barriers_per_block:
        raise LaunchError(f"barriers_per_block: {barriers_per_block} is outside 1..{sm.max_barriers_per_block}")
    if n_blocks is not None and n_blocks < 1:
        raise LaunchError(f"n_blocks: grid must have at least one block, got {n_blocks}")

    warps_per_block = -(-threads // sm.warp_size)
    limits = {
        "blocks": sm.max_blocks,
        "warps": sm.max_warps // warps_per_block,
    }
    limits["registers"], regs_per_warp = _register_limit(gpu, warps_per_block, regs_per_thread)
    limits["shared_mem"], shared_capacity, shared_per_block, shared_configured = _shared_limit(
        gpu, threads, regs_per_thread, shared_static_bytes, shared_dynamic_bytes, carveout_kb, optin)
    limit_barriers = sm.barriers_per_sm // barriers_per_block if sm.barriers_per_sm else None
    if limit_barriers is not None:
        limits["barriers"] = limit_barriers

    unused = set()
    if regs_per_thread == 0:
        unused.add("registers")
    blocks = min(limits.values())
    # The driver sizes its carve-out to the blocks the other resources allow, so its limit often equals
    # theirs; shared memory limits only if the largest carve-out it could take would too.
    if shared_per_block == 0 or shared_capacity > blocks:
        unused.add("shared_mem")
    active_warps = blocks * warps_per_block
    waves = None
    if n_blocks is not None:
        resident = blocks * sm.count
        waves = n_blocks / resident if resident else math.inf
    return Occupancy(
        blocks_per_sm=blocks,
        limit_blocks=limits["blocks"],
        limit_warps=limits["warps"],
        limit_registers=limits["registers"],
        limit_shared_mem=limits["shared_mem"],
        limit_barriers=limit_barriers,
        limiting=tuple(r for r in RESOURCES if limits.get(r) == blocks and r not in unused),
        warps_per_block=warps_per_block,
        active_warps_per_sm=active_warps,
        max_warps_per_sm=sm.max_warps,
        occupancy_pct=100.0 * active_warps / sm.max_warps,
        registers_per_block_allocated=regs_per_warp * warps_per_block,
        shared_bytes_per_block_allocated=shared_per_block,
        shared_bytes_per_sm_configured=shared_configured,
        l1_bytes_per_sm=sm.l1_shared_bytes - shared_configured,
        waves_per_sm=waves,
    )
