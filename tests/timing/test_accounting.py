"""Stall accounting and the block scheduler: every resident warp is in exactly one state every cycle;
blocks never exceed the occupancy limit; a new block starts when a resident one retires."""
from __future__ import annotations

import numpy as np
import pytest

from gpusim.config import load_gpu
from gpusim.errors import LaunchError
from gpusim.timing import TimingObserver, estimate_regs_per_thread, simulate
from gpusim.timing.synthetic import ins, make_trace
from gpusim.timing.warp_states import STALL_REASONS, stall_metric_name


@pytest.fixture(scope="module")
def small_h100():
    # Instant block dispatch/completion and program order: these tests check the stall bookkeeping in
    # isolation (tests/timing/test_dispatch.py and test_schedule.py cover those mechanisms).
    return load_gpu("h100").replace(**{"sm.count": 2, "block_dispatch_interval_cycles": 0.0,
                                       "block_completion_interval_cycles": 0.0, "instruction_schedule": "ptx"})


def mixed_program():
    """Loads, shared memory, SFU, FP64, a barrier, a branch, stores: every kind of wait."""
    return [
        ins("ld.global", dst=[1], src=[0]),
        ins("imad", dst=[2], src=[1, 1]),
        ins("st.shared", src=[2, 0]),
        ins("bar"),
        ins("ld.shared", dst=[3], src=[0]),
        ins("sfu", dst=[4], src=[3]),
        ins("dfma", dst=[5], src=[4, 4]),
        ins("fma", dst=[6], src=[5, 3]),
        ins("bra", src=[6]),
        ins("st.global", src=[6, 0]),
        ins("exit"),
    ]


@pytest.fixture(scope="module")
def mixed(small_h100):
    trace = make_trace(mixed_program(), n_blocks=20, warps_per_block=8)
    return trace, simulate(trace, small_h100, memory="fixed", regs_per_thread=128)


def test_each_warp_spends_its_resident_cycles_in_exactly_one_state(mixed):
    _, res = mixed
    resident = res.warp_end_cycle - res.warp_start_cycle
    assert (resident > 0).all()
    np.testing.assert_array_equal(res.stalls_by_warp.sum(axis=1), resident)


def test_stall_totals_agree_per_gpu_per_sm_and_per_pc(mixed):
    _, res = mixed
    total = sum(res.stalls.values())
    assert total == int(res.per_sm["warp_cycles"].sum()) == int(res.per_sm["stalls"].sum())
    assert total == sum(sum(d.values()) for d in res.stalls_by_pc.values())
    for i, reason in enumerate(STALL_REASONS):
        assert res.stalls[reason] == int(res.per_sm["stalls"][:, i].sum())
        assert res.stalls[reason] == sum(d.get(reason, 0) for d in res.stalls_by_pc.values())


def test_selected_cycles_are_the_issued_instructions(mixed):
    trace, res = mixed
    assert res.stalls["selected"] == trace.n_instructions == res.counters["smsp__inst_executed.sum"]
    assert res.counters[stall_metric_name("selected")] == 1.0
    # Summed over states, the ratios are the average cycles between two issues of a warp.
    assert sum(res.counters[stall_metric_name(r)] for r in STALL_REASONS) == pytest.approx(
        res.counters["smsp__average_warp_latency_per_inst_issued.ratio"])


def test_the_mixed_program_shows_each_kind_of_wait(mixed):
    _, res = mixed
    for reason in ("long_scoreboard", "short_scoreboard", "wait", "barrier", "mio_throttle",
                   "branch_resolving", "drain", "not_selected"):
        assert res.stalls[reason] > 0, reason


def test_achieved_occupancy_is_resident_warps_over_active_cycles(mixed, small_h100):
    _, res = mixed
    expected = res.per_sm["warp_cycles"].sum() / (res.per_sm["cycles_active"].sum() * small_h100.sm.max_warps)
    assert res.counters["sm__warps_active.avg.pct_of_peak_sustained_active"] == pytest.approx(100 * expected)
    assert res.counters["sm__warps_active.avg.pct_of_peak_sustained_active"] <= \
        res.counters["sm__maximum_warps_per_active_cycle_pct"] + 1e-9


def test_occupancy_counters_are_reported(mixed):
    _, res = mixed
    # 128 registers x 256 threads: 4096 registers per warp, 4 warps per 16K partition -> 2 blocks of 8 warps.
    assert res.occupancy.blocks_per_sm == 2
    assert res.counters["launch__occupancy_limit_registers"] == 2
    assert res.counters["sm__maximum_warps_per_active_cycle_pct"] == 25.0
    assert "registers" in res.occupancy.limiting


def block_intervals(res, trace):
    """(sm, first warp start, last warp end) of each block."""
    out = []
    for b in range(trace.n_blocks):
        ws = np.flatnonzero(trace.warp_block == b)
        out.append((int(res.warp_sm[ws[0]]), int(res.warp_start_cycle[ws].min()),
                    int(res.warp_end_cycle[ws].max())))
    return out


def test_block_scheduler_never_exceeds_occupancy(mixed):
    trace, res = mixed
    limit = res.occupancy.blocks_per_sm
    for sm in range(2):
        events = sorted([(s, 1) for m, s, e in block_intervals(res, trace) if m == sm]
                        + [(e, -1) for m, s, e in block_intervals(res, trace) if m == sm])
        resident = np.cumsum([d for _, d in events])
        assert resident.max() == limit
    assert res.per_sm["blocks_executed"].sum() == 20


def test_a_second_wave_block_starts_when_a_first_wave_block_retires(mixed, small_h100):
    trace, res = mixed
    blocks = block_intervals(res, trace)
    first_wave = 2 * 2      # 2 SMs x 2 blocks
    launch = small_h100.kernel_launch_latency_cycles + small_h100.block_launch_cycles
    assert all(start == launch for _, start, _ in blocks[:first_wave])
    # Breadth-first initial dispatch: block 0 -> SM 0, block 1 -> SM 1, block 2 -> SM 0, ...
    assert [sm for sm, _, _ in blocks[:first_wave]] == [0, 1, 0, 1]
    retire_times = {(sm, end) for sm, _, end in blocks}
    for sm, start, _ in blocks[first_wave:]:
        assert (sm, start - small_h100.block_launch_cycles) in retire_times


def test_kernel_time_includes_launch_overhead_and_ends_at_the_last_retirement(mixed, small_h100):
    _, res = mixed
    assert res.cycles == int(res.warp_end_cycle.max())
    assert res.counters["gpc__cycles_elapsed.max"] == res.cycles
    assert int(res.warp_start_cycle.min()) == small_h100.kernel_launch_latency_cycles + small_h100.block_launch_cycles


def test_a_block_that_fits_nowhere_is_a_launch_error(small_h100):
    trace = make_trace([ins("exit")], warps_per_block=32, regs_per_thread=255)
    with pytest.raises(LaunchError, match="registers"):
        simulate(trace, small_h100, memory="fixed")


def test_register_estimate_counts_simultaneously_live_registers():
    # r1, r2 live together, then r3 = f(r1, r2), then r4 = f(r3): at most 3 overlap (r1, r2, r3 at pc 2).
    prog = [ins("alu", dst=[1]), ins("alu", dst=[2]), ins("fma", dst=[3], src=[1, 2]),
            ins("fma", dst=[4], src=[3, 3]), ins("exit")]
    assert estimate_regs_per_thread(make_trace(prog, regs_per_thread=None)) == 16   # the floor
    wide = [ins("alu", dst=[i]) for i in range(40)] + [ins("fma", dst=[40], src=list(range(40))), ins("exit")]
    # At pc 40, r0..r39 and r40 are live: 41, plus 4 reserved = 45, rounded up to even.
    assert estimate_regs_per_thread(make_trace(wide, regs_per_thread=None)) == 46
    res = simulate(make_trace(wide, regs_per_thread=None), "h100", memory="fixed")
    assert (res.regs_per_thread, res.regs_source) == (46, "estimate")


def test_progress_reports_the_finished_kernel(small_h100):
    calls = []
    res = simulate(make_trace(mixed_program(), n_blocks=5, warps_per_block=4), small_h100, memory="fixed",
                   progress=lambda cycles, done, total: calls.append((cycles, done, total)))
    assert calls[-1] == (res.cycles, 5, 5)


def test_observers_see_every_state_change(small_h100):
    class Recorder(TimingObserver):
        def __init__(self):
            self.states = []

        def on_warp_state(self, e):
            self.states.append(STALL_REASONS[e.state])

    rec = Recorder()
    simulate(make_trace(mixed_program(), n_blocks=1, warps_per_block=8), small_h100, memory="fixed", observer=rec)
    assert {"long_scoreboard", "short_scoreboard", "not_selected", "barrier", "drain"} <= set(rec.states)


def test_summary_names_cycles_ipc_occupancy_and_top_stalls(mixed):
    _, res = mixed
    text = res.summary()
    for word in ("cycles", "IPC", "achieved", "theoretical", "long_scoreboard"):
        assert word in text


KIND_MIX = ["fma", "alu", "imad", "dfma", "sfu", "ld.global", "st.global", "ld.shared", "st.shared", "bra",
            "membar"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("policy", ["gto", "lrr", "two_level"])
def test_random_programs_keep_the_accounting_invariants(small_h100, seed, policy):
    rng = np.random.default_rng(seed)
    prog = []
    for _ in range(40):
        kind = str(rng.choice(KIND_MIX + ["bar"] * 1))
        dst = [] if kind in ("st.global", "st.shared", "bra", "membar", "bar") else [int(rng.integers(0, 8))]
        prog.append(ins(kind, dst=dst, src=[int(r) for r in rng.integers(0, 8, size=2)]))
    prog.append(ins("exit"))
    n_blocks, wpb = int(rng.integers(1, 12)), int(rng.integers(1, 17))
    # Some warps exit early (a prefix of the program, then exit): barriers must still release.
    paths = [list(range(len(prog))) if rng.random() < 0.8 else list(range(int(rng.integers(0, 40)))) + [40]
             for _ in range(n_blocks * wpb)]
    trace = make_trace(prog, n_blocks=n_blocks, warps_per_block=wpb, warp_pcs=paths)
    res = simulate(trace, small_h100, scheduler=policy, memory="fixed")
    assert res.counters["smsp__inst_executed.sum"] == trace.n_instructions
    np.testing.assert_array_equal(res.stalls_by_warp.sum(axis=1), res.warp_end_cycle - res.warp_start_cycle)
    assert res.cycles == int(res.warp_end_cycle.max())
