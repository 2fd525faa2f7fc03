"""Sampled timing (gpusim.timing.sampling), as a datasheet: the blocks timed and the machine they are timed
on, an estimate that is exact when every SM is sampled and close when the memory system is not shared, the
automatic default, and what the report says."""
import numpy as np
import programs
import pytest

import gpusim
from gpusim.api import load_module
from gpusim.config import load_gpu
from gpusim.functional.emulator import Emulator
from gpusim.timing import simulate
from gpusim.timing.sampling import (AUTO_MIN_WARP_INSTRUCTIONS, reduced_gpu, sample_spans, should_sample,
                                    simulate_sampled, sorted_unique, sub_blocks)

H100 = load_gpu("h100")


def stream(name, size, max_lanes=65536):
    spec = programs.get(name)
    module, _ = load_module(name)
    lnch = spec.launch(size)
    kernel = module.kernel(lnch.kernel)
    return Emulator(module, max_lanes=max_lanes).stream(
        kernel.name, lnch.grid, lnch.block, spec.make_args(size, 0), symbols=spec.make_symbols(size, 0),
        shared_mem=int(lnch.shared_mem or 0), regs_per_thread=spec.registers(kernel.name))


def test_spans_start_at_block_0_spread_over_the_launch_and_hold_n_sub_blocks():
    spans = sample_spans(1000, 32, 4)
    assert spans == [(0, 8), (399, 407), (557, 565), (956, 964)]       # one in each quarter
    assert sample_spans(10, 10, 4) == [(0, 3), (3, 6), (6, 8), (8, 10)]      # every block, in order
    assert sub_blocks(1000, 132, 4) == 31 and sub_blocks(1057, 132, 4) == 33   # the ceiling keeps the tail
    assert sub_blocks(40, 132, 4) == 2


def test_the_strips_of_a_power_of_two_launch_fall_at_different_phases_of_its_power_of_two_periods():
    # strips at the strata's starts (0, n/4, n/2, 3n/4) all sit at phase 0 of every period up to n/4: a
    # kernel whose data layout repeats with such a period is sampled at one point of it only
    n = 1 << 16
    spans = sample_spans(n, 1986, 4)
    assert spans[0][0] == 0 and all(k * n // 4 <= lo < (k + 1) * n // 4 for k, (lo, _) in enumerate(spans))
    for period in (1 << 12, 1 << 13, 1 << 14):
        phases = {lo % period * 8 // period for lo, _ in spans}       # which eighth of the period
        assert len(phases) == 4, (period, spans)


def test_a_sample_of_a_gather_with_a_power_of_two_reuse_period_sees_its_l2_hits():
    # tensor transpose 32^4, reversed axes: each input sector is read by 8 blocks 128 apart, the first of
    # them at a multiple of 1,024 blocks; a full run finds 75% of the sectors the SMs ask for in L2.  Strips
    # at 0, 1024, 2048, 3072 timed first readers only (33 hits of 1M lookups, 22x the full run's cycles).
    res = gpusim.run("hecbench/tensor_transpose", size="d0=32,d1=32,d2=32,d3=32", mode="timing", sample=4).timing
    c = res.counters
    assert c["dram__sectors_read.sum"] / c["lts__t_sectors_srcunit_tex.sum"] < 0.5


def test_the_reduced_machine_has_its_share_of_l2_and_dram_bandwidth_and_the_whole_l2():
    same, _ = reduced_gpu(H100, H100.sm.count)
    assert same.to_dict() == H100.to_dict()
    cfg, rounding = reduced_gpu(H100, 4)
    f = 4 / H100.sm.count
    l2, dram = cfg.memory.l2, cfg.memory.dram
    assert cfg.sm.count == 4 and l2.slices % l2.partitions == 0
    full_l2_bw = H100.memory.l2.slices * H100.memory.l2.sectors_per_cycle_per_slice
    assert l2.slices * l2.sectors_per_cycle_per_slice == pytest.approx(f * full_l2_bw, rel=rounding["l2_bandwidth"] + 1e-9)
    assert rounding["l2_bandwidth"] < 0.05
    assert dram.peak_bytes_per_s == pytest.approx(f * H100.memory.dram.peak_bytes_per_s, rel=1e-9)
    assert l2.size_bytes == pytest.approx(H100.memory.l2.size_bytes, rel=0.01)
    assert cfg.block_dispatch_interval_cycles == pytest.approx(H100.block_dispatch_interval_cycles / f)


@pytest.mark.parametrize("span", [1, 300, 1 << 40])
def test_the_warmed_sectors_are_np_unique_of_the_addresses_whether_by_bitmap_or_by_sort(span):
    rng = np.random.default_rng(span)
    values = (1 << 38) + rng.integers(0, span, size=5000, dtype=np.int64)   # dense: bitmap; 1 << 40: the sort
    got = sorted_unique(values)
    assert got.dtype == values.dtype and np.array_equal(got, np.unique(values))
    assert sorted_unique(np.zeros(0, dtype=np.int64)).size == 0


def test_a_chunk_of_chosen_blocks_is_a_launch_of_its_own():
    trace = gpusim.run("vector_add", size="small", mode="emulate", record_trace=True).trace
    part = trace.select_blocks(3, 6, first_block=0, grid=(3, 1, 1))
    wpb = trace.warps_per_block
    rows = trace.warp_start[6 * wpb] - trace.warp_start[3 * wpb]
    assert part.n_blocks == 3 and part.n_warps == 3 * wpb and part.n_instructions == rows
    assert part.warp_block.tolist() == [b for b in range(3) for _ in range(wpb)]
    np.testing.assert_array_equal(part.pc, trace.pc[trace.warp_start[3 * wpb]:trace.warp_start[6 * wpb]])
    slots = part.mem_slot[part.mem_slot >= 0]
    assert sorted(slots.tolist()) == list(range(part.addresses.shape[0]))
    # the addresses are those the blocks touched
    first = trace.mem_slot[trace.warp_start[3 * wpb]:trace.warp_start[6 * wpb]]
    np.testing.assert_array_equal(np.sort(part.addresses[slots], axis=None),
                                  np.sort(trace.addresses[first[first >= 0]], axis=None))


def test_sampling_every_sm_is_the_full_simulation():
    full = simulate(stream("vector_add", "default"), H100)
    sampled = simulate(stream("vector_add", "default"), H100, sample=H100.sm.count)
    assert sampled.cycles == full.cycles
    for k in ("smsp__inst_executed.sum", "lts__t_sectors_op_read.sum", "dram__bytes_read.sum",
              "sm__warps_active.avg.pct_of_peak_sustained_active"):
        assert sampled.counters[k] == pytest.approx(full.counters[k], rel=1e-9)
    assert sampled.sampling.blocks_timed == 391 and sampled.sampling.signature_ratio == pytest.approx(1.0)


def test_without_shared_memory_effects_a_few_sms_give_the_cycles_of_all_of_them():
    # fixed-latency memory: nothing is shared between SMs, so the sampled machine's waves are the GPU's
    gpu = load_gpu("h100", overrides={"sm.count": 16})          # vector_add default: ~3 waves on 16 SMs
    full = simulate(stream("vector_add", "default", max_lanes=4096), gpu, memory="fixed")
    sampled = simulate(stream("vector_add", "default", max_lanes=4096), gpu, memory="fixed", sample=2)
    assert sampled.sampling.blocks_timed == 49 and sampled.sampling.sms == 2
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.02)
    # the emulator's count, scaled by the share of rows the ptxas-like passes keep in the timed blocks: the
    # last block, whose lanes past n skip the body, keeps another share (gpusim.timing.fusion)
    assert sampled.counters["smsp__inst_executed.sum"] == pytest.approx(full.counters["smsp__inst_executed.sum"],
                                                                        rel=1e-3)
    assert sampled.counters["smsp__thread_inst_executed.sum"] == pytest.approx(
        full.counters["smsp__thread_inst_executed.sum"], rel=1e-3)
    assert sampled.counters["launch__waves_per_multiprocessor"] == full.counters["launch__waves_per_multiprocessor"]


def test_a_whole_trace_samples_like_its_stream():
    trace = gpusim.run("vector_add", size="default", mode="emulate", record_trace=True).trace
    a = simulate(trace, H100, sample=4)
    b = simulate(stream("vector_add", "default"), H100, sample=4)
    assert a.cycles == b.cycles and a.counters == b.counters


def test_the_automatic_default_samples_large_launches_only_and_the_report_says_so():
    small = gpusim.run("vector_add", size="default", mode="timing")
    assert small.timing.sampling is None and "sampled" not in small.summary()
    yes, why = should_sample(16384, 1.2 * AUTO_MIN_WARP_INSTRUCTIONS, H100)
    assert yes and why.startswith("auto: about 4.8M warp instructions")
    assert not should_sample(16384, AUTO_MIN_WARP_INSTRUCTIONS / 2, H100)[0]
    assert not should_sample(3, 10 * AUTO_MIN_WARP_INSTRUCTIONS, H100)[0]     # 1 of 3 blocks: not worth it
    res = gpusim.run("vector_add", size="default", mode="timing", sample=4)
    text = res.summary()
    assert "sampled (--sample): 12 of 391 blocks timed on 4 of 132 SMs (blocks 0..2, 155..157, 217..219, " \
           "374..376); estimate +/- " in text
    np.testing.assert_array_equal(res.args[2], res.args[0] + res.args[1])      # every block still ran


def test_cli_sample_and_full(capsys):
    from gpusim.cli import main
    assert main(["run", "vector_add", "--sample", "2", "--quiet"]) == 0
    assert "sampled (--sample): 6 of 391 blocks timed on 2 of 132 SMs" in capsys.readouterr().out
    assert main(["run", "vector_add", "--full", "--quiet"]) == 0
    assert "sampled" not in capsys.readouterr().out


def test_the_automatic_default_times_a_launch_in_full_when_the_samples_bound_is_too_wide(monkeypatch):
    from gpusim.timing import sampling
    monkeypatch.setattr(sampling, "AUTO_MIN_WARP_INSTRUCTIONS", 1)      # vector_add default counts as large
    auto = gpusim.run("vector_add", size="default", mode="timing")
    full = gpusim.run("vector_add", size="default", mode="timing", sample=False)
    assert auto.timing.sampling is None and auto.timing.cycles == full.timing.cycles
    # vector_add waits on global memory most of its time: the memory-contention part alone is over 15%
    assert "wider than 15%; not sampled in time: 391 blocks are 0.37 waves of 1,056, fewer than the 12 the " \
           "automatic choice samples in time, so timed in full" in auto.timing.sampling_declined
    assert "full detail (sampled (auto: about 0.1M warp instructions" in auto.summary()


def test_the_sm_layout_times_the_blocks_the_sampled_sms_get_in_the_first_wave():
    from gpusim.timing.sampling import sampled_sms, sm_spans
    assert sampled_sms(132, 4) == [0, 33, 66, 99]
    spans = sm_spans(300, 132, 4)
    blocks = [b for lo, hi in spans for b in range(lo, hi)]
    assert blocks == [0, 33, 66, 99, 132, 165, 198, 231, 264, 297]
    res = simulate(stream("vector_add", "default"), H100, sample=H100.sm.count)     # strips, every block
    assert res.sampling.layout == "strips"


def test_a_launch_of_one_wave_lasts_as_long_as_its_longest_block_not_its_mean_one():
    # tpacf: block b compares its points with tiles b..n/256, so of 2 blocks block 0 does 2 tiles, block 1
    # one; the sample times block 0 alone.  Scaled by the mean block's share (0.69) it gave 216,852 cycles
    # against 311,458 in full: every block runs at once, so the launch takes its longest block's time.
    full = gpusim.run("parboil/tpacf", size="n=512", mode="timing", sample=False).timing
    sampled = gpusim.run("parboil/tpacf", size="n=512", mode="timing", sample=4).timing
    assert sampled.sampling.blocks_timed == 1 and sampled.sampling.signature_ratio < 0.75
    assert sampled.cycles == pytest.approx(full.cycles, rel=0.05)
