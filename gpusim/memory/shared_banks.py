"""Shared-memory banks: 32 banks x 4 bytes, broadcast, conflicts serialised into wavefronts."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpusim.errors import GpusimError

WARP_SIZE = 32


@dataclass
class SharedAccessResult:
    """Per request (row of the input): wavefronts the data stage needs, the ideal count, and conflicts."""

    wavefronts: np.ndarray        # int64[M]
    ideal_wavefronts: np.ndarray  # int64[M]

    @property
    def bank_conflicts(self) -> np.ndarray:
        return self.wavefronts - self.ideal_wavefronts

    @property
    def conflict_degree(self) -> np.ndarray:
        """The seeds' "n-way" figure: wavefronts per ideal wavefront (1 = conflict-free)."""
        return np.divide(self.wavefronts, np.maximum(self.ideal_wavefronts, 1))


class SharedMemoryBanks:
    """Bank-conflict model of the shared-memory data stage, vectorised over many warp requests.

    Models (Programming Guide §20.4.3, HARDWARE.md §3): successive 4-byte words sit in successive banks
    (``bank = (addr // 4) % banks``); each bank delivers one word per wavefront; lanes reading the same word
    are served by one broadcast (a store to the same word has one winner, also one wavefront); so a phase
    costs ``max over banks of distinct words`` wavefronts.  64-bit and 128-bit accesses run in two half-warp
    phases (per-phase conflict counting is HARDWARE.md's stated inference): 128 contiguous bytes per wavefront,
    so a contiguous 128-bit access takes 4; a 128-bit broadcast takes 2, as ncu counts every ``LDS.128``
    of the H100 records (``matmul_tiled`` at both tile sizes, Parboil ``sgemm`` and ``cutcp``: 2 wavefronts
    per instruction, where quarter-warp phases would make 4).  Atomics serialise per address: every lane's read-modify-write
    takes its own slot in its bank, so same-word lanes do *not* merge.

    Simplifies: sub-word accesses (8/16-bit) count as their 4-byte word; phases are fixed lane groups
    (the hardware may merge phases whose lanes do not conflict); no arbitration against TMA or tensor cores.

    Counters: ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st,atom}.sum``,
    ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st,atom}.sum`` and the Source page's
    ``memory_l1_wavefronts_shared_ideal`` / ``derived__memory_l1_wavefronts_shared_excessive``.
    """

    def __init__(self, banks: int = 32, bank_width_bytes: int = 4) -> None:
        if banks <= 0 or bank_width_bytes <= 0:
            raise GpusimError(f"shared memory: banks ({banks}) and bank width ({bank_width_bytes}) must be > 0")
        self.banks = banks
        self.bank_width_bytes = bank_width_bytes
        self.wavefronts = {"ld": 0, "st": 0, "atom": 0}
        self.conflicts = {"ld": 0, "st": 0, "atom": 0}
        self.ideal = {"ld": 0, "st": 0, "atom": 0}

    def wavefronts_for(self, addresses: np.ndarray, access_bytes: int, atomic: bool = False) -> SharedAccessResult:
        """``addresses``: int64 [M, 32] byte addresses (shared, or global for the L1's data stage), -1 =
        inactive lane."""
        a = np.asarray(addresses, dtype=np.int64)
        if a.ndim != 2 or a.shape[1] != WARP_SIZE:
            raise GpusimError(f"shared memory: addresses must be [requests, 32], got shape {a.shape}")
        if access_bytes not in (1, 2, 4, 8, 16):
            raise GpusimError(f"shared memory: access size {access_bytes} bytes is not 1, 2, 4, 8 or 16")
        m = a.shape[0]
        words_per_lane = max(1, access_bytes // self.bank_width_bytes)
        # bytes a phase may return = banks x width, so wide accesses split the warp into lane groups
        phases = max(1, WARP_SIZE * min(access_bytes, 8) // (self.banks * self.bank_width_bytes))
        lanes_per_phase = WARP_SIZE // phases
        active = a >= 0
        word0 = np.where(active, a // self.bank_width_bytes, -1)
        if words_per_lane > 1:
            k = np.arange(words_per_lane, dtype=np.int64)
            words = np.where(active[:, :, None], word0[:, :, None] + k, -1).reshape(m, -1)
            lane_of_col = np.repeat(np.arange(WARP_SIZE), words_per_lane)
        else:
            words = word0
            lane_of_col = np.arange(WARP_SIZE)
        phase_of_col = lane_of_col // lanes_per_phase
        bank = np.where(words >= 0, words % self.banks, 0)
        group = phase_of_col[None, :] * self.banks + bank             # (phase, bank) per column
        if atomic:
            counted = words >= 0
        else:
            # Sort each row by (group, word) and count a word once per group: broadcast.
            big = np.int64(1) << 40
            if words.size and int(words.max()) >= big:
                # global addresses (the L1 data stage): only which words are equal matters, so rank them
                ranks = np.unique(words, return_inverse=True)[1].reshape(words.shape)
                words = np.where(words >= 0, ranks, -1)
            key = np.where(words >= 0, group * big + words, np.iinfo(np.int64).max)
            key.sort(axis=1)
            counted = key != np.iinfo(np.int64).max
            counted[:, 1:] &= key[:, 1:] != key[:, :-1]
            group = np.where(counted, key // big, 0)
        n_groups = phases * self.banks
        flat = (np.arange(m, dtype=np.int64)[:, None] * n_groups + group)[counted]
        per_bank = np.bincount(flat, minlength=m * n_groups).reshape(m, phases, self.banks)
        per_phase = per_bank.max(axis=2)
        wavefronts = per_phase.sum(axis=1).astype(np.int64)
        # without conflicts a phase needs one wavefront per banks' worth of distinct words
        ideal = (-(-per_bank.sum(axis=2) // self.banks)).sum(axis=1).astype(np.int64)
        return SharedAccessResult(wavefronts=wavefronts, ideal_wavefronts=ideal)

    def count(self, result: SharedAccessResult, op: str) -> None:
        self.wavefronts[op] += int(result.wavefronts.sum())
        self.ideal[op] += int(result.ideal_wavefronts.sum())
        self.conflicts[op] += int(result.bank_conflicts.sum())

    def counters(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for op in ("ld", "st", "atom"):
            out[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"] = float(self.wavefronts[op])
            out[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"] = float(self.conflicts[op])
        ideal = sum(self.ideal.values())
        out["memory_l1_wavefronts_shared_ideal"] = float(ideal)
        out["memory_l1_wavefronts_shared"] = float(sum(self.wavefronts.values()))
        out["derived__memory_l1_wavefronts_shared_excessive"] = float(sum(self.wavefronts.values()) - ideal)
        return out
