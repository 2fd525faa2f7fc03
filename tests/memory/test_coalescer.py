"""Coalescing, as the seeds' stride table states it (32 lanes, 4-byte floats)."""
import numpy as np
import pytest

from gpusim.errors import GpusimError
from gpusim.memory.coalescer import Coalescer, masked_line_bits

LANES = np.arange(32, dtype=np.int64)


def sectors(addresses, size=4):
    r = Coalescer.coalesce(np.atleast_2d(addresses), size)
    return int(r.sectors_per_request[0])


@pytest.mark.parametrize("stride, expected", [(1, 4), (2, 8), (4, 16), (8, 32), (16, 32), (32, 32), (1000, 32)])
def test_float_stride_sectors_per_request_matches_seed_table(stride, expected):
    assert sectors(LANES * stride * 4) == expected


def test_misaligned_start_costs_one_extra_sector():
    assert sectors(4 + LANES * 4) == 5


def test_all_lanes_same_word_is_one_sector():
    assert sectors(np.full(32, 256)) == 1


def test_inactive_lanes_move_nothing():
    addr = LANES * 4
    addr[16:] = -1
    assert sectors(addr) == 2
    assert sectors(np.full(32, -1)) == 0


def test_float4_per_lane_contiguous_is_sixteen_sectors():
    assert sectors(LANES * 16, size=16) == 16


def test_access_straddling_sector_boundary_touches_both():
    assert sectors(np.array([30] + [-1] * 31), size=4) == 2


def test_efficiency_is_bytes_requested_over_bytes_moved():
    r = Coalescer.coalesce(np.stack([LANES * 4, LANES * 8, LANES * 128]), 4)
    np.testing.assert_allclose(r.efficiency, [1.0, 0.5, 0.125])


def test_unpadded_image_rows_straddle_lines():
    width_bytes = 100 * 4  # 100 floats: row 1 starts at byte 400, not on a 128 B line
    row1 = Coalescer.coalesce((width_bytes + LANES * 4)[None, :], 4)
    padded = Coalescer.coalesce((512 + LANES * 4)[None, :], 4)
    assert row1.lines_per_request[0] == 2 and padded.lines_per_request[0] == 1
    assert row1.sectors_per_request[0] == 5 and padded.sectors_per_request[0] == 4


def test_sector_list_is_the_unique_sorted_sectors_of_each_request():
    r = Coalescer.coalesce(np.stack([LANES[::-1] * 4, LANES * 64]), 4)
    assert r.sectors[r.offsets[0]:r.offsets[1]].tolist() == [0, 1, 2, 3]
    assert r.sectors[r.offsets[1]:r.offsets[2]].tolist() == list(range(0, 64, 2))


def test_counters_use_nsight_names():
    c = Coalescer()
    c.count(Coalescer.coalesce(np.stack([LANES * 4, LANES * 8]), 4), "ld")
    out = c.counters()
    assert out["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 2
    assert out["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 12
    assert out["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"] == 6
    assert out["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"] == pytest.approx(100 * 256 / 384)


def test_bad_shape_is_a_clear_error():
    with pytest.raises(GpusimError, match="2-D"):
        Coalescer.coalesce(np.arange(32), 4)


@pytest.mark.parametrize("inactive", [0.0, 0.5, 0.9, 0.99, 1.0])
@pytest.mark.parametrize("access_bytes", [1, 4, 8, 16, 64])
def test_requests_with_few_active_lanes_coalesce_lane_by_lane_to_the_same_answer(inactive, access_bytes,
                                                                                  monkeypatch):
    import gpusim.memory.coalescer as coalescer
    rng = np.random.default_rng(int(inactive * 100) + access_bytes)
    a = rng.integers(0, 1 << 47, size=(300, 32)) // rng.choice([1, 4], size=(300, 1))
    a[:100] = a[:100] % 4096                                   # rows that share sectors and lines
    a[rng.random(a.shape) < inactive] = -1
    lane_by_lane = Coalescer._coalesce_sparse(a, a >= 0, (a >= 0).sum(axis=1), access_bytes)
    monkeypatch.setattr(coalescer, "_SPARSE_BELOW", 1 << 40)   # every request with an active lane: dense
    whole = Coalescer.coalesce(a, access_bytes)
    for field in ("sectors", "offsets", "sectors_per_request", "lines_per_request", "bytes_requested",
                  "active_lanes"):
        assert np.array_equal(getattr(lane_by_lane, field), getattr(whole, field)), field
    assert lane_by_lane.sectors.size > 0 or inactive == 1.0


@pytest.mark.parametrize("addresses, size, bits", [
    (LANES * 4, 4, 0),                       # a warp's 128 B: one line, every sector whole
    (LANES * 16, 16, 0),                     # float4s: four whole lines
    (LANES * 4 * 33, 4, (1 << 32) - 1),      # 32 lines of one 4 B word each: every line has a byte mask
    (LANES * 4 * 8, 4, 0xFF),                # 8 lines, a 4 B word in each sector
    (np.where(LANES < 8, LANES * 4, -1), 4, 0),   # 8 lanes fill one sector: whole, no mask
    (np.full(32, 4096), 4, 1),               # every lane on one word: one 4 B write
])
def test_a_store_line_carries_a_byte_mask_when_a_sector_is_written_in_part(addresses, size, bits):
    assert masked_line_bits(np.asarray(addresses, dtype=np.int64)[None, :], size) == [bits]
