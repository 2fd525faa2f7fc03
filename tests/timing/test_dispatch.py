"""The GPU-wide block scheduler's rates: initial dispatch at one block per ``block_dispatch_interval_cycles``
and a serial completion stage of ``block_completion_interval_cycles`` per retiring block, which both the
block refilling the freed slot and the end of the kernel wait for (measured on the H100 under ncu:
empty blocks cost ~0.96 cycles each beyond the first wave, benchmarks/dispatch_probe.py)."""
from __future__ import annotations

import numpy as np
import pytest

from gpusim.config import load_gpu
from gpusim.timing import simulate
from gpusim.timing.gpu import BlockScheduler
from gpusim.timing.synthetic import ins, make_trace


def gpu(dispatch=0.0, completion=0.0, sms=4):
    return load_gpu("h100").replace(**{"sm.count": sms, "block_dispatch_interval_cycles": dispatch,
                                       "block_completion_interval_cycles": completion})


def empty(n_blocks):
    return make_trace([ins("exit")], n_blocks=n_blocks, warps_per_block=1)


def test_completion_stage_is_serial_and_rounds_up():
    s = BlockScheduler(4, 0.0, 0.96)
    assert [s.complete(100) for _ in range(4)] == [100, 101, 102, 103]
    assert s.complete(500) == 500          # idle stage: no wait
    assert s.last_completion == 500


def test_initial_dispatch_is_spread_at_the_dispatch_interval():
    g = gpu(dispatch=0.5, sms=4)
    res = simulate(empty(8), g, memory="fixed")
    starts = np.sort(res.warp_start_cycle)
    launch = g.kernel_launch_latency_cycles + g.block_launch_cycles
    np.testing.assert_array_equal(starts, launch + np.ceil(np.arange(8) * 0.5).astype(int))


@pytest.mark.parametrize("n_blocks", [4, 64, 512])
def test_many_empty_blocks_cost_the_completion_interval_each(n_blocks):
    base = simulate(empty(n_blocks), gpu(), memory="fixed").cycles
    slow = simulate(empty(n_blocks), gpu(completion=0.96), memory="fixed").cycles
    # the kernel's end waits for every completion; with 4 SMs the stage, not the SMs, is the bottleneck
    assert slow - base >= int(0.96 * (n_blocks - 1)) - 4 * (gpu().block_launch_cycles + 2)
    assert slow >= simulate(empty(1), gpu(), memory="fixed").cycles + int(0.96 * (n_blocks - 1))


def test_long_blocks_hide_dispatch_but_not_completion():
    """One wave of long blocks: all start together; the completions queue at the end (as 4224 spinning
    blocks on the H100 end ~3900 cycles after 132 do)."""
    prog = [ins("fma", dst=[1], src=[1, 1]) for _ in range(200)] + [ins("exit")]
    trace = make_trace(prog, n_blocks=4 * 8, warps_per_block=1)
    base = simulate(trace, gpu(), memory="fixed").cycles
    slow = simulate(trace, gpu(completion=10.0), memory="fixed").cycles
    assert slow - base == pytest.approx(10 * 31, abs=12)
