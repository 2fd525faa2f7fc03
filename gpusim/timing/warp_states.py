"""Warp states as Nsight Compute names them.

Every resident warp is in exactly one of these states in every cycle (Nsight's "warp state" view). The
timing model keeps the states as small ints (the index in :data:`STALL_REASONS`) so that the hot loop
indexes flat lists instead of hashing strings; :class:`StallReason` gives them names.

Meaning (Nsight Compute Kernel Profiling Guide, "Warp Stall Reasons"), and what produces each one here:

* ``selected`` - the warp issued an instruction this cycle.
* ``not_selected`` - eligible, but the sub-partition's scheduler picked another warp.
* ``long_scoreboard`` - waits for a register written by an L1TEX operation (global, local loads), or for a
  queued global/local instruction to read a register it is about to overwrite (``lsu_queue_entries``).
* ``short_scoreboard`` - waits for a register written by an MIO operation (shared memory, SFU, const), or
  for a queued shared-memory instruction to read a register it is about to overwrite.
* ``wait`` - waits for a fixed-latency result (ALU/FMA/IMAD/FP64 dependency).
* ``barrier`` - waits at ``bar.sync`` for the rest of its block (and for the barrier's own latency).
* ``mio_throttle`` - the MIO path (shared memory, SFU) is busy, or its queue is full.
* ``lg_throttle`` - the local/global path of the LSU is busy, or its queue is full.
* ``math_pipe_throttle`` - the arithmetic pipe its instruction needs is busy (issue interval).
* ``branch_resolving`` - waits for a branch target to be computed.
* ``no_instruction`` - instruction buffer empty (not produced by this model: instruction fetch is not
  modelled; kept so the counter set is complete).
* ``drain`` - exited, waiting for its outstanding stores to be accepted by the memory system.
* ``membar`` - waits at a memory barrier for its earlier stores.
* ``dispatch_stall``, ``sleeping`` - not produced by this model (no dispatch conflicts, no nanosleep).
"""
from __future__ import annotations

from enum import IntEnum

STALL_REASONS: tuple[str, ...] = (
    "selected",
    "not_selected",
    "long_scoreboard",
    "short_scoreboard",
    "wait",
    "barrier",
    "mio_throttle",
    "lg_throttle",
    "math_pipe_throttle",
    "branch_resolving",
    "no_instruction",
    "drain",
    "membar",
    "dispatch_stall",
    "sleeping",
)
N_STALL_REASONS = len(STALL_REASONS)

StallReason = IntEnum("StallReason", {name.upper(): i for i, name in enumerate(STALL_REASONS)})
StallReason.__doc__ = "Index of each Nsight warp state in STALL_REASONS (and in every stall array)."


def stall_metric_name(reason: str) -> str:
    """Nsight's name for 'warp-cycles in state ``reason`` per issued instruction'."""
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"
