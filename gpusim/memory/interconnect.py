"""The crossbar between SMs and L2 slices."""
from __future__ import annotations

from array import array


class Crossbar:
    """SM <-> L2-slice network: a fixed traversal latency each way, and each SM's port.

    Models: an SM's port moves ``bytes_per_cycle`` bytes per SM cycle into the SM (L2 data for its loads
    and atomics) and as many out of it (store and atomic data); a line the L1 sends down leaves when the
    port has room for its data, and a load reserves the port's inbound bytes for its data when it leaves,
    as credits would (so an SM never takes in more than ``bytes_per_cycle``: measured on the H100, one SM
    reading an L2-resident set, 123-125 B per SM cycle, ``tests/golden/h100/micro/sweep3.json``).

    Simplifies: the inbound bytes are reserved when the request leaves, not when its data comes back (next-
    free arithmetic cannot hold a reservation for a later, unknown cycle without reordering), so queueing
    for the port shows at the SM, not in the returning data; no contention inside the crossbar beyond the
    ports (the slices' own limits are the slices'); no packet headers, no credits for read requests.
    """

    __slots__ = ("latency", "sector_cycles", "out_free", "in_free", "bytes_moved")

    def __init__(self, n_sm: int, latency_cycles: int, bytes_per_cycle: float, sector_bytes: int = 32) -> None:
        self.latency = latency_cycles
        self.sector_cycles = sector_bytes / float(bytes_per_cycle)
        self.out_free = array("d", [0.0]) * n_sm
        self.in_free = array("d", [0.0]) * n_sm
        self.bytes_moved = 0

    def send(self, t: float, sm: int, sectors_out: int, sectors_in: int) -> float:
        """The cycle a line request leaves SM ``sm`` (ready at ``t``) carrying ``sectors_out`` sectors of data
        and reserving ``sectors_in`` sectors of data back; it reaches the slice ``latency`` later."""
        if sectors_out:
            f = self.out_free[sm]
            if f > t:
                t = f
            self.out_free[sm] = t + sectors_out * self.sector_cycles
        if sectors_in:
            f = self.in_free[sm]
            if f > t:
                t = f
            self.in_free[sm] = t + sectors_in * self.sector_cycles
        self.bytes_moved += (sectors_out + sectors_in) * 32
        return t
