"""The global-memory coalescer (the L1TEX "t" stage of a load/store request).

A warp's global or local load/store is one *request*; the bytes its active lanes touch are grouped into
32-byte sectors inside 128-byte lines, and the request moves exactly the unique sectors (cc >= 6.0, Best
Practices Guide §10.2.1; Nsight Compute's ``l1tex__t_sectors`` metrics).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusim.errors import GpusimError

SECTOR_BYTES = 32
LINE_BYTES = 128
SECTORS_PER_LINE = LINE_BYTES // SECTOR_BYTES
# Requests whose active lanes are fewer than 1 in this many are coalesced lane by lane (see _coalesce_sparse).
_SPARSE_BELOW = 4


@dataclass
class CoalescedRequests:
    """The coalescer's answer for M requests (row m of the input ``addresses``).

    ``sectors[offsets[m]:offsets[m+1]]`` are the sorted unique sector numbers (byte address // 32) of
    request m.  ``efficiency`` is Nsight's ``smsp__sass_average_data_bytes_per_sector_mem_global_op_ld``
    per request: bytes requested by the active lanes / bytes moved (sectors x 32), so lanes reading the
    same word can push it above 1 exactly as on the real counter.
    """

    sectors: np.ndarray          # int64[S]: unique sectors of all requests, request by request
    offsets: np.ndarray          # int64[M+1]: CSR offsets into ``sectors``
    sectors_per_request: np.ndarray   # int64[M]
    lines_per_request: np.ndarray     # int64[M]: distinct 128 B lines touched
    bytes_requested: np.ndarray       # int64[M]: active lanes x access size
    active_lanes: np.ndarray          # int64[M]

    @property
    def efficiency(self) -> np.ndarray:
        moved = self.sectors_per_request * SECTOR_BYTES
        return np.divide(self.bytes_requested, moved, out=np.zeros(moved.shape, float), where=moved > 0)


class Coalescer:
    """Groups per-lane byte addresses into unique 32 B sectors, vectorised over many requests.

    Models: one request per warp instruction, sectors = unique 32 B sectors touched by the active lanes'
    accessed bytes (an access that straddles a sector boundary touches both), lines = unique 128 B lines
    (what the L1 tag stage looks up).  Simplifies: no separate handling of 64/128-bit accesses beyond the
    bytes they cover (the hardware also splits those into several tag-stage passes; the L1 model charges
    passes by lines), and no texture/surface paths.

    Counters (Nsight names): ``l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum`` and
    ``l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum``, accumulated by :meth:`count`.
    """

    def __init__(self) -> None:
        self.requests = {"ld": 0, "st": 0, "atom": 0, "red": 0}
        self.sectors = {"ld": 0, "st": 0, "atom": 0, "red": 0}
        self.bytes_requested = {"ld": 0, "st": 0, "atom": 0, "red": 0}

    @staticmethod
    def coalesce(addresses: np.ndarray, access_bytes: int) -> CoalescedRequests:
        """``addresses``: int64 [M, 32] byte addresses (-1 = lane inactive); ``access_bytes``: bytes per lane."""
        a = np.asarray(addresses)
        if a.ndim != 2:
            raise GpusimError(f"coalescer: addresses must be a 2-D [requests, lanes] array, got shape {a.shape}")
        if access_bytes <= 0:
            raise GpusimError(f"coalescer: access size must be positive, got {access_bytes} bytes")
        a = a.astype(np.int64, copy=False)
        active = a >= 0
        n_active = active.sum(axis=1).astype(np.int64)
        if a.size and int(n_active.sum()) * _SPARSE_BELOW < a.size:
            return Coalescer._coalesce_sparse(a, active, n_active, access_bytes)
        first = np.where(active, a // SECTOR_BYTES, -1)
        last = np.where(active, (a + (access_bytes - 1)) // SECTOR_BYTES, -1)
        if np.array_equal(first, last):
            cand = first
        else:
            # An access crossing a sector boundary (unaligned, or wider than the remaining sector).
            span = int((last - first).max()) + 1
            cand = np.concatenate([np.where(active & (first + k <= last), first + k, -1) for k in range(span)],
                                  axis=1)
        s = np.sort(cand, axis=1)
        keep = s >= 0
        keep[:, 1:] &= s[:, 1:] != s[:, :-1]
        per_req = keep.sum(axis=1).astype(np.int64)
        lines = s >> 2
        keep_line = s >= 0
        keep_line[:, 1:] &= lines[:, 1:] != lines[:, :-1]
        offsets = np.zeros(a.shape[0] + 1, dtype=np.int64)
        np.cumsum(per_req, out=offsets[1:])
        return CoalescedRequests(
            sectors=s[keep], offsets=offsets, sectors_per_request=per_req,
            lines_per_request=keep_line.sum(axis=1).astype(np.int64),
            bytes_requested=n_active * access_bytes, active_lanes=n_active,
        )

    @staticmethod
    def _coalesce_sparse(a: np.ndarray, active: np.ndarray, n_active: np.ndarray,
                         access_bytes: int) -> CoalescedRequests:
        """:meth:`coalesce` for requests with few active lanes (irregular kernels, where most threads of a
        warp idle): the same answer, computed on the active lanes only instead of on every lane."""
        m = a.shape[0]
        row, lane = np.nonzero(active)
        addr = a[row, lane]
        first = addr // SECTOR_BYTES
        span = (addr + (access_bytes - 1)) // SECTOR_BYTES - first
        if span.any():
            # An access crossing a sector boundary touches the next sector(s) too.
            extra = [(row[span >= k], first[span >= k] + k) for k in range(1, int(span.max()) + 1)]
            row = np.concatenate([row, *(r for r, _ in extra)])
            first = np.concatenate([first, *(f for _, f in extra)])
        order = np.lexsort((first, row))             # by request, then by sector
        row, sec = row[order], first[order]
        keep = np.ones(row.shape, dtype=bool)
        keep[1:] = (row[1:] != row[:-1]) | (sec[1:] != sec[:-1])
        row, sec = row[keep], sec[keep]
        new_line = np.ones(row.shape, dtype=bool)
        new_line[1:] = (row[1:] != row[:-1]) | ((sec[1:] >> 2) != (sec[:-1] >> 2))
        per_req = np.bincount(row, minlength=m).astype(np.int64)
        offsets = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(per_req, out=offsets[1:])
        return CoalescedRequests(
            sectors=sec, offsets=offsets, sectors_per_request=per_req,
            lines_per_request=np.bincount(row[new_line], minlength=m).astype(np.int64),
            bytes_requested=n_active * access_bytes, active_lanes=n_active,
        )

    def count(self, result: CoalescedRequests, op: str, times: np.ndarray | None = None) -> None:
        """Add ``result`` to the counters of ``op`` ("ld", "st", "atom" or "red": an atomic without a result), request m ``times[m]`` times (once
        each without ``times``); requests with no active lane are not sent to L1TEX and are not counted."""
        issued = (result.active_lanes > 0).astype(np.int64)
        sectors, moved = result.sectors_per_request, result.bytes_requested
        if times is not None:
            issued, sectors, moved = issued * times, sectors * times, moved * times
        self.requests[op] += int(issued.sum())
        self.sectors[op] += int(sectors.sum())
        self.bytes_requested[op] += int(moved.sum())

    def counters(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for op in ("ld", "st", "atom", "red"):
            out[f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"] = float(self.requests[op])
            out[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum"] = float(self.sectors[op])
        for op in ("ld", "st"):
            req, sec = self.requests[op], self.sectors[op]
            out[f"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{op}.ratio"] = (
                sec / req if req else 0.0)
            out[f"smsp__sass_average_data_bytes_per_sector_mem_global_op_{op}.pct"] = (
                100.0 * self.bytes_requested[op] / (sec * SECTOR_BYTES) if sec else 0.0)
        return out


def masked_line_bits(addresses: np.ndarray, access_bytes: int) -> list[int]:
    """Per store request (row of ``addresses``, int64 [M, lanes] byte addresses, -1 = lane inactive): an int
    whose bit ``i`` is set when the ``i``-th of the request's 128 B lines (ascending) has a 32 B sector the
    lanes write only in part, so the line's data travels with a byte mask.  Lanes writing the same address
    count once; an access that crosses a sector boundary counts both sectors as written in part."""
    a = np.asarray(addresses, dtype=np.int64)
    m = a.shape[0]
    out = np.zeros(m, dtype=np.int64)
    row, lane = np.nonzero(a >= 0)
    if row.size:
        addr = a[row, lane]
        order = np.lexsort((addr, row))
        row, addr = row[order], addr[order]
        keep = np.ones(row.shape, dtype=bool)
        keep[1:] = (row[1:] != row[:-1]) | (addr[1:] != addr[:-1])
        row, addr = row[keep], addr[keep]
        sector = addr // SECTOR_BYTES
        crosses = (addr + (access_bytes - 1)) // SECTOR_BYTES != sector
        new_sector = np.ones(row.shape, dtype=bool)
        new_sector[1:] = (row[1:] != row[:-1]) | (sector[1:] != sector[:-1])
        g = np.cumsum(new_sector) - 1                              # (request, sector) group of each address
        written = np.bincount(g, minlength=int(g[-1]) + 1) * access_bytes
        partial = (written < SECTOR_BYTES) | (np.bincount(g, weights=crosses, minlength=written.size) > 0)
        g_row, g_line = row[new_sector], sector[new_sector] >> 2
        new_line = np.ones(g_row.shape, dtype=bool)
        new_line[1:] = (g_row[1:] != g_row[:-1]) | (g_line[1:] != g_line[:-1])
        line_no = np.cumsum(new_line) - 1                          # global line number of each group
        first = np.full(m, -1, dtype=np.int64)
        first[g_row[::-1]] = line_no[::-1]                         # each request's first line number
        index = line_no - first[g_row]                             # the line's index in its request
        masked = partial & (index < 63)
        np.bitwise_or.at(out, g_row[masked], np.left_shift(1, index[masked]))
    return out.tolist()
