"""The numpy references on tiny hand-checked cases, and the comparison rules of ``ProgramSpec.check``."""
from __future__ import annotations

import numpy as np
import pytest

import programs


def ref(name, args, params, symbols=None):
    """Call a program's reference with explicit size parameters (bypassing the named sizes)."""
    spec = programs.get(name)
    named = spec.reference_by_name(spec.inputs_by_name(args, symbols), params)
    index = {e.name: i for i, e in enumerate(spec.args)}
    return {index[k]: v for k, v in named.items()}


def f32(*values):
    return np.array(values, dtype=np.float32)


def test_transpose_of_2x3():
    # in is 2 rows x 3 columns: [[1, 2, 3], [4, 5, 6]] -> out is 3 x 2
    out = ref("transpose_naive", [f32(1, 2, 3, 4, 5, 6), None, 3, 2], {"width": 3, "height": 2})[1]
    np.testing.assert_array_equal(out, f32(1, 4, 2, 5, 3, 6))


def test_scan_of_1_2_3_is_1_3_6_and_restarts_per_section():
    assert ref("scan_kogge_stone", [f32(1, 2, 3)], {"n": 3})[1].tolist() == [1, 3, 6]
    x = np.ones(600, dtype=np.float32)
    ks = ref("scan_kogge_stone", [x], {"n": 600})[1]          # sections of 256
    assert ks[255] == 256 and ks[256] == 1 and ks[599] == 600 - 512
    bk = ref("scan_brent_kung", [x], {"n": 600})[1]           # sections of 512
    assert bk[511] == 512 and bk[512] == 1 and bk[599] == 88


def test_block_sums_of_the_reductions():
    x = np.arange(300, dtype=np.float32)                      # blocks of 256: 0..255 and 256..299
    out = ref("reduce_sequential", [x], {"n": 300})[1]
    assert out.tolist() == [sum(range(256)), sum(range(256, 300))]


def test_blur_averages_only_pixels_inside_the_image():
    img = np.array([[0, 9, 0], [9, 0, 9]], dtype=np.uint8)   # 3 wide, 2 high
    out = ref("blur", [img.ravel()], {"width": 3, "height": 2})[1].reshape(2, 3)
    # corner (0,0): 4 pixels 0+9+9+0 -> 18 // 4 = 4; centre top (0,1): 6 pixels sum 27 -> 4
    assert out.tolist() == [[4, 4, 4], [4, 4, 4]]
    img = np.full((2, 2), 255, dtype=np.uint8)
    assert ref("blur", [img.ravel()], {"width": 2, "height": 2})[1].tolist() == [255] * 4


def test_conv1d_treats_ghost_elements_as_zero():
    n, m = f32(1, 2, 3, 4), f32(1, 10, 100)
    # P[i] = N[i-1]*1 + N[i]*10 + N[i+1]*100
    assert ref("conv1d_basic", [n, m], {"n": 4, "mask_width": 3})[2].tolist() == [210, 321, 432, 43]


def test_conv1d_const_uses_the_first_mask_width_entries_of_symbol_M():
    mask = np.zeros(10, dtype=np.float32)
    mask[:3] = (1, 10, 100)
    assert ref("conv1d_const", [f32(1, 2, 3, 4)], {"n": 4, "mask_width": 3}, {"M": mask})[1].tolist() == \
        [210, 321, 432, 43]


def test_conv2d_identity_mask_copies_the_image():
    mc = np.zeros((5, 5), dtype=np.float32)
    mc[2, 2] = 1
    img = np.arange(12, dtype=np.float32)
    out = ref("conv2d_tiled", [img], {"width": 4, "height": 3}, {"Mc": mc})[1]
    np.testing.assert_array_equal(out, img)
    mc[2, 3] = 1                                              # + right neighbour (0 past the edge)
    out = ref("conv2d_tiled", [img], {"width": 4, "height": 3}, {"Mc": mc})[1].reshape(3, 4)
    assert out[0].tolist() == [0 + 1, 1 + 2, 2 + 3, 3]


def test_matmul_of_2x2():
    out = ref("matmul_naive", [f32(1, 2, 3, 4), f32(5, 6, 7, 8)], {"width": 2})[2]
    assert out.tolist() == [19, 22, 43, 50]


def test_histogram_counts_bytes():
    data = np.array([0, 255, 255, 97, 97, 97], dtype=np.uint8)
    h = ref("histogram_smem", [data], {"n": 6})[1]
    assert h[0] == 1 and h[255] == 2 and h[97] == 3 and h.sum() == 6 and h.dtype == np.uint32


def test_stencil_interior_only():
    n = 3                                                     # one interior point: (1, 1, 1)
    x = np.arange(27, dtype=np.float32)
    coeffs = [np.float32(c) for c in (1, 0, 0, 0, 0, 0, 0)]
    out = ref("stencil7", [x, None, np.uint32(n), *coeffs], {"n": n})[1]
    assert out[13] == 13 and np.count_nonzero(out) == 1
    coeffs = [np.float32(c) for c in (0, 1, 1, 1, 1, 1, 1)]  # sum of the 6 neighbours of index 13
    out = ref("stencil7", [x, None, np.uint32(n), *coeffs], {"n": n})[1]
    assert out[13] == 12 + 14 + 10 + 16 + 4 + 22


def test_smem_probe_reads_word_tid_times_stride():
    words = np.arange(4096, dtype=np.uint32) * 7
    out = ref("smem_stride_probe", [words], {"stride": 33, "reps": 1, "blocks": 2, "block": 4})[1]
    assert out.tolist() == [0, 33 * 7, 66 * 7, 99 * 7] * 2
    out = ref("smem_stride_probe", [words], {"stride": 2, "reps": 2, "blocks": 1, "block": 2})[1]
    assert out.tolist() == [0 ^ 7, (2 * 7) ^ (3 * 7)]


def test_gmem_probe_reads_i_times_stride_plus_offset():
    x = np.arange(20, dtype=np.float32)
    assert ref("gmem_stride_probe", [x], {"n": 4, "stride": 4, "offset": 1})[1].tolist() == [1, 5, 9, 13]


def test_divergence_paths_by_lane_and_by_warp():
    v = np.arange(64, dtype=np.uint32)
    lane = ref("divergence", [v], {"kernel": "divergence_lane", "n": 64, "iters": 1})[1]
    warp = ref("divergence", [v], {"kernel": "divergence_warp", "n": 64, "iters": 1})[1]
    a = v * (v | 1)                 # path a, k = 0
    b = (v ^ (v >> 3)) + 7          # path b
    assert lane[:4].tolist() == [a[0], b[1], a[2], b[3]]
    assert warp[31] == a[31] and warp[32] == b[32]


def test_saxpy_and_loop_tripcount_references():
    out = ref("saxpy_hand", [np.uint32(2), np.float32(2), f32(1, 2), f32(10, 20)], {"n": 2})[3]
    assert out.tolist() == [12, 24]
    r = ref("loop_tripcount", [np.array([0, 1, 4], dtype=np.uint32)], {"n": 3})
    assert r[1].tolist() == [0, 0, 6] and r[2].tolist() == [0, 1, 4]


def test_warp_vote_ballot_any_all():
    x = np.full(40, -1, dtype=np.int32)
    x[[0, 3]] = 5                                             # warp 0: lanes 0 and 3 vote yes
    x[32:] = 5                                                # warp 1: 8 lanes, all yes (lanes 8..31 absent)
    r = ref("warp_vote", [x, None, None, np.uint32(40), np.int32(0)], {"n": 40})
    assert r[1][0] == 0b1001 and r[2][0] == 1                 # any, not all
    assert r[1][32] == 0xFF and r[2][32] == 1                 # absent lanes vote false: not all


def test_check_exact_counts_bit_differences_including_negative_zero():
    spec = programs.get("vector_add")
    expected = {2: f32(0.0, 1.0, 2.0)}
    assert spec.check([None, None, f32(0.0, 1.0, 2.0)], expected).ok
    res = spec.check([None, None, f32(-0.0, 1.0, 2.5)], expected)
    assert not res.ok and res.outputs[2][2] == 2 and res.outputs[2][0] == 0.5
    assert "2 of 3 elements differ" in res.message


def test_check_with_tolerance_and_shape_errors():
    spec = programs.get("matmul_naive")
    tol = spec.tolerance
    assert not tol.exact and tol.rtol > 0 and "order" in tol.why
    expected = {2: f32(100.0, 200.0)}
    assert spec.check([None, None, f32(100.0 * (1 + tol.rtol / 2), 200.0)], expected).ok
    assert not spec.check([None, None, f32(100.0 * (1 + tol.rtol * 3), 200.0)], expected).ok
    res = spec.check([None, None, f32(1.0)], expected)
    assert not res.ok and "expected float32[2]" in res.message
    assert not spec.check([None, None, np.array([100, 200], dtype=np.int32)], expected).ok


@pytest.mark.parametrize("name", ["vector_add", "transpose_smem", "histogram_smem", "divergence", "blur"])
def test_bit_determined_programs_compare_exactly(name):
    assert programs.get(name).tolerance.exact
