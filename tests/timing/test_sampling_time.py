"""Sampling in time (gpusim.timing.sampling.simulate_time_sampled), as a datasheet: the windows timed on the
whole GPU, the steady rate of a run of blocks, an estimate within its stated bound of full detail on uniform
multi-wave launches, the decision for launches of too few waves, the automatic choice between the layouts,
and what the report says."""
import numpy as np
import pytest

import gpusim
from gpusim.config import load_gpu
from gpusim.timing import simulate
from gpusim.timing.sampling import (TIME_MIN_WAVES, steady_rate, time_spans, time_windows)

from test_sampling import stream

H100 = load_gpu("h100")
SMALL = load_gpu("h100", overrides={"sm.count": 4})       # many waves from the bundled default sizes


def test_the_windows_are_whole_waves_from_head_to_tail_with_the_partial_wave_in_the_head():
    # 10 full waves of 100 blocks and a partial one of 37: head 0..336, tail the last 3 waves
    assert time_spans(1037, 100, waves=3, windows=2) == [(0, 337), (737, 1037)]
    spans = time_spans(1037 + 2000, 100, waves=3, windows=3)
    assert spans[0] == (0, 337) and spans[-1] == (2737, 3037)
    assert all((hi - lo) == 300 for lo, hi in spans[1:])
    assert all((b[0] - a[1]) % 100 == 0 and b[0] - a[1] >= 100 for a, b in zip(spans, spans[1:]))
    # too short for a middle: timed in full
    assert time_spans(100 * (TIME_MIN_WAVES - 1) + 99, 100, waves=3) is None
    assert time_spans(100 * TIME_MIN_WAVES, 100, waves=3) == [(0, 300), (400, 700)]
    # more windows than fit: as many as leave a wave between each two
    assert len(time_spans(100 * TIME_MIN_WAVES, 100, waves=3, windows=6)) == 2
    assert time_windows(1056 * 15, 1056) == 2 and time_windows(264 * 62, 264) == 5


def test_the_steady_rate_is_one_waves_time_per_wave_whether_blocks_retire_spread_or_together():
    w = 10
    spread = np.arange(1, 61) * 7.0                     # a block retires every 7 cycles
    rate, windows = steady_rate(spread, w)
    assert rate == pytest.approx(7.0) and np.allclose(windows, 7.0)
    together = np.repeat(np.arange(1, 7) * 100.0, w)   # each wave of 10 retires at once, every 100 cycles
    rate, windows = steady_rate(together, w)
    assert rate == pytest.approx(10.0) and np.allclose(windows, 10.0)
    with pytest.raises(ValueError, match="too few"):
        steady_rate(spread[:2 * w], w)


@pytest.mark.parametrize("name", ["transpose_smem", "reduce_warp_shuffle", "vector_add"])
def test_a_uniform_multi_wave_launch_sampled_in_time_is_within_its_bound_of_full_detail(name):
    full = simulate(stream(name, "default"), SMALL)
    smp = simulate(stream(name, "default"), SMALL, sample="time")
    info = smp.sampling
    assert info.layout == "time" and info.sms == info.of_sms == 4
    err = 100 * abs(smp.cycles / full.cycles - 1)
    assert err <= info.error_bound_pct and err < 3.0
    # the sectors the SMs ask of the L2 (lts__t_sectors_op_read adds the far ones' second lookup, whose share
    # follows which SM, of which partition, got each block: on 4 SMs vector_add's far reads are 44.6% of its
    # reads in full detail, 48.6% in the sample)
    for k in ("smsp__inst_executed.sum", "dram__bytes_read.sum", "lts__t_sectors_srcunit_tex.sum"):
        assert smp.counters[k] == pytest.approx(full.counters[k], rel=0.03), k
    assert info.blocks_timed < info.n_blocks


def test_the_warming_of_the_middle_counts_its_dram_reads_instead_of_scaling_the_heads():
    # the tiled matmul reads A and B from DRAM in its first waves and then from L2: scaling the sample's
    # DRAM reads over the launch would count them again
    full = simulate(stream("matmul_tiled", "default"), SMALL)
    smp = simulate(stream("matmul_tiled", "default"), SMALL, sample="time")
    assert smp.counters["dram__bytes_read.sum"] == pytest.approx(full.counters["dram__bytes_read.sum"], rel=0.01)
    assert abs(smp.cycles / full.cycles - 1) * 100 <= smp.sampling.error_bound_pct


def test_a_launch_of_too_few_waves_is_timed_in_full_and_the_report_says_why():
    full = simulate(stream("vector_add", "default"), H100)
    res = simulate(stream("vector_add", "default"), H100, sample="time")
    assert res.sampling is None and res.cycles == full.cycles and res.counters == full.counters
    assert res.sampling_declined == ("not sampled in time: 391 blocks are 0.37 waves of 1,056, fewer than the 7 "
                                     "full waves a sample in time needs (a head and a tail of 3 and a middle to "
                                     "extrapolate)")
    assert "full detail (not sampled in time" in res.summary()


def test_the_report_says_which_blocks_were_timed_on_how_many_sms_and_the_bound():
    res = gpusim.run("transpose_smem", size="default", mode="timing", gpu=SMALL, sample="time")
    text = res.summary()
    assert "sampled in time (--sample time): blocks 0..23, 200..223, 400..423, 600..623, 800..823, 1000..1023 " \
           "(18.00 of 128.00 waves of 8 blocks) timed on all 4 SMs, the 880 between extrapolated from each " \
           "run's steady rate (" in text
    assert f"estimate +/- {res.timing.sampling.error_bound_pct:.1f}%" in text
    n = 1024
    np.testing.assert_array_equal(res.args[1].reshape(n, n), res.args[0].reshape(n, n).T)   # every block ran


def test_the_automatic_choice_samples_in_time_when_a_few_sms_give_too_wide_a_bound(monkeypatch):
    from gpusim.timing import sampling
    monkeypatch.setattr(sampling, "AUTO_MIN_WARP_INSTRUCTIONS", 1)
    gpu = load_gpu("h100", overrides={"sm.count": 32})          # transpose_smem default: 16 waves of 64
    res = gpusim.run("transpose_smem", size="default", mode="timing", gpu=gpu, sample=True)
    info = res.timing.sampling
    assert info.layout == "time"
    assert info.reason.startswith("auto, 4 SMs gave +/- ")
    full = gpusim.run("transpose_smem", size="default", mode="timing", gpu=gpu, sample=False)
    assert abs(res.timing.cycles / full.timing.cycles - 1) * 100 <= info.error_bound_pct
    np.testing.assert_array_equal(res.args[1], full.args[1])             # every block still ran


def test_cli_sample_time(capsys):
    from gpusim.cli import main
    assert main(["run", "vector_add", "--sample", "time", "--quiet"]) == 0
    assert "full detail (not sampled in time: 391 blocks" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["run", "vector_add", "--sample", "often", "--quiet"])
    assert "expected a positive number of SMs or 'time'" in capsys.readouterr().err


def test_a_whole_trace_samples_in_time_like_its_stream():
    trace = gpusim.run("reduce_warp_shuffle", size="default", mode="emulate", record_trace=True).trace
    a = simulate(trace, SMALL, sample="time")
    b = simulate(stream("reduce_warp_shuffle", "default"), SMALL, sample="time")
    assert a.sampling.spans == b.sampling.spans and a.cycles == b.cycles
    assert a.counters["dram__bytes_read.sum"] == b.counters["dram__bytes_read.sum"]


def test_the_automatic_choice_times_in_time_from_the_records_the_few_sms_kept_with_the_same_numbers(monkeypatch):
    # the sample on 4 SMs keeps each batch's record as the sample in time records it (sampling.KeptForTime),
    # so the launch is emulated once; with nothing kept (a limit of 0 bytes) it is emulated again: the same
    # estimate either way
    from gpusim.timing import sampling
    monkeypatch.setattr(sampling, "AUTO_MIN_WARP_INSTRUCTIONS", 1)
    gpu = load_gpu("h100", overrides={"sm.count": 32})          # transpose_smem default: 16 waves of 64
    emulated = []
    real_stream = gpusim.api.Emulator.stream

    def counted(self, *a, **k):
        emulated.append(a[0])
        return real_stream(self, *a, **k)
    monkeypatch.setattr(gpusim.api.Emulator, "stream", counted)
    kept = gpusim.run("transpose_smem", size="default", mode="timing", gpu=gpu, sample=True)
    assert len(emulated) == 1 and kept.timing.sampling.layout == "time"
    monkeypatch.setattr(sampling, "TIME_KEEP_MAX_BYTES", 0)
    again = gpusim.run("transpose_smem", size="default", mode="timing", gpu=gpu, sample=True)
    assert len(emulated) == 3
    a, b = kept.timing, again.timing
    assert (a.cycles, a.counters, a.stalls, a.stalls_by_pc) == (b.cycles, b.counters, b.stalls, b.stalls_by_pc)
    assert a.sampling == b.sampling
    np.testing.assert_array_equal(kept.args[1], again.args[1])


@pytest.mark.parametrize("name", ["transpose_smem", "histogram_smem"])
def test_a_batch_warms_the_same_sectors_from_its_full_record_as_from_its_sectors(name):
    # KeptForTime may hand a batch recorded in full where a sample asked for its sectors only
    from gpusim.functional.recorder import FULL, SECTORS
    from gpusim.timing.feed import Warming
    from gpusim.timing.sampling import _cut
    recs = []
    for level in (FULL, SECTORS):
        s = stream(name, "default")
        s.next_batch(FULL)
        recs.append(s.next_batch(level))
    full, sectors = recs
    assert (full.first_block, full.n_blocks) == (sectors.first_block, sectors.n_blocks)
    lo, hi = full.first_block, full.first_block + full.n_blocks
    spans = [(hi + 1, hi + 2)]                   # a timed block after the batch: all of it warms
    for dirty in (False, True):
        a, b = (list(_cut(r, spans, [0], (1, 1, 1), dirty)) for r in (full.trace, sectors.sectors))
        assert len(a) == len(b) == 1 and all(isinstance(w, Warming) for w in a + b)
        assert a[0].sectors == b[0].sectors and a[0].options == b[0].options
        assert a[0].sectors
