"""Warp schedules: the order in which blocks and warps run, seen through tickets drawn with an atomic
counter (each thread stores the ticket it drew: the order it ran in)."""
import numpy as np
import pytest

import gpusim
from gpusim.errors import LaunchError
from snippet import HEADER

TICKETS = HEADER + """
.visible .entry tickets(.param .u64 p_counter, .param .u64 p_out)
{
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\tld.param.u64 %rd1, [p_counter];
\tld.param.u64 %rd2, [p_out];
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmad.lo.u32 %r4, %r2, %r3, %r1;
\tatom.global.add.u32 %r5, [%rd1], 1;
\tmul.wide.u32 %rd3, %r4, 4;
\tadd.s64 %rd4, %rd2, %rd3;
\tst.global.u32 [%rd4], %r5;
\tret;
}
"""


def tickets(schedule=None, seed=None, grid=2, block=64):
    n = grid * block
    res = gpusim.run(TICKETS, grid=grid, block=block, args=[np.zeros(1, np.uint32), np.zeros(n, np.uint32)],
                     schedule=schedule, schedule_seed=seed)
    return res.args[1].reshape(grid, block // 32, 32)   # [block, warp, lane]


def warp_order(t):
    """(block, warp) in the order they drew their first ticket."""
    first = t[:, :, 0].ravel()
    return [divmod(int(i), t.shape[1]) for i in np.argsort(first)]


def test_lockstep_runs_the_warps_of_a_batch_together_in_order():
    t = tickets()
    assert np.array_equal(t.ravel(), np.arange(128))
    assert warp_order(t) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_reversed_runs_the_last_block_first_and_its_highest_warp_first():
    t = tickets("reversed")
    assert warp_order(t) == [(1, 1), (1, 0), (0, 1), (0, 0)]
    assert np.array_equal(np.sort(t.ravel()), np.arange(128))       # each ticket drawn once
    assert np.array_equal(t[1, 1], np.arange(32))                   # lanes of a warp still run together


def test_random_is_a_seeded_order_of_blocks_and_warps():
    a, b = tickets("random", seed=1, grid=4), tickets("random", seed=1, grid=4)
    c = tickets("random", seed=2, grid=4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(np.sort(a.ravel()), np.arange(256))
    assert warp_order(a) != warp_order(tickets(grid=4))


def test_a_trace_is_recorded_in_the_lockstep_order_only():
    args = [np.zeros(1, np.uint32), np.zeros(32, np.uint32)]
    with pytest.raises(LaunchError, match="recorded in the lockstep schedule, not reversed"):
        gpusim.run(TICKETS, grid=1, block=32, args=args, schedule="reversed", record_trace=True)
    with pytest.raises(LaunchError, match="emulate mode"):
        gpusim.run(TICKETS, grid=1, block=32, args=args, schedule="reversed", mode="timing")


def test_an_unknown_schedule_is_named():
    with pytest.raises(LaunchError, match="lockstep, reversed, random"):
        tickets("sideways")
