"""Shared-memory bank conflicts, as the seeds' stride table states it (32 banks x 4 B)."""
import numpy as np
import pytest

from gpusim.errors import GpusimError
from gpusim.memory.shared_banks import SharedMemoryBanks

LANES = np.arange(32, dtype=np.int64)
banks = SharedMemoryBanks()


def degree(addresses, size=4, atomic=False):
    r = banks.wavefronts_for(np.atleast_2d(addresses), size, atomic=atomic)
    return int(r.wavefronts[0]), int(r.bank_conflicts[0])


@pytest.mark.parametrize("stride, ways", [(1, 1), (2, 2), (3, 1), (4, 4), (8, 8), (16, 16), (32, 32), (33, 1)])
def test_word_stride_conflict_degree_matches_seed_table(stride, ways):
    assert degree(LANES * stride * 4) == (ways, ways - 1)


def test_stride_2_is_two_way_conflict():
    assert degree(LANES * 8) == (2, 1)


def test_stride_33_padding_is_conflict_free():
    assert degree(LANES * 33 * 4) == (1, 0)


def test_same_word_is_a_broadcast():
    assert degree(np.full(32, 12)) == (1, 0)


def test_transpose_column_read_unpadded_32_way_padded_conflict_free():
    tile = 32
    col = 5
    unpadded = (LANES * tile + col) * 4
    padded = (LANES * (tile + 1) + col) * 4
    assert degree(unpadded) == (32, 31)
    assert degree(padded) == (1, 0)


def test_64bit_contiguous_needs_two_wavefronts_without_conflict():
    assert degree(LANES * 8, size=8) == (2, 0)


def test_128bit_contiguous_needs_four_wavefronts_without_conflict():
    assert degree(LANES * 16, size=16) == (4, 0)


def test_128bit_broadcast_needs_two_wavefronts():
    """ncu on the H100: every LDS.128 of matmul_tiled (16x16 and 32x32 tiles), Parboil sgemm and cutcp takes 2
    wavefronts, lanes reading one or two 16-byte words (tests/golden/h100/)."""
    assert degree(np.zeros(32, dtype=np.int64), size=16) == (2, 0)
    assert degree(np.repeat([0, 64], 16), size=16) == (2, 0)


def test_64bit_stride_2_conflicts_within_each_half_warp():
    # each lane reads 8 B at 16 B stride: a half-warp covers 256 B -> 2 words per bank
    assert degree(LANES * 16, size=8) == (4, 2)


def test_atomics_on_one_word_serialise():
    assert degree(np.full(32, 0), atomic=True) == (32, 31)
    assert degree(LANES * 4, atomic=True) == (1, 0)


def test_inactive_lanes_do_not_conflict():
    addr = LANES * 32 * 4
    addr[1:] = -1
    assert degree(addr) == (1, 0)


def test_vectorised_rows_and_counters():
    b = SharedMemoryBanks()
    r = b.wavefronts_for(np.stack([LANES * 4, LANES * 8, LANES * 128]), 4)
    assert r.wavefronts.tolist() == [1, 2, 32]
    b.count(r, "ld")
    out = b.counters()
    assert out["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 35
    assert out["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 32
    assert out["derived__memory_l1_wavefronts_shared_excessive"] == 32


def test_bad_access_size_is_a_clear_error():
    with pytest.raises(GpusimError, match="access size 3"):
        banks.wavefronts_for(np.zeros((1, 32), np.int64), 3)
