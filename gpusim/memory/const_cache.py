"""The per-SM constant cache: one address per cycle, broadcast to every lane that wants it."""
from __future__ import annotations

import numpy as np

from gpusim.config.memory import ConstCacheSpec
from gpusim.memory.cache import SectoredCache


def distinct_addresses(addresses: np.ndarray) -> np.ndarray:
    """Distinct byte addresses among the active lanes (>= 0) of each row of an int64 [M, 32] array."""
    s = np.sort(addresses, axis=1)
    keep = s >= 0
    keep[:, 1:] &= s[:, 1:] != s[:, :-1]
    return keep.sum(axis=1).astype(np.int64)


class ConstantCache:
    """What a warp's ``ld.const``/``ld.param`` costs: ``distinct addresses / addresses_per_cycle`` cycles
    of the constant pipe (a uniform address is one broadcast; divergent addresses serialise, as seed 003
    says), at the hit latency; a missing sector is fetched from L2 like a global load, and with it the rest
    of its aligned ``fill_bytes`` block (``MemorySystem._const_fill``; 256 B on the H100, micro/cwalk.json).

    Simplifies: one level (the H100 has 64-byte lines in front of the 256-byte fills: a dependent walk at a
    64-128 B stride pays ~63 cycles per load more than this model); params live in the same cache as ``__constant__`` data (the hardware's constant bank 0), so
    the first read of a parameter misses to L2 just as a constant does (parameters are in L2 from the
    launch, so that is an L2 hit: ``MemorySystem._install_params``); no separate immediate-constant cache.
    """

    def __init__(self, spec: ConstCacheSpec) -> None:
        self.spec = spec
        self.cache = SectoredCache(spec.size_bytes, spec.associativity, mshrs=64,
                                   line_bytes=spec.line_bytes, sector_bytes=min(32, spec.line_bytes))
        self.requests = 0
        self.serialised_cycles = 0
