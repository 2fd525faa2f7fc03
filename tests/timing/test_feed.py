"""The trace streamed to the timing model chunk by chunk (gpusim.timing.feed), as a datasheet: every bundled
program's small sizes time to the same cycles, counters and stall totals whether the trace comes whole or
one block per chunk with the rows compacted after nearly every chunk; the rows held at once follow the
resident blocks, not the kernel's length."""
import numpy as np
import programs
import pytest

import gpusim
from gpusim.api import load_module
from gpusim.config import load_gpu
from gpusim.functional.emulator import Emulator
from gpusim.timing import feed, simulate

SMALL = [(name, size) for name in programs.names() for size in programs.get(name).sizes
         if size.startswith("small")]


def launch(name, size, max_lanes):
    spec = programs.get(name)
    module, _ = load_module(name)
    lnch = spec.launch(size)
    kernel = module.kernel(lnch.kernel)
    emu = Emulator(module, max_lanes=max_lanes)
    kw = dict(symbols=spec.make_symbols(size, 0), shared_mem=int(lnch.shared_mem or 0),
              regs_per_thread=spec.registers(kernel.name))
    return emu, (kernel.name, lnch.grid, lnch.block), kw, spec


def same_timing(a, b):
    assert a.cycles == b.cycles
    assert a.counters == b.counters
    assert a.stalls == b.stalls and a.stalls_by_pc == b.stalls_by_pc
    np.testing.assert_array_equal(a.stalls_by_warp, b.stalls_by_warp)
    np.testing.assert_array_equal(a.warp_end_cycle, b.warp_end_cycle)


@pytest.mark.parametrize("name,size", SMALL, ids=[f"{n}/{s}" for n, s in SMALL])
def test_one_block_per_chunk_times_like_the_whole_trace(name, size, monkeypatch):
    monkeypatch.setattr(feed, "_MIN_COMPACT_ROWS", 16)       # compact at every chunk that finds a quarter dead
    monkeypatch.setattr(feed, "_COMPACT_BATCH_ROWS", 64)     # ... moving the rows in many batches of warps
    spec = programs.get(name)
    emu, (k, grid, block), kw, _ = launch(name, size, max_lanes=1)     # one block per batch
    whole = emu.launch(k, grid, block, spec.make_args(size, 0), record=True, **kw)
    stream = emu.stream(k, grid, block, spec.make_args(size, 0), **kw)
    streamed = simulate(stream, "h100")
    out = stream.finish()
    same_timing(simulate(whole.trace, "h100"), streamed)
    assert streamed.trace_rows["chunks"] == whole.trace.n_blocks
    for a, b in zip(whole.args, out.args):
        np.testing.assert_array_equal(a, b)


def test_gpusim_run_streams_by_default_and_gives_what_the_whole_trace_gives():
    streamed = gpusim.run("vector_add", size="default", mode="timing")
    whole = gpusim.run("vector_add", size="default", mode="timing", record_trace=True)
    same_timing(whole.timing, streamed.timing)
    # 391 blocks, 256 a batch at most: recorded in batches of 1, 2, 4 .. 128 blocks, then the 136 left
    assert streamed.timing.trace_rows["chunks"] == 9
    assert whole.timing.trace_rows["chunks"] == 1
    assert streamed.stats.warp_instructions == whole.stats.warp_instructions
    # the trace of a streamed run is recorded again when asked for: the same rows
    np.testing.assert_array_equal(streamed.trace.pc, whole.trace.pc)


def test_the_rows_held_follow_the_resident_blocks_not_the_kernel_length(monkeypatch):
    # vector_add "default": 391 blocks of 8 warps; on an H100 cut to 4 SMs (8 blocks each) about 12 waves;
    # its 69 k rows are below the size at which the feed starts compacting, so lower that
    monkeypatch.setattr(feed, "_MIN_COMPACT_ROWS", 1024)
    spec = programs.get("vector_add")
    emu, (k, grid, block), kw, _ = launch("vector_add", "default", max_lanes=16 * 256)   # 16 blocks a chunk
    gpu = load_gpu("h100", overrides={"sm.count": 4})
    res = simulate(emu.stream(k, grid, block, spec.make_args("default", 0), **kw), gpu)
    rows = res.trace_rows
    assert rows["chunks"] == 4 + -(-(391 - 15) // 16)         # 1, 2, 4, 8, then 16 blocks a chunk
    assert rows["peak_rows"] < rows["rows"] / 4
    assert rows["compactions"] >= 1


def test_a_compaction_that_would_free_little_is_skipped(monkeypatch):
    # vector_add "default" on the whole H100: its 391 blocks are all resident from the first cycle, so
    # every chunk loads at the initial dispatch, before any row is issued: nothing is dead, nothing copied
    monkeypatch.setattr(feed, "_MIN_COMPACT_ROWS", 16)
    spec = programs.get("vector_add")
    emu, (k, grid, block), kw, _ = launch("vector_add", "default", max_lanes=16 * 256)
    res = simulate(emu.stream(k, grid, block, spec.make_args("default", 0), **kw), "h100")
    assert res.trace_rows["chunks"] > 4
    assert res.trace_rows["compactions"] == 0
    assert res.trace_rows["peak_rows"] == res.trace_rows["rows"]


def test_a_recording_batch_is_sized_by_the_largest_block_seen(monkeypatch):
    # a kernel of few long blocks must not record a whole emulator batch of them at once: at most
    # RECORD_BATCH_ROWS warp instructions a batch (here 3,000: vector_add's blocks take 176 each)
    from gpusim.functional import stream as stream_mod
    monkeypatch.setattr(stream_mod, "RECORD_BATCH_ROWS", 3_000)
    spec = programs.get("vector_add")
    emu, (k, grid, block), kw, _ = launch("vector_add", "default", max_lanes=1 << 16)
    s = emu.stream(k, grid, block, spec.make_args("default", 0), **kw)
    sizes = []
    while not s.done:
        rec = s.next_batch(stream_mod.FULL)
        sizes.append((rec.n_blocks, rec.trace.n_instructions))
    assert sizes[0][1] == 176                                  # 8 warps x 22 instructions
    assert [n for n, _ in sizes[:7]] == [1, 2, 4, 8, 16, 17, 17]      # doubling, then 3,000 // 176
    assert all(rows <= 3_000 for _, rows in sizes) and sum(n for n, _ in sizes) == 391


def test_row_arrays_resize_in_place_unless_a_view_pins_them():
    from array import array
    a = array("i", range(5))
    b = feed._resized(a, 9)
    assert b is a and list(b) == [0, 1, 2, 3, 4, 0, 0, 0, 0]
    assert feed._resized(b, 3) is a and list(a) == [0, 1, 2]
    view = memoryview(a)                     # as the compiled SM's typed memoryviews hold the arrays
    c = feed._resized(a, 6)
    assert c is not a and list(c) == [0, 1, 2, 0, 0, 0] and list(a) == [0, 1, 2]
    view.release()


def test_the_live_rows_are_counted_once_a_chunk_not_once_a_warming_item(monkeypatch):
    # a launch sampled in time warms the caches with the sectors of the blocks it does not time: Warming
    # items between the chunks.  No warp moves between two items, so the rows a compaction would keep are
    # counted once for each chunk appended, not again at every item (jacobi2d large: 1,029 counts -> 249)
    from test_sampling import stream
    monkeypatch.setattr(feed, "_MIN_COMPACT_ROWS", 16)
    counts = {"compact": 0, "append": 0, "warming": 0}

    def counting(name, f):
        def wrapped(*a, **kw):
            counts[name] += 1
            return f(*a, **kw)
        return wrapped
    monkeypatch.setattr(feed.BlockFeed, "compact", counting("compact", feed.BlockFeed.compact))
    monkeypatch.setattr(feed.BlockFeed, "_append", counting("append", feed.BlockFeed._append))
    monkeypatch.setattr(feed.Warming, "__init__", counting("warming", feed.Warming.__init__))
    simulate(stream("transpose_smem", "default"), load_gpu("h100", overrides={"sm.count": 4}), sample="time")
    assert counts["warming"] > counts["append"] > 1
    assert 0 < counts["compact"] < counts["append"]
