"""The timeline collector: exact against the timing model's own totals, binning on known inputs."""
import numpy as np
import pytest

from gpusim.analysis.timeline import TimelineCollector, _bin_intervals, auto_bin_cycles, collect_timeline
from gpusim.config import load_gpu
from gpusim.memory.dram import Command, RowOutcome
from gpusim.timing.warp_states import N_STALL_REASONS, STALL_REASONS


def test_auto_bin_width_is_round_and_bounded():
    for cycles in (1, 7, 199, 200, 201, 4959, 123_456, 10**7):
        w = auto_bin_cycles(cycles)
        assert str(w).strip("0") in ("1", "2", "5")
        assert -(-cycles // w) <= 200


def test_bin_intervals_known_values():
    # [0,10) in group 0, [5, 25) in group 1, bins of 10 over 30 cycles
    g = np.array([0, 1])
    b = _bin_intervals(g, np.array([0, 5]), np.array([10, 25]), np.ones(2), 2, 10, 3, 30)
    assert b.tolist() == [[10, 0, 0], [5, 10, 5]]


def test_warp_state_intervals_equal_the_models_totals(transpose_run):
    tl = transpose_run.timeline
    assert np.array_equal(tl.warp_state_cycles(), transpose_run.timing.stalls_by_warp)


def test_intervals_are_merged_runs(transpose_run):
    iv = transpose_run.timeline.intervals
    assert (iv["end"] > iv["start"]).all()
    same = (iv["warp"][1:] == iv["warp"][:-1])
    assert (iv["start"][1:][same] == iv["end"][:-1][same]).all()          # contiguous per warp
    assert not (same & (iv["state"][1:] == iv["state"][:-1])).any()        # no two equal runs in a row


def test_binned_series_sum_to_totals(transpose_run):
    tl, t = transpose_run.timeline, transpose_run.timing
    warp_cycles = (tl.states_sm * tl.bin_width).sum(axis=(0, 2))
    for i, r in enumerate(STALL_REASONS):
        assert warp_cycles[i] == pytest.approx(t.stalls[r])
    assert np.allclose(tl.states_smsp.sum(axis=1), tl.states_sm)
    assert tl.issued.sum() == t.counters["smsp__inst_executed.sum"]
    assert np.array_equal(tl.issued.sum(axis=2), t.per_sm["smsp_inst_executed"])
    # active warps integrate to the resident warp-cycles
    assert (tl.active_warps * tl.bin_width).sum() == pytest.approx(sum(t.stalls.values()))


def test_rebin_keeps_totals(transpose_run):
    tl = transpose_run.timeline
    for w in (1, 7, 1000, 10**6):
        r = tl.rebin(w)
        assert r.bin_cycles == w and r.n_bins == -(-tl.cycles // w)
        assert r.issued.sum() == tl.issued.sum()
        assert (r.states_sm * r.bin_width).sum() == pytest.approx((tl.states_sm * tl.bin_width).sum())


def test_shared_stream_matches_counters(transpose_run):
    tl, c = transpose_run.timeline, transpose_run.counters
    s = tl.shared
    assert s["ways"].sum() == c["memory_l1_wavefronts_shared"]
    assert s["ideal"].sum() == c["memory_l1_wavefronts_shared_ideal"]
    assert s["conflicts"].sum() == c["derived__memory_l1_wavefronts_shared_excessive"]
    assert s["ways"].max() == 32             # transpose through a 32x32 tile: 32-way column reads
    instrs = transpose_run.trace.instructions
    assert all(instrs[pc].mem_space == "shared" for pc in np.unique(s["pc"]))
    assert set(np.unique(s["ptx_line"])) <= {i.ptx_line for i in instrs}
    assert (s["warp"] >= 0).all() and (s["warp"] < transpose_run.trace.n_warps).all()


def test_global_stream_matches_counters(transpose_run):
    tl, c = transpose_run.timeline, transpose_run.counters
    g = tl.global_
    ld = np.array([transpose_run.trace.instructions[pc].is_load for pc in g["pc"]])
    assert g["sectors"][ld].sum() == c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    assert g["sectors"][~ld].sum() == c["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]


def test_dram_stream_matches_counters(transpose_run):
    tl, c = transpose_run.timeline, transpose_run.counters
    d = tl.dram
    col = d["command"] >= Command.RD
    assert col.sum() * tl.dram_burst_bytes == c["dram__bytes_read.sum"] + c["dram__bytes_write.sum"]
    assert (d["outcome"][col] == RowOutcome.HIT).sum() == c["gpusim__dram_row_hits.sum"]
    assert (d["outcome"][col] == RowOutcome.MISS).sum() == c["gpusim__dram_row_misses.sum"]
    assert (d["outcome"][col] == RowOutcome.CONFLICT).sum() == c["gpusim__dram_row_conflicts.sum"]
    assert (d["outcome"][~col] != RowOutcome.HIT).all()       # ACT and PRE serve misses and conflicts
    assert (d["command"] == Command.PRE).sum() == c["gpusim__dram_row_conflicts.sum"]
    assert tl.dram_bytes.sum() == c["dram__bytes_read.sum"] + c["dram__bytes_write.sum"]
    per_ch = np.asarray(c["dram.per_channel.bytes"])
    assert np.array_equal(tl.dram_bytes.sum(axis=1), per_ch)


def test_lazy_timeline_equals_recorded_one():
    import gpusim
    a = gpusim.run("vector_add", size="small", mode="timing", timeline=True)
    b = gpusim.run("vector_add", size="small", mode="timing")
    assert b._timeline is None
    assert np.array_equal(a.timeline.intervals["start"], b.timeline.intervals["start"])
    assert np.array_equal(a.timeline.issued, b.timeline.issued)


def test_user_observer_still_called_with_timeline():
    import gpusim
    from gpusim.timing import TimingObserver

    class Count(TimingObserver):
        n = 0

        def on_issue(self, e):
            self.n += 1

    h = Count()
    r = gpusim.run("vector_add", size="small", mode="timing", observer=h, timeline=True)
    assert h.n == r.counters["smsp__inst_executed.sum"] == r.timeline.issued.sum()


def test_collect_timeline_with_fixed_memory_has_lsu_events_but_no_dram_commands():
    import gpusim
    r = gpusim.run("vector_add", size="small", mode="emulate", record_trace=True)
    t, tl = collect_timeline(r.trace, "h100", memory="fixed")
    assert tl.dram["cycle"].size == 0 and tl.global_["cycle"].size > 0      # the LSU's, whatever the model
    assert (tl.global_["ready"] - tl.global_["cycle"] == load_gpu("h100").latency("global")).all()
    assert np.array_equal(tl.warp_state_cycles(), t.stalls_by_warp)


def test_collector_chunks_large_buffers(monkeypatch):
    import gpusim.analysis.timeline as T
    monkeypatch.setattr(T, "CHUNK", 64)
    import gpusim
    r = gpusim.run("vector_add", size="small", mode="emulate", record_trace=True)
    col = TimelineCollector()
    from gpusim.timing import simulate
    t = simulate(r.trace, "h100", observer=col)
    assert len(col._issues.chunks) > 1 and len(col._states.chunks) > 1
    tl = col.finish(r.trace, t, "h100")
    assert np.array_equal(tl.warp_state_cycles(), t.stalls_by_warp)
    assert tl.states_sm.shape == (132, N_STALL_REASONS, tl.n_bins)
