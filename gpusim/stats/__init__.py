"""Statistics: Nsight-named counters and warp-state (stall reason) accounting.

The timing model accumulates plain integers on its hot path; this package names them
(:mod:`gpusim.stats.stall_reasons`) and derives Nsight Compute's metrics (:mod:`gpusim.stats.counters`).
"""
from gpusim.stats.counters import timing_counters
from gpusim.stats.stall_reasons import N_STALL_REASONS, STALL_REASONS, StallReason, stall_metric_name

__all__ = ["STALL_REASONS", "N_STALL_REASONS", "StallReason", "stall_metric_name", "timing_counters"]
