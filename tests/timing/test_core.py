"""Datasheet tests of the SM core: latency, latency hiding, issue width, scoreboards, pipes, barriers,
divergence. Each test runs a hand-built trace on a one-SM H100 with no launch overheads, so cycle counts
are exact consequences of the configured latencies."""
from __future__ import annotations

import pytest

from gpusim.config import load_gpu
from gpusim.timing import TimingObserver, simulate
from gpusim.timing.synthetic import ins, make_trace

FULL = 0xFFFFFFFF


@pytest.fixture(scope="module")
def h100():
    return load_gpu("h100").replace(**{"sm.count": 1, "kernel_launch_cycles": 0, "kernel_launch_ns": 0, "block_launch_cycles": 0})


class IssueLog(TimingObserver):
    def __init__(self):
        self.issues = []      # (cycle, sm, smsp, warp, pc)

    def on_issue(self, e):
        self.issues.append(tuple(e))


def fma_chain(n):
    """n FMAs, each reading the previous one's result (r1 = r1 * r2 + r1)."""
    return [ins("fma", dst=[1], src=[1, 2]) for _ in range(n)] + [ins("exit")]


def fma_independent(n):
    """n FMAs writing distinct registers from constant inputs: no dependencies between them."""
    return [ins("fma", dst=[10 + i], src=[1, 2]) for i in range(n)] + [ins("exit")]


def run(trace, gpu, **kw):
    kw.setdefault("memory", "fixed")
    return simulate(trace, gpu, **kw)


# -- latency -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fma_latency", [4, 6])
def test_dependent_fma_chain_takes_n_times_fma_latency(h100, fma_latency):
    gpu = h100.replace(**{"latency_cycles.fma": fma_latency})
    n = 64
    res = run(make_trace(fma_chain(n)), gpu)
    # n-1 full latencies between the n issues, then the exit one cycle after the last FMA.
    assert res.cycles == (n - 1) * fma_latency + 2
    assert res.stalls["wait"] == (n - 1) * (fma_latency - 1)
    assert res.stalls["selected"] == n + 1


def test_global_load_use_waits_on_long_scoreboard(h100):
    prog = [ins("ld.global", dst=[1], src=[2]), ins("fma", dst=[3], src=[1, 1]), ins("exit")]
    res = run(make_trace(prog), h100)
    lat = h100.latency("global")
    assert res.stalls["long_scoreboard"] == lat - 1
    assert res.stalls_by_pc[1]["long_scoreboard"] == lat - 1     # charged to the FMA that waits


def test_shared_load_use_waits_on_short_scoreboard(h100):
    prog = [ins("ld.shared", dst=[1], src=[2]), ins("fma", dst=[3], src=[1, 1]), ins("exit")]
    res = run(make_trace(prog), h100)
    assert res.stalls["short_scoreboard"] == h100.latency("shared") - 1
    assert res.stalls["long_scoreboard"] == 0


def test_exit_with_an_outstanding_store_drains(h100):
    prog = [ins("st.global", src=[1, 2]), ins("exit")]
    res = run(make_trace(prog), h100)
    lat = h100.latency("global")
    # The store issues at 0 and is accepted at lat; the warp exits at 1 and stays resident until lat.
    assert res.stalls["drain"] == lat - 2
    assert res.cycles == lat


def test_membar_waits_for_earlier_stores(h100):
    prog = [ins("st.global", src=[1, 2]), ins("membar"), ins("exit")]
    res = run(make_trace(prog), h100)
    assert res.stalls["membar"] >= h100.latency("global") - 2


def test_branch_costs_its_resolution_latency(h100):
    prog = [ins("bra"), ins("exit")]
    res = run(make_trace(prog), h100)
    assert res.stalls["branch_resolving"] == h100.latency("branch") - 1


# -- issue width and latency hiding ------------------------------------------------------------------------

def test_independent_instructions_issue_back_to_back(h100):
    res = run(make_trace(fma_independent(32)), h100)
    assert res.cycles == 33          # 32 FMAs at one per cycle, then the exit
    assert res.stalls["wait"] == 0


def test_half_rate_pipe_throttles_a_single_warp(h100):
    # H100 issues FP64 to an SMSP every 2 cycles: independent DFMAs from one warp wait one cycle each.
    n = 16
    prog = [ins("dfma", dst=[10 + i], src=[1, 2]) for i in range(n)] + [ins("exit")]
    res = run(make_trace(prog), h100)
    assert h100.issue_interval("fp64") == 2
    assert res.stalls["math_pipe_throttle"] == n - 1


def test_sfu_pipe_busy_is_mio_throttle(h100):
    n = 4
    prog = [ins("sfu", dst=[10 + i], src=[1]) for i in range(n)] + [ins("exit")]
    res = run(make_trace(prog), h100)
    assert res.stalls["mio_throttle"] == (n - 1) * (h100.issue_interval("sfu") - 1)


@pytest.mark.parametrize("warps_per_smsp, ipc_per_smsp", [(1, 0.25), (2, 0.5), (4, 1.0), (8, 1.0)])
def test_ipc_rises_with_resident_warps_until_issue_bound(h100, warps_per_smsp, ipc_per_smsp):
    # The seeds' latency-tolerance argument: with a 4-cycle FMA latency, each SMSP needs 4 ready warps to
    # issue every cycle; more warps cannot push it past one instruction per cycle.
    n = 256
    trace = make_trace(fma_chain(n), n_blocks=1, warps_per_block=4 * warps_per_smsp)
    res = run(trace, h100)
    ipc = res.counters["smsp__inst_executed.avg.per_cycle_active"]
    assert ipc == pytest.approx(ipc_per_smsp, rel=0.03)
    assert res.counters["smsp__inst_executed.sum"] == (n + 1) * 4 * warps_per_smsp
    # Latency-bound below 4 warps per SMSP (n x 4 cycles), issue-bound above (n x warps cycles).
    assert res.cycles == pytest.approx(n * max(h100.latency("fma"), warps_per_smsp), rel=0.03)


def test_one_subpartition_issues_at_most_one_instruction_per_cycle(h100):
    log = IssueLog()
    trace = make_trace(fma_independent(50), n_blocks=2, warps_per_block=16)
    res = run(trace, h100, observer=log)
    slots = [(c, sm, sp) for c, sm, sp, _, _ in log.issues]
    assert len(slots) == res.counters["smsp__inst_executed.sum"] == 32 * 51
    assert len(set(slots)) == len(slots)
    # ... and with 8 independent warps per SMSP it does issue every cycle.
    assert res.counters["smsp__issue_active.avg.pct_of_peak_sustained_active"] > 99


def test_warps_are_bound_to_subpartition_by_slot(h100):
    log = IssueLog()
    run(make_trace(fma_independent(4), n_blocks=1, warps_per_block=8), h100, observer=log)
    smsp_of_warp = {w: sp for _, _, sp, w, _ in log.issues}
    assert smsp_of_warp == {w: w % 4 for w in range(8)}


# -- barriers -------------------------------------------------------------------------------------------------

def test_barrier_releases_only_when_the_last_warp_arrives(h100):
    # Warp 3 does a 20-FMA chain before the barrier; warps 0-2 arrive at once and must wait for it.
    prog = fma_chain(20)[:-1] + [ins("bar"), ins("fma", dst=[5], src=[2, 2]), ins("exit")]
    bar_pc = 20
    short = [bar_pc, bar_pc + 1, bar_pc + 2]
    long = list(range(len(prog)))
    log = IssueLog()
    res = run(make_trace(prog, warps_per_block=4, warp_pcs=[short, short, short, long]), h100, observer=log)
    last_arrival = max(c for c, _, _, w, pc in log.issues if pc == bar_pc)
    assert last_arrival == next(c for c, _, _, w, pc in log.issues if pc == bar_pc and w == 3)
    after = [c for c, _, _, w, pc in log.issues if pc == bar_pc + 1]
    assert len(after) == 4
    release = last_arrival + h100.barrier_arrive_cycles + h100.latency("barrier")   # its arrival counted, then
    assert min(after) == release
    assert res.stalls_by_pc[bar_pc + 1]["barrier"] == 3 * last_arrival + 4 * (release - last_arrival - 1)


@pytest.mark.parametrize("arrive_cycles", [0, 2])
def test_the_barrier_unit_counts_one_arrival_per_barrier_arrive_cycles(h100, arrive_cycles):
    # tests/golden/h100/micro/barrier.json: a bar.sync loop costs ~2 cycles more per warp of the block
    gpu = h100.replace(barrier_arrive_cycles=arrive_cycles)
    prog = [ins("bar"), ins("fma", dst=[5], src=[2, 2]), ins("exit")]
    log = IssueLog()
    run(make_trace(prog, warps_per_block=8), gpu, observer=log)
    arrivals = sorted(c for c, _, _, w, pc in log.issues if pc == 0)
    assert arrivals == [0, 0, 0, 0, 1, 1, 1, 1]           # two warps per SMSP
    after = min(c for c, _, _, w, pc in log.issues if pc == 1)
    assert after == max(1, 8 * arrive_cycles) + gpu.latency("barrier")


def test_exited_warps_do_not_hold_a_barrier(h100):
    # Warp 1 exits without reaching the barrier (as threads that returned early): warp 0 still passes it.
    prog = [ins("bar"), ins("fma", dst=[5], src=[2, 2]), ins("exit")]
    res = run(make_trace(prog, warps_per_block=2, warp_pcs=[[0, 1, 2], [2]]), h100)
    assert res.counters["smsp__inst_executed.sum"] == 4


# -- divergence ------------------------------------------------------------------------------------------------

def test_divergent_if_else_costs_one_pass_per_path(h100):
    # if (lane < 16) { 8 dependent FMAs } else { 8 dependent FMAs }: the warp runs both paths, masked.
    prog = ([ins("alu", dst=[9], src=[1]), ins("bra", src=[9])] + fma_chain(8)[:-1] + [ins("bra")]
            + fma_chain(8)[:-1] + [ins("exit")])
    then_pcs, else_pcs = list(range(2, 11)), list(range(11, 19))
    lo, hi = 0x0000FFFF, 0xFFFF0000
    path = [0, 1] + then_pcs + else_pcs + [19]
    masks = [FULL, FULL] + [lo] * len(then_pcs) + [hi] * len(else_pcs) + [FULL]
    divergent = run(make_trace(prog, warp_pcs=[path], warp_masks=[masks]), h100)
    uniform_path = [0, 1] + then_pcs + [19]
    uniform = run(make_trace(prog, warp_pcs=[uniform_path]), h100)
    assert divergent.counters["smsp__inst_executed.sum"] == len(path)
    assert divergent.counters["smsp__thread_inst_executed_per_inst_executed.ratio"] == pytest.approx(
        (3 * 32 + 17 * 16) / 20)
    # The else path adds its own 8-FMA chain (7 latencies + the last issue) on top of the uniform run.
    assert divergent.cycles - uniform.cycles == 7 * h100.latency("fma") + 1


# -- memory pipes ------------------------------------------------------------------------------------------------

def test_lsu_issue_interval_throttles_one_warps_memory_instructions(h100):
    # 8 LD/ST lanes per H100 SMSP: one warp memory instruction per 4 cycles from each SMSP.
    n = 6
    interval = h100.issue_interval("lsu")
    shared = [ins("ld.shared", dst=[10 + i], src=[1]) for i in range(n)] + [ins("exit")]
    glob = [ins("ld.global", dst=[10 + i], src=[1]) for i in range(n)] + [ins("exit")]
    assert run(make_trace(shared), h100).stalls["mio_throttle"] == (n - 1) * (interval - 1)
    assert run(make_trace(glob), h100).stalls["lg_throttle"] == (n - 1) * (interval - 1)


class SlowL1:
    """A memory model whose every access keeps the SM's L1TEX path busy for 10 cycles."""

    def __init__(self):
        self.accesses = []

    def begin(self, requests, launch=None):
        pass

    def access(self, now, sm, request):
        self.accesses.append(now)
        return now + 50, 10

    def counters(self):
        return {"test__accesses.sum": len(self.accesses)}


def test_the_l1tex_path_is_shared_by_the_subpartitions(h100):
    mem = SlowL1()
    prog = [ins("ld.global", dst=[3], src=[1]), ins("exit")]
    res = simulate(make_trace(prog, warps_per_block=4), h100.replace(lsu_queue_entries=0), memory=mem)
    assert mem.accesses == [0, 10, 20, 30]          # one warp per SMSP, serialized by the SM-wide path
    assert res.counters["test__accesses.sum"] == 4  # the memory model's counters are merged in
    assert res.stalls["lg_throttle"] == 10 + 20 + 30


def test_memory_instructions_queue_for_the_l1tex_path(h100):
    # tests/golden/h100/micro/mioqueue.json: a warp issues loads past a busy pipe until its queue is full; a
    # write to a register a queued load has yet to read waits for the pipe to take it (long_scoreboard)
    gpu = h100.replace(lsu_queue_entries=2)
    mem = SlowL1()
    prog = [ins("ld.global", dst=[10 + i], src=[1]) for i in range(6)] + [ins("alu", dst=[1], src=[2]),
                                                                          ins("exit")]
    log = IssueLog()
    res = simulate(make_trace(prog), gpu, memory=mem, observer=log)
    assert mem.accesses == [0, 10, 20, 30, 40, 50]       # the path takes one per 10 cycles, in issue order
    issue = [c for c, _, _, _, pc in sorted(log.issues)]
    assert issue[:6] == [0, 4, 8, 12, 20, 30]            # the LSU interval, then a free queue entry each time
    assert issue[6] == 50                                # the alu overwrites r1, read by the last load at 50
    assert res.stalls["lg_throttle"] == 3 + 3 + 3 + 7 + 9
    assert res.stalls["long_scoreboard"] == 50 - 31


def test_the_pipe_takes_the_subpartitions_queued_instructions_in_issue_order(h100):
    # two warps on two sub-partitions, 3 loads each, 2 queue entries per sub-partition, 10 cycles a request
    gpu = h100.replace(lsu_queue_entries=2)
    mem = SlowL1()
    prog = [ins("ld.global", dst=[10 + i], src=[1]) for i in range(3)] + [ins("exit")]
    log = IssueLog()
    simulate(make_trace(prog, warps_per_block=2), gpu, memory=mem, observer=log)
    assert mem.accesses == [0, 10, 20, 30, 40, 50]       # one pipe, in issue order over both sub-partitions
    third = {w: c for c, _, _, w, pc in log.issues if pc == 2}
    assert third == {0: 8, 1: 10}                         # warp 1's queue holds loads taken at 10 and 30 till 10


@pytest.mark.parametrize("arrive_cycles", [0, 2])
def test_a_warp_that_exits_releases_the_barrier_once_the_arrivals_are_counted(h100, arrive_cycles):
    gpu = h100.replace(barrier_arrive_cycles=arrive_cycles)
    prog = [ins("bar"), ins("fma", dst=[5], src=[2, 2]), ins("exit")]
    log = IssueLog()
    run(make_trace(prog, warps_per_block=2, warp_pcs=[[0, 1, 2], [2]]), gpu, observer=log)
    after = next(c for c, _, _, w, pc in log.issues if pc == 1)
    assert after == arrive_cycles + gpu.latency("barrier")   # warp 0's arrival at 0, counted, then the release
