"""Nsight Compute metrics computed from the timing model's raw totals.

The timing model keeps plain integer totals (cycles, instructions, warp-cycles per state); this module turns
them into the metrics Nsight Compute reports, under Nsight's names, with Nsight's definitions:

* ``.sum`` over all units, ``.avg`` the mean over all units of that kind (idle SMs included), ``.max`` the
  largest unit;
* ``.per_cycle_active`` divides by the cycles the unit was active (had at least one resident warp);
* ``.pct_of_peak_sustained_active`` divides by the peak over active cycles (one issue per SMSP per cycle,
  ``max_warps`` resident warps per SM);
* ``smsp__average_warps_issue_stalled_<r>_per_issue_active.ratio`` is warp-cycles spent in state ``r``
  divided by the instructions issued: summed over these ratios (``selected`` included, which is 1) it is the
  average number of cycles between two issues of a warp (Nsight's ``warp latency per inst issued``).

Simplification: an SMSP counts as active whenever its SM is (Nsight counts each SMSP separately).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from gpusim.timing.warp_states import STALL_REASONS, stall_metric_name


def _ratio(num: float, den: float) -> float:
    return float(num) / float(den) if den else 0.0


def timing_counters(
    *,
    cycles_elapsed: int,
    sm_cycles_active: Sequence[int],
    smsp_inst_executed: np.ndarray,
    sm_warp_cycles: Sequence[int],
    stall_totals: Sequence[int],
    thread_inst_executed: int,
    max_warps_per_sm: int,
    theoretical_occupancy_pct: float,
) -> dict[str, float]:
    """Nsight-named counters of one kernel launch.

    ``smsp_inst_executed`` is [n_sm, subpartitions]; ``sm_warp_cycles`` is the sum over cycles of the
    resident warps of each SM; ``stall_totals`` is warp-cycles per state, indexed as ``STALL_REASONS``.
    """
    smsp_inst = np.asarray(smsp_inst_executed, dtype=np.int64)
    n_sm, n_sub = smsp_inst.shape
    active = np.asarray(sm_cycles_active, dtype=np.int64)
    inst = int(smsp_inst.sum())
    active_sum = int(active.sum())
    warp_cycles = int(np.asarray(sm_warp_cycles, dtype=np.int64).sum())
    c: dict[str, float] = {
        "gpc__cycles_elapsed.max": int(cycles_elapsed),
        "sm__cycles_elapsed.avg": int(cycles_elapsed),
        "sm__cycles_active.avg": _ratio(active_sum, n_sm),
        "sm__cycles_active.max": int(active.max()) if n_sm else 0,
        "smsp__inst_executed.sum": inst,
        "smsp__inst_issued.sum": inst,
        "sm__inst_executed.sum": inst,
        "smsp__thread_inst_executed.sum": int(thread_inst_executed),
        "smsp__thread_inst_executed_per_inst_executed.ratio": _ratio(thread_inst_executed, inst),
        "sm__warps_active.avg.per_cycle_active": _ratio(warp_cycles, active_sum),
        "sm__warps_active.avg.pct_of_peak_sustained_active":
            100.0 * _ratio(warp_cycles, active_sum * max_warps_per_sm),
        "sm__maximum_warps_per_active_cycle_pct": float(theoretical_occupancy_pct),
        "smsp__issue_active.avg.pct_of_peak_sustained_active": 100.0 * _ratio(inst, active_sum * n_sub),
        "smsp__inst_executed.avg.per_cycle_active": _ratio(inst, active_sum * n_sub),
        "sm__inst_executed.avg.per_cycle_active": _ratio(inst, active_sum),
        "smsp__average_warp_latency_per_inst_issued.ratio": _ratio(sum(int(s) for s in stall_totals), inst),
    }
    for i, reason in enumerate(STALL_REASONS):
        c[stall_metric_name(reason)] = _ratio(int(stall_totals[i]), inst)
    return c
