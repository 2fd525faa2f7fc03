"""The crossbar between SMs and L2 slices."""
from __future__ import annotations


class Crossbar:
    """SM <-> L2-slice network: a fixed traversal latency plus per-port bandwidth.

    Models: each SM and each slice has one port per direction moving ``bytes_per_cycle`` bytes per cycle;
    a transfer holds its source and destination ports for ``bytes / bytes_per_cycle`` cycles (next-free
    arithmetic, fractional cycles allowed) and arrives ``latency_cycles`` after it leaves.  Requests
    without data (read requests) only pay the latency.

    Simplifies: no internal contention of the crossbar beyond its ports, no packet headers, no
    flow-control credits; both directions are independent.
    """

    __slots__ = ("latency", "bpc", "sm_out", "sm_in", "slice_in", "slice_out", "bytes_moved")

    def __init__(self, n_sm: int, n_slices: int, latency_cycles: int, bytes_per_cycle: int) -> None:
        self.latency = latency_cycles
        self.bpc = float(bytes_per_cycle)
        self.sm_out = [0.0] * n_sm
        self.sm_in = [0.0] * n_sm
        self.slice_in = [0.0] * n_slices
        self.slice_out = [0.0] * n_slices
        self.bytes_moved = 0

    def to_slice(self, now: float, sm: int, slice_: int, data_bytes: int) -> float:
        if not data_bytes:
            return now + self.latency
        start = max(now, self.sm_out[sm], self.slice_in[slice_])
        end = start + data_bytes / self.bpc
        self.sm_out[sm] = self.slice_in[slice_] = end
        self.bytes_moved += data_bytes
        return end + self.latency

    def to_sm(self, now: float, slice_: int, sm: int, data_bytes: int) -> float:
        start = max(now, self.slice_out[slice_], self.sm_in[sm])
        end = start + data_bytes / self.bpc
        self.slice_out[slice_] = self.sm_in[sm] = end
        self.bytes_moved += data_bytes
        return end + self.latency
