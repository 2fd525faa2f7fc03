"""Warp-aggregated atomics in the timing model: what reaches the L2 for an atomic ptxas aggregates
(isa/aggregate.py marks it; gpusim/timing/lsu.py keeps the leader lane of each warp's execution).

Counted with ``gpusim__l2_atomic_lanes.sum`` (the lane-updates the L2 slices perform) on the h100 preset, with
``aggregate_warp_atomics`` on (the preset) and off.
"""
import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def kernel(body: str) -> str:
    return (HEAD + ".visible .entry k(.param .u64 po, .param .u64 pv)\n{\n"
            " .reg .pred %p<3>; .reg .b32 %r<10>; .reg .b64 %rd<10>;\n"
            " ld.param.u64 %rd1, [po]; ld.param.u64 %rd2, [pv];\n"
            " cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;\n"
            " mov.u32 %r1, %tid.x; mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd4, %rd5;\n"
            " ld.global.u32 %r3, [%rd6];\n" + body + "\n ret;\n}\n")


def l2_atomics(body: str, threads: int, aggregate: bool = True, n_out: int = 1, dtype=np.uint32):
    out = np.zeros(n_out, dtype=dtype)
    vals = np.arange(1, threads + 1, dtype=np.uint32)
    gpu = load_gpu("h100", overrides={"aggregate_warp_atomics": aggregate})
    res = gpusim.run(kernel(body), kernel="k", grid=(1, 1, 1), block=(threads, 1, 1), args=[out, vals],
                     mode="timing", gpu=gpu)
    return int(res.timing.counters["gpusim__l2_atomic_lanes.sum"]), res.args[0], vals


@pytest.mark.parametrize("aggregate, sent", [(True, 1), (False, 32)])
def test_red_add_u32_to_one_address_from_32_lanes_sends_1_l2_atomic(aggregate, sent):
    n, out, vals = l2_atomics("red.global.add.u32 [%rd3], %r3;", 32, aggregate)
    assert n == sent
    assert int(out[0]) == int(vals.sum())            # the sum is the same either way


def test_atomicadd_of_one_to_a_counter_from_two_warps_sends_2_l2_atomics():
    n, out, _ = l2_atomics("atom.global.add.u32 %r4, [%rd3], 1;", 64)
    assert n == 2 and int(out[0]) == 64


def test_atom_add_with_its_result_used_aggregates_only_full_warps():
    """A per-lane operand and a used result: ptxas scans and lane 31 sends one ATOM when all 32 lanes
    execute, else every lane sends its own: a block of 48 threads sends 1 + 16."""
    n, out, vals = l2_atomics("atom.global.add.u32 %r4, [%rd3], %r3; st.global.u32 [%rd6], %r4;", 48)
    assert n == 1 + 16
    assert int(out[0]) == int(vals.sum())


def test_per_lane_addresses_are_not_aggregated():
    n, out, _ = l2_atomics("and.b32 %r5, %r1, 3; mul.wide.u32 %rd7, %r5, 4; add.s64 %rd8, %rd3, %rd7;"
                           " red.global.add.u32 [%rd8], 1;", 32, n_out=4)
    assert n == 32 and out.tolist() == [8, 8, 8, 8]


def test_float_atomics_are_not_aggregated():
    n, out, _ = l2_atomics("red.global.add.f32 [%rd3], 0f3F800000;", 32, dtype=np.float32)
    assert n == 32 and float(out[0]) == 32.0


def test_one_update_per_warp_takes_fewer_cycles():
    """2048 threads adding to one word: 64 updates serialise at the word's slice instead of 2048."""
    body = "red.global.add.u32 [%rd3], %r3;"
    cycles = {}
    for aggregate in (True, False):
        gpu = load_gpu("h100", overrides={"aggregate_warp_atomics": aggregate})
        out, vals = np.zeros(1, dtype=np.uint32), np.ones(1024, dtype=np.uint32)
        res = gpusim.run(kernel(body), kernel="k", grid=(2, 1, 1), block=(1024, 1, 1), args=[out, vals],
                         mode="timing", gpu=gpu)
        cycles[aggregate] = res.timing.cycles
    assert cycles[True] < cycles[False]
