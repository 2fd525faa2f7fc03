"""Warp-scheduling policies issue in the order their definitions say (checked on a one-SMSP SM)."""
from __future__ import annotations

import pytest

from gpusim.config import load_gpu
from gpusim.errors import ConfigError
from gpusim.timing import SCHEDULERS, TimingObserver, register_scheduler, simulate
from gpusim.timing.synthetic import ins, make_trace


@pytest.fixture(scope="module")
def one_smsp():
    return load_gpu("h100").replace(**{"sm.count": 1, "sm.subpartitions": 1, "sm.register_partitions": 1,
                                       "kernel_launch_cycles": 0, "kernel_launch_ns": 0, "block_launch_cycles": 0})


class WarpOrder(TimingObserver):
    def __init__(self):
        self.order = []

    def on_issue(self, e):
        self.order.append(e.warp)


def issue_order(gpu, scheduler, prog, warps):
    log = WarpOrder()
    simulate(make_trace(prog, warps_per_block=warps), gpu, scheduler=scheduler, memory="fixed", observer=log)
    return log.order


INDEPENDENT = [ins("fma", dst=[10 + i], src=[1, 2]) for i in range(3)] + [ins("exit")]


def test_gto_issues_one_warp_until_it_stalls_then_the_oldest(one_smsp):
    assert issue_order(one_smsp, "gto", INDEPENDENT, 3) == [0] * 4 + [1] * 4 + [2] * 4


def test_gto_switches_to_the_oldest_ready_warp_at_a_stall(one_smsp):
    # Each warp: an FMA, then one that depends on it (a 4-cycle wait), then exit.
    prog = [ins("fma", dst=[3], src=[1, 2]), ins("fma", dst=[4], src=[3, 3]), ins("exit")]
    order = issue_order(one_smsp, "gto", prog, 3)
    # w0 stalls after its first FMA; w1 is the oldest ready, then w2; w0 returns as soon as it is ready.
    assert order[:4] == [0, 1, 2, 0]


def test_lrr_rotates_through_the_warps(one_smsp):
    assert issue_order(one_smsp, "lrr", INDEPENDENT, 3) == [0, 1, 2] * 4


def test_lrr_skips_warps_that_are_not_ready(one_smsp):
    # Warp 1 starts with a global load feeding its next instruction; warps 0 and 2 run 4 independent FMAs.
    prog = [ins("ld.global", dst=[3], src=[1]), ins("fma", dst=[4], src=[3, 3])] + \
        [ins("fma", dst=[10 + i], src=[1, 2]) for i in range(4)] + [ins("exit")]
    fast = list(range(2, 7))
    log = WarpOrder()
    trace = make_trace(prog, warps_per_block=3, warp_pcs=[fast, list(range(7)), fast])
    simulate(trace, one_smsp, scheduler="lrr", memory="fixed", observer=log)
    assert log.order[:3] == [0, 1, 2]
    assert log.order[3:11] == [0, 2] * 4     # warp 1 waits on its load and is skipped, not given a turn
    assert log.order[11:] == [1] * 6


def test_two_level_issues_only_from_the_active_pool(one_smsp):
    # A 2-warp active pool ([scheduler] active_pool_warps): warps 2 and 3 wait in the pending pool until
    # warps 0 and 1 finish.
    order = issue_order(one_smsp.replace(**{"scheduler.active_pool_warps": 2}), "two_level", INDEPENDENT, 4)
    assert sorted(order[:8]) == [0] * 4 + [1] * 4
    assert order[:8] == [0, 1] * 4
    assert sorted(order[8:]) == [2] * 4 + [3] * 4


def test_the_active_pool_size_is_the_configs_and_changes_the_schedule(one_smsp):
    assert one_smsp.scheduler.active_pool_warps == 8
    default = issue_order(one_smsp, "two_level", INDEPENDENT, 4)       # all four fit in a pool of 8
    assert default[:4] == [0, 1, 2, 3]
    for pool in (1, 2, 3):
        order = issue_order(one_smsp.replace(**{"scheduler.active_pool_warps": pool}), "two_level", INDEPENDENT, 4)
        assert order != default and sorted(order) == sorted(default)
        assert set(order[:4 * pool]) == set(range(pool))                # the first pool runs to its end first


@pytest.mark.parametrize("policy", ["gto", "lrr", "two_level"])
def test_every_policy_runs_the_same_instructions(one_smsp, policy):
    prog = [ins("ld.global", dst=[3], src=[1]), ins("fma", dst=[4], src=[3, 3]), ins("bar"),
            ins("st.global", src=[4, 1]), ins("exit")]
    res = simulate(make_trace(prog, n_blocks=3, warps_per_block=12), one_smsp, scheduler=policy,
                   memory="fixed")
    assert res.counters["smsp__inst_executed.sum"] == 3 * 12 * 5
    assert res.scheduler == policy


def test_unknown_policy_is_a_config_error_naming_it(one_smsp):
    with pytest.raises(ConfigError, match="scheduler.*'fifo'"):
        simulate(make_trace(INDEPENDENT), one_smsp, scheduler="fifo", memory="fixed")
